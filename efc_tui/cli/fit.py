"""``efc-tui fit``: scaling-law fits over a corpus, the predictor comparison, plots (SPEC §5)."""

from __future__ import annotations

import re
import sys
from contextlib import ExitStack, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from efc_tui._lazy import lazy_module
from efc_tui.cli._app import app
from efc_tui.cli._common import (
    LABELS_HELP,
    THRESHOLD_HELP,
    _names,
    collect_paths,
    fail,
    iter_runs,
    note,
    outcomes_from,
    progress_bar,
    progress_enabled,
    stdout_console,
    warn,
)
from efc_tui.cli._dask import (
    DASK_HELP,
    SCHEDULER_HELP,
    WORKERS_HELP,
    DaskReading,
    cluster,
    dask_setting,
    plan_sources,
)
from efc_tui.errors import EfcError, InputError
from efc_tui.io import write_atomic
from efc_tui.report.text import sanitize_label

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

# imported when first used (efc_tui._lazy): rich when a table is built, numpy and the
# fitting code when the command runs, Dask for a Dask option only
np = lazy_module("numpy")
rich_box = lazy_module("rich.box")
rich_table = lazy_module("rich.table")
rich_text = lazy_module("rich.text")
work = lazy_module("efc_tui.pipeline.score")
dask_client = lazy_module("efc_tui.cluster.client")
ledgers = lazy_module("efc_tui.report.export")
scoring = lazy_module("efc_tui.scoring")
corpus_fit = lazy_module("efc_tui.fitting.corpus")
curves = lazy_module("efc_tui.fitting.curves")
evaluation = lazy_module("efc_tui.fitting.evaluate")
fitfile = lazy_module("efc_tui.fitting.fitfile")
svg = lazy_module("efc_tui.fitting.svg")
fit_table = lazy_module("efc_tui.fitting.table")

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _num(v: Any, fmt: str = ".3f") -> str:
    return "–" if v is None else format(v, fmt)


def _param(v: Any) -> str:
    if v is None:
        return "–"
    return f"{v:.3g}" if abs(v) >= 1e-3 or v == 0 else f"{v:.1e}"


def _bound_values(at_bounds: list[str]) -> dict[str, str]:
    """Parameters a fit left on a numeric bound ("E_inf=0", "E_0=1", "A=0"), printed as the
    bound: the fitted value there is the optimizer's noise (3.0e-20 on one CPU, 5.6e-27 on
    another), not a figure."""
    out = {}
    for hit in at_bounds:
        name, _, value = hit.partition("=")
        if value and value.replace(".", "", 1).isdigit():
            out[name] = value
    return out


def _ci(iv: Any) -> str:
    if not iv or iv[0] is None or iv[1] is None:
        return ""
    return f"[{iv[0]:.2f}, {iv[1]:.2f}]"


def _brier_cell(brier: Any, base: Any, sep: str = " / ") -> Text:
    """ "0.160 / 0.250": green when the curve beats the base rate, red when it does not."""
    Text = rich_text.Text
    if brier is None or base is None:
        return Text("–")
    return Text(f"{brier:.3f}{sep}{base:.3f}", style="green" if brier < base else "red")


#: below this width the tables leave one space between columns instead of two
_COMPACT = 120
#: the longest predictor label word ("Oracle-EFC/D_task")
_LABEL_MIN = 17


def _new_table(title: str, width: int | None) -> Table:
    compact = width is not None and width < _COMPACT
    return rich_table.Table(
        title=title,
        title_justify="left",
        header_style="bold",
        box=rich_box.SIMPLE_HEAD,
        padding=(0, 0) if compact else (0, 1, 0, 0),
        show_edge=False,
    )


def _add_columns(table: Table, cols: list[tuple[str, bool]]) -> None:
    """Columns that fold instead of cutting (nothing is ever shown with an ellipsis); the
    first is the predictor label, the ones marked True may wrap at spaces."""
    for i, (c, wrap) in enumerate(cols):
        table.add_column(
            c,
            justify="left" if i == 0 or c.endswith("note") else "right",
            no_wrap=not wrap,
            overflow="fold",
            min_width=_LABEL_MIN if i == 0 else None,
        )


