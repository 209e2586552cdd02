"""pandas DataFrames of price history, index history, financials and option chains, when pandas is
installed (it is never required: without it these methods raise ImportError saying how to get it).

Column types follow the OpenAPI document's field kinds (generated FIELD_TYPES): integers int64 (Int64
when they may be null), numbers float64, strings pandas' string dtype, booleans bool, and dates as
datetimes in IST (Asia/Kolkata): a session date is midnight IST of that day, so converting to another
zone never moves it to another day by accident, and the API's UTC instants (``snapshot_ts``) are shown
in IST too.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from ._generated.models import FIELD_TYPES, SCHEMA_FIELDS, UNIONS
from ._generated.operations import OPERATIONS
from .errors import MdpError

if TYPE_CHECKING:  # pragma: no cover
    import pandas

IST = "Asia/Kolkata"

PANDAS_MISSING = (
    "mdp_client's DataFrame conversions need pandas, which the package does not install (the client itself "
    "uses only the standard library): pip install pandas, or on Debian/Ubuntu apt-get install python3-pandas"
)


def require_pandas() -> Any:
    try:
        import pandas
    except ImportError as err:
        raise ImportError(PANDAS_MISSING) from err
    return pandas


def _columns(schema: str, prefix: str = "", nullable: bool = False) -> List[Tuple[str, Tuple[str, ...], str]]:
    """(column, path into the row, kind) for each field of an object schema; a nested object's fields are
    columns of their own (``call_iv``), null when the object is."""
    out: List[Tuple[str, Tuple[str, ...], str]] = []
    for name in SCHEMA_FIELDS[schema]:
        kind = FIELD_TYPES[schema][name]
        may_be_null = nullable or kind.endswith("?")
        base = kind.rstrip("?")
        if base.startswith("ref:") and base[4:] in SCHEMA_FIELDS:
            for column, path, sub in _columns(base[4:], f"{prefix}{name}_", may_be_null):
                out.append((column, (name,) + path, sub))
        else:
            out.append((prefix + name, (name,), base + ("?" if may_be_null else "")))
    return out


def _dig(row: Mapping[str, Any], path: Sequence[str]) -> Any:
    value: Any = row
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _series(pd: Any, values: List[Any], kind: str) -> Any:
    base = kind.rstrip("?")
    nullable = kind.endswith("?") or any(v is None for v in values)
    if base == "date":
        return pd.to_datetime(pd.Series(values, dtype="object"), format="%Y-%m-%d").dt.tz_localize(IST)
    if base == "date-time":
        return pd.to_datetime(pd.Series(values, dtype="object"), utc=True).dt.tz_convert(IST)
    if base == "integer":
        return pd.Series(values, dtype="Int64" if nullable else "int64")
    if base == "number":
        return pd.Series([float("nan") if v is None else float(v) for v in values], dtype="float64")
    if base == "boolean":
        return pd.Series(values, dtype="boolean" if nullable else "bool")
    if base == "string":
        return pd.Series(values, dtype="string")
    return pd.Series(values, dtype="object")


def records_frame(rows: Sequence[Mapping[str, Any]], schema: str) -> "pandas.DataFrame":
    """A DataFrame of rows of one object schema of the document, a typed column per field (nested objects
    flattened), in the document's order."""
    pd = require_pandas()
    columns = _columns(schema)
    return pd.DataFrame({name: _series(pd, [_dig(r, path) for r in rows], kind) for name, path, kind in columns})


def _schema_of(rows: Sequence[Mapping[str, Any]], candidates: Sequence[str]) -> str:
    """Which of a route's row schemas these rows are: the one whose fields they carry."""
    if rows:
        keys = set(rows[0])
        for name in candidates:
            if set(SCHEMA_FIELDS[name]) == keys:
                return name
        raise ValueError(f"rows of fields {sorted(keys)} are none of {', '.join(candidates)}")
    return candidates[0]


def _list_field(schema: str) -> Tuple[str, str]:
    """A document's one list of records: (field, row schema)."""
    found = [
        (name, kind[len("array:ref:"):].rstrip("?"))
        for name, kind in FIELD_TYPES[schema].items()
        if kind.startswith("array:ref:")
    ]
    if len(found) != 1:
        raise ValueError(f"{schema} has {len(found)} lists of records, not one")
    return found[0]


def _scalars(document: Mapping[str, Any], schema: str) -> Dict[str, Any]:
    """The document's single-valued fields (dates and instants as IST Timestamps), for ``DataFrame.attrs``."""
    pd = require_pandas()
    out: Dict[str, Any] = {}
    for name, kind in FIELD_TYPES[schema].items():
        base = kind.rstrip("?")
        value = document.get(name)
        if base in ("date", "date-time") and value is not None:
            out[name] = _series(pd, [value], base).iloc[0]
        elif base in ("string", "integer", "number", "boolean"):
            out[name] = value
    return out


def _bars_frame(rows: Sequence[Mapping[str, Any]], operation_id: str) -> "pandas.DataFrame":
    frame = records_frame(rows, _schema_of(rows, OPERATIONS[operation_id]["data_schemas"]))
    return frame.set_index(frame.columns[0])


def _variant(document: Mapping[str, Any], schema: str) -> str:
    """Which member of a union schema a document is: the one whose fields and rows it carries."""
    variants = UNIONS.get(schema)
    if not variants:
        return schema
    for name in variants:
        if set(document) <= set(SCHEMA_FIELDS[name]):
            field, row = _list_field(name)
            rows = document.get(field) or []
            if not rows or set(rows[0]) == set(SCHEMA_FIELDS[row]):
                return name
    raise ValueError(f"the document is none of {', '.join(variants)}")


