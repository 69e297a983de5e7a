"""The detail pane: everything about the selected event, in the order a person asks.

What the agent did and what came back (the event's one-line action and outcome, then its
cost: tokens in / out / cached, dollars when logged, ΔC and its parts in raw-cost units),
then the action (an edit as a unified diff) and the observation, wrapped (first
``DETAIL_LIMIT`` characters, highlighted when they look like code, a diff or a traceback,
with a visible "… N more" marker), then whether it helped (its credit ÊFC_nr and the
adapter's decision, in words), and last the internals (factor bars, gates, EFC variants,
the phi features). All log text goes through ``efc_tui.app.textfmt`` and reaches the screen
as ``Text``/``Syntax``, never markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from efc_tui.app.eventline import action_line, edit_diff, outcome_line, readable_action
from efc_tui.app.replay_data import ReplayData, decision_reasons
from efc_tui.app.textfmt import more_marker, show_text
from efc_tui.app.widgets.ledger import fmt_num
from efc_tui.model import Status
from efc_tui.report.text import sanitize_label

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


#: memory and control decisions in words (SPEC §6)
MEMORY_WORDS = {
    "promote": "keep it in memory (a verified, useful result)",
    "scratch": "keep it in the scratchpad only (no verdict on it yet)",
    "discard": "drop it (redundant, or a repeated error)",
}
CONTROL_WORDS = {
    "continue": "go on",
    "stop": "stop the run here",
    "rollback": "roll back to an earlier, better candidate",
}
#: one raw-cost unit in words (SPEC §4: C_raw = tokens/1000 + 0.35·tool calls + 0.10·s + 0.04·ops)
UNIT = "cost units (1 unit = 1,000 tokens = 10 s = 2.9 tool calls)"


def _tokens(n: int) -> str:
    return f"{n:,}"


class DetailPane(VerticalScroll):
    """A scrollable pane describing one event of a :class:`ReplayData`.

    Four ``Static``s: the event's head (action, outcome and cost in one place each), its
    action and its observation under their section titles, then its verdict and the
    internals. Scores arriving update the head and the verdict; the texts are styled once
    per event. (Four, not one per part: each widget costs its share of every restyle and
    of the first frame.)"""

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
        #: frame is drawn (``highlight``), which importing Pygments and a lexer would delay
        self.highlighting = False

    def compose(self) -> ComposeResult:
        yield Static(id="detail-summary", markup=False)
        yield Static(id="detail-action", markup=False)
        yield Static(id="detail-observation", markup=False)
        yield Static(id="detail-verdict", markup=False)

    def on_mount(self) -> None:
        if self.event is None:
            self._texts(Text(""), Text(""))

    def _title(self, text: str) -> Text:
        return Text(f"\n{text}", style=self.get_component_rich_style("detail--title"))

    def _texts(
        self, action: RenderableType, observation: RenderableType, action_title: str = "Action"
    ) -> None:
        """The action and observation, each under its section title (a blank line above)."""
        for sid, title, body in (
            ("#detail-action", action_title, action),
            ("#detail-observation", "Observation", observation),
        ):
            self.query_one(sid, Static).update(Group(self._title(title), body))

    def show(self, event: int | None) -> None:
        """Show event ``event`` (or a blank pane). Cheap: only this event's text is styled."""
        same = event == self.event
        self.event = event
        summary = self.query_one("#detail-summary", Static)
        verdict = self.query_one("#detail-verdict", Static)
        if event is None or event >= len(self.data.events):
            summary.update(Text("no event selected", style="bold"))
            verdict.update(Text(""))
            self._texts(Text(""), Text(""))
            return
        ev = self.data.events[event]
        head = Text()
        head.append(sanitize_label(action_line(ev), 300) or ev.kind.value, style="bold")
        outcome = sanitize_label(outcome_line(ev), 300)
        if outcome:
            style = {Status.PASSED: "green", Status.NONE: ""}.get(ev.status, "yellow")
            head.append("\n→ ", style="dim")
            head.append(outcome, style=style)
        meta = f"event {ev.index}  step {ev.step}  kind {ev.kind.value}"
        if ev.tool:
            meta += f"  tool {sanitize_label(ev.tool, 60)}"
        meta += f"  status {ev.status.value}"
        if ev.checks is not None:
            c = ev.checks
            total = "?" if c.total is None else str(c.total)
            meta += f"  checks {c.passed} passed / {c.failed} failed of {total}"
        head.append("\n" + meta, style="dim")
        if ev.truncated:
            head.append("  [observation truncated by the harness]", style="italic")
        if ev.flags:
            head.append(
                "\nestimated: " + ", ".join(sanitize_label(f, 40) for f in ev.flags), style="dim"
            )
        summary.update(Text("\n").join([head, self._cost(event)]))
        verdict.update(
            Group(
                self._title("Verdict"),
                Text("\n").join([self._credit(event), self._adapter(event)]),
                self._title("Internals (? explains each letter)"),
                self._numbers(event),
            )
        )
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
        diff = edit_diff(ev)
        if diff:
            action = self._body(diff, "diff", is_action=True, lexer="diff")
            title = "Action: an edit, as a diff (a: whole, with the call as logged)"
        else:
            readable = readable_action(ev)
            action = self._body(readable or ev.action_text, ev.tool, is_action=True)
            title = "Action (a: the call as logged)" if readable else "Action"
        self._texts(action, self._body(ev.observation_text, ev.tool, is_action=False), title)

    def _body(
        self, text: str, tool: str | None, *, is_action: bool, lexer: str | None = None
    ) -> RenderableType:
        if not text:
            return Text("(empty)", style="dim italic")
        shown = show_text(
            text, tool=tool, is_action=is_action, highlight=self.highlighting, lexer=lexer
        )
        if shown.hidden:
            key = "a" if is_action else "v"
            return Group(shown.renderable, more_marker(shown.hidden, key))
        return shown.renderable

    def _cost(self, i: int) -> Text:
        """What the event cost: tokens (in, cached, out), dollars when logged, tool calls,
        wall time, and ΔC split into its parts with its unit."""
        d = self.data
        ev = d.events[i]
        t = Text()
        t.append("cost ", style="bold")
        cached = int(ev.extra.get("cache_read_tokens") or 0)
        written = int(ev.extra.get("cache_write_tokens") or 0)
        parts = [f"{_tokens(ev.tokens_in)} tokens in"]
        if cached or written:
            inner = [f"{_tokens(cached)} cached reads"] if cached else []
            inner += [f"{_tokens(written)} cache writes"] if written else []
            parts[0] += f" ({', '.join(inner)})"
        parts.append(f"{_tokens(ev.tokens_out)} out")
        usd = ev.extra.get("cost_usd")
        if isinstance(usd, int | float):
            parts.append(f"${usd:.4g} logged")
        if ev.tool_calls:
            parts.append(f"{ev.tool_calls} tool call{'s' if ev.tool_calls != 1 else ''}")
        if ev.wall_s:
            parts.append(f"{ev.wall_s:.3g} s")
        t.append(" · ".join(parts))
        batch = self._batch_note(i)
        if batch:
            t.append("\n  " + batch, style="dim")
        led = d.ledger
        if led is not None and d.is_scored(i):
            split = led.cost.parts(i)
            terms = " + ".join(f"{k} {fmt_num(v, 7)}" for k, v in split.items() if v)
            t.append(f"\n  ΔC {fmt_num(d.value('dC', i), 8)} {UNIT}")
            if terms:
                t.append(f" = {terms}", style="dim")
            t.append(f"\n  run so far: C_raw {fmt_num(d.value('C_cum', i), 9)} units", style="dim")
        return t

    def _batch_note(self, i: int) -> str | None:
        """For a tool call made with others in one model response (one step): that the
        response's tokens are shared evenly over its calls (the readers' rule,
        ``efc_tui.parsers._drafts``), and how many that makes."""
        events = self.data.events
        ev = events[i]
        if not ev.tool:
            return None
        lo = i
        while lo > 0 and events[lo - 1].step == ev.step and events[lo - 1].tool:
            lo -= 1
        hi = i
        while hi + 1 < len(events) and events[hi + 1].step == ev.step and events[hi + 1].tool:
            hi += 1
        if hi == lo:
            return None
        batch = events[lo : hi + 1]
        total = sum(e.tokens_in + e.tokens_out for e in batch)
        if not total:
            return None
        return (
            f"one of {len(batch)} parallel calls of one model response (step {ev.step}): "
            f"its {_tokens(total)} tokens are shared evenly, this call {_tokens(ev.tokens_in + ev.tokens_out)}"
        )

    def _credit(self, i: int) -> Text:
        """How much effective feedback the event earned, and its share of the run's."""
        d = self.data
        t = Text()
        if not d.is_scored(i) or d.figures is None:
            t.append("… scoring", style="dim italic")
            return t
        nr = d.value("nrs_efc", i) or 0.0
        total = float(d.figures.nrs_efc or 0.0)
        t.append("credit ", style="bold")
        t.append(f"ÊFC_nr {fmt_num(nr, 7)}", style="bold")
        if total > 0:
            t.append(f"  ({100 * nr / total:.1f}% of the run's NRS-EFC {fmt_num(total, 8)})")
        return t

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
        t.append(
            f": would {MEMORY_WORDS.get(mem, mem)}, and {CONTROL_WORDS.get(ctl, ctl)}",
            style="italic",
        )
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
        """Factor bars, gates, EFC variants and phi in about seven lines."""
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
            [("X̂_nr so far", fmt_num(d.value("X_nr_cum", i), 6))],
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