def _axis_label(doc: dict[str, Any], name: str | None) -> str:
    if name is None:
        return "held-out"
    for p in doc["predictors"]:
        for h in p.get("holdout", []):
            if h["name"] == name:
                axes = "+".join(h["axes"])
                return name if not axes or axes == name else f"{name} ({axes})"
    return name


def comparison_table(doc: dict[str, Any], width: int | None = None) -> Table:
    """The predictor comparison of an efc-fit/1 document: in-sample R² with its interval and
    the groups' noise ceiling, then the held-out figures on the selection axis (R², its
    ceiling, per-run AUC, Brier against the base rate), as a rich Table of Text cells."""
    Text = rich_text.Text
    boot = bool(doc["settings"].get("bootstrap"))
    per_run = (doc.get("analysis") or {}).get("kind") == "per_run"
    sel = (doc.get("selection") or {}).get("axis")
    unit = "bins" if per_run else "groups"
    how = (
        "per-run analysis: quantile bins of z"
        if per_run
        else "groups: " + " × ".join(doc["settings"]["group_by"])
    )
    table = _new_table(
        f"Scaling fits ({how}): in-sample, then held-out ({_axis_label(doc, sel)})", width
    )
    # below 100 columns the interval goes under R² and the Brier pair closes up, so the
    # table fits 80 columns; the predictor label may wrap; nothing is cut
    narrow = width is not None and width < 100
    _add_columns(
        table,
        [
            ("predictor", True),
            (unit, False),
            ("R² [95% CI]" if boot else "R²", False),
            ("ceiling", False),
            ("held-out\nR²" if narrow else "held-out R²", False),
            ("ceiling", False),
            ("AUC", False),
            ("Brier/base" if narrow else "Brier / base", False),
        ],
    )
    for p in doc["predictors"]:
        if p["status"] == "unavailable":
            continue
        figs, iv = p["figures"], p.get("intervals") or {}
        primary = p["name"] == doc.get("primary")
        label = Text(p["label"] + (" *" if primary else ""), style="bold" if primary else "")
        if p["status"] != "ok":
            # the reason goes to the notes: a long sentence would widen a figure column
            table.add_row(
                label,
                Text(str(figs["groups"])),
                Text(p["status"], style="yellow"),
                *(Text("") for _ in range(5)),
            )
            continue
        r2 = _num(figs["r2"], ".2f") + (
            ("\n" if narrow else " ") + _ci(iv["r2"]) if boot and iv.get("r2") else ""
        )
        h = next((x for x in p.get("holdout", []) if x["name"] == sel), None) or {}
        table.add_row(
            label,
            Text(str(figs["groups"])),
            Text(r2),
            Text(_num(figs.get("ceiling"), ".2f"), style="dim"),
            Text(_num(h.get("r2"), ".2f")),
            Text(_num(h.get("ceiling"), ".2f"), style="dim"),
            Text(_num(h.get("auc"), ".2f")),
            _brier_cell(h.get("brier"), h.get("brier_base"), "/" if narrow else " / "),
        )
    return table


def curves_table(doc: dict[str, Any], width: int | None = None) -> Table:
    """Each curve's parameters, normalization and floor (what `score --fit` applies)."""
    Text = rich_text.Text
    saturating = (doc.get("model") or {}).get("curve") == "saturating"
    if saturating:
        title = "Curves: E(z) = E_inf + (E_0 − E_inf)/(1 + (z′/z_0)^α), z′ = max(z, z_floor)/median"
        names = ["E_inf", "E_0", "z_0", "alpha"]
    else:
        title = "Curves: E(z) = min(1, E_inf + A·(max(z, z_floor)/median)^−α)"
        names = ["E_inf", "A", "alpha"]
    table = _new_table(title, width)
    _add_columns(
        table,
        [
            ("predictor", True),
            *((n.replace("alpha", "α"), False) for n in names),
            ("median", False),
            ("z_floor", False),
            ("floored", False),
            ("note", True),
        ],
    )
    for p in doc["predictors"]:
        if p["status"] != "ok" or p["kind"] != "power_law":
            continue
        par = p.get("params") or {}
        norm = p.get("normalization") or {}
        note_text = " ".join(p["fit"]["at_bounds"])
        bound = _bound_values(p["fit"]["at_bounds"])
        table.add_row(
            Text(p["label"]),
            *(Text(bound.get(n) or _param(par.get(n))) for n in names),
            Text(_param(norm.get("median"))),
            Text(_param(p.get("z_floor"))),
            Text(str(p.get("floored_groups") or 0)),
            Text(note_text, style="dim"),
        )
    return table


