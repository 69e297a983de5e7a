"""``efc-tui fit`` and ``efc-tui score --fit`` end to end, on traces written here."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner, Result

from efc_tui.app.fitview import load_fit_view
from efc_tui.cli import app
from efc_tui.fitting.fitfile import load_fit
from efc_tui.fitting.validity import is_predictive
from tests.conftest import REPO
from tests.helpers import write_trace

runner = CliRunner()
FIT_SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-fit-1.schema.json").read_text())


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def write_corpus(
    folder: Path,
    *,
    labels: bool = True,
    harness_names: tuple[str, ...] = ("H0", "H1", "H5"),
    families: tuple[str, ...] = ("needle", "rules"),
    runs: int = 10,
    seed: int = 0,
    model: str = "m1",
) -> Path:
    """Two families × three harnesses, 10 runs each: deeper harnesses run more checks
    (more tokens) and succeed more often."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for fam in families:
        for depth, h in enumerate(harness_names, start=1):
            for r in range(runs):
                steps = []
                passed = 0
                n = 2 * depth + rng.randint(0, 1)
                for t in range(n):
                    ok = rng.random() < 0.25 + 0.1 * t
                    passed += ok
                    steps.append(
                        {
                            "t": t,
                            "action": {
                                "kind": "check",
                                "tool": "pytest",
                                "input": f"pytest tests/test_{t}.py -k c{r}",
                            },
                            "observation": {
                                "text": "1 passed"
                                if ok
                                else f"FAILED test_{t}: AssertionError: expected {r + t}",
                                "status": "passed" if ok else "assertion_error",
                                "checks": {"passed": passed, "failed": t + 1 - passed, "total": n},
                            },
                            "usage": {"tokens_in": 300 + 40 * t, "tokens_out": 30, "wall_s": 1.0},
                        }
                    )
                header: dict[str, object] = {
                    "run_id": f"{fam}-{h}-{r}",
                    "task_id": f"{fam}-task{r % 5}",
                    "task_family": fam,
                    "harness": h,
                    "model": model,
                    "budget": {"tokens": 4000},
                }
                if labels:
                    header["success"] = rng.random() < 0.15 + 0.25 * depth
                path = folder / f"{fam}_{depth}_{r}.jsonl"
                write_trace(path, header, steps)
    return folder


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("fitcorpus") / "traces")


@pytest.fixture(scope="module")
def fitted(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Result]:
    out = tmp_path_factory.mktemp("fitout")
    r = invoke(
        "fit",
        corpus,
        "-o",
        out / "fit.json",
        "--plot",
        out / "fit.svg",
        "--holdout",
        "harness",
        "--bootstrap",
        "50",
        "--no-terminal-plot",
    )
    return out, r


def test_fit_prints_the_comparison_and_writes_a_valid_fit_file(fitted: tuple[Path, Result]) -> None:
    out, r = fitted
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "fit.json").read_text())
    jsonschema.validate(doc, FIT_SCHEMA)
    # in these traces deeper harnesses run more checks and succeed more often: the primary is
    # the EFC curve (never a raw baseline) that predicts held-out runs best
    prim = doc["primary"]
    assert prim in EFC_CURVES and doc["primary_predictive"] is True
    assert doc["selection"]["axis"] == "harness"  # the first --holdout axis
    label = next(p["label"] for p in doc["predictors"] if p["name"] == prim)
    assert doc["primary_description"].startswith(
        f"{prim}: {label}, 60 runs, 6 groups, held-out (harness) AUC"
    )
    assert doc["model"]["curve"] == "saturating" and doc["corpus"]["kind"] == "real"
    for text in (
        "Scaling fits",
        f"{label} *",
        "held-out R²",
        "Brier / base",
        "ceiling",
        "Held-out: tasks",
        "* primary curve",
        "not fitted: Oracle-EFC",
    ):  # no oracle blocks here
        assert text in r.stdout, text
    assert doc["corpus"]["runs"] == 60 and doc["settings"]["group_by"] == [
        "task_family",
        "harness",
        "model",
        "budget",
    ]
    assert doc["settings"]["holdout"] == ["harness", "tasks"] and doc["settings"]["cv_folds"] == 5
    x = next(p for p in doc["predictors"] if p["name"] == "x_nrs")
    assert x["status"] == "ok" and len(x["groups"]) == 6 and x["bootstrap"]["resamples"] == 50
    assert x["holdout"][0]["name"] == "harness" and len(x["holdout"][0]["splits"]) == 3
    assert x["holdout"][1]["name"] == "tasks" and len(x["holdout"][1]["splits"]) == 5
    assert (
        x["holdout"][0]["runs"] == 60 and x["holdout"][1]["runs"] == 60
    )  # every run held out once
    svg = (out / "fit.svg").read_text()
    assert svg.startswith("<svg") and "NRS-EFC/D_task" in svg
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temp files


