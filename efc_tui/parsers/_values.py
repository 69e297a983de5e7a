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
- ``too_deep`` / ``depth`` / ``text_depth``: JSON nested deeper than MAX_DEPTH levels, which
  no reader takes;
- ``dumps``: compact JSON text of anything (never raises).

Booleans are never numbers here (``True`` is not 1 token).
"""

from __future__ import annotations

import math
import re
from itertools import accumulate
from typing import Any

import orjson

#: The largest count any reader takes in (tokens, tool calls, operations, checks), 2**53:
#: every count is then exact as a double, and the sum of two stays below 2**63. A larger one
#: is malformed, like a negative one (docs/trace-format.md, "Limits").
MAX_COUNT = 1 << 53

#: The deepest nesting of objects and arrays any reader takes in (a JSON line or document is
#: level 1): deeper is malformed (docs/trace-format.md, "Limits"). Every value read can then
#: be printed, and written out again (JSON writers stop at 255 levels; a ledger puts a
#: step's fields 5 levels down) without exhausting the Python stack.
MAX_DEPTH = 240

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


def depth(obj: Any) -> int:
    """How many levels of objects and arrays ``obj`` nests (a scalar: 0); iterative, so any
    depth a JSON parser gives is measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, list):
            continue
        deepest = max(deepest, level)
        stack.extend((v, level + 1) for v in value if isinstance(v, dict | list))
    return deepest


def too_deep(raw: bytes | str, obj: Any) -> bool:
    """Does the JSON text ``raw`` (parsed: ``obj``) nest deeper than MAX_DEPTH? Only a text
    with more brackets than that can; it is then measured (``text_depth`` from the bytes,
    ``depth`` from the value of a str: the same answer)."""
    if isinstance(raw, str):
        return raw.count("[") + raw.count("{") > MAX_DEPTH and depth(obj) > MAX_DEPTH
    return raw.count(b"[") + raw.count(b"{") > MAX_DEPTH and text_depth(raw) > MAX_DEPTH


#: every byte but quotes and brackets
_NOT_MARKS = bytes(range(256)).translate(None, b'"[]{}')
_STRINGS = re.compile(rb'"[^"]*"')  # a string, once only its quotes and brackets are left
#: per bracket: +1 opens an object or array, -1 closes one
_BRACKET_STEP = tuple(1 if c in b"[{" else -1 for c in range(256))


def text_depth(raw: bytes) -> int:
    """``depth`` of the value the valid JSON text ``raw`` parses to, from its bytes: the
    deepest nesting of brackets outside strings. Escaped backslashes, then escaped quotes,
    are dropped (left to right, as JSON reads them), so every quote left opens or closes a
    string; only quotes and brackets are kept, the strings dropped (adjacent quotes first:
    most strings hold no bracket), and the deepest level of the brackets left is the depth.
    Bytes operations and one pass over the brackets: linear, and a fraction of the time
    walking the parsed value of a large document takes."""
    if b"\\" in raw:
        if b"\\\\" in raw:
            raw = raw.replace(b"\\\\", b"")
        raw = raw.replace(b'\\"', b"")
    marks = raw.translate(None, _NOT_MARKS).replace(b'""', b"")
    brackets = _STRINGS.sub(b"", marks) if b'"' in marks else marks
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets), initial=0))


_BRACKET = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def deep_position(raw: bytes) -> int:
    """Where ``raw`` first nests deeper than MAX_DEPTH (its byte offset; 0 if it does not):
    for the error message's line, so only on that path."""
    level = 0
    for m in _BRACKET.finditer(raw):
        c = raw[m.start()]
        if c in b"[{":
            level += 1
            if level > MAX_DEPTH:
                return m.start()
        elif c in b"]}":
            level -= 1
    return 0


def parse_json_text(value: Any) -> Any:
    """A string holding a JSON object, array or string, parsed; anything else (and a
    string that is not valid JSON) is returned as it is. Tool-call arguments are a JSON
    string in OpenAI, Codex and mini-swe-agent logs and an object in Anthropic's."""
    if isinstance(value, str):
        s = value.strip()
        if s[:1] in ("{", "[", '"'):
            try:
                parsed = orjson.loads(s)
            except orjson.JSONDecodeError:
                return value
            return value if too_deep(s, parsed) else parsed
    return value


def dumps(value: Any) -> str:
    """Compact JSON text of a value (non-ASCII kept; tool inputs shown as action text);
    never raises."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)
