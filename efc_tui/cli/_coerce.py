"""Typer's parameter coercion without importing pydantic for the options we use.

Typer 0.2x converts every command-line value through a pydantic ``TypeAdapter`` built per
parameter: the first option a command parses imports pydantic (~0.15 s of a 0.5 s
``efc-tui score``) and each adapter costs a few milliseconds more. Our options are plain
``str``, ``int``, ``float``, ``bool``, ``Path`` and lists of them, so ``install()`` wraps
Typer's ``build_runtime_param``: for those annotations a value whose conversion is plain
(a ``str`` for ``str``; ``"12"`` for ``int``; ``"0.5"`` or ``"1e-3"`` for ``float``; a
``bool`` for ``bool``; a path string for ``Path``) is converted here, to the value pydantic would return; anything else
(an odd spelling, a value out of ``min``/``max``, ``clamp``, a choice, a custom parser, a bad
value and its error message) goes to Typer's own pydantic path, built only then. Typer's
``coerce_cli_path`` still checks paths (``exists``, ``dir_okay``, ...); a path it refuses
goes through Typer's path again, so the error names the value as it was typed.

The hook is process-wide (every Typer app in the process gets it) and changes no result.
Nothing changes when Typer does not coerce through pydantic (older versions; another
design): ``install()`` finds no hook and leaves Typer alone. ``tests/cli/test_import_cost.py``
compares both paths value by value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from efc_tui._lazy_re import LazyPattern

#: ``int`` spellings converted here: optional sign, ASCII digits (pydantic also takes
#: spaces, underscores and "5.0"; those go to it)
_INT = LazyPattern(r"[+-]?[0-9]{1,18}")
#: ``float`` spellings converted here: decimal, optional exponent (no inf/nan, no "_")
_FLOAT = LazyPattern(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")


class _Slow(Exception):
    """This value is for Typer's own (pydantic) coercion."""


def _to_str(value: Any) -> str:
    if type(value) is str:
        return value
    raise _Slow


def _to_int(value: Any) -> int:
    if type(value) is int:
        return value
    if type(value) is str and len(value) <= 19 and _INT.rx.fullmatch(value):
        return int(value)
    raise _Slow


def _to_float(value: Any) -> float:
    if type(value) is float:
        return value
    if type(value) is int:
        return float(value)
    if type(value) is str and len(value) <= 40 and _FLOAT.rx.fullmatch(value):
        return float(value)
    raise _Slow


def _to_bool(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise _Slow


_LEAVES = {str: _to_str, int: _to_int, float: _to_float, bool: _to_bool}


def install() -> bool:
    """Route Typer's coercion of plain options through this module; False when this Typer
    has no such hook (then nothing is changed)."""
    try:
        from typer import _coercion, _param_types, core
    except ImportError:
        return False
    original: Any = getattr(core, "build_runtime_param", None)
    base = getattr(_coercion, "RuntimeParam", None)
    coerce_path = getattr(_param_types, "coerce_cli_path", None)
    bad_parameter = getattr(_coercion, "BadParameter", None)
    if original is None or base is None or coerce_path is None or bad_parameter is None:
        return False
    if getattr(original, "_efc_light", False):
        return True

    @dataclass(frozen=True)
    class LightParam(base):  # type: ignore[misc, valid-type]
        """Plain values converted here; the rest by Typer's runtime param, built on demand."""

        descriptor: Any = None
        leaf: Any = None
        is_list: bool = False
        slow: list[Any] = field(default_factory=list)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                if self.is_list:
                    items = value if isinstance(value, (list, tuple)) else [value]
                    return [self.leaf(item, param, ctx) for item in items]
                return self.leaf(value, param, ctx)
            except _Slow:
                if not self.slow:
                    self.slow.append(original(self.descriptor))
                return self.slow[0]._coerce_value(value, param=param, ctx=ctx)

    def leaf_for(annotation: Any, info: Any) -> Any:
        """The fast conversion of one value of ``annotation``, or None (Typer's path)."""
        if annotation in _LEAVES:
            convert = _LEAVES[annotation]
            lo, hi = getattr(info, "min", None), getattr(info, "max", None)
            if annotation in (int, float) and getattr(info, "clamp", False):
                return None
            if annotation not in (int, float) or (lo is None and hi is None):
                return lambda value, param, ctx: convert(value)

            def ranged(value: Any, param: Any, ctx: Any) -> Any:
                v = convert(value)
                if (lo is not None and not v >= lo) or (hi is not None and not v <= hi):
                    raise _Slow  # out of range: Typer words the error
                return v

            return ranged
        if annotation is Path and getattr(info, "path_type", None) is None:

            def path(value: Any, param: Any, ctx: Any) -> Any:
                if type(value) is not str or not value or "\x00" in value:
                    raise _Slow
                try:
                    return coerce_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
                except bad_parameter:
                    raise _Slow from None  # worded by Typer, naming the value as given

            return path
        return None

    def build(descriptor: Any) -> Any:
        annotation: Any = getattr(descriptor, "annotation", None)
        info = getattr(descriptor, "parameter_info", None)
        plain = (
            info is not None
            and getattr(descriptor, "file_annotation", True) is None
            and getattr(info, "parser", True) is None
            and not getattr(descriptor, "is_choice", True)
        )
        is_list = getattr(annotation, "__origin__", None) is list
        item = annotation.__args__[0] if is_list and len(annotation.__args__) == 1 else annotation
        leaf = leaf_for(item, info) if plain else None
        if leaf is None:
            return original(descriptor)
        return LightParam(info, annotation, descriptor=descriptor, leaf=leaf, is_list=is_list)

    build._efc_light = True  # type: ignore[attr-defined]
    core.build_runtime_param = build
    return True
