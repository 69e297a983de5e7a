"""Backtest of the live EFC-Adapter (`efc-tui hook`, `live.Monitor`) on labelled real runs:
what each mode would have stopped, and how many labelled successes it would have put at risk.

Each run is decided by a ``Monitor`` as the hook decides a session (the decisions equal
``score --adapter``'s: the adapter is causal), with the hook's defaults (the repetition rule
acts, the window rule is recorded only) or ``--window-rule``. Per mode:

- ``stop``: the session ends at the first verdict that acts; saved = the raw cost after it;
  a labelled success is at risk by the adapter's rule (its first passing verdict, or its
  final event when it has none, comes after the stop);
- ``veto``: the calls after it that repeat the loop's action with no edit since are denied;
  saved = their raw cost; a labelled success with any denied call counts as at risk (a
  denial changes the agent's course, which a replay cannot follow);
- ``warn``: nothing is cut (the reason goes back to the model); the runs warned are counted.

    .venv/bin/python bench/live_backtest.py [../shared/real-runs] [--window-rule]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import efc_tui
from efc_tui.adapter.config import CANDIDATE_KINDS
from efc_tui.adapter.live import Monitor
from efc_tui.adapter.loops import action_signature
from efc_tui.adapter.summary import success_at_risk
from efc_tui.model import Run


def _source(run: Run, root: Path) -> str:
    try:
        return Path(run.source_path or "").resolve().relative_to(root.resolve()).parts[0]
    except (ValueError, IndexError):
        return "?"


def backtest(root: Path, window_rule: bool) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for run in efc_tui.load_all(root):
        verdicts = Monitor(run=replace(run, events=[]), window_rule=window_rule).sync(run)
        dc = [v.decision.dC for v in verdicts]
        row = rows[_source(run, root)]
        row["runs"] += 1
        row["c_raw"] += sum(dc)
        success = run.success is True
        row["successes"] += success
        acted = next((v for v in verdicts if v.act), None)
        if acted is None:
            continue
        s = acted.index
        row["acted"] += 1
        row["warned_successes"] += success
        # stop
        row["stop_saved"] += sum(dc[s + 1 :])
        first_pass = next(
            (i for i, ev in enumerate(run.events) if ev.status.value == "passed"), None
        )
        risk, _ = success_at_risk(s, first_pass, run.success, len(run.events))
        row["stop_risk"] += risk is True
        # veto: later calls repeating the loop's action, nothing edited since
        loop = acted.action if acted.rule and "repeat" in acted.rule else None
        denied = False
        for v in verdicts[s + 1 :]:
            ev = run.events[v.index]
            if v.rule and "repeat" in v.rule and v.action is not None:
                loop = v.action
            if loop is None:
                continue
            if ev.kind in CANDIDATE_KINDS:
                loop = None
            elif action_signature(ev) == loop:
                row["veto_saved"] += dc[v.index]
                denied = True
        row["veto_risk"] += denied and success
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "root", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared" / "real-runs")
    )
    ap.add_argument("--window-rule", action="store_true", help="act on the window rule too")
    args = ap.parse_args()
    root = Path(args.root)
    rows = backtest(root, args.window_rule)
    total: dict[str, float] = defaultdict(float)
    for row in rows.values():
        for k, v in row.items():
            total[k] += v
    print(
        "| source | runs | labelled successes | C_raw | runs acted on | stop: saved | "
        "stop: successes at risk | veto: saved | veto: successes at risk | warn: successes warned |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, row in [*sorted(rows.items()), ("all", total)]:
        c = row["c_raw"] or 1.0
        print(
            f"| {name} | {row['runs']:.0f} | {row['successes']:.0f} | {row['c_raw']:,.0f} | "
            f"{row['acted']:.0f} | {row['stop_saved']:,.0f} ({100 * row['stop_saved'] / c:.1f}%) | "
            f"{row['stop_risk']:.0f} | {row['veto_saved']:,.0f} ({100 * row['veto_saved'] / c:.1f}%) | "
            f"{row['veto_risk']:.0f} | {row['warned_successes']:.0f} |"
        )


if __name__ == "__main__":
    main()
