"""``python -m mdp_client``: the client on the command line, with the output formats of the TypeScript
client's ``mdp`` command. The token comes from MDP_TOKEN, the address from MDP_BASE_URL (default
http://localhost:8080). Exit codes: 0 done, 1 the API refused or failed, 2 a usage error."""

from __future__ import annotations

import argparse
import decimal
import math
import os
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from ._generated.models import SCHEMA_FIELDS
from ._generated.operations import OPERATIONS
from .client import Client
from .errors import MdpError, ParameterError

#: The commands that offer --csv, each with the OpenAPI schema of one row: its columns are every field of
#: that schema in the document's order, so a field the route starts serving is a column too.
CSV_COMMANDS = {"price": "PriceBar"}
PRICE_CSV_COLUMNS: List[str] = SCHEMA_FIELDS[CSV_COMMANDS["price"]]

SEARCH_LIMIT = next(p["schema"] for p in OPERATIONS["searchStocks"]["params"] if p["name"] == "limit")

USAGE = f"""usage: python -m mdp_client <command> [options]

  quote <symbol>                       latest quote (JSON)
  price <symbol> [--days N] [--csv]    daily bars of the last N calendar days (default 365; more than
                                       2,000 follows the pages), oldest first; --csv for every field
                                       of a bar: {",".join(PRICE_CSV_COLUMNS)}
  search <query> [--limit N]           stocks by name, symbol, BSE code or ISIN, best match first
                                       (JSON; --limit {SEARCH_LIMIT["minimum"]} to {SEARCH_LIMIT["maximum"]}, default {SEARCH_LIMIT["default"]})
  usage                                this token's plan and usage today and this month (free)

Environment: MDP_TOKEN (required), MDP_BASE_URL (default http://localhost:8080)."""


class UsageError(Exception):
    pass


def js_number(value: float) -> str:
    """A number as JavaScript writes it (``String(x)``, ``JSON.stringify``), so that this command prints
    what ``mdp`` prints: ``1e-7`` not ``1e-07``, ``100`` not ``100.0``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"
    sign, digits_t, exponent = decimal.Decimal(repr(value)).as_tuple()
    digits = "".join(map(str, digits_t)).rstrip("0") or "0"
    trimmed = len("".join(map(str, digits_t))) - len(digits)
    k = len(digits)
    n = k + int(exponent) + trimmed  # the decimal point sits after n digits
    minus = "-" if sign else ""
    if k <= n <= 21:
        return minus + digits + "0" * (n - k)
    if 0 < n <= 21:
        return minus + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{minus}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _json_string(text: str) -> str:
    # JSON.stringify escapes only quotes, backslashes and control characters; non-ASCII goes as it is.
    out = []
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def to_json(value: Any, indent: int = 2, level: int = 0) -> str:
    """``JSON.stringify(value, null, indent)``."""
    pad = " " * (indent * (level + 1))
    end = " " * (indent * level)
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return js_number(value)
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        items = [f"{pad}{_json_string(str(k))}: {to_json(v, indent, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(pad + to_json(v, indent, level + 1) for v in value) + "\n" + end + "]"
    return _json_string(str(value))


def csv_field(value: Any) -> str:
    """One CSV field (RFC 4180) as ``mdp`` writes it: null is empty; a value with a comma, quote or line
    break is quoted."""
    if value is None:
        return ""
    if isinstance(value, (Mapping, list, tuple)):
        text = to_json(value, 0).replace("\n", "")
    elif isinstance(value, (bool, int, float)):
        text = js_number(value)
    else:
        text = str(value)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_lines(columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> List[str]:
    return [",".join(columns)] + [",".join(csv_field(row.get(c)) for c in columns) for row in rows]


def last_days(client: Client, symbol: str, days: int) -> List[Dict[str, Any]]:
    """Bars of the ``days`` calendar days up to the last session, oldest first, over as many pages as
    those days need (each page at most the route's bound on ``days``)."""
    return list(client.get_price_history_all(symbol, days=days))


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def main(argv: Sequence[str], env: Mapping[str, str], out: Callable[[str], None], err: Callable[[str], None]) -> int:
    parser = _Parser(prog="python -m mdp_client", add_help=False)
    parser.add_argument("command", nargs="?")
    parser.add_argument("symbol", nargs="?")
    parser.add_argument("--days")
    parser.add_argument("--limit")
    parser.add_argument("--csv", action="store_true")
    parser.add_argument("-h", "--help", action="store_true")
    client: Optional[Client] = None
    try:
        args, extra = parser.parse_known_args(list(argv))
        if args.help:
            out(USAGE)
            return 0
        if extra:
            raise UsageError(f"unexpected argument {extra[0]}")
        if not args.command:
            raise UsageError("no command given")
        token = env.get("MDP_TOKEN")
        if not token:
            raise UsageError("set MDP_TOKEN to your API token")
        client = Client(token, env.get("MDP_BASE_URL") or None)

        def need_symbol() -> str:
            if not args.symbol:
                raise UsageError(f"{args.command} needs a {'query' if args.command == 'search' else 'symbol'}")
            return str(args.symbol)

        if args.limit is not None and args.command != "search":
            raise UsageError(f"--limit is an option of search, not of {args.command}")
        if args.command == "search":
            limit = args.limit
            if limit is not None and not (limit.isdigit() and limit.isascii() and len(limit) <= 3 and limit[0] != "0"):
                raise UsageError(f'--limit must be a whole number of at least 1, not "{limit}"')
            found = client.search_stocks(need_symbol(), limit=None if limit is None else int(limit))
            out(to_json(found.data))
            return 0
        if args.command == "quote":
            out(to_json(client.get_stock_quote(need_symbol()).data))
            return 0
        if args.command == "usage":
            if args.symbol:
                raise UsageError(f"unexpected argument {args.symbol}")
            out(to_json(client.get_my_usage().data))
            return 0
        if args.command == "price":
            days = args.days if args.days is not None else "365"
            if not (days.isdigit() and days.isascii() and 1 <= len(days) <= 6 and days[0] != "0"):
                raise UsageError(f'--days must be a whole number of at least 1, not "{days}"')
            wanted = last_days(client, need_symbol(), int(days))
            if args.csv:
                for line in csv_lines(PRICE_CSV_COLUMNS, wanted):
                    out(line)
            else:
                out(to_json(wanted))
            return 0
        raise UsageError(f'unknown command "{args.command}"')
    except UsageError as e:
        err(f"mdp: {e}\n\n{USAGE}")
        return 2
    except ParameterError as e:
        if e.status:
            # The API's own 400: it refused, so exit 1 as for any refusal.
            request = f" [request {e.request_id}]" if e.request_id else ""
            param = f" ({e.param})" if e.param else ""
            err(f"mdp: {e.code}{param}: {e.message}{request}")
            return 1
        # A parameter out of its bounds, caught before any request (a symbol too long, say).
        err(f"mdp: {e}")
        return 2
    except MdpError as e:
        param = f" ({e.param})" if e.param else ""
        request = f" [request {e.request_id}]" if e.request_id else ""
        err(f"mdp: {e.code}{param}: {e.message}{request}")
        return 1
    except ValueError as e:
        err(f"mdp: {e}")
        return 2
    finally:
        if client is not None:
            client.close()


def run() -> None:
    def out(line: str) -> None:
        sys.stdout.write(line + "\n")

    def err(line: str) -> None:
        sys.stderr.write(line + "\n")

    try:
        code = main(sys.argv[1:], os.environ, out, err)
    except BrokenPipeError:
        # `| head` closing the pipe is how a reader runs it, not a failure.
        code = 0
    sys.exit(code)
