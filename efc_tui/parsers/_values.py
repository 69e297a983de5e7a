"""Reading values out of JSON whose shape we do not control: one meaning per name, for
every reader.

- ``as_dict`` / ``as_list``: the value when it has that type, else an empty one;
- ``as_str``: the string, else ``""``; ``opt_str``: a non-empty string, else None;
  ``id_str``: an identifier, which some formats write as a number (``42`` -> ``"42"``);
- ``as_int``: an integer, negative ones included (exit codes), from an int, an integral
  float or a decimal string (OTLP writes ``intValue`` as a string); ``12.5`` is not one;
- ``opt_count`` / ``as_count``: a count (tokens, calls): an ``as_int`` in
  ``[0, MAX_COUNT]``; None resp. 0 when absent or malformed (negative, or past MAX_COUNT);
- ``as_float``: a finite number, from a number or a numeric string;
- ``parse_json_text``: tool arguments and other fields that hold JSON as a string;
- ``dumps``: compact JSON text of anything (never raises).

Booleans are never numbers here (``True`` is not 1 token).
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

#: The largest count any reader takes in (tokens, tool calls, operations, checks), 2**53:
#: every count is then exact as a double, the sum of two stays below 2**63, and the compiled
#: path (efc_tui/_speedups.c, MAX_COUNT) reads the same values as Python. A larger one is
#: malformed, like a negative one (docs/trace-format.md, "Limits").
MAX_COUNT = 1 << 53

_INT_TEXT = re.compile(r"[+-]?\d{1,20}(?:\.0*)?")


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    """A string field, or "" when it is absent or not a string."""
    return value if isinstance(value, str) else ""


def opt_str(value: Any) -> str | None:
    """A non-empty string field, or None."""
    return value if isinstance(value, str) and value else None


def id_str(value: Any) -> str | None:
    """An identifier: a non-empty string, or an integer written as a number."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def as_int(value: Any) -> int | None:
    """An integer (negative ones too) from an int, an integral float or a decimal string
    (``"-5"``, ``"1200"``, ``"3.0"``); None for anything else (bools, ``12.5``, ``"1e3"``,
    non-finite floats)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, str):
        s = value.strip()
        if _INT_TEXT.fullmatch(s):
            return int(s.split(".")[0])
    return None


def opt_count(value: Any) -> int | None:
    """A count (tokens, calls): an integer in ``[0, MAX_COUNT]``, or None."""
    n = as_int(value)
    return n if n is not None and 0 <= n <= MAX_COUNT else None


def as_count(value: Any) -> int:
    """A count, 0 when absent or malformed."""
    return opt_count(value) or 0


def as_float(value: Any) -> float | None:
    """A finite number from a number or a numeric string, else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        f = float(value)
    elif isinstance(value, str):
        try:
            f = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


def parse_json_text(value: Any) -> Any:
    """A string holding a JSON object, array or string, parsed; anything else (and a
    string that is not valid JSON) is returned as it is. Tool-call arguments are a JSON
    string in OpenAI, Codex and mini-swe-agent logs and an object in Anthropic's."""
    if isinstance(value, str):
        s = value.strip()
        if s[:1] in ("{", "[", '"'):
            try:
                return orjson.loads(s)
            except orjson.JSONDecodeError:
                return value
    return value


def dumps(value: Any) -> str:
    """Compact JSON text of a value (non-ASCII kept; tool inputs shown as action text);
    never raises."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)