def holdout_table(doc: dict[str, Any], name: str, width: int | None = None) -> Table | None:
    """Held-out figures of every predictor on one axis: grouped R² with the held-out groups'
    noise ceiling and MAE, per-run AUC, Brier, the base rate's Brier and the skill."""
    Text = rich_text.Text
    rows = []
    for p in doc["predictors"]:
        h = next((x for x in p.get("holdout", []) if x["name"] == name), None)
        if p["status"] == "ok" and h is not None:
            rows.append((p, h))
    if not rows:
        return None
    table = _new_table(
        f"Held-out: {_axis_label(doc, name)} (fitted on the other runs, predicting the held-out runs)",
        width,
    )
    _add_columns(
        table,
        [
            ("predictor", True),
            ("groups", False),
            ("R²", False),
            ("ceiling", False),
            ("MAE", False),
            ("runs", False),
            ("AUC", False),
            ("Brier / base", True),
            ("skill", False),
        ],
    )
    for p, h in rows:
        table.add_row(
            Text(p["label"]),
            Text(str(h["groups"])),
            Text(_num(h["r2"], ".2f")),
            Text(_num(h.get("ceiling"), ".2f"), style="dim"),
            Text(_num(h["mae"])),
            Text(str(h.get("runs", 0))),
            Text(_num(h.get("auc"), ".2f")),
            _brier_cell(h.get("brier"), h.get("brier_base")),
            Text(_num(h.get("skill"), ".2f")),
        )
    return table


def notes_lines(doc: dict[str, Any]) -> list[str]:
    """Corpus notes, then each distinct predictor note once with the predictors it concerns,
    then what the primary curve is (or why there is none)."""
    lines = list(doc.get("notes", []))
    gone: dict[str, list[str]] = {}
    shared: dict[str, list[str]] = {}
    for p in doc["predictors"]:
        if p["status"] == "unavailable":
            gone.setdefault(p["reason"] or "unavailable", []).append(p["label"])
            continue
        own = list(p.get("notes", []))
        if p["status"] != "ok":
            own.insert(0, f"{p['status']}: {p['reason']}")
        if p["kind"] == "sas_ols" and p.get("sas"):
            s = p["sas"]
            why = sorted(set(s["dropped"].values()))
            own.append(
                f"SAS-{s['variant']}: {s['parameters']} parameters on {s['n_train_cells']} cells; "
                f"{len(s['dropped'])} of 19 columns dropped ({', '.join(why) or 'none'})"
            )
        own += [
            f"held-out {h['name']}: {n}" for h in p.get("holdout", []) for n in h.get("notes", [])
        ]
        for n in own:
            if not n.startswith("on a bound"):
                shared.setdefault(n, []).append(p["label"])
    for reason, labels in gone.items():
        lines.append(f"not fitted: {', '.join(labels)}: {reason}")
    for note_text, labels in shared.items():
        lines.append(f"{', '.join(labels)}: {note_text}")
    lines.append(
        "ceiling: the R² the groups' true failure rates would reach (binomial noise); Brier / base: "
        "held-out per-run Brier against the training runs' success rate (green: better)"
    )
    if doc.get("primary"):
        lines.append(
            f"* primary curve (used by `score --fit` and the app): {doc.get('primary_description')}"
            f" ({doc.get('primary_reason')})"
        )
    else:
        lines.append(f"no primary curve: {doc.get('primary_reason')}")
    return lines