def test_score_with_fit_adds_predicted_success_and_curve_position(
    corpus: Path, fitted: tuple[Path, object]
) -> None:
    out, _ = fitted
    one = corpus / "needle_2_0.jsonl"
    r = invoke("score", one, "--fit", out / "fit.json", "--csv")
    assert r.exit_code == 0, r.output
    [row] = list(csv.DictReader(io.StringIO(r.stdout)))
    ff = load_fit(out / "fit.json")
    curve = ff.predictive_curve()
    assert curve is not None and curve.name in EFC_CURVES and curve.predictive
    pos = curve.predict_figures(_figures(one))  # the run's own figures on the frozen curve
    assert pos is not None
    assert float(row["fit_success"]) == pytest.approx(pos.success)
    assert float(row["fit_z_norm"]) == pytest.approx(pos.z_norm)
    assert float(row["fit_pctl"]) == pytest.approx(pos.percentile)
    assert row["fit_extrapolated"] in ("True", "False")
    table = invoke("score", one, "--fit", out / "fit.json")
    assert (
        table.exit_code == 0
        and "P(success)" in table.stdout
        and "fit: real runs, 60 runs" in table.stdout
    )
    js = invoke("score", one, "--fit", out / "fit.json", "--json")
    assert json.loads(js.stdout)["runs"][0]["fit"]["predictor"] == curve.name
    plain = invoke("score", one, "--csv")
    assert "fit_success" not in plain.stdout.splitlines()[0]


#: the curves a fit may put in front of a user (EFC coordinates; docs/fitting.md)
EFC_CURVES = {
    "est_efc",
    "x_est",
    "x_est_fitted",
    "nrs_efc",
    "x_nrs",
    "x_nrs_fitted",
    "eta",
    "eta_nrs",
}


def _figures(path: Path) -> dict[str, float]:
    doc = json.loads(invoke("score", path, "--json").stdout)
    return dict(doc["runs"][0]["figures"])


def _shuffled_labels(corpus: Path, path: Path, seed: int = 4) -> Path:
    """A labels file giving the corpus's runs outcomes that have nothing to do with them."""
    ids = sorted(
        json.loads(p.read_text().splitlines()[0])["run_id"] for p in corpus.glob("*.jsonl")
    )
    rng = random.Random(seed)
    path.write_text("run_id,success\n" + "".join(f"{i},{int(rng.random() < 0.5)}\n" for i in ids))
    return path


