"""The run-level figures, declared once (SPEC §1, §4-5).

Each :class:`Figure` says what one figure of a whole run is and how every reader shows it:

- ``key``: its name in ``RunFigures``, in ``efc_tui.report.output.run_row`` (the row ``score``
  prints as a table, JSONL, CSV or Parquet, and the picker shows), and in the efc-ledger/1
  export's ``figures``;
- ``title``: its one heading, in the score table, the picker, the replay summary, the CI
  reports, the glossary and the docs;
- ``meaning``: what it is in plain words (the app's glossary and the docs read it);
- ``unit`` and ``kind``: what it counts and how it is written ("count": an integer,
  "number": a float, "usd": dollars, "bool": yes / no);
- ``ratio``: a ratio of two other figures (numerator, denominator): the ledger computes it
  from them, and a fit predictor over it compares their sums over a group;
- ``rank``: its column priority in the score table (0 stays, the highest goes first when
  the terminal is narrow; None: the table does not show it). What a person asks first
  stays longest: did the run succeed, what did it cost (C_raw, dollars), how long was it;
  then NRS-EFC's ratios; the strict EFC (0 on most real logs) last;
- ``predictor``: its label in a fit's comparison table (``efc_tui.fitting.predictors``)
  when it is a predictor, else None;
- ``source``: where its value comes from: "ledger" (``RunFigures``, computed by
  ``score_run``), "row" (the run's log, added to its row), "adapter" (the adapter's
  counterfactual) or "fit" (``score --fit``).

So a figure is added, renamed or re-titled here only; ``tests/unit/test_figures.py`` checks the
readers and the table in docs/export.md against this list. Plain data: importing it loads
nothing else (the CLI declares its tables from it at start-up).
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct


class Figure(Struct, frozen=True):
    """One run-level figure (the module docstring says what each field is)."""

    key: str
    title: str
    meaning: str
    unit: str = ""
    kind: Literal["count", "number", "usd", "bool"] = "number"
    ratio: tuple[str, str] | None = None
    rank: int | None = None
    predictor: str | None = None
    source: Literal["ledger", "row", "adapter", "fit"] = "ledger"

    @property
    def formula(self) -> str:
        """A ratio in the titles of its parts ("NRS-EFC ÷ C_raw"); "" for other figures."""
        if self.ratio is None:
            return ""
        num, den = self.ratio
        return f"{BY_KEY[num].title} ÷ {BY_KEY[den].title}"


FIGURES: tuple[Figure, ...] = (
    Figure(
        "events",
        "events",
        "the run's events: each action with its observation",
        "events",
        "count",
        rank=2,
    ),
    Figure(
        "efc",
        "EFC",
        "strict effective feedback: only verdicts that moved progress count; 0 on most real "
        "logs, so η and X built on it are 0 too",
        "feedback (0 to 10 per event)",
        rank=6,
    ),
    Figure(
        "est_efc",
        "Est-EFC",
        "estimated effective feedback: Σ ÊFC_t, each event's estimate from its features "
        "(θ from the estimator file)",
        "feedback (0 to 10 per event)",
        rank=8,
        predictor="Estimated-EFC",
    ),
    Figure(
        "stable_efc",
        "Stable-EFC",
        "Est-EFC with each event weighed by its status quality, progress and loop gates "
        "(Σ ÊFC_stable_t)",
        "feedback (0 to 10 per event)",
    ),
    Figure(
        "nrs_efc",
        "NRS-EFC",
        "the run's credit: effective feedback that was non-redundant and status-aware, summed "
        "over its events (Σ ÊFC_nr; no unit, 0 to 10 per event)",
        "feedback (0 to 10 per event)",
        rank=0,
        predictor="NRS-EFC",
    ),
    Figure(
        "oracle_efc",
        "Oracle-EFC",
        "Σ EFC_t from the trace's oracle blocks (synthetic traces only; none otherwise)",
        "feedback (0 to 10 per event)",
        predictor="Oracle-EFC",
    ),
    Figure(
        "c_raw",
        "C_raw",
        "raw cost, in cost units: tokens ÷ 1,000 + 0.35 per tool call + 0.10 per second of "
        "wall time + 0.04 per operation (1 unit = 1,000 tokens = 10 s)",
        "cost units",
        rank=1,
        predictor="Raw cost",
    ),
    Figure("tokens", "tokens", "model tokens, in + out", "tokens", predictor="Raw tokens"),
    Figure(
        "tool_calls",
        "tool calls",
        "tool and checker calls",
        "calls",
        predictor="Tool calls",
    ),
    Figure("wall_s", "wall s", "wall time", "seconds", predictor="Wall time"),
    Figure(
        "ops",
        "ops",
        "model, tool, verification and memory operations",
        "operations",
        predictor="Operations",
    ),
    Figure(
        "d_task",
        "D_task",
        "the task's estimated demand, of the task and never of the run: "
        "L·H_tool·S_state·(1+N_obs)·(1−V_ver), floored at 0.05 (the ledger says where each "
        "part came from)",
        "demand",
        rank=6,
    ),
    Figure(
        "d_task_fitted",
        "D_task (fitted)",
        "D_task from the estimator file's fitted demand model (none when it has none)",
        "demand",
    ),
    Figure(
        "eta",
        "η",
        "harness efficiency: EFC per cost unit (EFC is Oracle-EFC when the trace has oracle "
        "blocks)",
        "per cost unit",
        ratio=("efc", "c_raw"),
        rank=8,
        predictor="eta = EFC/C_raw",
    ),
    Figure(
        "eta_est",
        "η_est",
        "estimated feedback per cost unit",
        "per cost unit",
        ratio=("est_efc", "c_raw"),
    ),
    Figure(
        "eta_nrs",
        "η_NRS",
        "credit per cost: NRS-EFC ÷ C_raw (per cost unit)",
        "per cost unit",
        ratio=("nrs_efc", "c_raw"),
        rank=5,
        predictor="eta_NRS",
    ),
    Figure(
        "x",
        "X",
        "coverage by the strict EFC (1 = as much feedback as the task is estimated to need)",
        "share of D_task",
        ratio=("efc", "d_task"),
    ),
    Figure(
        "x_est",
        "X_est",
        "coverage by the estimated feedback",
        "share of D_task",
        ratio=("est_efc", "d_task"),
        predictor="Est-EFC/D_task",
    ),
    Figure(
        "x_nrs",
        "X_NRS",
        "coverage: NRS-EFC ÷ D_task, the task's estimated demand (1 = as much feedback as "
        "the task is estimated to need)",
        "share of D_task",
        ratio=("nrs_efc", "d_task"),
        rank=5,
        predictor="NRS-EFC/D_task",
    ),
    Figure(
        "x_nrs_fitted",
        "X_NRS (fitted)",
        "coverage over the fitted D_task (none without one)",
        "share of D_task",
        ratio=("nrs_efc", "d_task_fitted"),
        predictor="NRS-EFC/D_task (fitted)",
    ),
    Figure(
        "success",
        "success",
        "whether the run succeeded: from the log, its reward or --labels (unknown when "
        "nothing says)",
        kind="bool",
        rank=1,
    ),
    Figure(
        "cost_usd",
        "cost $",
        "dollars the log itself records (never estimated from tokens)",
        "US dollars",
        "usd",
        rank=2,
        source="row",
    ),
    Figure(
        "tokens_in",
        "tokens in",
        "model tokens in: the prompts, cached reads included",
        "tokens",
        "count",
        source="row",
    ),
    Figure(
        "tokens_cached",
        "tokens cached",
        "input tokens read from the provider's prompt cache",
        "tokens",
        "count",
        source="row",
    ),
    Figure(
        "tokens_out", "tokens out", "model tokens out: the replies", "tokens", "count", source="row"
    ),
    Figure(
        "saved",
        "saves",
        "the raw cost the adapter's stop would have saved",
        "cost units",
        source="adapter",
    ),
    Figure(
        "fit_success",
        "P(success)",
        "the fitted chance of success on the fit's primary curve",
        "probability",
        rank=1,
        source="fit",
    ),
    Figure("fit_z", "z", "the run's value of the curve's predictor", source="fit"),
    Figure(
        "fit_z_norm",
        "z/med",
        "z over the median z of the fitted groups",
        rank=6,
        source="fit",
    ),
    Figure(
        "fit_pctl",
        "pctl",
        "share of the fitted groups with a lower z",
        "share",
        rank=7,
        source="fit",
    ),
    Figure(
        "fit_extrapolated",
        "extrapolated",
        "whether the prediction lies outside the fitted range",
        kind="bool",
        source="fit",
    ),
)

BY_KEY: dict[str, Figure] = {f.key: f for f in FIGURES}
#: the figures ``score_run`` computes, in ``RunFigures`` order
LEDGER_FIGURES: tuple[Figure, ...] = tuple(f for f in FIGURES if f.source == "ledger")


def title(key: str) -> str:
    """The figure's one heading."""
    return BY_KEY[key].title


#: where each source's figures are found, for the docs
_FOUND = {
    "ledger": "computed (`figures`)",
    "row": "the log",
    "adapter": "the adapter (picker)",
    "fit": "`score --fit`",
}


def markdown_table() -> str:
    """The table of docs/export.md (``tests/unit/test_figures.py`` compares the two)."""
    lines = [
        "| key | title | = | unit | from | what it is |",
        "|---|---|---|---|---|---|",
    ]
    for f in FIGURES:
        lines.append(
            f"| `{f.key}` | {f.title} | {f.formula or '–'} | {f.unit or '–'} | "
            f"{_FOUND[f.source]} | {f.meaning} |"
        )
    return "\n".join(lines)


__all__ = ["BY_KEY", "FIGURES", "LEDGER_FIGURES", "Figure", "markdown_table", "title"]
