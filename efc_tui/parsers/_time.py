"""Timestamps in agent logs, as unix seconds: one reading for every reader.

Logs write times as ISO-8601 strings (``Z``, an offset, or naive, which is read as UTC;
fractions of any length), as unix numbers in seconds, milliseconds, microseconds or
nanoseconds (told apart by magnitude: a time in seconds is below 1e11, i.e. before the
year 5138), as decimal strings of those numbers (OTLP ``startTimeUnixNano``), or as a JS
``[seconds, nanoseconds]`` pair (OpenTelemetry JS span dumps).
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

_NUMBER = re.compile(r"\d+(?:\.\d+)?")

#: above these a unix time is in ns / µs / ms rather than seconds
_NS, _US, _MS = 1e17, 1e14, 1e11


def iso_seconds(text: str) -> float | None:
    """Unix seconds of an ISO-8601 string (naive means UTC); None when it is not one."""
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


def unix_seconds(f: float) -> float | None:
    """A positive unix time in s, ms, µs or ns as seconds; None when not positive/finite."""
    if not math.isfinite(f) or f <= 0:
        return None
    if f > _NS:
        return f / 1e9
    if f > _US:
        return f / 1e6
    if f > _MS:
        return f / 1e3
    return f


def parse_time(value: Any) -> float | None:
    """Unix seconds of a timestamp in any of the shapes above; None when it is not one."""
    if isinstance(value, str):  # the common case first (nearly every line of a JSONL log)
        s = value.strip()
        if not s or len(s) > 64:
            return None
        # an ISO date's fifth character is "-", which no number holds
        if s[4:5] != "-" and _NUMBER.fullmatch(s):
            return unix_seconds(float(s))
        return iso_seconds(s[:-1] + "Z" if s.endswith("z") else s)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return unix_seconds(float(value))
    if isinstance(value, list | tuple) and len(value) == 2:
        sec, ns = value
        if all(isinstance(x, int | float) and not isinstance(x, bool) for x in (sec, ns)):
            t = float(sec) + float(ns) / 1e9
            return t if math.isfinite(t) and t > 0 else None
    return None
