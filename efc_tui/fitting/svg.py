"""Curves with their observed points as a standalone SVG (no plotting dependency).

One panel per predictor: observed group failure rates Ē_i against normalized z on a log
axis, the fitted curve over the fitted range, R² and held-out AUC in the title. A curve
that does not predict held-out runs better than the base rate is not drawn: its panel
shows the points and says so. SAS has no curve: its panel plots predicted against observed
failure with the diagonal. When the primary curve has held-out groups, a last panel shows
its held-out calibration (predicted against observed success, one point per held-out group).

The output is deterministic (same fit, same bytes). PNG is not built in: convert the SVG
(``rsvg-convert -o fit.png fit.svg``, Inkscape, or a browser).
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape

import numpy as np

from efc_tui.fitting.curves import law_from_params

PANEL_W, PANEL_H = 320, 240
MARGIN = dict(left=46, right=12, top=34, bottom=34)
COLS = 3
POINT = "#3b6ea5"
CURVE = "#d1495b"
HELD = "#2e933c"


def _f(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


class _Panel:
    def __init__(
        self, x0: float, y0: float, xlim: tuple[float, float], ylim: tuple[float, float], logx: bool
    ):
        self.x0, self.y0 = x0, y0
        self.w = PANEL_W - MARGIN["left"] - MARGIN["right"]
        self.h = PANEL_H - MARGIN["top"] - MARGIN["bottom"]
        self.logx = logx
        self.xlim, self.ylim = xlim, ylim

    def px(self, x: float) -> float:
        lo, hi = self.xlim
        if self.logx:
            x, lo, hi = math.log10(x), math.log10(lo), math.log10(hi)
        return self.x0 + MARGIN["left"] + (x - lo) / (hi - lo) * self.w

    def py(self, y: float) -> float:
        lo, hi = self.ylim
        return self.y0 + MARGIN["top"] + (1 - (y - lo) / (hi - lo)) * self.h

    def frame(self, title: str, xlabel: str, ylabel: str) -> list[str]:
        L, T = self.x0 + MARGIN["left"], self.y0 + MARGIN["top"]
        out = [
            f'<rect x="{_f(L)}" y="{_f(T)}" width="{_f(self.w)}" height="{_f(self.h)}" fill="none" stroke="#999"/>',
            f'<text x="{_f(self.x0 + PANEL_W / 2)}" y="{_f(self.y0 + 18)}" text-anchor="middle" '
            f'font-weight="bold">{escape(title)}</text>',
            f'<text x="{_f(L + self.w / 2)}" y="{_f(T + self.h + 28)}" text-anchor="middle">{escape(xlabel)}</text>',
            f'<text transform="translate({_f(self.x0 + 12)},{_f(T + self.h / 2)}) rotate(-90)" '
            f'text-anchor="middle">{escape(ylabel)}</text>',
        ]
        for y in (0.0, 0.25, 0.5, 0.75, 1.0):
            if self.ylim[0] <= y <= self.ylim[1]:
                py = self.py(y)
                out.append(
                    f'<line x1="{_f(L - 3)}" y1="{_f(py)}" x2="{_f(L)}" y2="{_f(py)}" stroke="#999"/>'
                )
                out.append(
                    f'<text x="{_f(L - 5)}" y="{_f(py + 3)}" text-anchor="end">{_f(y)}</text>'
                )
        if self.logx:
            lo, hi = (math.log10(v) for v in self.xlim)
            for k in range(math.ceil(lo), math.floor(hi) + 1):
                px = self.px(10.0**k)
                out.append(
                    f'<line x1="{_f(px)}" y1="{_f(T + self.h)}" x2="{_f(px)}" y2="{_f(T + self.h + 3)}" stroke="#999"/>'
                )
                out.append(
                    f'<text x="{_f(px)}" y="{_f(T + self.h + 14)}" text-anchor="middle">1e{k}</text>'
                )
        else:
            for x in (0.0, 0.5, 1.0):
                px = self.px(x)
                out.append(
                    f'<text x="{_f(px)}" y="{_f(T + self.h + 14)}" text-anchor="middle">{_f(x)}</text>'
                )
        return out

    def points(self, xs: Any, ys: Any, color: str) -> list[str]:
        return [
            f'<circle cx="{_f(self.px(x))}" cy="{_f(self.py(y))}" r="3" fill="{color}" fill-opacity="0.75"/>'
            for x, y in zip(xs, ys, strict=True)
        ]

    def line(self, xs: Any, ys: Any, color: str, dash: bool = False) -> str:
        pts = " ".join(f"{_f(self.px(x))},{_f(self.py(y))}" for x, y in zip(xs, ys, strict=True))
        extra = ' stroke-dasharray="4 3"' if dash else ""
        return f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="2"{extra}/>'


def _fig(label: str, r2: Any, auc: Any) -> str:
    r2s = "n/a" if r2 is None else f"{r2:.2f}"
    aucs = "n/a" if auc is None else f"{auc:.2f}"
    return f"{label}  R²={r2s} held-out AUC={aucs}"


def _held(doc: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
    axis = (doc.get("selection") or {}).get("axis")
    return next((h for h in p.get("holdout") or [] if h.get("name") == axis), {})


def render_svg(doc: dict[str, Any]) -> str:
    """An SVG of every fitted predictor in an efc-fit/1 document."""
    panels: list[list[str]] = []
    preds = [p for p in doc.get("predictors", []) if p.get("status") == "ok"]
    for i, p in enumerate(preds):
        x0, y0 = (i % COLS) * PANEL_W, (i // COLS) * PANEL_H
        groups = p.get("groups") or []
        figs = p.get("figures") or {}
        title = _fig(p.get("label", p.get("name", "")), figs.get("r2"), _held(doc, p).get("auc"))
        if p.get("kind") == "power_law" and p.get("params"):
            zs = np.array([g["z_norm"] for g in groups], dtype=float)
            es = np.array([g["failure"] for g in groups], dtype=float)
            lo, hi = float(zs.min()), float(zs.max())
            if hi <= lo:
                hi = lo * 10
            pad = (hi / lo) ** 0.05
            panel = _Panel(x0, y0, (lo / pad, hi * pad), (0.0, 1.0), logx=True)
            par = p["params"]
            law = law_from_params(par)
            cx = np.geomspace(lo, hi, 80)
            body = panel.frame(title, "z / median", "failure rate")
            body += panel.points(zs, es, POINT)
            if (
                p.get("predictive") is False
            ):  # say so instead of drawing a curve that predicts nothing
                body.append(
                    f'<text x="{_f(x0 + PANEL_W / 2)}" y="{_f(y0 + MARGIN["top"] + 14)}" '
                    'text-anchor="middle" fill="#b00">no predictive curve: held-out Brier ≥ base rate</text>'
                )
            else:
                body.append(panel.line(cx, law.failure(cx), CURVE))
        else:
            obs = [g["failure"] for g in groups]
            prd = [g["predicted"] for g in groups]
            panel = _Panel(x0, y0, (0.0, 1.0), (0.0, 1.0), logx=False)
            body = panel.frame(title, "predicted failure", "observed failure")
            body.append(panel.line([0, 1], [0, 1], "#999", dash=True))
            body += panel.points(prd, obs, POINT)
        panels.append(body)
    primary = next((p for p in preds if p.get("name") == doc.get("primary")), None)
    if primary is not None and any(
        sp.get("groups") for h in primary.get("holdout") or [] for sp in h.get("splits", [])
    ):
        i = len(panels)
        x0, y0 = (i % COLS) * PANEL_W, (i // COLS) * PANEL_H
        panel = _Panel(x0, y0, (0.0, 1.0), (0.0, 1.0), logx=False)
        body = panel.frame(
            f"{primary.get('label')}: held-out", "predicted success", "observed success"
        )
        body.append(panel.line([0, 1], [0, 1], "#999", dash=True))
        for h in primary["holdout"]:
            for sp in h.get("splits", []):
                gs = sp.get("groups", [])
                body += panel.points(
                    [g["predicted_success"] for g in gs], [g["observed_success"] for g in gs], HELD
                )
        panels.append(body)
    n = max(1, len(panels))
    W = PANEL_W * min(COLS, n)
    H = PANEL_H * math.ceil(n / COLS)
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="sans-serif" font-size="11">',
        f"<title>efc-tui scaling fits: {escape(str(doc.get('model', {}).get('equation', '')))}</title>",
        f'<rect width="{W}" height="{H}" fill="white"/>',
    ]
    if not panels:
        head.append(
            f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no predictor could be fitted</text>'
        )
    body_lines = [line for panel in panels for line in panel]
    return "\n".join([*head, *body_lines, "</svg>"]) + "\n"
