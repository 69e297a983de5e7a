"""The ledger's columns, declared once (SPEC §2-4, §10).

Each :class:`LedgerColumn` says what one per-event column is and how every reader of it
shows it:

- ``key``: its name in ``Ledger.columns()`` / ``to_pandas()``;
- ``group`` and ``name``: where the efc-ledger/1 export puts it in an event entry
  (``{"phi": {"c": ...}}``; top level when ``group`` is None);
- ``get``: its values for every event of a scored run (``event`` instead, for fields the
  reader gives before scoring: index, kind, status, ...);
- ``title``, ``width``, ``align``, ``style``: how the app's ledger shows it (``title`` is
  None for columns the ledger does not show);
- ``meaning``: one line for the app's glossary and the docs.

``Ledger.columns()``, ``efc_tui.report.export.ledger_document``, the schema test and the app's
``LedgerView`` all read this list, so a column is added, renamed or re-titled here only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from msgspec import Struct

if TYPE_CHECKING:
    import numpy as np

    from efc_tui.model import Event
    from efc_tui.scoring.ledger import Ledger

#: one column's values for every event: an array the ledger holds, or a list
Values: TypeAlias = "np.ndarray | Sequence[Any]"


class LedgerColumn(Struct, frozen=True):
    """One per-event column of the ledger (the module docstring says what each field is)."""

    key: str
    meaning: str
    #: values for every event of a scored ledger (None: an ``event`` column)
    get: Callable[[Ledger], Values] | None = None
    #: the value of one event, known before scoring (None: a scored column)
    event: Callable[[Event], Any] | None = None
    #: export nesting: the event entry's sub-object holding this column
    group: str | None = None
    #: export key (inside ``group``); defaults to ``key``
    name: str | None = None
    #: the column exists only for runs with oracle blocks (SPEC §3.1)
    oracle: bool = False
    #: the app's ledger: header, cells, alignment, and a style rule it knows by name
    title: str | None = None
    width: int = 0
    align: Literal["<", ">"] = ">"
    style: str | None = None

    @property
    def export_name(self) -> str:
        return self.name or self.key

    def values(self, ledger: Ledger) -> Values:
        """This column over every event (an oracle column needs a run with oracle blocks)."""
        if self.get is not None:
            return self.get(ledger)
        assert self.event is not None
        return [self.event(e) for e in ledger.run.events]


def _phi(name: str) -> Callable[[Ledger], Values]:
    return lambda led: getattr(led.features, name)


def _gate(attr: str) -> Callable[[Ledger], Values]:
    return lambda led: getattr(led.gates, attr)


def _factor(attr: str) -> Callable[[Ledger], Values]:
    return lambda led: getattr(led.factors, attr)


def _oracle(attr: str) -> Callable[[Ledger], Values]:
    def get(led: Ledger) -> Values:
        assert led.oracle is not None
        return getattr(led.oracle, attr)

    return get


_PHI_MEANING = {
    "c": "checker fired: the event ran a test or verifier",
    "h": "checker scope: share of the task's known checks it covered",
    "z": "later referenced: a later action cites this event (looks ahead)",
    "p": "plan change: the next action differs in kind, tool or target",
    "m": "memory retention: written to memory or used later (else 0.3)",
    "a": "repeated-error avoidance: 0 when this error repeats an earlier one",
    "q": "observation consistency: lowered for empty, truncated or contradicting output",
    "delta": "Δ subgoal progress: rise in the share of passing checks",
    "rho": "ρ trace position: t / (t + 10)",
}

LEDGER_COLUMNS: tuple[LedgerColumn, ...] = (
    LedgerColumn(
        "index", "event index in the run (SPEC §2)", event=lambda e: e.index, title="t", width=6
    ),
    LedgerColumn(
        "step", "the harness's step number (several events can share one)", event=lambda e: e.step
    ),
    LedgerColumn(
        "kind",
        "event kind: tool, check, generation, repair, plan, memory, … (SPEC §2)",
        event=lambda e: e.kind.value,
        title="kind",
        width=10,
        align="<",
    ),
    LedgerColumn(
        "tool",
        "tool name as the log gives it (· = none)",
        event=lambda e: e.tool,
        title="tool",
        width=10,
        align="<",
    ),
    LedgerColumn(
        "status",
        "verdict of the observation: passed, assert(ion_error), runtime, "
        "timeout, static(_reject), api_err(or), other, · = none (SPEC §2)",
        event=lambda e: e.status.value,
        title="status",
        width=8,
        align="<",
        style="verdict",
    ),
    *(
        LedgerColumn(k, f"{m} (SPEC §3.2)", get=_phi(k), group="phi")
        for k, m in _PHI_MEANING.items()
    ),
    LedgerColumn(
        "n",
        "novelty: share of the observation's shingles not seen before (SPEC §3.2)",
        get=_phi("n"),
    ),
    LedgerColumn(
        "I",
        "Î informativeness estimate (SPEC §3.3)",
        get=_factor("I"),
        group="factors",
        title="I",
        width=4,
    ),
    LedgerColumn(
        "V",
        "V̂ validity estimate (SPEC §3.3)",
        get=_factor("V"),
        group="factors",
        title="V",
        width=4,
    ),
    LedgerColumn(
        "R",
        "R̂ non-redundancy estimate (SPEC §3.3)",
        get=_factor("R"),
        group="factors",
        title="R",
        width=4,
    ),
    LedgerColumn(
        "M",
        "M̂ retention estimate (SPEC §3.3)",
        get=_factor("M"),
        group="factors",
        title="M",
        width=4,
    ),
    *(
        LedgerColumn(
            f"{k}_oracle",
            f"oracle {k} from the trace's oracle block (SPEC §3.1)",
            get=_oracle(k),
            group="oracle_factors",
            name=k,
            oracle=True,
        )
        for k in ("I", "V", "R", "M")
    ),
    LedgerColumn("efc", "EFC_t = κ·Î·V̂·R̂·M̂ (SPEC §3)", get=lambda led: led.efc),
    LedgerColumn(
        "efc_oracle",
        "Oracle-EFC_t from the oracle factors (SPEC §3.1)",
        get=_oracle("efc"),
        oracle=True,
    ),
    LedgerColumn(
        "est_efc", "ÊFC_t, Estimated-EFC from φ and θ (SPEC §3.4)", get=lambda led: led.est
    ),
    LedgerColumn(
        "stable_efc", "ÊFC_stable_t = ÊFC_t·Q·G·Λ (SPEC §3.5)", get=lambda led: led.stable
    ),
    LedgerColumn(
        "nrs_efc",
        "ÊFC_nr_t: status-aware, non-redundant Estimated-EFC of the event (SPEC §3.5)",
        get=lambda led: led.nr,
        title="ÊFC_nr",
        width=7,
    ),
    LedgerColumn("Q", "status quality of the verdict (SPEC §3.5)", get=_gate("Q"), group="gates"),
    LedgerColumn("G", "progress gate (SPEC §3.5)", get=_gate("G"), group="gates"),
    LedgerColumn("Lambda", "Λ loop gate (SPEC §3.5)", get=_gate("L"), group="gates"),
    LedgerColumn(
        "G_nr", "progress gate, non-redundant variant (SPEC §3.5)", get=_gate("G_nr"), group="gates"
    ),
    LedgerColumn(
        "Lambda_nr",
        "Λ_nr loop gate, non-redundant variant (SPEC §3.5)",
        get=_gate("L_nr"),
        group="gates",
    ),
    LedgerColumn(
        "A", "attempt index: status-bearing events before this one (SPEC §3.5)", get=_gate("A")
    ),
    LedgerColumn(
        "dC",
        "ΔC: raw cost the event consumed (SPEC §4)",
        get=lambda led: led.cost.delta,
        title="ΔC",
        width=6,
    ),
    LedgerColumn("C_cum", "raw cost so far, Σ ΔC (SPEC §4)", get=lambda led: led.c_cum),
    LedgerColumn(
        "X_nr_cum",
        "X̂_nr: Σ ÊFC_nr so far ÷ D_task (SPEC §6)",
        get=lambda led: led.x_nr_cum,
        title="X̂_nr",
        width=7,
    ),
)

BY_KEY: dict[str, LedgerColumn] = {c.key: c for c in LEDGER_COLUMNS}
#: the export's sub-objects, in order, with their keys (the schema test compares these)
GROUPS: dict[str, tuple[str, ...]] = {}
for _c in LEDGER_COLUMNS:
    if _c.group is not None:
        GROUPS[_c.group] = (*GROUPS.get(_c.group, ()), _c.export_name)
