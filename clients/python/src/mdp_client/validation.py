"""Parameters checked against the bounds the OpenAPI document publishes, before any request is made.

The server refuses the same values with ``400 invalid_request`` (free, but a round trip and a burst-cap
slot); raising here names the parameter at once. Every bound comes from the generated operation table.
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Dict, List, Mapping, Tuple
from urllib.parse import quote

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


def _scalar(name: str, value: Any, schema: Mapping[str, Any]) -> str:
    """One value as the query string carries it, or ParameterError."""
    kind = schema.get("type")
    if "enum" in schema:
        if value not in schema["enum"]:
            raise ParameterError(name, f"must be one of {', '.join(map(str, schema['enum']))} (got {value!r})")
        return str(value)
    if kind == "integer":
        # bool is an int in Python, and never what a caller meant.
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParameterError(name, f"must be a whole number (got {value!r})")
        if "minimum" in schema and value < schema["minimum"]:
            raise ParameterError(name, f"must be at least {schema['minimum']} (got {value})")
        if "maximum" in schema and value > schema["maximum"]:
            raise ParameterError(name, f"must be at most {schema['maximum']} (got {value})")
        return str(value)
    if schema.get("format") == "date":
        if isinstance(value, datetime.datetime):
            raise ParameterError(name, f"must be a date, not a date and time (got {value!r})")
        if isinstance(value, datetime.date):
            return value.isoformat()
        if not isinstance(value, str) or not _DATE.match(value):
            raise ParameterError(name, f"must be a date YYYY-MM-DD (got {value!r})")
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            raise ParameterError(name, f"is not a calendar date (got {value!r})") from None
        return value
    if not isinstance(value, str):
        raise ParameterError(name, f"must be a string (got {value!r})")
    if "minLength" in schema and len(value) < schema["minLength"]:
        raise ParameterError(name, f"must be at least {schema['minLength']} characters (got {value!r})")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise ParameterError(name, f"must be at most {schema['maxLength']} characters (got {len(value)})")
    if "pattern" in schema and not _pattern(schema["pattern"]).match(value):
        raise ParameterError(name, f"must match {schema['pattern']} (got {value!r})")
    return value


def _value(name: str, value: Any, schema: Mapping[str, Any]) -> str:
    if schema.get("type") != "array":
        return _scalar(name, value, schema)
    # One value for a one-item list is what a caller means; a string is never a list of its characters.
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise ParameterError(name, f"must be a list (got {value!r})")
    if "minItems" in schema and len(items) < schema["minItems"]:
        raise ParameterError(name, f"must have at least {schema['minItems']} item(s)")
    if "maxItems" in schema and len(items) > schema["maxItems"]:
        raise ParameterError(name, f"must have at most {schema['maxItems']} items (got {len(items)})")
    if schema.get("uniqueItems") and len(set(items)) != len(items):
        raise ParameterError(name, "must not repeat an item")
    out = []
    for item in items:
        text = _scalar(name, item, schema.get("items", {}))
        # The list travels as one comma-separated value: an item with a comma would become two.
        if "," in text:
            raise ParameterError(name, f"an item may not contain a comma (got {item!r})")
        out.append(text)
    return ",".join(out)


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
        text = _value(name, value, p["schema"])
        if p["in"] == "path":
            # `&` in a symbol travels as %26 (SPEC 4), `/` may not split the path.
            path = path.replace("{" + name + "}", quote(text, safe=""))
        else:
            query.append((name, text))
    return path, query


def query_string(query: List[Tuple[str, str]]) -> str:
    """``a=1&b=x,y``: a list's commas stay commas, as the API reads them."""
    return "&".join(f"{quote(k, safe='')}={quote(v, safe=',')}" for k, v in query)
