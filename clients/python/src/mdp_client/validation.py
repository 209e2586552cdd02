"""Parameters checked against the bounds the OpenAPI document publishes, before any request is made.

The server refuses the same values with ``400 invalid_request`` (free, but a round trip and a burst-cap
slot); raising here names the parameter at once. Every bound comes from the generated operation table.

Values are taken as a data program holds them, with no numpy or pandas import: a whole number is
anything with ``__index__`` (``numpy.int64``) or a float without a fraction (``numpy.float64(30.0)``);
a date is a ``datetime.date``, a midnight ``datetime`` (``pandas.Timestamp``, in any time zone: its own
calendar date), a ``numpy.datetime64`` of a day, or ``YYYY-MM-DD``; a list is any iterable that is not a
string (a ``pandas.Series``, a ``numpy`` array, an ``Index``, a tuple, a generator).
"""

from __future__ import annotations

import datetime
import numbers
import operator
import re
from typing import Any, Dict, List, Mapping, Tuple
from urllib.parse import quote, unquote

from .errors import ParameterError

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")
_patterns: Dict[str, "re.Pattern[str]"] = {}


def _pattern(source: str) -> "re.Pattern[str]":
    # JSON Schema patterns are ECMAScript regular expressions: `$` is the end of the text (Python's also
    # matches before a final newline) and `\d` is ASCII (Python's is every Unicode digit).
    compiled = _patterns.get(source)
    if compiled is None:
        translated = source[:-1] + r"\Z" if source.endswith("$") and not source.endswith(r"\$") else source
        compiled = _patterns[source] = re.compile(translated, re.ASCII)
    return compiled


def _is_bool(value: Any) -> bool:
    # bool is an int in Python, and never what a caller meant; numpy's is numpy.bool_ (numpy.bool in 2.x).
    return isinstance(value, bool) or type(value).__name__ in ("bool_", "bool8") or (
        type(value).__name__ == "bool" and type(value).__module__ == "numpy"
    )


def whole_number(name: str, value: Any) -> int:
    """``value`` as an int: an int, anything with ``__index__`` (numpy's integers), or a float with no
    fraction (numpy's floats, a pandas column with gaps); ParameterError otherwise."""
    if _is_bool(value) or isinstance(value, (str, bytes)):
        raise ParameterError(name, f"must be a whole number (got {value!r})")
    if hasattr(type(value), "__index__"):
        try:
            return operator.index(value)
        except TypeError:
            pass
    if isinstance(value, numbers.Real):
        number = float(value)
        if number.is_integer():
            return int(number)
        raise ParameterError(name, f"must be a whole number (got {number!r})")
    raise ParameterError(name, f"must be a whole number (got {value!r} of type {type(value).__name__})")


def calendar_date(name: str, value: Any) -> str:
    """``value`` as ``YYYY-MM-DD``, or ParameterError."""
    if isinstance(value, datetime.datetime):
        # pandas.Timestamp is a datetime; so is pandas.NaT, which equals nothing, itself included.
        if value != value:
            raise ParameterError(name, f"must be a date (got {value!r})")
        if value.time() != datetime.time(0) or getattr(value, "nanosecond", 0):
            raise ParameterError(
                name, f"must be a date, not a time of day (got {value!r}); pass its .date() for that day"
            )
        return value.date().isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if type(value).__name__ == "datetime64":
        # numpy.datetime64: '2024-01-05', or '2024-01-05T00:00:00.000000000' at a finer unit; 'NaT'.
        day, _, time = str(value).partition("T")
        if time.strip("0:.") or not _DATE.match(day):
            raise ParameterError(name, f"must be a date, not a time of day (got {value!r})")
        value = day
    if not isinstance(value, str) or not _DATE.match(value):
        raise ParameterError(name, f"must be a date YYYY-MM-DD (got {value!r})")
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        raise ParameterError(name, f"is not a calendar date (got {value!r})") from None
    return str(value)


