"""Synthetic controllable tasks (SPEC §7, §3.1, §9): Δlatent on hand-computed values, the
oracle block, the factorial template design, each task-demand knob's causal effect, the
harness and model presets, determinism and the native writer's round trip."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from typer.testing import CliRunner

from efc_tui.cli import app
from efc_tui.model import Event, EventKind, Run
from efc_tui.parsers import load
from efc_tui.parsers.native_writer import run_lines, write_runs
from efc_tui.scoring import score_run
from efc_tui.scoring.constants import KAPPA
from efc_tui.scoring.factors import oracle_factors
from efc_tui.scoring.features import compute_features
from efc_tui.synthetic import (
    FAMILIES,
    MODELS,
    PRESETS,
    TEMPLATES,
    CorpusSpec,
    generate,
    make_task,
    oracle,
    write_corpus,
)
from efc_tui.synthetic.engine import _Sim, evaluate, simulate_run
from efc_tui.synthetic.families import NEEDLE
from efc_tui.synthetic.tasks import TESTS, Fact, Task, Template, required_work
from efc_tui.synthetic.templates import DEFAULT_HOLDOUT, PLACKETT_BURMAN
from tests.conftest import REPO

TRACE_SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-trace-1.schema.json").read_text())
SMALL = CorpusSpec(runs=3, budgets=(1.0,), models=("sim-base",), seed=3)


# -- Δlatent: the absolute reading we use, and the paper's normalized forms ----------------


@pytest.mark.parametrize(
    ("fn", "args", "want"),
    [
        (oracle.needle_delta, (8, 8, False), 0.0),
        (oracle.needle_delta, (8, 7, False), 1.0),  # one shard hypothesis ruled out
        (oracle.needle_delta, (1, 1, True), 1.0),  # the value recovered
        (oracle.needle_delta, (5, 8, False), 0.0),  # the candidate set grew: clipped at 0
        (oracle.state_delta, (2, 3, False), 1.0),  # one transition committed
        (oracle.state_delta, (3, 3, True), 1.0),  # a fix
        (oracle.state_delta, (3, 3, False), 0.0),
        (oracle.rule_delta, (0, 1, 0, 0), 1.0),  # one item eliminated
        (oracle.rule_delta, (0, 0, 0, 0), 0.0),
        (oracle.rule_delta, (0, 2, 0, 1), 1.0),  # clipped at 1 per event
        (oracle.needle_delta_normalized, (8, 6, False), 0.25),  # the paper's (8 - 6) / 8
        (oracle.needle_delta_normalized, (4, 1, True), 1.0),  # 0.75 + b_t, clipped
        (oracle.state_delta_normalized, (2, 3, 4, False), 0.25),  # (3 - 2) / max(1, 4)
        (oracle.rule_delta_normalized, (0, 2, 0, 1, 12), 0.25),  # 3 / 12
    ],
)
def test_delta_latent_formulas(fn: object, args: tuple[object, ...], want: float) -> None:
    assert fn(*args) == pytest.approx(want)  # type: ignore[operator]


def test_oracle_block_is_realized_per_event() -> None:
    assert oracle.oracle_block(
        delta_latent=1.0, distractor=False, faithful=True, kept=True, n=1.0
    ) == {
        "delta_latent": 1.0,
        "B_route": 1.0,
        "B_noise": 1.0,
        "B_verify": 1.0,
        "V_er": 1.0,
        "B_tool": 1.0,
        "B_mem": 1.0,
        "B_state": 1.0,
        "n": 1.0,
    }
    lost = oracle.oracle_block(delta_latent=1.0, distractor=False, faithful=True, kept=False, n=1.0)
    corrupt = oracle.oracle_block(
        delta_latent=0.0, distractor=False, faithful=False, kept=True, n=1.0
    )
    distract = oracle.oracle_block(
        delta_latent=0.0, distractor=True, faithful=True, kept=True, n=0.5
    )
    assert (lost["B_mem"], corrupt["B_noise"], distract["B_route"]) == (0.0, 0.0, 0.25)
    assert (
        oracle.oracle_block(delta_latent=3.0, distractor=False, faithful=True, kept=True, n=1.0)[
            "delta_latent"
        ]
        == 1.0
    )  # clipped at 1 per event


def _oracle_run(blocks: list[dict[str, float]]) -> Run:
    events = [
        Event(
            index=i,
            step=i,
            kind=EventKind.TOOL,
            tool="t",
            action_text=f"a{i}",
            observation_text=f"observation {i} is new text here",
            oracle=b,
        )
        for i, b in enumerate(blocks)
    ]
    return Run(run_id="r", events=events)


def test_oracle_factors_on_hand_computed_values() -> None:
    a = {
        "delta_latent": 0.5,
        "B_route": 1.0,
        "B_noise": 0.8,
        "B_verify": 0.55,
        "V_er": 0.9,
        "B_tool": 0.9,
        "B_mem": 0.7,
        "B_state": 0.8,
        "n": 1.0,
    }
    b = {
        **a,
        "delta_latent": 1.0,
        "B_noise": 1.0,
        "B_verify": 1.0,
        "V_er": 1.0,
        "B_route": 0.25,
        "n": 0.5,
        "B_mem": 1.0,
        "B_state": 1.0,
        "B_tool": 1.0,
    }
    run = _oracle_run([a, b])
    f = oracle_factors(run, compute_features(run))
    assert f is not None
    V0 = 0.55 * 0.8 * 0.9  # 0.396
    M0 = 0.7 * 0.8 * (0.82 + 0.18 * V0)
    close = np.testing.assert_allclose
    close(f.I, [0.5 * 0.8, 0.25])  # B_route·B_noise·Δlatent
    close(f.V, [V0, 1.0])  # B_verify·B_noise·V_er
    close(f.R, [0.9, 0.125])  # n·B_route·B_tool
    close(f.M, [M0, 1.0])  # B_mem·B_state·(0.82 + 0.18 V)
    close(f.efc, [KAPPA * 0.4 * V0 * 0.9 * M0, KAPPA * 0.25 * 0.125])
    assert f.efc[0] == pytest.approx(0.711541, abs=1e-6)  # 10 · 0.4 · 0.396 · 0.9 · 0.4991168


# -- templates: a factorial design of the demand knobs --------------------------------------


def test_templates_follow_an_orthogonal_plackett_burman_design() -> None:
    assert len(TEMPLATES) == 12 and {t.family for t in TEMPLATES} == set(FAMILIES)
    rows = np.array([[1 if c == "+" else -1 for c in r] for r in PLACKETT_BURMAN])
    assert (rows.sum(axis=0) == 0).all()  # every knob high in 6 templates, low in 6
    gram = rows.T @ rows
    assert (gram == 12 * np.eye(6)).all()  # orthogonal columns: no two knobs move together
    knobs = [
        (t.facts, t.plausible, t.hazard, t.confirm, t.exposed, t.distractors) for t in TEMPLATES
    ]
    for j in range(6):
        assert len({k[j] for k in knobs}) == 2
    held = [t for t in TEMPLATES if t.name in DEFAULT_HOLDOUT]
    assert len(held) == 3 and len({t.family for t in held}) == 3
    for j in range(5):  # the held-out templates still show every demand knob at both levels
        assert len({(t.facts, t.plausible, t.hazard, t.confirm, t.exposed)[j] for t in held}) == 2


def test_make_task_is_deterministic_and_templates_rotate() -> None:
    a, b = make_task("state_tracking", 5, 7), make_task("state_tracking", 5, 7)
    assert a == b
    assert [make_task("rule_filter", i, 7).template for i in range(4)] == [
        t.name for t in TEMPLATES if t.family == "rule_filter"
    ]
    d = a.demand
    assert d["L"] == a.L and d["H_tool"] == (a.plausible + 1) / 2
    assert d["S_state"] == pytest.approx(1 / (1 - a.hazard), abs=1e-4)
    assert d["N_obs"] == a.confirm and d["V_ver"] == pytest.approx(len(a.exposed) / a.L, abs=1e-4)


# -- each demand knob is causal: it sets the credited work success needs --------------------


def _task(
    *,
    facts: float = 4,
    plausible: float = 1,
    hazard: float = 0.0,
    confirm: float = 0,
    exposed: float = 0,
) -> Task:
    t = Template(
        "hand",
        NEEDLE.name,
        (int(facts), int(facts)),
        int(plausible),
        hazard,
        int(confirm),
        0.0,
        (0, 0),
        "hand",
    )
    task = NEEDLE.make_task(t, "hand-0000", random.Random(1))
    task = replace(task, exposed=frozenset(range(int(exposed))), hazard=hazard)
    from efc_tui.synthetic.tasks import make_demand

    task.demand = make_demand(task)
    return task


KNOBS: dict[str, dict[str, float]] = {
    "base": {},
    "L": {"facts": 8},
    "H_tool": {"plausible": 3},
    "S_state": {"hazard": 0.5},
    "N_obs": {"confirm": 1},
    "V_ver": {"exposed": 2},
}


def _work_and_success(task: Task, budget: float, runs: int = 120) -> tuple[float, float]:
    """Mean credited lookups (Oracle-EFC / κ) and success of H6 on ``task``."""
    work, wins = [], []
    for i in range(runs):
        run = simulate_run(
            NEEDLE,
            task,
            PRESETS["H6"],
            MODELS["sim-large"],
            budget,
            random.Random(f"knob/{i}"),
            run_id=f"r{i}",
        )
        f = oracle_factors(run, compute_features(run))
        assert f is not None
        work.append(float(f.efc.sum()) / KAPPA)
        wins.append(bool(run.success))
    return float(np.mean(work)), float(np.mean(wins))


def test_each_demand_knob_multiplies_the_credited_work_a_task_needs() -> None:
    """At a budget that finishes every task, the credited work H6 spends is the work the
    hand-designed D_task says the task needs (``required_work``), knob by knob."""
    for name, kw in KNOBS.items():
        task = _task(**kw)
        work, success = _work_and_success(task, budget=8.0)
        need = required_work(task)
        assert work == pytest.approx(need, rel=0.12), (name, work, need)
        assert success > 0.9, (name, success)
    base = required_work(_task())
    assert required_work(_task(facts=8)) == pytest.approx(2 * base)  # L
    assert required_work(_task(plausible=3)) == pytest.approx(2 * base)  # H_tool = (3 + 1) / 2
    assert required_work(_task(confirm=1)) == pytest.approx(2 * base)  # 1 + N_obs
    assert required_work(_task(hazard=0.5)) == pytest.approx(2 * base)  # S_state = 1 / (1 - h)
    assert required_work(_task(exposed=2)) == pytest.approx(
        base / 2 + 1
    )  # (1 - V_ver)·L + one check


def test_each_demand_knob_lowers_success_at_a_fixed_budget_in_the_order_of_its_factor() -> None:
    """At a budget too small to finish, raising a knob that doubles the need lowers success;
    exposing half the facts to the checker raises it."""
    rates = {
        name: _work_and_success(_task(**kw), budget=0.18, runs=200)[1] for name, kw in KNOBS.items()
    }
    assert 0.5 < rates["base"] < 0.9, rates
    for name in ("L", "H_tool", "S_state", "N_obs"):
        assert rates[name] < rates["base"] - 0.2, rates
    assert rates["V_ver"] > rates["base"] + 0.1, rates
    # a knob that doubles the need costs more than one that multiplies it by 1.5
    assert (
        _work_and_success(_task(hazard=1 / 3), budget=0.18, runs=200)[1] > rates["S_state"] + 0.03
    )


def test_no_feedback_still_guesses_right_sometimes() -> None:
    spec = CorpusSpec(harnesses=("H0",), budgets=(1.0,), runs=40, models=("sim-base",), seed=2)
    runs = list(generate(spec))
    rate = np.mean([bool(r.success) for r in runs])
    assert all(score_run(r).figures.oracle_efc == 0 for r in runs)
    assert 0.5**TESTS - 0.05 < rate < 0.5  # one candidate of two per probed fact


# -- the evaluator and the trace ---------------------------------------------------------


def test_evaluator_probes_only_the_tested_facts() -> None:
    facts = tuple(Fact(f"K{i}", f"V{i}", f"D{i}") for i in range(4))
    task = replace(_task(), facts=facts, tests=(1, 3, 3))
    truth = [f.value for f in facts]
    assert evaluate(task, truth, list(truth))
    wrong_untested = list(truth)
    wrong_untested[0] = "D0"
    assert evaluate(task, truth, wrong_untested)
    wrong_tested = list(truth)
    wrong_tested[3] = "D3"
    assert not evaluate(task, truth, wrong_tested)


def test_every_event_has_an_oracle_block_and_success_judges_the_submission() -> None:
    seen = set()
    fam = FAMILIES["rule_filter"]
    for i in range(12):
        task = make_task("rule_filter", i, 5)
        for h in ("H1", "H4", "H6"):
            sim = _Sim(fam, task, PRESETS[h], MODELS["sim-base"], 1.0, random.Random(f"ev/{i}/{h}"))
            answer = sim.run()
            submitted = [e for e in sim.events if e.kind is EventKind.GENERATION]
            assert len(submitted) == 1 and all(e.oracle is not None for e in sim.events)
            pairs = dict(
                p.split("=") for p in submitted[0].action_text.removeprefix("submit ").split()
            )
            assert [pairs[f.name] for f in task.facts] == answer
            ok = evaluate(task, sim.truth, answer)
            assert ok == all(answer[j] == sim.truth[j] for j in task.tests)
            seen.add(ok)
    assert seen == {True, False}


def test_simulated_lines_match_the_published_schema() -> None:
    validator = jsonschema.Draft202012Validator(TRACE_SCHEMA)
    for run in list(generate(SMALL))[:40]:
        for line in run_lines(run):
            validator.validate(json.loads(line))


def test_native_writer_round_trips_simulated_runs(tmp_path: Path) -> None:
    runs = list(generate(SMALL))
    path = write_runs(tmp_path / "c.jsonl", runs)
    back = list(load(path))
    assert len(back) == len(runs)
    for a, b in zip(runs, back, strict=True):
        for name in Run.__struct_fields__:
            if name != "source_path":
                assert getattr(a, name) == getattr(b, name), (a.run_id, name)
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically: no temp file left


def test_native_writer_keeps_values_and_pass_through_fields(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(
        '{"type": "run", "run_id": "x", "budget": {"steps": 3}, "success": null, "custom": [1]}\n'
        '{"type": "step", "t": 4, "action": {"tool": "pytest", "input": "pytest -q", "cwd": "/r"},'
        ' "observation": {"text": "1 failed, 2 passed", "extra": 1}, "refs": [], "mystery": {"a": 2}}\n'
    )
    [run] = list(load(src))
    out = write_runs(tmp_path / "out.jsonl", [run])
    [again] = list(load(out))
    e0, e1 = run.events[0], again.events[0]
    for name in (
        "kind",
        "status",
        "tool",
        "action_text",
        "observation_text",
        "tokens_in",
        "tokens_out",
        "tool_calls",
        "ops",
        "checks",
        "step",
        "wall_s",
    ):
        assert getattr(e0, name) == getattr(e1, name), name
    assert again.extra == {"custom": [1]} and again.budget == {"steps": 3}
    assert e1.extra["mystery"] == {"a": 2} and e1.extra["action"] == {"cwd": "/r"}
    assert e1.extra["usage"]["estimated"] == ["kind", "status", "tokens"]
    assert "wall_s" in e1.flags  # unknown wall time stays unknown


def test_same_seed_gives_byte_identical_files(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    write_corpus(SMALL, a)
    write_corpus(SMALL, b, jobs=2)
    write_corpus(replace(SMALL, seed=4), c)
    names = sorted(p.name for p in a.iterdir())
    assert len(names) == 22 and "corpus.manifest" in names  # 3 families x 7 harnesses x 1 model
    assert names == sorted(p.name for p in b.iterdir())
    for n in names:
        assert (a / n).read_bytes() == (b / n).read_bytes(), n
    assert any((a / n).read_bytes() != (c / n).read_bytes() for n in names if n.endswith(".jsonl"))


# -- harnesses and models move η, not D ---------------------------------------------------


def test_presets_are_h0_to_h6_with_an_intent_each() -> None:
    assert list(PRESETS) == [f"H{i}" for i in range(7)]
    for p in PRESETS.values():
        assert p.title and len(p.intent) > 20 and "\n" not in p.intent
    h0, h4, h5, h6 = PRESETS["H0"], PRESETS["H4"], PRESETS["H5"], PRESETS["H6"]
    assert h0.tools == 0 and h0.verify == 0 and h0.memory == 0
    # H4 spends the most raw budget with the weakest conversion
    assert h4.steps > h5.steps and h4.tok_out > h5.tok_out and h4.context > h5.context
    assert h4.route < h5.route and h4.verify < h5.verify and h4.memory < h5.memory
    assert h4.noise > h5.noise and h4.pressure > h5.pressure
    # H6 deepens H5 and strengthens every mechanism
    assert h6.steps > h5.steps and h6.route > h5.route and h6.verify > h5.verify
    assert h6.memory > h5.memory and h6.noise < h5.noise


def _eta_by(spec: CorpusSpec, key: str) -> dict[str, tuple[float, float, float]]:
    """(mean C_raw, oracle η, success) per harness or model."""
    cost: dict[str, list[float]] = {}
    efc: dict[str, list[float]] = {}
    wins: dict[str, list[bool]] = {}
    for run in generate(spec):
        f = score_run(run).figures
        k = str(getattr(run, key))
        cost.setdefault(k, []).append(f.c_raw)
        efc.setdefault(k, []).append(f.oracle_efc or 0.0)
        wins.setdefault(k, []).append(bool(run.success))
    return {
        k: (
            float(np.mean(cost[k])),
            float(np.sum(efc[k]) / np.sum(cost[k])),
            float(np.mean(wins[k])),
        )
        for k in cost
    }


def test_h4_spends_more_raw_cost_than_h5_with_lower_oracle_efficiency() -> None:
    out = _eta_by(
        CorpusSpec(harnesses=("H4", "H5"), runs=24, models=("sim-base",), seed=7), "harness"
    )
    (c4, eta4, s4), (c5, eta5, s5) = out["H4"], out["H5"]
    assert c4 > 2 * c5 and eta4 < eta5 / 3 and s4 < s5


def test_a_stronger_model_converts_the_same_budget_into_more_feedback() -> None:
    out = _eta_by(
        CorpusSpec(
            harnesses=("H2", "H5"),
            runs=24,
            budgets=(1.0,),
            seed=7,
            models=("sim-small", "sim-base", "sim-large"),
        ),
        "model",
    )
    small, base, large = out["sim-small"], out["sim-base"], out["sim-large"]
    assert small[1] < base[1] < large[1]  # η
    assert small[2] < large[2]  # success


def test_success_rises_with_budget_and_harness_quality() -> None:
    spec = CorpusSpec(
        harnesses=("H0", "H2", "H6"), budgets=(0.5, 4.0), runs=24, seed=7, models=("sim-base",)
    )
    rate: dict[tuple[str, float], list[bool]] = {}
    for run in generate(spec):
        rate.setdefault((run.harness or "", run.budget["level"]), []).append(bool(run.success))
    mean = {k: float(np.mean(v)) for k, v in rate.items()}
    assert 0 < mean[("H0", 0.5)] < 0.4 and 0 < mean[("H0", 4.0)] < 0.4
    assert mean[("H6", 4.0)] > mean[("H6", 0.5)] > mean[("H0", 0.5)]
    assert mean[("H6", 4.0)] > mean[("H2", 4.0)] > mean[("H0", 4.0)]


def test_simulate_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "corpus"
    r = runner.invoke(
        app,
        [
            "simulate",
            "-o",
            str(out),
            "--families",
            "rule_filter",
            "--models",
            "sim-base",
            "--harnesses",
            "h5,H0",
            "--budgets",
            "1,2",
            "--runs",
            "2",
            "--seed",
            "9",
        ],
    )
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == [
        "corpus.manifest",
        "rule_filter__H0__sim-base.jsonl",
        "rule_filter__H5__sim-base.jsonl",
    ]
    runs = list(load(out / "rule_filter__H5__sim-base.jsonl"))
    assert [r.budget["level"] for r in runs] == [1.0, 1.0, 2.0, 2.0]
    assert {r.model for r in runs} == {"sim-base"}
    assert "simulating" not in r.output  # no progress bar when stderr is not a terminal
    manifest = json.loads((out / "corpus.manifest").read_text())
    assert manifest["spec"]["seed"] == 9 and manifest["spec"]["harnesses"] == ["H5", "H0"]
    r = runner.invoke(
        app,
        [
            "simulate",
            "-o",
            str(tmp_path / "all"),
            "--families",
            "rule_filter",
            "--harnesses",
            "H1",
            "--budgets",
            "1",
            "--runs",
            "1",
            "--models",
            "all",
        ],
    )
    assert r.exit_code == 0 and len(list((tmp_path / "all").glob("*.jsonl"))) == 3
    bad = runner.invoke(app, ["simulate", "-o", str(out), "--families", "chess"])
    assert bad.exit_code == 2 and "unknown family 'chess'" in bad.output
    bad = runner.invoke(app, ["simulate", "-o", str(out), "--models", "gpt-9"])
    assert bad.exit_code == 2 and "unknown model 'gpt-9'" in bad.output
    bad = runner.invoke(app, ["simulate", "-o", str(out), "--budgets", "lots"])
    assert bad.exit_code == 2