def test_a_curve_worse_than_the_base_rate_is_never_primary_and_score_fit_shows_nothing(
    corpus: Path, tmp_path: Path
) -> None:
    # with outcomes shuffled (a labels file), NRS-EFC/D_task tells nothing apart: alone, it
    # gives no primary; forced, it is recorded as not predictive; either way `score --fit`
    # emits no predicted success, with one line on stderr saying why
    labels = _shuffled_labels(corpus, tmp_path / "labels.csv")
    r = invoke(
        "fit",
        corpus,
        "-o",
        tmp_path / "auto.json",
        "-p",
        "x_nrs",
        "--bootstrap",
        "0",
        "--terminal-plot",
        "--labels",
        labels,
    )
    assert r.exit_code == 0, r.output
    auto = json.loads((tmp_path / "auto.json").read_text())
    jsonschema.validate(auto, FIT_SCHEMA)
    x = auto["predictors"][0]
    held = x["holdout"][0]
    assert held["name"] == "tasks" and not is_predictive(
        held["brier"], held["brier_base"], held["auc"], held["successes"], held["runs"]
    )
    assert auto["primary"] is None and auto["primary_description"] is None
    assert "better than the base rate" in auto["primary_reason"]
    assert (
        "no primary curve:" in r.stdout and "failure rate vs z/median" not in r.stdout
    )  # not drawn
    assert "no predictive curve" in r.stderr
    r = invoke(
        "fit",
        corpus,
        "-o",
        tmp_path / "forced.json",
        "-p",
        "x_nrs",
        "--primary",
        "x_nrs",
        "--bootstrap",
        "0",
        "--labels",
        labels,
    )
    assert r.exit_code == 0, r.output
    forced = json.loads((tmp_path / "forced.json").read_text())
    assert forced["primary"] == "x_nrs" and forced["primary_predictive"] is False
    assert forced["primary_reason"].startswith("forced with --primary")
    one = corpus / "needle_2_0.jsonl"
    for fit_file in ("auto.json", "forced.json"):
        ff = load_fit(tmp_path / fit_file)
        assert ff.predictive_curve() is None and ff.no_prediction_reason
        c = invoke("score", one, "--fit", tmp_path / fit_file, "--csv")
        assert c.exit_code == 0, c.output
        [row] = list(csv.DictReader(io.StringIO(c.stdout)))
        assert row["fit_success"] == row["fit_z"] == row["fit_z_norm"] == row["fit_pctl"] == ""
        lines = [ln for ln in c.stderr.splitlines() if ln.strip()]
        assert (
            len(lines) == 1
            and "no predictive curve" in lines[0]
            and "no predicted success" in lines[0]
        )
        j = invoke("score", one, "--fit", tmp_path / fit_file, "--json")
        fit = json.loads(j.stdout)["runs"][0]["fit"]
        assert fit["predictor"] is None and fit["fit_success"] is None
        t = invoke("score", one, "--fit", tmp_path / fit_file)
        assert "no predictive curve" in t.stdout and "P(success)" in t.stdout
        # the app's fit panel shows no curve either, and says why
        view = load_fit_view(tmp_path / fit_file)
        assert view.curves == [] and (view.problem or "").startswith("no predictive curve")


def test_evaluate_scores_a_frozen_fit_on_new_runs(
    corpus: Path, fitted: tuple[Path, object], tmp_path: Path
) -> None:
    out, _ = fitted
    new = write_corpus(tmp_path / "new", seed=1, runs=6)
    r = invoke("fit", "--evaluate", out / "fit.json", new)
    assert r.exit_code == 0, r.output
    for text in (
        "Frozen fit on new runs: 36 runs, 6 groups",
        "Raw tokens",
        "Brier / base",
        "fit's base",
        "SAS",
        "not evaluable frozen",
    ):
        assert text in r.stdout, text
    j = invoke("fit", "--evaluate", out / "fit.json", new, "--json", "-o", tmp_path / "eval.json")
    assert j.exit_code == 0, j.output
    doc = json.loads(j.stdout)
    assert doc == json.loads((tmp_path / "eval.json").read_text())
    assert doc["schema"] == "efc-fit-eval/1" and doc["corpus"]["runs_compared"] == 36
    by = {c["name"]: c for c in doc["curves"]}
    assert by["sas"]["status"] == "not_evaluable" and by["oracle_efc"]["status"] == "not_evaluable"
    tok = by["tokens"]
    assert tok["status"] == "ok" and tok["runs"] == 36 and tok["groups"] == 6
    assert 0.0 <= tok["auc"] <= 1.0
    assert tok["predictive"] == is_predictive(
        tok["brier"], tok["brier_base"], tok["auc"], tok["successes"], tok["runs"]
    )
    # judged against the new runs' own success rate: p(1 − p) of that rate
    rate = doc["corpus"]["base_rate"]
    assert tok["brier_base"] == pytest.approx(rate * (1 - rate))
    bad = invoke("fit", "--evaluate", out / "fit.json", new, "--holdout", "harness")
    assert bad.exit_code == 2 and "does not apply" in bad.stderr