def _scalar(name: str, value: Any, schema: Mapping[str, Any]) -> str:
    """One value as the query string carries it, or ParameterError."""
    kind = schema.get("type")
    if "enum" in schema:
        enum = schema["enum"]
        if isinstance(value, str) and value in enum:
            return str(value)
        if not isinstance(value, str) and not _is_bool(value) and any(type(e) is int for e in enum):
            try:
                if whole_number(name, value) in enum:
                    return str(whole_number(name, value))
            except ParameterError:
                pass
        raise ParameterError(name, f"must be one of {', '.join(map(str, schema['enum']))} (got {value!r})")
    if kind == "integer":
        number = whole_number(name, value)
        if "minimum" in schema and number < schema["minimum"]:
            raise ParameterError(name, f"must be at least {schema['minimum']} (got {number})")
        if "maximum" in schema and number > schema["maximum"]:
            raise ParameterError(name, f"must be at most {schema['maximum']} (got {number})")
        return str(number)
    if schema.get("format") == "date":
        return calendar_date(name, value)
    if not isinstance(value, str):
        raise ParameterError(name, f"must be a string (got {value!r})")
    value = str(value)  # numpy.str_ and other subclasses, as plain text
    if "minLength" in schema and len(value) < schema["minLength"]:
        raise ParameterError(name, f"must be at least {schema['minLength']} characters (got {value!r})")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise ParameterError(name, f"must be at most {schema['maxLength']} characters (got {len(value)})")
    if "pattern" in schema and not _pattern(schema["pattern"]).match(value):
        raise ParameterError(name, f"must match {schema['pattern']} (got {value!r})")
    return value


def items_of(name: str, value: Any) -> List[Any]:
    """The items of a list parameter: one value for a one-item list (a string is never a list of its
    characters); a list, tuple, set, generator, numpy array, pandas Series or Index as its items."""
    if isinstance(value, (str, bytes)):
        return [value]
    if isinstance(value, Mapping):
        raise ParameterError(name, f"must be a list, not a mapping (got {value!r})")
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        # numpy arrays and pandas Series/Index: their items as Python values (numpy.str_ -> str).
        items = tolist()
        return items if isinstance(items, list) else [items]
    try:
        return list(value)
    except TypeError:
        raise ParameterError(name, f"must be a list (got {value!r})") from None


def _value(name: str, value: Any, schema: Mapping[str, Any]) -> str:
    if schema.get("type") != "array":
        return _scalar(name, value, schema)
    items = items_of(name, value)
    if "minItems" in schema and len(items) < schema["minItems"]:
        raise ParameterError(name, f"must have at least {schema['minItems']} item(s)")
    if "maxItems" in schema and len(items) > schema["maxItems"]:
        raise ParameterError(name, f"must have at most {schema['maxItems']} items (got {len(items)})")
    out = []
    for item in items:
        text = _scalar(name, item, schema.get("items", {}))
        # The list travels as one comma-separated value: an item with a comma would become two.
        if "," in text:
            raise ParameterError(name, f"an item may not contain a comma (got {item!r})")
        out.append(text)
    if schema.get("uniqueItems") and len(set(out)) != len(out):
        raise ParameterError(name, "must not repeat an item")
    return ",".join(out)


def _path_value(name: str, value: Any, schema: Mapping[str, Any]) -> str:
    try:
        return _value(name, value, schema)
    except ParameterError:
        # A value percent-encoded by hand (`M%26M`, as older documentation advised) is taken as what it
        # stands for when that is valid and the text as given is not: the client encodes it itself.
        if isinstance(value, str) and "%" in value and unquote(value) != value:
            try:
                return _value(name, unquote(value), schema)
            except ParameterError:
                pass
        raise


def prepare(operation: Mapping[str, Any], params: Mapping[str, Any]) -> Tuple[str, List[Tuple[str, str]]]:
    """The path (its parameters filled in and percent-encoded) and the query of a call, every value
    checked against its published schema; None means not sent."""
    known = {p["name"] for p in operation["params"]}
    for name in params:
        if name not in known:
            raise ParameterError(name, f"is not a parameter of {operation['path']}")
    path: str = operation["path"]
    query: List[Tuple[str, str]] = []
    for p in operation["params"]:
        name = p["name"]
        value = params.get(name)
        if value is None:
            if p["required"]:
                raise ParameterError(name, "is required")
            continue
        if p["in"] == "path":
            # Encoded here: `M&M` travels as `M%26M`, a `/` may not split the path, a space is %20.
            text = _path_value(name, value, p["schema"])
            path = path.replace("{" + name + "}", quote(text, safe=""))
            continue
        try:
            text = _value(name, value, p["schema"])
        except ParameterError as err:
            cursor = operation.get("cursor")
            if cursor and name == "days" and "at most" in err.problem:
                method = operation.get("method", "")
                raise ParameterError(
                    name,
                    f"{err.problem}: one page holds at most {p['schema']['maximum']} days; "
                    f"{method}_all(...) or {method}_pages(...) take any number, a page at a time",
                ) from None
            raise
        query.append((name, text))
    return path, query


def query_string(query: List[Tuple[str, str]]) -> str:
    """``a=1&b=x,y``: a list's commas stay commas, as the API reads them; `&` in a value is %26."""
    return "&".join(f"{quote(k, safe='')}={quote(v, safe=',')}" for k, v in query)