def terminal_plot(doc: dict[str, Any], width: int, color: bool) -> str | None:
    """The primary curve with its points, drawn by plotext; None when plotext is missing or
    the primary predictor has no curve."""
    try:
        import plotext as plt
    except ImportError:
        return None
    p = next((q for q in doc["predictors"] if q["name"] == doc.get("primary")), None)
    if (
        p is None
        or p["status"] != "ok"
        or not p.get("params")
        or not p.get("groups")
        or p.get("predictive") is not True
    ):
        return None  # no curve, or one that predicts no better than the base rate: not drawn
    zs = [g["z_norm"] for g in p["groups"]]
    es = [g["failure"] for g in p["groups"]]
    lo, hi = min(zs), max(zs)
    if hi <= lo:
        return None
    par = p["params"]
    cx = np.geomspace(lo, hi, 120)
    cy = curves.law_from_params(par).failure(cx)
    plt.clear_figure()
    plt.plotsize(min(width, 100), 20)
    plt.theme("pro" if color else "clear")
    plt.xscale("log")
    plt.plot(cx.tolist(), cy.tolist(), label="fit", marker="braille")
    plt.scatter(zs, es, label="groups", marker="•")
    plt.ylim(0, 1)
    r2 = p["figures"]["r2"]
    plt.title(f"{p['label']}: failure rate vs z/median (R²={_num(r2, '.2f')})")
    plt.xlabel("z / median (log)")
    out: str = plt.build()
    plt.clear_figure()
    return out if color else _ANSI.sub("", out)