def write_job(folder: Path, runs: int = 40, seed: int = 3) -> Path:
    """One job: one task family, one harness, one model; runs of 1 to 8 check steps, the
    longer ones succeeding more often."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(runs):
        n = 1 + r % 8
        steps = [
            {
                "t": t,
                "action": {"kind": "check", "tool": "pytest", "input": f"pytest -k c{r}_{t}"},
                "observation": {
                    "text": f"FAILED c{r}_{t}: AssertionError",
                    "status": "assertion_error",
                },
                "usage": {"tokens_in": 200 + 30 * t, "tokens_out": 20, "wall_s": 1.0},
            }
            for t in range(n)
        ]
        header = {
            "run_id": f"job-{r}",
            "task_id": f"task{r % 13}",
            "task_family": "needle",
            "harness": "H5",
            "model": "m1",
            "success": rng.random() < 0.1 + 0.1 * n,
        }
        write_trace(folder / f"run_{r}.jsonl", header, steps)
    return folder


def test_one_job_falls_back_to_a_per_run_analysis(tmp_path: Path) -> None:
    # one family, one harness, one model: a single group of 40 labeled runs
    job = write_job(tmp_path / "job")
    r = invoke("fit", job, "-o", tmp_path / "f.json", "--bootstrap", "20", "--no-terminal-plot")
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "f.json").read_text())
    jsonschema.validate(doc, FIT_SCHEMA)
    assert doc["analysis"]["kind"] == "per_run" and doc["corpus"]["groups"] == 1
    assert "per-run analysis" in r.stdout and "bins" in r.stdout
    tok = next(p for p in doc["predictors"] if p["name"] == "tokens")
    assert tok["status"] == "ok" and len(tok["groups"]) == 4  # 40 runs: 4 bins of 10
    assert [g["key"]["bin"] for g in tok["groups"]] == ["1/4", "2/4", "3/4", "4/4"]
    assert tok["figures"]["runs"] == 40 and tok["figures"]["auc"] is not None
    assert tok["bins"]["lower"] == sorted(tok["bins"]["lower"])
    assert next(p for p in doc["predictors"] if p["name"] == "sas")["status"] == "degenerate"
    # the frozen per-run fit scores new runs by its bins
    e = invoke("fit", "--evaluate", tmp_path / "f.json", job, "--json")
    assert e.exit_code == 0, e.output
    ev = {c["name"]: c for c in json.loads(e.stdout)["curves"]}
    assert ev["tokens"]["runs"] == 40 and ev["tokens"]["auc"] == pytest.approx(
        tok["figures"]["auc"]
    )


def test_holdout_source_leaves_out_each_input_folder(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    write_corpus(root / "lab_a", seed=0)
    write_corpus(root / "lab_b", seed=2, model="m2")
    r = invoke(
        "fit",
        root,
        "-o",
        tmp_path / "f.json",
        "--holdout",
        "source",
        "--bootstrap",
        "0",
        "--no-terminal-plot",
    )
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "f.json").read_text())
    assert doc["corpus"]["sources"] == 2 and doc["selection"]["axis"] == "source"
    tok = next(p for p in doc["predictors"] if p["name"] == "tokens")
    src = tok["holdout"][0]
    assert src["name"] == "source" and src["axes"] == ["source"]
    assert [sp["held_out"] for sp in src["splits"]] == [
        {"source": "native:lab_a"},
        {"source": "native:lab_b"},
    ]
    assert [(sp["train_runs"], sp["test_runs"]) for sp in src["splits"]] == [(60, 60), (60, 60)]
    assert src["runs"] == 120 and "held-out (source)" in r.stdout


def test_fit_options_select_predictors_groups_and_primary(corpus: Path, tmp_path: Path) -> None:
    r = invoke(
        "fit",
        corpus,
        "-o",
        tmp_path / "f.json",
        "-p",
        "tokens,nrs_efc",
        "-p",
        "sas",
        "--group-by",
        "task_family,harness",
        "--primary",
        "nrs_efc",
        "--bootstrap",
        "0",
        "--holdout",
        "task_family+harness",
        "--no-terminal-plot",
        "-q",
    )
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "f.json").read_text())
    assert [p["name"] for p in doc["predictors"]] == ["tokens", "nrs_efc", "sas"]
    assert doc["primary"] == "nrs_efc" and doc["settings"]["group_by"] == ["task_family", "harness"]
    assert doc["predictors"][1]["intervals"] is None
    assert "R² 95% CI" not in r.stdout


def test_terminal_plot_when_asked(corpus: Path, tmp_path: Path) -> None:
    pytest.importorskip("plotext")
    r = invoke(
        "fit",
        corpus,
        "-o",
        tmp_path / "f.json",
        "-p",
        "x_nrs",
        "--bootstrap",
        "0",
        "--terminal-plot",
    )
    assert r.exit_code == 0, r.output
    assert (
        "failure rate vs z/median" in r.stdout and "\x1b[" not in r.stdout
    )  # no colour codes into a pipe


@pytest.mark.parametrize(
    "args,reason",
    [
        (("--plot", "{tmp}/fit.png"), "PNG is not built in"),
        (("--plot", "{tmp}/fit.pdf"), "must end in .svg"),
        (("-p", "bogus"), "unknown predictor 'bogus'"),
        (("--group-by", "family"), "unknown grouping axis 'family'"),
        (("--group-by", "task_family", "--holdout", "harness"), "add it to --group-by"),
        (("--primary", "sas"), "not a curve"),
        (("-o", "{tmp}/no/such/dir/fit.json"), "does not exist"),
    ],
)
def test_bad_usage_exits_2_with_one_line(
    corpus: Path, tmp_path: Path, args: tuple[str, ...], reason: str
) -> None:
    argv = ["fit", str(corpus), "-o", str(tmp_path / "fit.json"), "--bootstrap", "0"]
    argv += [a.format(tmp=tmp_path) for a in args]
    r = invoke(*argv)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("efc-tui: error:") and reason in lines[0]
    assert not (tmp_path / "fit.json").exists()


def test_unlabeled_runs_and_a_single_group_exit_2(tmp_path: Path) -> None:
    nolab = write_corpus(tmp_path / "nolab", labels=False)
    r = invoke("fit", nolab, "-o", tmp_path / "f.json")
    assert r.exit_code == 2 and "no run has a success label" in r.stderr
    one = tmp_path / "one"
    one.mkdir()
    write_trace(
        one / "a.jsonl",
        {"run_id": "a", "success": True},
        [
            {
                "t": 0,
                "action": {"kind": "tool", "tool": "bash", "input": "ls"},
                "observation": {"text": "x"},
            }
        ],
    )
    r = invoke("fit", one, "-o", tmp_path / "g.json")
    assert r.exit_code == 2 and "no predictor could be fitted" in r.stderr


def test_hostile_labels_are_shown_inert(tmp_path: Path) -> None:
    corpus = write_corpus(
        tmp_path / "c", harness_names=("[bold red]H0[/]\x1b]52;c;aGk=\x07", "H1", "H5")
    )
    r = invoke(
        "fit",
        corpus,
        "-o",
        tmp_path / "f.json",
        "-p",
        "x_nrs,sas",
        "--bootstrap",
        "0",
        "--sas-reference",
        "[bold red]H0[/]\x1b]52;c;aGk=\x07",
        "--no-terminal-plot",
    )
    assert r.exit_code == 0, r.output
    assert "\x1b]52" not in r.stdout and "[bold red]H0[/]" in r.stdout


def test_score_fit_default_places_each_run_on_the_package_fit_that_matches_it() -> None:
    """A real trace goes to the real runs' fit, which predicts nothing today: the caption and
    stderr say so and no number is shown. Placed on the synthetic fit instead, a Codex session
    is an extrapolation (a format that fit never saw), marked in its row and on stderr."""
    codex = REPO / "tests" / "fixtures" / "agents" / "codex_session.jsonl"
    real = load_fit(REPO / "efc_tui" / "data" / "default_fit_real.json")
    r = invoke("score", codex, "--fit", "default", "--jsonl")
    assert r.exit_code == 0, r.output
    [row] = [json.loads(x) for x in r.stdout.splitlines()]
    if real.predictive_curve() is None:
        assert row["fit_success"] is None and "no predictive curve" in r.stderr
    table = invoke("score", codex, "--fit", "default")
    assert "fit: real runs" in table.stdout
    synthetic = invoke(
        "score", codex, "--fit", REPO / "efc_tui" / "data" / "default_fit.json", "--jsonl"
    )
    assert synthetic.exit_code == 0, synthetic.output
    [row] = [json.loads(x) for x in synthetic.stdout.splitlines()]
    assert row["fit_success"] is not None and row["fit_extrapolated"] is True
    assert "extrapolate the fit: format codex" in synthetic.stderr


def test_app_fit_panel_names_the_package_fit_that_matches_the_run() -> None:
    """No --fit: the app's panel shows the synthetic corpus's fit for a simulated trace and
    the real runs' fit for a real log, each named with what it was fitted on."""
    view = load_fit_view(None)
    assert view.choices is not None and set(view.choices) == {"synthetic", "real"}
    from efc_tui.api import load

    sim = load(REPO / "tests" / "fixtures" / "golden" / "oracle_small.jsonl")
    codex = load(REPO / "tests" / "fixtures" / "agents" / "codex_session.jsonl")
    assert view.for_run(sim).description.startswith("fit: synthetic runs")
    assert view.for_run(codex).description.startswith("fit: real runs")
    assert view.for_run(codex).extrapolation(codex) is not None  # codex: not among its formats
