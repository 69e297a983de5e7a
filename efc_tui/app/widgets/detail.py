"""The detail pane: everything about the selected event.

Adapter decision and reasons, factor bars, gates, EFC variants, raw cost, the phi features,
then the action and observation text (first ``DETAIL_LIMIT`` characters, highlighted when
they look like code, a diff or a traceback, with a visible "… N more" marker). All log text
goes through ``efc_tui.app.textfmt`` and reaches the screen as ``Text``/``Syntax``, never
markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from efc_tui.app.replay_data import ReplayData, decision_reasons
from efc_tui.app.textfmt import more_marker, show_text
from efc_tui.app.widgets.ledger import fmt_num
from efc_tui.text import sanitize_label

if TYPE_CHECKING:
    from efc_tui.model import Event

_EIGHTHS = " ▏▎▍▌▋▊▉"
BAR_WIDTH = 10
PHI = ("c", "h", "z", "p", "m", "a", "q", "delta", "rho", "n")
PHI_LABEL = {"delta": "Δ", "rho": "ρ"}


def bar(value: float | None, width: int = BAR_WIDTH, top: float = 1.0) -> str:
    """A horizontal bar of ``value / top`` in eighth-cell steps."""
    if value is None or value != value:
        return "·" * width
    frac = max(0.0, min(1.0, value / top if top > 0 else 0.0))
    eighths = round(frac * width * 8)
    full, part = divmod(eighths, 8)
    s = "█" * full + (_EIGHTHS[part] if part else "")
    return s.ljust(width, "░")


class DetailPane(VerticalScroll):
    """A scrollable pane describing one event of a :class:`ReplayData`.

    Three ``Static``s: the event's summary (title, adapter decision, numbers), then its
    action and its observation, each under its section title. Scores arriving update the
    summary alone; the texts are styled once per event. (Three, not one per part: each
    widget costs its share of every restyle and of the first frame.)"""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"detail--title"}

    DEFAULT_CSS = """
    DetailPane { padding: 0 1; }
    DetailPane > Static { width: 1fr; height: auto; }
    DetailPane > .detail--title { color: $text-accent; text-style: bold; }
    """

    def __init__(self, data: ReplayData, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = data
        self.event: int | None = None
        self.can_focus = True
        #: code, diffs and tracebacks highlighted (Pygments); off until the screen's first
        #: frame is drawn (``highlight``): importing Pygments and a lexer costs ~20 ms
        self.highlighting = False

    def compose(self) -> ComposeResult:
        yield Static(id="detail-summary", markup=False)
        yield Static(id="detail-action", markup=False)
        yield Static(id="detail-observation", markup=False)

    def on_mount(self) -> None:
        if self.event is None:
            self._texts(Text(""), Text(""))

    def _texts(self, action: RenderableType, observation: RenderableType) -> None:
        """The action and observation, each under its section title (a blank line above)."""
        style = self.get_component_rich_style("detail--title")
        for sid, title, body in (
            ("#detail-action", "Action", action),
            ("#detail-observation", "Observation", observation),
        ):
            self.query_one(sid, Static).update(Group(Text(f"\n{title}", style=style), body))

    def show(self, event: int | None) -> None:
        """Show event ``event`` (or a blank pane). Cheap: only this event's text is styled."""
        same = event == self.event
        self.event = event
        summary = self.query_one("#detail-summary", Static)
        if event is None or event >= len(self.data.events):
            summary.update(Text("no event selected", style="bold"))
            self._texts(Text(""), Text(""))
            return
        ev = self.data.events[event]
        title = Text(style="bold")
        title.append(f"event {ev.index}")
        title.append(f"  step {ev.step}  {ev.kind.value}")
        if ev.tool:
            title.append("  tool ")
            title.append(sanitize_label(ev.tool, 60))
        title.append(f"  status {ev.status.value}")
        if ev.checks is not None:
            c = ev.checks
            total = "?" if c.total is None else str(c.total)
            title.append(f"  checks {c.passed} passed / {c.failed} failed of {total}")
        if ev.truncated:
            title.append("  [observation truncated by the harness]", style="italic")
        if ev.flags:
            title.append(
                "\nestimated: " + ", ".join(sanitize_label(f, 40) for f in ev.flags), style="dim"
            )
        summary.update(Text("\n").join([title, self._adapter(event), self._numbers(event)]))
        if not same:
            self._event_texts(ev)
            self.scroll_home(animate=False, immediate=True)

    def highlight(self) -> None:
        """Highlight code from now on, the event shown included."""
        if self.highlighting:
            return
        self.highlighting = True
        if self.event is not None and self.event < len(self.data.events):
            self._event_texts(self.data.events[self.event])

    def _event_texts(self, ev: Event) -> None:
        self._texts(
            self._body(ev.action_text, ev.tool, is_action=True),
            self._body(ev.observation_text, ev.tool, is_action=False),
        )

    def _body(self, text: str, tool: str | None, *, is_action: bool) -> RenderableType:
        if not text:
            return Text("(empty)", style="dim italic")
        shown = show_text(text, tool=tool, is_action=is_action, highlight=self.highlighting)
        if shown.hidden:
            key = "a" if is_action else "v"
            return Group(shown.renderable, more_marker(shown.hidden, key))
        return shown.renderable

    def _adapter(self, i: int) -> Text:
        d = self.data
        t = Text()
        t.append("adapter ", style="bold")
        if not d.is_scored(i):
            t.append("… scoring", style="dim italic")
            return t
        dec = d.decision(i)
        if dec is None:
            t.append("–  (no adapter decisions for this run)", style="dim")
            return t
        mem, ctl = dec.memory, dec.control
        t.append(mem, style="bold green" if mem == "promote" else "bold")
        t.append(" · ")
        t.append(ctl, style="bold red" if ctl != "continue" else "bold")
        if d.stop is not None:
            if i == d.stop:
                t.append("   ■ the adapter stops here", style="bold red")
            elif i > d.stop:
                t.append(f"   after the stop at event {d.stop}", style="italic")
        extra = [f"prefix: ÊFC_nr {fmt_num(dec.efc_nr, 7)}", f"X̂_nr {fmt_num(dec.x_nr, 7)}"]
        if dec.window_ratio is not None:
            extra.append(f"window {fmt_num(dec.window_ratio, 7)}")
        if dec.rollback_to is not None:
            extra.append(f"roll back to event {dec.rollback_to}")
        if extra:
            t.append("\n  " + "   ".join(extra), style="dim")
        for reason in decision_reasons(dec):
            t.append("\n  · ")
            t.append(sanitize_label(reason, 300))
        return t

    def _numbers(self, i: int) -> Text:
        """Factor bars, gates, EFC variants, cost and phi in about eight lines."""
        d = self.data
        t = Text()
        if not d.is_scored(i) or d.ledger is None:
            t.append("… scoring (values appear when the run is scored)", style="dim italic")
            return t
        led = d.ledger
        fa = led.factors
        oracle = led.oracle
        for k, (name, col) in enumerate((("I", fa.I), ("V", fa.V), ("R", fa.R), ("M", fa.M))):
            v = float(col[i])
            t.append(f"{name} ", style="bold")
            t.append(bar(v, BAR_WIDTH), style="cyan")
            t.append(f" {fmt_num(v, 4):>4}")
            if oracle is not None:
                ocol = {"I": oracle.I, "V": oracle.V, "R": oracle.R, "M": oracle.M}[name]
                t.append(f" ({fmt_num(float(ocol[i]), 4)})", style="dim")
            t.append("\n" if k % 2 else "   ")
        g = led.gates
        f = led.features
        phi = [(PHI_LABEL.get(n, n), fmt_num(float(getattr(f, n)[i]), 4)) for n in PHI]
        rows: list[list[tuple[str, str]]] = [
            [
                ("Q", fmt_num(float(g.Q[i]), 4)),
                ("G", fmt_num(float(g.G[i]), 4)),
                ("Λ", fmt_num(float(g.L[i]), 4)),
                ("G_nr", fmt_num(float(g.G_nr[i]), 4)),
                ("Λ_nr", fmt_num(float(g.L_nr[i]), 4)),
                ("A", str(int(g.A[i]))),
            ],
            [
                ("EFC", fmt_num(float(led.efc[i]), 6)),
                ("ÊFC", fmt_num(float(led.est[i]), 6)),
                ("stable", fmt_num(float(led.stable[i]), 6)),
                ("ÊFC_nr", fmt_num(float(led.nr[i]), 6)),
            ],
            [
                ("ΔC", fmt_num(d.value("dC", i), 6)),
                ("C_raw so far", fmt_num(d.value("C_cum", i), 8)),
                ("X̂_nr so far", fmt_num(d.value("X_nr_cum", i), 6)),
            ],
            [("phi  c", phi[0][1]), *phi[1:5]],
            [("     " + phi[5][0], phi[5][1]), *phi[6:]],
        ]
        for pairs in rows:
            for k, (key, value) in enumerate(pairs):
                if k:
                    t.append("  ")
                t.append(f"{key} ", style="dim")
                t.append(value, style="bold" if key == "ÊFC_nr" else "")
            t.append("\n")
        t.rstrip()
        return t