@app.command()
def fit(
    paths: list[str] = typer.Argument(
        ..., help="Trace files, folders (searched recursively) or globs."
    ),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the fit file (schema efc-fit/1) here; with --evaluate, the evaluation as JSON.",
    ),
    predictor: list[str] = typer.Option(
        [],
        "--predictor",
        "-p",
        help="Predictors to fit (repeat or comma-separate; default: all). Names: tokens, tool_calls, "
        "wall_s, ops, c_raw, sas, oracle_efc, oracle_x, oracle_x_fitted, est_efc, x_est, "
        "x_est_fitted, nrs_efc, x_nrs, x_nrs_fitted, rf_rate, x_rf, eta, eta_nrs.",
    ),
    primary: str = typer.Option(
        "auto",
        help="The curve `score --fit` and the app use. auto: the EFC curve a user's trace can compute "
        "(not oracle_*, not sas, not a raw baseline) with the best held-out Brier skill among those that beat the "
        "base rate, or none. A name forces it (the file records whether it is predictive).",
    ),
    group_by: list[str] = typer.Option(
        [],
        "--group-by",
        "-g",
        help="Grouping axes (repeat or comma-separate): task_family, benchmark, harness, model, budget, "
        "source. Default: benchmark, harness, model, budget when runs name their benchmark "
        "(tau-bench, SWE-bench), else task_family, harness, model, budget.",
    ),
    holdout: list[str] = typer.Option(
        [],
        "--holdout",
        help="Held-out evaluation along an axis (repeatable): task_family, benchmark, harness, model, "
        "budget, source "
        "(where runs came from), combined (family+harness+model at once) or a+b. A 5-fold task "
        "cross-validation (tasks) always runs; the primary is chosen on the first axis given, else on it.",
    ),
    bootstrap: int = typer.Option(
        1000,
        "--bootstrap",
        "-b",
        min=0,
        help="Task-level bootstrap resamples for 95% intervals (0: none).",
    ),
    curve: str = typer.Option(
        "saturating",
        "--curve",
        help="The failure curve: saturating (E_inf + (E_0 − E_inf)/(1 + (z/z_0)^α): the paper's power law with a finite failure rate at zero feedback; default) or power (the paper's min(1, E_inf + A·z^−α)).",
    ),
    seed: int = typer.Option(
        0,
        "--seed",
        help="Seed of the bootstrap and the task folds (the fit itself is deterministic).",
    ),
    evaluate: Path | None = typer.Option(
        None,
        "--evaluate",
        help="Score this frozen fit file on PATHS (runs it never saw): every curve with its frozen "
        "parameters, median and floor; grouped R², noise ceiling, AUC, Brier against the new runs' base rate.",
    ),
    json_out: bool = typer.Option(
        False, "--json", help="With --evaluate: print the evaluation as one JSON document."
    ),
    plot: Path | None = typer.Option(
        None, "--plot", help="Draw every curve with its points to this .svg file."
    ),
    terminal: bool | None = typer.Option(
        None,
        "--terminal-plot/--no-terminal-plot",
        help="Draw the primary curve in the terminal (default: when stdout is a terminal and plotext is installed).",
    ),
    sas_reference: str | None = typer.Option(
        None, help="SAS's single-agent reference harness (default: H0, else the cheapest)."
    ),
    fmt: str | None = typer.Option(
        None, "--format", "-f", help="Force a reader (see `efc-tui formats`)."
    ),
    estimator: str | None = typer.Option(
        None,
        help="Estimator file from `efc-tui calibrate` (default: the package's that matches each run: synthetic for traces with oracle blocks, real otherwise).",
    ),
    lenient: bool = typer.Option(False, help="Skip and count malformed lines instead of failing."),
    labels: Path | None = typer.Option(None, "--labels", help=LABELS_HELP),
    success_threshold: float = typer.Option(1.0, "--success-threshold", help=THRESHOLD_HELP),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No progress bar or warnings on stderr."
    ),
    dask: bool = typer.Option(
        False, "--dask", help=DASK_HELP + " The bootstrap's resamples are fitted there too."
    ),
    scheduler: str | None = typer.Option(
        None, "--scheduler", metavar="ADDRESS", help=SCHEDULER_HELP
    ),
    dask_workers: int | None = typer.Option(None, "--dask-workers", min=1, help=WORKERS_HELP),
) -> None:
    """Fit failure rate against each predictor over groups of runs (the saturating curve
    E_inf + (E_0 − E_inf)/(1 + (z/z_0)^α) by default, the paper's E_inf + A·z^(−α) with --curve power).

    Prints the comparison table (in-sample R² with its interval and noise ceiling, held-out
    R², AUC and Brier against the base rate), writes the fit file that `score --fit` and the
    app read, and draws the curves when asked. With --evaluate FIT.json, scores that frozen
    fit on the runs instead. Runs need a success label. Exit 0 on success, 2 on bad input
    (one line saying why).
    """
    Text = rich_text.Text
    if evaluate is not None:
        extra = [
            flag
            for flag, given in (
                ("--plot", plot is not None),
                ("--holdout", bool(holdout)),
                ("--predictor", bool(predictor)),
                ("--group-by", bool(group_by)),
                ("--primary", primary != "auto"),
                ("--sas-reference", sas_reference is not None),
            )
            if given
        ]
        if extra:
            fail(
                f"--evaluate scores the fit file's own curves and grouping; {', '.join(extra)} does not apply"
            )
    elif output is None:
        fail(
            "name the fit file to write with -o FIT.json (or score a fit with --evaluate FIT.json)"
        )
    elif json_out:
        fail("--json goes with --evaluate (the fit itself is written with -o)")
    if plot is not None and plot.suffix.lower() != ".svg":
        if plot.suffix.lower() == ".png":
            fail(
                f"--plot {plot}: PNG is not built in; write .svg and convert it (e.g. rsvg-convert -o fit.png fit.svg)"
            )
        fail(f"--plot {plot}: the file must end in .svg")
    for target in (output, plot):
        if target is not None and str(target.parent) and not target.parent.is_dir():
            fail(f"{target}: the folder {target.parent} does not exist")
    outcomes = outcomes_from(labels, success_threshold)
    ff = None
    if evaluate is not None:
        try:
            ff = fitfile.load_fit(evaluate)
        except EfcError as exc:
            fail(exc)
    if curve not in ("saturating", "power"):
        fail(f"--curve must be saturating or power, not {curve!r}")
    on_dask = dask_setting(dask, scheduler, dask_workers, paths)
    files = collect_paths(paths) if on_dask is None else None
    planned = None
    if on_dask is not None:  # bad paths exit 2 before any cluster starts
        planned = plan_sources(paths)
    try:
        est = scoring.load_estimator(estimator) if estimator else None
    except EfcError as exc:
        fail(exc)
    used: dict[str, Any] = {}
    names = corpus_fit.split_names(predictor) or None
    axes = corpus_fit.split_names(group_by) or None  # None: default_group_by of the runs

    rows: list[dict[str, Any]] = []
    roots = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    job = work.Job("fit", est, fmt, lenient, outcomes, roots=tuple(str(r) for r in roots))
    reading = None
    with ExitStack() as stack:  # a local Dask cluster is shut down on leaving, whatever happens
        boot_map = None
        if on_dask is not None and planned is not None:  # the same rows, scored on Dask
            client = stack.enter_context(cluster(on_dask, quiet))
            reading = DaskReading(client, paths, planned, job, quiet=quiet)
            for item in reading.items():
                rows.append(item.row)
                if item.estimator is not None:
                    used.setdefault(item.estimator.source, item.estimator)
            boot_map = dask_client.bootstrap_map(
                client
            )  # and the bootstrap's resamples fitted there
        else:
            assert files is not None
            progress = progress_bar("scoring", progress_enabled(quiet, len(files)))
            with progress if progress is not None else nullcontext():
                task = (
                    progress.add_task("score", total=len(files)) if progress is not None else None
                )
                seen: set[str] = set()
                runs = iter_runs(files, fmt, lenient, quiet=quiet, outcomes=outcomes)
                # short runs scored together; each ledger (and its events) is dropped there
                for item in work.score_items(runs, job):
                    rows.append(item.row)
                    if item.estimator is not None:
                        used.setdefault(item.estimator.source, item.estimator)
                    if (
                        progress is not None
                        and task is not None
                        and (item.source_path or "") not in seen
                    ):
                        seen.add(item.source_path or "")
                        progress.update(task, completed=len(seen))
        if not rows:
            fail("no runs in " + ", ".join(paths))
        if ff is not None:
            _evaluate(
                ff,
                fit_table.RunTable.from_rows(rows),
                _estimator_record(used),
                list(paths),
                output,
                json_out,
                quiet,
            )
            if reading is not None:
                reading.finish()
            return
        assert output is not None
        try:
            result = corpus_fit.fit_corpus(
                fit_table.RunTable.from_rows(rows),
                predictors=names,
                group_by=axes,
                bootstrap=bootstrap,
                seed=seed,
                holdout=corpus_fit.split_names(holdout),
                primary=primary,
                sas_reference=sas_reference,
                bootstrap_map=boot_map,
                curve=curve,
            )
        except EfcError as exc:
            fail(exc)
        except Exception as exc:
            if boot_map is None:
                raise
            fail(f"Dask: the bootstrap failed on the cluster ({type(exc).__name__}: {exc})")
    if not any(f.ok for f in result.fits):
        first = next((f for f in result.fits if f.reason), None)
        fail("no predictor could be fitted" + (f": {first.reason}" if first else ""))
    doc = fitfile.fit_document(result, inputs=list(paths), estimator=_estimator_record(used))
    if reading is not None and reading.failed:  # --dask: the fit of every source that could be read
        doc["notes"].append(
            f"{len(reading.failed)} source(s) could not be read and are not in this fit: "
            f"{_names(reading.failed)}"
        )

    out = stdout_console()
    out.print(comparison_table(doc, out.width))
    out.print(curves_table(doc, out.width))
    for name in doc["settings"]["holdout"]:
        if name != (doc.get("selection") or {}).get("axis") and (
            held := holdout_table(doc, name, out.width)
        ):
            out.print(held)
    for line in notes_lines(doc):
        out.print(Text(sanitize_label(line, 400), style="dim"))
    draw = terminal if terminal is not None else (out.is_terminal and out.width >= 60)
    if draw:
        art = terminal_plot(doc, out.width, color=out.is_terminal)
        if art is not None:
            sys.stdout.write(art + "\n")
        elif terminal:
            warn(
                "no terminal plot: plotext is not installed (pip install 'efc-tui[plot]') or there is no "
                "predictive primary curve"
            )
    sys.stdout.flush()

    if result.primary is None:
        warn(
            f"no predictive curve: {result.primary_reason}; score --fit will show no predicted success"
        )
    elif not (prim := result.get(result.primary)).ok:
        warn(
            f"the primary predictor {result.primary} has no curve ({prim.reason}); "
            "score --fit needs one: pick another with --primary"
        )
    elif prim.predictive is not True:
        warn(
            f"the forced primary {result.primary} does not beat the base rate held-out; "
            "score --fit will show no predicted success"
        )
    try:
        write_atomic(output, fitfile.dumps_fit(doc))
        if plot is not None:
            write_atomic(plot, svg.render_svg(doc).encode())
    except (EfcError, OSError) as exc:
        fail(exc if isinstance(exc, EfcError) else InputError(str(exc), output))
    if not quiet:
        note(f"wrote {output}" + (f" and {plot}" if plot is not None else ""))
    if reading is not None:
        reading.finish()  # exit 2 when a source could not be read


