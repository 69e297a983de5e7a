"""The two chart panels of the replay screen.

- :class:`CumulativeChart`: NRS-EFC so far against raw cost so far, one point per event,
  the selected event marked and the adapter's stop drawn as a vertical rule.
- :class:`FitPanel`: the fitted success curve 1 − Ê(z) of the chosen predictor, the run's
  final point and the prefix point of the selected event, with predicted success so far.

Both draw with ``efc_tui.app.widgets.braille`` (braille, no plotting dependency) and re-render only
themselves when the selection moves.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from efc_tui._lazy import lazy_module
from efc_tui.app.replay_data import ReplayData
from efc_tui.app.widgets.ledger import fmt_num

if TYPE_CHECKING:
    import numpy as np

    from efc_tui.app.fitview import CurveView, FitView
    from efc_tui.app.widgets import braille as ch
    from efc_tui.fitting.fitfile import CurvePosition
else:
    np = lazy_module("numpy")  # imported by the first scoring, after the first frame
    ch = lazy_module("efc_tui.app.widgets.braille")  # drawn once there are scores


def curve_evidence(curve: CurveView) -> str:
    """A curve's held-out figures in one phrase ("held-out AUC 0.71, Brier 0.180 vs 0.250
    base, 249 runs"), or that the file gives none."""
    h = getattr(curve.curve, "heldout", None)
    if h is None:
        return "no held-out figures in the fit file"
    parts = []
    if h.auc is not None:
        parts.append(f"AUC {h.auc:.2f}")
    if h.brier is not None and h.brier_base is not None:
        parts.append(f"Brier {h.brier:.3f} vs {h.brier_base:.3f} base")
    if h.runs:
        parts.append(f"{h.runs:,} runs")
    return "held-out " + ", ".join(parts) if parts else "no held-out figures in the fit file"


def fit_corpus(description: str) -> str:
    """What a fit was fitted on ("fit: real runs, 249 runs, 13 groups"), from its one-line
    description without what that line says of the file's primary curve."""
    cut = description.find(", no predictive curve")
    if cut < 0:
        cut = description.rfind(": ")
    return description[:cut] if cut > 4 else description


def _join(lines: list[Text]) -> Text:
    """Lines under each other, each cut at the panel's edge (never wrapped: a wrapped head
    would push the chart, and the run's point, out of a small panel)."""
    out = Text("\n").join(lines)
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out


