"""A small braille line chart as Rich ``Text`` lines (no Textual, no plotting library).

Each cell holds a 2×4 grid of braille dots, so a 40×10 chart draws 80×40 points. Series
are resampled to the pixel grid with ``np.interp`` before drawing (``downsample``), so a
100k-point series is drawn from as many points as the plot is dots wide; a widget that
redraws one often keeps the downsampled series instead of resampling it each frame. Markers (single characters) and vertical rules are drawn
over the dots. Deterministic output, so SVG snapshots are stable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text

from efc_tui._lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy_module("numpy")

_BRAILLE = 0x2800
# dot bit for (x in 0..1, y in 0..3) inside a cell (y from the top)
_DOT = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


@dataclass(slots=True)
class Series:
    xs: np.ndarray
    ys: np.ndarray
    style: str = ""
    #: the series is a function of x sorted ascending (resampled); otherwise drawn point to point
    monotone_x: bool = True
    #: draw each point as one dot, without joining lines
    scatter: bool = False


@dataclass(slots=True)
class Marker:
    x: float
    y: float
    char: str
    style: str = ""


@dataclass(slots=True)
class VRule:
    x: float
    char: str = "│"
    style: str = ""
    label: str = ""


@dataclass(slots=True)
class Chart:
    """What to draw; ``render`` turns it into ``height`` lines of ``width`` cells."""

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    series: list[Series] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
    rules: list[VRule] = field(default_factory=list)
    x_label: str = ""
    y_fmt: str = "{:.2g}"
    x_fmt: str = "{:.3g}"


def _fmt(fmt: str, v: float) -> str:
    try:
        return fmt.format(v)
    except (ValueError, TypeError):
        return str(v)


def _ranges(chart: Chart) -> tuple[float, float, float, float]:
    x0, x1 = chart.x_range
    y0, y1 = chart.y_range
    if not (x1 > x0):
        x1 = x0 + 1.0
    if not (y1 > y0):
        y1 = y0 + 1.0
    return x0, x1, y0, y1


def pixel_columns(chart: Chart, width: int) -> int:
    """How many dots wide ``render`` draws the plot of ``chart`` in ``width`` cells (two
    per cell, after the y-axis gutter)."""
    _, _, y0, y1 = _ranges(chart)
    gutter = max(len(_fmt(chart.y_fmt, y1)), len(_fmt(chart.y_fmt, y0))) + 1
    return max(4, width - gutter) * 2


def downsample(s: Series, x_range: tuple[float, float], px_w: int) -> Series:
    """``s`` as ``render`` draws it ``px_w`` dots wide: its finite points and, for a line
    that is a function of x longer than ``px_w`` points, its values at the ``px_w`` pixel
    columns between its first and last x within ``x_range`` (``np.interp``). Drawing the
    result draws exactly what drawing ``s`` does, from at most ``px_w`` points: a caller
    that redraws a long series often keeps this instead (O(len(s)) once, not per frame)."""
    xs = np.asarray(s.xs, dtype=float)
    ys = np.asarray(s.ys, dtype=float)
    ok = np.isfinite(xs) & np.isfinite(ys)
    if not ok.all():
        xs, ys = xs[ok], ys[ok]
    if s.monotone_x and not s.scatter and len(xs) > px_w:
        x0, x1 = x_range
        if not (x1 > x0):
            x1 = x0 + 1.0
        lo, hi = max(x0, float(xs[0])), min(x1, float(xs[-1]))
        grid = np.linspace(lo, hi, px_w) if hi > lo else np.array([lo])
        ys = np.interp(grid, xs, ys)
        xs = grid
    return Series(xs, ys, s.style, s.monotone_x, s.scatter)


def render(chart: Chart, width: int, height: int) -> list[Text]:
    """The chart as ``height`` Text lines: a y-axis gutter, the plot, an x-axis line."""
    x0, x1, y0, y1 = _ranges(chart)
    ylab_hi, ylab_lo = _fmt(chart.y_fmt, y1), _fmt(chart.y_fmt, y0)
    gutter = max(len(ylab_hi), len(ylab_lo)) + 1
    pw = max(4, width - gutter)
    ph = max(2, height - 2)
    px_w, px_h = pw * 2, ph * 4
    dots = np.zeros((ph, pw), dtype=np.int32)
    colour = [[""] * pw for _ in range(ph)]

    def to_px(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        px = np.round((xs - x0) / (x1 - x0) * (px_w - 1)).astype(np.int64)
        py = np.round((1.0 - (ys - y0) / (y1 - y0)) * (px_h - 1)).astype(np.int64)
        return px, py

    def set_dot(px: int, py: int, style: str) -> None:
        if 0 <= px < px_w and 0 <= py < px_h:
            cy, cx = divmod(py, 4)[0], px // 2
            dots[cy, cx] |= _DOT[py % 4][px % 2]
            if style:
                colour[cy][cx] = style

    for s in chart.series:
        s = downsample(s, (x0, x1), px_w)
        if not len(s.xs):
            continue
        px, py = to_px(s.xs, s.ys)
        style = s.style

        def plot(x: int, y: int, style: str = style) -> None:
            set_dot(x, y, style)

        prev: tuple[int, int] | None = None
        for a, b in zip(px.tolist(), py.tolist(), strict=True):
            if s.scatter or prev is None:
                plot(a, b)
            else:
                _line(prev[0], prev[1], a, b, plot)
            prev = (a, b)

    cells: list[list[tuple[str, str]]] = [
        [(chr(_BRAILLE + int(dots[r, c])) if dots[r, c] else " ", colour[r][c]) for c in range(pw)]
        for r in range(ph)
    ]
    for rule in chart.rules:
        if x0 <= rule.x <= x1:
            cx = round((rule.x - x0) / (x1 - x0) * (px_w - 1)) // 2
            for r in range(ph):
                ch, st = cells[r][cx]
                if ch == " ":
                    cells[r][cx] = (rule.char, rule.style)
            if rule.label:
                lab = rule.label[:pw]
                start = cx + 1 if cx + 1 + len(lab) <= pw else max(0, cx - len(lab))
                for k, ch in enumerate(lab):
                    cells[0][start + k] = (ch, rule.style)
    for m in chart.markers:
        if not (np.isfinite(m.x) and np.isfinite(m.y)):
            continue
        px, py = to_px(np.array([m.x]), np.array([m.y]))
        cx, cy = int(px[0]) // 2, int(py[0]) // 4
        if 0 <= cx < pw and 0 <= cy < ph:
            cells[cy][cx] = (m.char, m.style)

    lines: list[Text] = []
    for r in range(ph):
        line = Text(no_wrap=True, end="")
        if r == 0:
            lab = ylab_hi
        elif r == ph - 1:
            lab = ylab_lo
        else:
            lab = ""
        line.append(lab.rjust(gutter - 1) + "┤" if lab else " " * (gutter - 1) + "│", style="dim")
        run_style: str | None = None
        run: list[str] = []
        for ch, st in cells[r]:
            if st != run_style and run:
                line.append("".join(run), style=run_style or "")
                run = []
            run_style = st
            run.append(ch)
        if run:
            line.append("".join(run), style=run_style or "")
        lines.append(line)
    axis = Text(" " * (gutter - 1) + "└" + "─" * pw, style="dim", no_wrap=True, end="")
    lines.append(axis)
    lo_lab, hi_lab = _fmt(chart.x_fmt, x0), _fmt(chart.x_fmt, x1)
    mid = chart.x_label
    room = pw - len(lo_lab) - len(hi_lab)
    if len(mid) > room - 2:
        mid = mid[: max(0, room - 3)] + ("…" if room > 3 else "")
    pad = max(1, room - len(mid))
    left = pad // 2
    lab_line = " " * gutter + lo_lab + " " * left + mid + " " * (pad - left) + hi_lab
    lines.append(Text(lab_line[: gutter + pw], style="dim", no_wrap=True, end=""))
    return lines[:height]


def _line(x0: int, y0: int, x1: int, y1: int, plot: Callable[[int, int], None]) -> None:
    """Bresenham's line between two pixels (inclusive)."""
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    n = 0
    while True:
        plot(x0, y0)
        if (x0 == x1 and y0 == y1) or n > 4096:
            return
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
        n += 1
