"""The replay screen's summary: who the run is, its figures, and what the app is doing.

Three lines: the run (id, model, task, harness, outcome, events shown); what it cost
(tokens in / cached / out, dollars when the log has them, C_raw in its units, and the waste
split: the shares of C_raw spent on repeated actions, repeated errors, redundant
observations and after the adapter's stop); and the figures (``HEADLINE``: which run
figures lead, in order) with the adapter's stop and the app's state (reading, scoring,
following, playing). Log text (ids, names) goes through
``sanitize_label`` and reaches the screen as ``Text``, never markup. Below it, while the
first read goes on, ``ReadProgress``: how far through the file it is.
"""

from __future__ import annotations

from typing import ClassVar

from msgspec import Struct
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from efc_tui.app.replay_data import ReplayData, no_stop_reason
from efc_tui.app.widgets.ledger import CHANGED, fmt_num
from efc_tui.report.display import at_risk_label, ended_label, run_title
from efc_tui.report.text import sanitize_label
from efc_tui.scoring.figures import title as figure_title

#: the figures line: (RunFigures name, cells), titled as ``efc_tui.scoring.figures`` says;
#: change the headline here. η and X of the NRS variant head it: the strict EFC is 0 on
#: most real traces (no verdict moves Δ), so its η and X are too (docs/equations.md); the
#: strict EFC stays at the end
HEADLINE: tuple[tuple[str, int], ...] = (
    ("nrs_efc", 8),
    ("eta_nrs", 7),
    ("x_nrs", 7),
    ("efc", 8),
)


class AppState(Struct):
    """What the screen is doing, as the summary shows it."""

    loaded: bool = False
    scoring: bool = False
    follow: bool = False
    playing: bool = False
    speed: float = 1.0