class Frames:
    """DataFrame conversions (the Client inherits them). Each takes its route's parameters by name, as the
    route's method does."""

    def _call(self, operation_id: str, params: Dict[str, Any], options: Any) -> Any:
        raise NotImplementedError

    def _all(self, operation_id: str, params: Dict[str, Any], options: Any) -> Any:
        raise NotImplementedError

    def price_history_frame(
        self,
        symbol: str,
        *,
        days: Optional[int] = None,
        interval: Optional[Literal["daily", "weekly"]] = None,
        end_date: Optional[Union[str, datetime.date]] = None,
        all_pages: bool = False,
        options: Any = None,
    ) -> "pandas.DataFrame":
        """Price bars as a DataFrame indexed by ``date`` (IST), oldest first: those of the last ``days``
        calendar days up to ``end_date`` (default today), any number of days, over as many pages as they
        need (a page holds at most 2,000 days; one request and one unit each). Without ``days``: the
        route's default 365 days, or with ``all_pages=True`` the whole history. ``interval`` is
        ``daily`` (default) or ``weekly``.

        When a page fails midway (``QuotaError`` when the quota runs out), the exception's ``partial`` is a
        DataFrame of the bars fetched before it."""
        require_pandas()
        op = "getPriceHistory"
        params = {"symbol": symbol, "days": days, "interval": interval, "end_date": end_date}
        try:
            if days is not None or all_pages:
                rows = self._all(op, params, options)
            else:
                rows = self._call(op, params, options).data
        except MdpError as err:
            if isinstance(err.partial, list):
                err.partial = _bars_frame(err.partial, op)
            raise
        return _bars_frame(rows, op)

    def index_history_frame(
        self,
        name: str,
        *,
        interval: Optional[Literal["1m", "3m", "6m", "1y", "2y", "max"]] = None,
        options: Any = None,
    ) -> "pandas.DataFrame":
        """``get_index_history``'s bars as a DataFrame indexed by ``date`` (IST), oldest first; the
        document's other fields (name, family, bar_interval, …) in ``attrs``."""
        require_pandas()
        op = "getIndexHistory"
        document = self._call(op, {"name": name, "interval": interval}, options).data
        schema = _variant(document, OPERATIONS[op]["data_schemas"][0])
        field, row = _list_field(schema)
        frame = records_frame(document[field], row)
        frame = frame.set_index(frame.columns[0])
        frame.attrs.update(_scalars(document, schema))
        return frame

    def option_chain_frame(
        self,
        symbol: Literal["NIFTY", "BANKNIFTY", "FINNIFTY", "MIDCPNIFTY"],
        *,
        expiry: Optional[Union[str, datetime.date]] = None,
        strikes: Optional[int] = None,
        options: Any = None,
    ) -> "pandas.DataFrame":
        """``get_option_chain`` as a DataFrame of one row per strike: ``strike``, then ``call_*`` and
        ``put_*`` columns of each side's quote and analytics (null where the side is not listed); the
        document's other fields (expiry, snapshot_ts in IST, underlying_price, …) in ``attrs``."""
        require_pandas()
        op = "getOptionChain"
        document = self._call(op, {"symbol": symbol, "expiry": expiry, "strikes": strikes}, options).data
        schema = OPERATIONS[op]["data_schemas"][0]
        field, row = _list_field(schema)
        frame = records_frame(document[field], row)
        frame.attrs.update(_scalars(document, schema))
        return frame

    def financials_frame(
        self,
        symbol: str,
        *,
        section: Optional[
            Literal[
                "quarterly", "quarters", "quarterly_results", "profit_loss", "income_statement", "pnl",
                "balance_sheet", "bs", "cash_flow", "cf", "ratios",
            ]
        ] = None,
        periods: Optional[int] = None,
        quarters: Optional[int] = None,
        options: Any = None,
    ) -> "pandas.DataFrame":
        """``get_financials`` as a DataFrame of float64 figures: a row per line item in display order, a
        column per period oldest first. With ``section`` one section; without, every section, indexed by
        (section, row). ``attrs`` has ``unit``, and per period its ``period_end`` and ``available_from``
        (IST dates)."""
        pd = require_pandas()
        op = "getFinancials"
        params = {"symbol": symbol, "section": section, "periods": periods, "quarters": quarters}
        document = self._call(op, params, options).data
        schema = OPERATIONS[op]["data_schemas"][0]
        sections = [
            name
            for name, kind in FIELD_TYPES[schema].items()
            if kind.startswith("ref:") and name in document
        ]
        parts = []
        period_end: Dict[str, Any] = {}
        available_from: Dict[str, Any] = {}
        for name in sections:
            section = document[name]
            periods = section["periods"]
            rows = section["row_order"]
            values = [
                [float("nan") if section["data"].get(r, {}).get(p) is None else float(section["data"][r][p]) for p in periods]
                for r in rows
            ]
            part = pd.DataFrame(values, index=pd.Index(rows, name="row"), columns=pd.Index(periods, name="period"), dtype="float64")
            parts.append((name, part))
            for entry in section["availability"]:
                period_end[entry["period"]] = _series(pd, [entry["period_end"]], "date").iloc[0]
                available_from[entry["period"]] = _series(pd, [entry["available_from"]], "date").iloc[0]
        if len(parts) == 1:
            frame = parts[0][1]
        else:
            frame = pd.concat({name: part for name, part in parts}, names=["section", "row"]) if parts else pd.DataFrame(dtype="float64")
        frame.attrs.update(_scalars(document, schema))
        frame.attrs["period_end"] = period_end
        frame.attrs["available_from"] = available_from
        return frame
