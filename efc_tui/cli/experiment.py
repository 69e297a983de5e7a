"""``efc-tui experiment``: the paper's controlled experiments on the simulator (paper §4.2,
§5.1, appendix "Module Ablations"). Thin: ``efc_tui.synthetic.experiments`` does the work."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import app
from efc_tui.cli._common import fail, note, stdout_console
from efc_tui.errors import EfcError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rich.table import Table

# the simulator and the tables, imported when the command runs (efc_tui._lazy): not for
# its --help
experiments = lazy_module("efc_tui.synthetic.experiments")
io = lazy_module("efc_tui.io")
orjson = lazy_module("orjson")
rich_box = lazy_module("rich.box")
rich_table = lazy_module("rich.table")
rich_text = lazy_module("rich.text")

NAMES = ("matched-budget", "ablation", "eta-scan")


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _tables(report: dict[str, Any]) -> list[Any]:
    def table(title: str, cols: list[str]) -> Table:
        t = rich_table.Table(
            title=title, title_justify="left", header_style="bold", box=rich_box.SIMPLE_HEAD
        )
        for i, c in enumerate(cols):
            t.add_column(c, justify="left" if i == 0 else "right")
        return t

    def row(t: Table, *cells: Any) -> None:
        t.add_row(*(rich_text.Text(str(c)) for c in cells))

    name = report["experiment"]
    if name == "matched-budget":
        t = table(
            f"Matched budget: {report['pairs']} pairs, same task, model and raw budget",
            ["condition", "success", "mean C_raw", "η", "I", "V", "R", "M"],
        )
        for c in report["conditions"]:
            f = c["factors"]
            row(
                t,
                c["name"],
                _pct(c["success"]),
                f"{c['c_raw']:.1f}",
                f"{c['eta']:.3f}",
                f"{f['I']:.2f}",
                f"{f['V']:.2f}",
                f"{f['R']:.2f}",
                f"{f['M']:.2f}",
            )
        d = report["discordant"]
        t.caption = (
            f"mean |ΔC_raw| between paired runs {report['raw_cost_gap_mean_pct']:.2f}%; "
            f"pairs only high-quality solved {d['high_only']}, only low-quality {d['low_only']}; "
            f"exact McNemar p = {report['p_value_mcnemar']:.2g}"
        )
        return [t]
    if name == "ablation":
        t = table(
            "Module ablations of H5 (budgets "
            + ", ".join(f"{b:g}" for b in report["budgets"])
            + ")",
            ["variant", "runs", "success", "Δ success", "η", "Δ η", "mean C_raw"],
        )
        for v in report["variants"]:
            row(
                t,
                v["name"],
                v["runs"],
                _pct(v["success"]),
                f"{100 * v['d_success']:+.0f} pt",
                f"{v['eta']:.3f}",
                f"{v['d_eta']:+.3f}",
                f"{v['c_raw']:.1f}",
            )
        return [t]
    t = table(
        f"η factor scan at budget {report['budget']:g} (one factor at a time, the rest at H5)",
        ["factor", "levels", "η (low → high)", "success (low → high)", "effect on η"],
    )
    for f in report["factors"]:
        row(
            t,
            f["factor"],
            " / ".join(f"{x:g}" for x in f["levels"]),
            " → ".join(f"{x:.2f}" for x in f["eta"]),
            " → ".join(_pct(x) for x in f["success"]),
            f"{f['effect_eta']:+.3f}",
        )
    return [t]


@app.command("experiment")
def experiment_cmd(
    name: str = typer.Argument(..., help="matched-budget, ablation or eta-scan."),
    runs: int = typer.Option(
        24, "--runs", "-n", min=1, help="Tasks per family in every condition."
    ),
    seed: int = typer.Option(
        7, "--seed", "-s", help="Task and run seed (the same seed gives the same report)."
    ),
    json_out: bool = typer.Option(
        False, "--json", help="Print the report as JSON instead of a table."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Also write the JSON report to this file."
    ),
) -> None:
    """Run one of the paper's controlled experiments on the simulator and report it:
    matched-budget pairs (same raw budget, better feedback), module ablations of the closed
    loop H5 (routing, verification, memory, noise), or the η factor scan (one harness or
    environment factor at a time). Success always comes from the tasks' evaluator."""
    if name not in NAMES:
        fail(f"unknown experiment {name!r}; choose from {', '.join(NAMES)}")
    try:
        report = experiments.run_experiment(name, runs=runs, seed=seed)
        data = orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        if output is not None:
            io.write_atomic(output, data)
    except EfcError as exc:
        fail(exc)
    if json_out:
        sys.stdout.write(data.decode())
    else:
        console = stdout_console()
        for t in _tables(report):
            console.print(t)
    if output is not None:
        note(f"wrote {output}")