def evaluation_table(doc: dict[str, Any], width: int | None = None) -> Table:
    """An evaluation document (``efc-fit-eval/1``) as a table: per curve, the new groups'
    R² with their noise ceiling and MAE, per-run AUC, Brier against the new runs' own base
    rate and against the fit's training rate."""
    Text = rich_text.Text
    c = doc["corpus"]
    g = doc["grouping"]
    how = "per-run bins of the fit" if g["analysis"] == "per_run" else " × ".join(g["group_by"])
    table = _new_table(
        f"Frozen fit on new runs: {c['runs_compared']} runs, {c['groups']} groups ({how}), "
        f"success rate {_num(c['base_rate'], '.2f')} (fit's: {_num(doc['fit']['base_rate'], '.2f')})",
        width,
    )
    _add_columns(
        table,
        [
            ("predictor", True),
            ("groups", False),
            ("R²", False),
            ("ceiling", False),
            ("MAE", False),
            ("AUC", False),
            ("Brier / base", True),
            ("fit's base", True),
            ("skill", False),
        ],
    )
    for r in doc["curves"]:
        if r["status"] != "ok":  # the reason goes to the notes (evaluation_notes)
            label = Text(r["label"])
            label.append(f" ({r['status'].replace('_', ' ')})", style="yellow")
            table.add_row(label, *(Text("–") for _ in range(8)))
            continue
        table.add_row(
            Text(r["label"]),
            Text(str(r["groups"])),
            Text(_num(r["r2"], ".2f")),
            Text(_num(r["ceiling"], ".2f"), style="dim"),
            Text(_num(r["mae"])),
            Text(_num(r["auc"], ".2f")),
            _brier_cell(r["brier"], r["brier_base"]),
            Text(_num(r["brier_fit_base"]), style="dim"),
            Text(_num(r["skill"], ".2f")),
        )
    return table


