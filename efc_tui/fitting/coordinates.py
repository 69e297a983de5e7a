"""Run-level columns for the grouped real-runs protocol (``fitting/crossfit.py``), and the
coordinate proposed for real traces beside the paper's (docs/equations.md, "RF rate").

**RF rate** (retained feedback per event) = NRS-EFC / T, T the run's events. NRS-EFC keeps
only feedback that is valid, non-redundant and stable (SPEC §3.5); its sum over a real run
grows with the run's length, and on real runs failing runs are the longer ones (they
collect feedback while they struggle: issue 29 measures AUC 0.40 within a group for every
EFC sum). The rate asks how much of each step was effective feedback, which a long
struggle dilutes and a run that moves straight to its answer keeps high; ÷ D_task (task
demand cross-fitted on other configurations' runs of the task, in RF-rate units) it is the
x coordinate of the curve.

**Retained API feedback rate** (``api_rate``): the share of a run's tool calls whose answer
returned a value a later call used (``scoring/api_features.py``, docs/equations.md): the
per-call retention term the NRS gates do not see on tool/API traces.
"""

from __future__ import annotations

from typing import Any

from efc_tui.scoring.api_features import api_feedback


def real_columns(ledger: Any) -> dict[str, float]:
    """What the protocol keeps of a scored run: raw figures, EFC sums, the RF rate and the
    retained API feedback rate."""
    fig = ledger.figures
    events = max(1, len(ledger.run.events))
    return {
        "tokens": float(fig.tokens),
        "tool_calls": float(fig.tool_calls),
        "c_raw": float(fig.c_raw),
        "events": float(len(ledger.run.events)),
        "est_efc": float(fig.est_efc),
        "nrs_efc": float(fig.nrs_efc),
        "rf_rate": float(fig.nrs_efc) / events,
        "api_rate": api_feedback(ledger.run).rate,
    }


__all__ = ["real_columns"]