class RunSummary(Static):
    """The run's summary lines; ``show`` redraws them from the data and the app state."""

    def __init__(self, data: ReplayData, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.data = data
        self.state = AppState()
        self._title_text = ""
        self._title_for = -1

    def show(self) -> None:
        self.update(self.render_summary())

    def _title(self) -> str:
        """The run's title (``display.run_title``), worked out once its first events are in."""
        run = self.data.run
        if self._title_for != len(run.events) and len(run.events) <= 50:
            self._title_text = run_title(run)
            self._title_for = len(run.events)
        return self._title_text or run.run_id

    def _cost_line(self, t: Text) -> None:
        """Tokens, dollars, C_raw with its unit, and where the waste went."""
        d = self.data
        tok = d.tokens
        led = d.ledger
        if tok is None or led is None:
            t.append("cost …", style="dim")
            return
        t.append("cost ", style="bold")
        t.append(f"{_k(tok.tokens_in + tok.tokens_out)} tokens")
        inner = [f"in {_k(tok.tokens_in)}"]
        if tok.cache_read:
            share = tok.cache_read / tok.tokens_in if tok.tokens_in else 0.0
            inner.append(f"{_pct(share)} cached")
        inner.append(f"out {_k(tok.tokens_out)}")
        t.append(f" ({', '.join(inner)})", style="dim")
        usd = d.run.cost_usd if d.run.cost_usd is not None else tok.usd
        if usd is not None:  # dollars only when the log records them
            t.append(f"  ${usd:.4g} logged")
        t.append(f"  {figure_title('c_raw')} {fmt_num(led.figures.c_raw, 9)} units")
        s = d.summary
        if s is not None:
            w = s.waste
            t.append(f"  waste {_pct(w.any)}:", style="yellow" if w.any >= 0.25 else "")
            t.append(
                f" repeats {_pct(w.repeated_actions)}, errors {_pct(w.repeated_errors)},"
                f" redundant {_pct(w.redundant_observations)},"
                f" after stop {_pct(w.after_stop)}",
                style="dim",
            )

    def render_summary(self) -> Text:
        d, st = self.data, self.state
        run = d.run
        t = Text(no_wrap=True, overflow="ellipsis", end="")
        # what matters most first: the line is cut at the right edge on a narrow terminal
        title = self._title()
        t.append(sanitize_label(title, 80), style="bold")
        if run.success is None:
            t.append("  outcome unknown", style="dim")
        else:
            t.append(
                "  success ✓" if run.success else "  failed ✗",
                style="green" if run.success else "red",
            )
        ended = ended_label(run)
        if ended:
            t.append(f"  ended {sanitize_label(ended, 40)}")
        t.append(
            f"  {d.n_rows:,} events"
            if d.filter is None
            else f"  {d.n_rows:,} of {len(d):,} events ({d.filter.describe()})"
        )
        if run.model:
            t.append(f"  model {sanitize_label(run.model, 30)}")
        if run.task_id and run.task_id not in (run.run_id, title) and run.task_id not in title:
            t.append(f"  task {sanitize_label(run.task_id, 40)}")
        if run.harness:
            t.append(f"  harness {sanitize_label(run.harness, 30)}")
        if title != run.run_id:
            t.append(f"  id {sanitize_label(run.run_id, 60)}", style="dim")
        t.append("\n")
        self._cost_line(t)
        t.append("\n")
        led = d.ledger
        if led is not None:
            figures = led.figures.as_dict()
            t.append(
                "  ".join(
                    f"{figure_title(name)} {fmt_num(figures[name], cells)}"
                    for name, cells in HEADLINE
                )
            )
            s = d.summary
            if s is not None:
                if s.stop_event is None:
                    t.append(f"  adapter: no stop ({no_stop_reason(s)})", style="dim")
                else:
                    t.append(
                        f"  adapter: stop@{s.stop_event} saves {fmt_num(s.cost_saved, 8)}",
                        style="red",
                    )
                    risk = at_risk_label(s)
                    if risk == "yes":
                        t.append(" (success at risk)", style="bold red")
                    elif risk == "unknown":
                        t.append(" (success at risk: unknown)", style="dim")
        if d.changed and d.figures is not None and d.prev_figures is not None:
            was = d.prev_figures.as_dict()
            t.append(
                f"  rescored: {len(d.changed)} earlier event(s) changed ({CHANGED})", style="yellow"
            )
            name = HEADLINE[0][0]
            if was[name] != d.figures.as_dict()[name]:
                t.append(f", {figure_title(name)} was {fmt_num(was[name], 8)}", style="yellow")
        if not st.loaded:
            t.append("  reading…", style="italic")
        elif st.scoring or (led is None and d.n_rows):
            t.append("  scoring…", style="italic")
        if st.follow:
            t.append("  following", style="bold cyan")
        if st.playing:
            t.append(f"  ▶ {st.speed:g}/s", style="bold green")
        return t


def _k(n: int) -> str:
    """A token count short: 950, 19.3k, 1.25M."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%"


class ReadProgress(Widget):
    """How far the first read is through the file, while it reads: a bar and a percentage
    on one line. (One widget: Textual's ProgressBar is three, each paid for in the first
    frame and in every restyle.)"""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"read-progress--done", "read-progress--left"}

    DEFAULT_CSS = """
    ReadProgress { height: 1; }
    ReadProgress > .read-progress--done { color: $warning; }
    ReadProgress > .read-progress--left { color: $foreground 20%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        #: how far through the file (0 to 1)
        self.fraction = 0.0

    def update(self, fraction: float) -> None:
        fraction = max(0.0, min(1.0, fraction))
        if fraction != self.fraction:
            self.fraction = fraction
            self.refresh()

    def render(self) -> Text:
        width = max(1, self.size.width - 6)
        done = round(self.fraction * width)
        text = Text(no_wrap=True)
        text.append("━" * done, style=self.get_component_rich_style("read-progress--done"))
        text.append(
            "━" * (width - done), style=self.get_component_rich_style("read-progress--left")
        )
        text.append(f"{round(100 * self.fraction):>5}%")
        return text
