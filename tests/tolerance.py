"""How computed floats are compared with a stored reference: one tolerance, with its reason.

Why not exact equality: numpy picks its SIMD kernels when it is imported, by the CPU it
finds (baseline SSE4, AVX2, AVX-512 ...; ``NPY_DISABLE_CPU_FEATURES`` forces them down).
Its vectorised transcendental functions (``np.exp``, ``np.expm1``, ``np.log``, ...) and its
reductions differ in the last bit or two between those kernels: the same code and input
give ``0.5694143118770435`` on an AVX2 machine and ``0.5694143118770434`` on an AVX-512
one. Sums, products and iterative fits carry such a difference on, a little larger, and a
parameter that a fit drives to a bound (a saturating curve's ``E_inf`` at 0) can land
anywhere in ``1e-27 … 1e-20``. A reference written on one CPU must hold on every other.

- ``REL`` = 1e-9 (relative): a few ULPs (2.2e-16 each) multiplied through the sums over
  thousands of events and the fits' iterations stay below 1e-12; a real change of a
  scoring or reader rule moves a figure by far more than 1e-9, and no figure we show has
  more than 6 significant digits.
- ``ABS`` = 1e-12 (absolute), for figures that are mathematically zero (a cancelled sum,
  a parameter at a bound): their computed value is noise around 0.
- ``REL_FIT`` = 1e-6 and ``ABS_FIT`` = 1e-9, for a shipped file that a command regenerates
  through an iterative optimizer (the default fit, a calibrated estimator): the optimizer
  stops once a step improves less than its own tolerance, so a last-bit difference in its
  input can move where it stops by that much. ``ROUNDED`` = 2e-3 for figures the file
  stores rounded to 4 significant digits (the demand fit).

Exact equality stays where it means something: the compiled and the pure-Python path in
one process (tests/compiled/test_speedups.py), and reruns on one machine (``simulate`` writes the
same bytes).
"""

from __future__ import annotations

import math
from typing import Any

REL = 1e-9
ABS = 1e-12
REL_FIT = 1e-6
ABS_FIT = 1e-9
ROUNDED = 2e-3


def close(a: float, b: float, rel: float = REL, abs_: float = ABS) -> bool:
    """True when two numbers agree within the tolerance (integers exactly; NaN equals NaN;
    an infinity only itself)."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def json_diff(
    a: Any,
    b: Any,
    path: str = "",
    rel: float = REL,
    abs_: float = ABS,
    looser: dict[str, float] | None = None,
) -> list[str]:
    """Differences between two JSON values (``a`` the reference): the same structure, the
    same strings and booleans, numbers equal within ``close``. Each difference reads
    ``path: reference vs current``. ``looser`` maps a path prefix (``.demand``) to the
    relative tolerance of the figures under it (``ROUNDED`` for rounded ones)."""
    for prefix, r in (looser or {}).items():
        if path.startswith(prefix):
            rel = max(rel, r)
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(a.keys() ^ b.keys())}"]
        return [d for k in a for d in json_diff(a[k], b[k], f"{path}.{k}", rel, abs_, looser)]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} vs {len(b)} items"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in json_diff(x, y, f"{path}[{i}]", rel, abs_, looser)
        ]
    if _number(a) and _number(b):
        return [] if close(a, b, rel, abs_) else [f"{path}: {a!r} vs {b!r}"]
    return [] if a == b and type(a) is type(b) else [f"{path}: {a!r} vs {b!r}"]


def text_diff(a: str, b: str, rel: float = REL, abs_: float = ABS) -> str | None:
    """Where two texts first differ once their numbers are compared within ``close``
    (the rest byte for byte), or None. For CSV and table outputs, whose numbers a
    reference holds as printed."""
    import re

    number = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
    pa, pb = number.split(a), number.split(b)
    na, nb = number.findall(a), number.findall(b)
    if pa != pb or len(na) != len(nb):
        for i, (x, y) in enumerate(zip(pa, pb, strict=False)):
            if x != y:
                return f"text: {x[:60]!r} vs {y[:60]!r} (after {i} numbers)"
        return f"text: {len(na)} vs {len(nb)} numbers"
    for i, (x, y) in enumerate(zip(na, nb, strict=True)):
        if not close(float(x), float(y), rel, abs_):
            return f"number {i}: {x} vs {y}"
    return None