def evaluation_notes(doc: dict[str, Any]) -> list[str]:
    """The evaluation's notes, then why each curve that was not scored was not."""
    lines = list(doc.get("notes", []))
    why: dict[str, list[str]] = {}
    for r in doc["curves"]:
        if r["status"] != "ok":
            why.setdefault(f"{r['status'].replace('_', ' ')}: {r['reason']}", []).append(r["label"])
    lines += [f"{', '.join(labels)}: {reason}" for reason, labels in why.items()]
    lines.append(
        "Brier / base: per-run Brier against the new runs' own success rate (green: better); "
        "fit's base: the Brier of the fit's training rate on these runs"
    )
    return lines


def _evaluate(
    ff: Any,
    table: Any,
    est: Any,
    inputs: list[str],
    output: Path | None,
    json_out: bool,
    quiet: bool,
) -> None:
    Text = rich_text.Text
    try:
        ev = evaluation.evaluate_fit(ff, table)
    except EfcError as exc:
        fail(exc)
    doc = evaluation.evaluation_document(ev, inputs)
    fit_est = ff.doc.get("estimator") or {}
    if fit_est.get("sha256") and fit_est.get("sha256") != est.get("sha256") and not quiet:
        warn(
            f"the fit was made with another estimator ({fit_est.get('source')}); Est-EFC and NRS-EFC "
            "of these runs are scored with " + str(est.get("source"))
        )
    if json_out:
        sys.stdout.write(ledgers.dumps(doc).decode() + "\n")
    else:
        out = stdout_console()
        out.print(evaluation_table(doc, out.width))
        for line in evaluation_notes(doc):
            out.print(Text(sanitize_label(line, 400), style="dim"))
    sys.stdout.flush()
    if output is not None:
        try:
            write_atomic(output, ledgers.dumps(doc) + b"\n")
        except (EfcError, OSError) as exc:
            fail(exc if isinstance(exc, EfcError) else InputError(str(exc), output))
        if not quiet:
            note(f"wrote {output}")


__all__ = [
    "comparison_table",
    "curves_table",
    "evaluation_notes",
    "evaluation_table",
    "fit",
    "holdout_table",
    "notes_lines",
    "terminal_plot",
]


def _estimator_record(used: dict[str, Any]) -> dict[str, Any]:
    """What the fit file says of the estimator(s) that scored its runs."""
    ests = list(used.values())
    if len(ests) == 1:
        e = ests[0]
        return {"source": e.source, "sha256": e.sha256, "provisional": e.provisional}
    return {
        "source": ", ".join(e.source for e in ests),
        "sha256": ", ".join(e.sha256 for e in ests),
        "provisional": any(e.provisional for e in ests),
    }
