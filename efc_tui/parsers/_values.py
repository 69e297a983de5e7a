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
- ``too_deep`` / ``depth``: JSON nested deeper than MAX_DEPTH levels, which
  no reader takes;
- ``dumps``: compact JSON text of anything (never raises).

Booleans are never numbers here (``True`` is not 1 token).
"""

from __future__ import annotations

import math
import re
import sys
from types import ModuleType
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
    if type(value) is int:  # the common case first: a JSON integer
        return value
    if value is None or isinstance(value, bool):
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


def _compiled() -> ModuleType | None:
    """The compiled module (``efc_tui._fast.speedups()``) once a reader has loaded it: the
    readers import ``status``, which imports ``_fast``; sniffing, which imports this module
    before any reader, stays without it (tests/readers/test_detection.py). Either path gives
    the same answers."""
    fast = sys.modules.get("efc_tui._fast")
    return None if fast is None else fast.speedups()


def depth(obj: Any, past: int = sys.maxsize) -> int:
    """How many levels of objects and arrays the parsed JSON value ``obj`` nests (a scalar:
    0); level by level, without recursion, so any depth a JSON parser gives is measured.
    With ``past``, it stops one level beyond it (enough to know it is deeper). A level is
    one list of its containers; exact types, as a JSON parser gives them: a sixth of the
    time reading the depth from the text's brackets took on the real runs. Compiled:
    ``_speedups.json_depth``, the same walk depth first."""
    fast = _compiled()
    if fast is not None:
        return int(fast.json_depth(obj, past))
    if type(obj) is not dict and type(obj) is not list:
        return 0
    level: list[Any] = [obj]
    levels = 0
    while level and levels <= past:
        levels += 1
        level = [
            c
            for v in level
            for c in (v.values() if type(v) is dict else v)
            if type(c) is dict or type(c) is list
        ]
    return levels


#: a JSON text this long is walked at once in pure Python: counting its brackets costs more
#: than walking its value from here on (the JSON lines of ../shared's real logs and a
#: generated Claude Code session, 15,498 lines: at 4-8 KB a count 7.2 us against a walk
#: 6.7 us, at 16-32 KB 29 against 10 us, and almost every line over 16 KB has more brackets
#: than MAX_DEPTH). The compiled walk is quicker than any count: it walks every value.
_COUNT_BELOW = 1 << 12


def too_deep(raw: bytes | str, obj: Any, level: int = 0) -> bool:
    """Does the JSON text ``raw`` (parsed: ``obj``), found ``level`` levels down in its
    document, nest past MAX_DEPTH there? Only a text with more brackets than the levels
    left can (counted in a text under ``_COUNT_BELOW``); its value is then measured (to
    one level past). Compiled, the value is measured at once."""
    fast = _compiled()
    if fast is not None:
        return bool(fast.json_depth(obj, MAX_DEPTH) + level > MAX_DEPTH)
    if len(raw) < _COUNT_BELOW:
        if isinstance(raw, str):
            brackets = raw.count("[") + raw.count("{")
        else:
            brackets = raw.count(b"[") + raw.count(b"{")
        if brackets + level <= MAX_DEPTH:
            return False
    return depth(obj, MAX_DEPTH) + level > MAX_DEPTH


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