class CumulativeChart(Widget):
    """Cumulative NRS-EFC (y) against cumulative raw cost C_raw (x)."""

    DEFAULT_CSS = """
    CumulativeChart { height: 1fr; padding: 0 1; }
    """

    def __init__(self, data: ReplayData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.event: int | None = None
        self.border_title = "NRS-EFC vs raw cost"
        #: (data version, x range, y range) of the scored run, and its line downsampled to
        #: the plot's width: (data version, dots wide) -> series (``_line``)
        self._ranges: tuple[int, tuple[float, float], tuple[float, float]] | None = None
        self._line_of: tuple[int, int] | None = None
        self._line: ch.Series | None = None

    def show(self, event: int | None) -> None:
        self.event = event
        self.refresh()

    def _chart_ranges(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The axes' ranges for the scored run (computed once per scoring)."""
        d = self.data
        if self._ranges is None or self._ranges[0] != d.version:
            x, y = d.cols["C_cum"], d.cols["nr_cum"]
            xmax = float(x[-1]) if len(x) else 1.0
            ymax = float(np.nanmax(y)) if len(y) else 1.0
            ymin = min(0.0, float(np.nanmin(y))) if len(y) else 0.0
            self._ranges = (
                d.version,
                (0.0, xmax if xmax > 0 else 1.0),
                (ymin, ymax if ymax > ymin else ymin + 1.0),
            )
        return self._ranges[1], self._ranges[2]

    def line(self, px_w: int) -> ch.Series:
        """NRS-EFC so far against C_raw so far, from (0, 0), as drawn ``px_w`` dots wide:
        one point per dot column however long the run (``chart.downsample``), computed once
        per scoring and width, so a frame (a move, a batch of rows read) draws ~100 points,
        not one per event."""
        d = self.data
        if self._line is None or self._line_of != (d.version, px_w):
            x_range, _ = self._chart_ranges()
            full = ch.Series(
                np.concatenate(([0.0], d.cols["C_cum"])),
                np.concatenate(([0.0], d.cols["nr_cum"])),
                "cyan",
            )
            self._line = ch.downsample(full, x_range, px_w)
            self._line_of = (d.version, px_w)
        return self._line

    def render(self) -> RenderableType:
        d = self.data
        w, h = self.content_size.width, self.content_size.height
        if d.ledger is None or not len(d.ledger) or w < 12 or h < 4:
            if d.ledger is None:
                return Text("… scoring", style="dim")
            return Text(
                "no events" if not len(d.ledger) else "(a taller pane shows the chart)", style="dim"
            )
        x = d.cols["C_cum"]
        y = d.cols["nr_cum"]
        x_range, y_range = self._chart_ranges()
        chart = ch.Chart(x_range=x_range, y_range=y_range, x_label="C_raw so far")
        chart.series.append(self.line(ch.pixel_columns(chart, w)))
        info = Text(no_wrap=True, end="")
        if d.stop is not None and d.stop < len(x):
            chart.rules.append(ch.VRule(float(x[d.stop]), "┊", "red", "stop"))
        i = self.event
        if i is not None and i < len(x):
            chart.markers.append(ch.Marker(float(x[i]), float(y[i]), "●", "bold yellow"))
            info.append(f"t={i}  ", style="bold")
            info.append(f"NRS-EFC {fmt_num(float(y[i]), 8)}  C_raw {fmt_num(float(x[i]), 8)}")
        else:
            info.append(f"NRS-EFC {fmt_num(float(y[-1]), 8)}  C_raw {fmt_num(float(x[-1]), 8)}")
        if d.stop is not None and d.summary is not None:
            info.append(f"  stop@{d.stop}", style="red")
            info.append(f" saves {fmt_num(d.summary.cost_saved, 8)}", style="red")
        lines = ch.render(chart, w, h - 1)
        return _join([info, *lines])


class FitPanel(Widget):
    """Where the run and its prefix sit on the fitted scaling curve of one predictor."""

    DEFAULT_CSS = """
    FitPanel { height: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, data: ReplayData, fit: FitView | None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.fit = fit
        self.event: int | None = None
        self.predictor: str | None = fit.default if fit is not None else None
        self._view_of: FitView | None = None
        self._prefix: dict[str, np.ndarray] = {}
        self._prefix_version = -1
        self.border_title = "fit"

    def show(self, event: int | None) -> None:
        self.event = event
        self.refresh()

    def set_fit(self, fit: FitView) -> None:
        """The fit, once it is read (the panel says so until then)."""
        self.fit = fit
        self._view_of = None
        self.predictor = fit.default
        self.refresh()

    def view(self) -> FitView | None:
        """The fit shown for this run: the named file, or the package's fit that matches
        the run (synthetic or real)."""
        if self.fit is None:
            return None
        v = self.fit.for_run(self.data.run)
        if v is not self._view_of:  # a new view: its own primary curve first
            self._view_of = v
            if self.predictor is None or v.curve(self.predictor) is None:
                self.predictor = v.default
        return v

    def next_predictor(self, step: int = 1) -> str | None:
        """Switch to the next predictor that has a curve; returns its name."""
        fit = self.view()
        if fit is None or not fit.curves:
            return None
        names = [c.name for c in fit.curves]
        cur = names.index(self.predictor) if self.predictor in names else -1
        self.predictor = names[(cur + step) % len(names)]
        self.refresh()
        return self.predictor

    def prefix_z(self) -> np.ndarray | None:
        """The chosen predictor's value after each event (NaN where it has none)."""
        fit = self.view()
        if fit is None or self.predictor is None or self.data.ledger is None:
            return None
        if self._prefix_version != self.data.version:
            self._prefix = self.data.prefix_columns()
            self._prefix_version = self.data.version
        curve = fit.curve(self.predictor)
        if curve is None or not self._prefix:
            return None
        return curve.prefix_values(self._prefix)

    def _has_value(self, curve: CurveView) -> bool:
        """Whether the run has the curve's predictor at all: a log that records no wall
        time reads 0 s, which is no value (not a run that took no time)."""
        if curve.name == "wall_s":
            return any(e.wall_s for e in self.data.events)
        return True

    def position(self) -> tuple[CurvePosition | None, CurvePosition | None]:
        """(final, prefix) ``CurvePosition`` of the run and of the selected event's prefix
        on the chosen curve (None where the run has no value for the predictor)."""
        fit = self.view()
        if fit is None:
            return None, None
        curve = fit.curve(self.predictor or "")
        zs = self.prefix_z()
        if curve is None or zs is None or not len(zs):
            return None, None
        if not self._has_value(curve):
            return None, None
        final = curve.predict(float(zs[-1])) if math.isfinite(zs[-1]) else None
        pre = None
        if self.event is not None and self.event < len(zs) and math.isfinite(zs[self.event]):
            pre = curve.predict(float(zs[self.event]))
        return final, pre

    def render(self) -> RenderableType:
        w, h = self.content_size.width, self.content_size.height
        fit = self.view()
        if fit is None:
            return Text("reading the fit…", style="dim")
        if not fit.curves:
            why = fit.problem if fit is not None and fit.problem else "no fit available"
            named = f"{fit.description}\n" if fit is not None and fit.description else ""
            return Text(
                f"{named}{why}\n(`efc-tui fit` on your own labeled runs writes one; load it with "
                "--fit FIT.json)",
                style="dim",
            )
        curve = fit.curve(self.predictor or "") or fit.curves[0]
        self.border_title = f"fit: {curve.label}"
        head = Text(no_wrap=True, overflow="ellipsis", end="")
        # the curve shown and why it may predict: its own held-out figures (every curve the
        # panel draws is predictive on held-out runs; the file's one-line description may
        # be about another curve, so it is not repeated here)
        head.append(curve.label, style="bold")
        head.append(f"  {curve_evidence(curve)}", style="dim")
        corpus = fit_corpus(fit.description)
        if corpus:
            head.append(f"  · {corpus}", style="dim")
        if len(fit.curves) > 1:
            head.append(f"  (p: next of {len(fit.curves)})", style="dim")
        d = self.data
        final, pre = self.position()
        zs_known = [pos.z for pos in (final, pre) if pos is not None]
        pts = [z for z, _ in curve.points if math.isfinite(z)]
        x_hi = max([*zs_known, *pts, curve.z_median * 2.0, 1e-9]) * 1.05
        grid = np.linspace(0.0, x_hi, 256)
        groups = np.array(
            [(z, 1.0 - e) for z, e in curve.points if math.isfinite(z) and math.isfinite(e)]
        ).reshape(-1, 2)
        chart = ch.Chart(
            x_range=(0.0, x_hi),
            y_range=(0.0, 1.0),
            series=[
                # the fitted groups' observed success, one dot each, under the curve
                ch.Series(
                    groups[:, 0], groups[:, 1], "bright_black", monotone_x=False, scatter=True
                ),
                ch.Series(grid, curve.success(grid), "green"),
            ],
            x_label=f"{curve.name} (z)",
            y_fmt="{:.1f}",
        )
        info = Text(no_wrap=True, overflow="ellipsis", end="")
        if final is not None:
            ok = d.run.success
            char = "✓" if ok else ("✗" if ok is False else "○")
            style = "bold green" if ok else ("bold red" if ok is False else "bold")
            chart.markers.append(ch.Marker(final.z, final.success, char, style))
            info.append(f"run {char} {final.success:.0%}", style="")
        elif d.ledger is None:
            info.append("… scoring", style="dim")
        elif not self._has_value(curve):
            info.append(f"run: no value ({curve.label}: this log records none)", style="dim")
        else:
            info.append("run: no value for this predictor", style="dim")
        far = fit.extrapolation(d.run)
        if far is not None and final is not None:
            info.append(f" (extrapolated: {far})", style="dim italic")
        if pre is not None:
            chart.markers.append(ch.Marker(pre.z, pre.success, "◆", "bold yellow"))
            info.append(f"   at t={self.event}: ", style="")
            info.append(f"{pre.success:.0%} predicted success", style="bold yellow")
            info.append(f"  z {fmt_num(pre.z, 8)}", style="dim")
            if pre.extrapolated:
                info.append(" (extrapolated)", style="dim italic")
        lines = ch.render(chart, w, max(3, h - 2))
        return _join([head, info, *lines])
