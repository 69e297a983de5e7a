"""End to end through the CLI: score, export, formats, validate; exit codes 0/1/2 (SPEC §1)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from efc_tui import __version__
from efc_tui.cli import app
from tests.conftest import REPO, SAMPLES

runner = CliRunner()
LEDGER_SCHEMA = json.loads((REPO / "efc_tui" / "schemas" / "efc-ledger-1.schema.json").read_text())
SAMPLE = SAMPLES / "repair_loop.jsonl"


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_version_and_help_on_every_command() -> None:
    r = invoke("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"efc-tui {__version__}"
    import typer.main

    group = typer.main.get_command(app)
    names = group.list_commands(None)  # type: ignore[attr-defined]
    commands = {name: group.get_command(None, name) for name in names}  # type: ignore[attr-defined]
    # every command the app lists, and the SPEC's command surface is all there
    assert {
        "open",
        "score",
        "export",
        "fit",
        "simulate",
        "calibrate",
        "formats",
        "validate",
    } <= set(commands)
    for cmd, command in commands.items():
        r = invoke(cmd, "--help")
        assert r.exit_code == 0, cmd
        assert r.stdout.startswith(f"Usage: efc-tui {cmd} "), cmd
        # the command's own description is shown, and every option is documented
        first = (command.help or "").split("\n")[0].strip()
        assert first and first[:40] in " ".join(r.stdout.split()), cmd
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                assert param.help, f"{cmd} {param.opts[0]} has no help text"
                assert param.opts[0] in r.stdout, f"{cmd} --help omits {param.opts[0]}"


def test_score_table_lists_every_sample() -> None:
    r = invoke("score", SAMPLES)
    assert r.exit_code == 0, r.output
    for run_id in ("clean-pass", "repair-loop", "memory-writes", "noisy-high-budget"):
        assert run_id in r.stdout


def test_score_jsonl_and_csv_agree() -> None:
    rj = invoke("score", SAMPLE, "--jsonl")
    rows = [json.loads(line) for line in rj.stdout.splitlines()]
    assert len(rows) == 1 and rows[0]["run_id"] == "repair-loop" and rows[0]["events"] == 12
    rc = invoke("score", SAMPLE, "--csv")
    [crow] = list(csv.DictReader(io.StringIO(rc.stdout)))
    assert float(crow["nrs_efc"]) == pytest.approx(rows[0]["nrs_efc"])
    assert float(crow["c_raw"]) == pytest.approx(rows[0]["c_raw"])


def test_score_json_holds_ledgers_that_match_the_schema() -> None:
    r = invoke("score", SAMPLES / "clean_pass.jsonl", SAMPLE, "--json")
    doc = json.loads(r.stdout)
    assert doc["schema"] == "efc-score/1"
    assert [d["run"]["run_id"] for d in doc["runs"]] == ["clean-pass", "repair-loop"]
    for d in doc["runs"]:
        jsonschema.validate(d, LEDGER_SCHEMA)


def test_thresholds_exit_1_and_name_the_run() -> None:
    ok = invoke("score", SAMPLE, "--min-nrs", "0.1", "--quiet")
    assert ok.exit_code == 0
    r = invoke("score", SAMPLES, "--min-eta", "0.2", "--jsonl")
    assert r.exit_code == 1
    assert "threshold not met" in r.stderr and "repair-loop" in r.stderr and "η " in r.stderr
    assert "clean-pass" not in r.stderr  # its eta is above 0.2
    assert len(r.stdout.splitlines()) == 4  # results are still printed


def test_malformed_file_exits_2_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = SAMPLE.read_text().splitlines()
    lines[3] = lines[3][:-20]  # break line 4 (not the last)
    bad.write_text("\n".join(lines) + "\n")
    r = invoke("score", bad)
    assert r.exit_code == 2
    assert f"{bad}:4: not valid JSON" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = invoke("score", bad, "--lenient", "--jsonl")
    assert r.exit_code == 0 and json.loads(r.stdout)["events"] == 11


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert invoke("score", tmp_path / "nope.jsonl").exit_code == 2
    assert invoke("score", SAMPLE, "--json", "--csv").exit_code == 2
    assert invoke("score", SAMPLE, "--format", "klingon").exit_code == 2
    assert invoke("score", SAMPLE, "--min-nrs", "lots").exit_code == 2


def test_export_validates_and_never_touches_inputs(tmp_path: Path) -> None:
    before = {p: digest(p) for p in SAMPLES.glob("*.jsonl")}
    out = tmp_path / "one.json"
    r = invoke("export", SAMPLE, "-o", out)
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, LEDGER_SCHEMA)
    assert doc["schema"] == "efc-ledger/1" and len(doc["events"]) == 12
    # every event carries the adapter's would-be decision, with a reason
    assert all(
        e["adapter"]["memory_reason"] and e["adapter"]["control_reason"] for e in doc["events"]
    )
    assert doc["adapter"]["run_id"] == "repair-loop"
    # a log without oracle blocks is scored with the real-runs estimator, as `score` does
    assert (
        doc["estimator"]["sha256"]
        == hashlib.sha256(
            (REPO / "efc_tui" / "data" / "estimator_real.json").read_bytes()
        ).hexdigest()
    )
    # several runs: an array; .jsonl: a line each; a folder: one file per run
    many = tmp_path / "many.json"
    assert invoke("export", SAMPLES, "-o", many).exit_code == 0
    assert len(json.loads(many.read_text())) == 4
    lines = tmp_path / "many.jsonl"
    assert invoke("export", SAMPLES, "-o", lines, "--with-text").exit_code == 0
    docs = [json.loads(x) for x in lines.read_text().splitlines()]
    assert all("observation" in e for d in docs for e in d["events"])
    folder = tmp_path / "ledgers"
    folder.mkdir()
    assert invoke("export", SAMPLES, "-o", folder).exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "clean-pass.ledger.json",
        "memory-writes.ledger.json",
        "noisy-high-budget.ledger.json",
        "repair-loop.ledger.json",
    ]
    assert not list(tmp_path.glob(".*.tmp"))  # no temp files left behind
    assert {p: digest(p) for p in SAMPLES.glob("*.jsonl")} == before


def test_export_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    copy = tmp_path / "run.jsonl"
    copy.write_bytes(SAMPLE.read_bytes())
    r = invoke("export", copy, "-o", copy)
    assert r.exit_code == 2 and "refusing to overwrite an input file" in r.stderr
    assert copy.read_bytes() == SAMPLE.read_bytes()


def test_formats_and_validate(tmp_path: Path) -> None:
    r = invoke("formats")
    assert r.exit_code == 0 and "native" in r.stdout and "efc-trace/1" in r.stdout
    r = invoke("validate", SAMPLES)
    assert r.exit_code == 0 and r.stdout.count(": ok: native, 1 run(s)") == 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "run"}\n{"type": "step", "t": "x"}\n')
    r = invoke("validate", bad)
    assert r.exit_code == 2 and f"{bad}:2:" in r.stderr


def test_subprocess_console_script(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("efc-tui")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "efc_tui"]
    env = {**os.environ, "COLUMNS": "200"}
    r = subprocess.run(
        [*cmd, "score", str(SAMPLE), "--jsonl"], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0 and json.loads(r.stdout)["run_id"] == "repair-loop"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "run"}\n{"type": "step", "action": 5}\n')
    r = subprocess.run([*cmd, "score", str(bad)], capture_output=True, text=True, env=env)
    assert r.returncode == 2
    assert r.stderr.strip() == f"efc-tui: error: {bad}:2: action must be an object, not int"


_AFTER_MAIN = """
import atexit, sys, threading, time
from pathlib import Path
out = Path(sys.argv[1])
atexit.register(lambda: out.with_suffix(".atexit").write_text("ran"))
if sys.argv[2] == "thread":
    def late():
        time.sleep(0.3)
        out.with_suffix(".thread").write_text("done")
    threading.Thread(target=late).start()
sys.argv = ["efc-tui", *sys.argv[3:]]
from efc_tui.cli import main
main()
"""


@pytest.mark.parametrize("thread", ["thread", "none"])
def test_the_entry_point_ends_as_python_would(tmp_path: Path, thread: str) -> None:
    """``main`` ends the process without the interpreter's teardown (cli._hard_exit), but
    as Python would: the exit status, every byte of output, the exit functions run, and a
    thread still running is waited for."""
    out = tmp_path / "marks"
    for args, code in (
        (["score", str(SAMPLE), "--jsonl"], 0),
        (["score", str(tmp_path / "missing.jsonl")], 2),
    ):
        r = subprocess.run(
            [sys.executable, "-c", _AFTER_MAIN, str(out), thread, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert r.returncode == code, r.stderr
        if code == 0:
            assert json.loads(r.stdout)["run_id"] == "repair-loop" and r.stdout.endswith("\n")
        else:
            assert r.stdout == "" and "missing.jsonl" in r.stderr
        assert out.with_suffix(".atexit").read_text() == "ran"
        assert out.with_suffix(".thread").exists() == (thread == "thread")
        out.with_suffix(".atexit").unlink()
        out.with_suffix(".thread").unlink(missing_ok=True)


def test_folder_walk_skips_files_that_are_not_traces(tmp_path: Path) -> None:
    (tmp_path / "run.jsonl").write_bytes(SAMPLE.read_bytes())
    (tmp_path / "summary.json").write_text('{"accuracy": 0.5}')
    (tmp_path / "results.json").write_text('{"accuracy": 0.5}')  # a known sidecar: used silently
    (tmp_path / "empty.jsonl").write_text("")
    r = invoke("score", tmp_path, "--jsonl")
    assert r.exit_code == 0, r.output
    assert len(r.stdout.splitlines()) == 1
    assert "skipped" in r.stderr and "summary.json" in r.stderr and "empty.jsonl" in r.stderr
    assert "results.json" not in r.stderr
    r = invoke("validate", tmp_path)
    assert r.exit_code == 0 and "summary.json: skipped: unrecognized format" in r.stdout
    assert "results.json: sidecar" in r.stdout
    # named explicitly, the same file is an error
    r = invoke("score", tmp_path / "summary.json")
    assert r.exit_code == 2 and "unrecognized format" in r.stderr


def test_write_atomic_keeps_ordinary_permissions(tmp_path: Path) -> None:
    from efc_tui.io import write_atomic

    umask = os.umask(0o022)
    try:
        p = write_atomic(tmp_path / "new.json", b"{}")
        assert p.stat().st_mode & 0o777 == 0o644
        p.chmod(0o600)
        write_atomic(p, b"[]")
        assert p.stat().st_mode & 0o777 == 0o600 and p.read_bytes() == b"[]"
    finally:
        os.umask(umask)


def test_shell_completion() -> None:
    """`--show-completion` prints the script of the shell it runs in; the completion
    protocol completes commands and options (what `--install-completion` wires into the
    shell). Typer finds the shell among the command's parent processes, so the command is
    started from bash here: under pytest started by anything else (an IDE, a detached job)
    there is no shell to find, and it answers "Shell not supported"."""
    script = Path(sys.executable).parent / "efc-tui"  # the console script the shell calls
    if not script.exists():
        pytest.skip("the efc-tui console script is not installed beside this python")
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash to start the command from")
    # `; exit $?`: bash would otherwise replace itself with the command, leaving no shell
    shown = subprocess.run(
        [bash, "-c", f'"{script}" --show-completion; exit $?'],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    assert "_efc_tui_completion" in shown.stdout and "complete " in shown.stdout
    env = {
        **os.environ,
        "_EFC_TUI_COMPLETE": "complete_bash",
        "COMP_WORDS": "efc-tui score --ad",
        "COMP_CWORD": "2",
    }
    out = subprocess.run([str(script)], env=env, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["--adapter", "--adapter-sweep"]


def test_dollars_beside_c_raw_only_where_the_log_records_them(tmp_path: Path) -> None:
    """Cost in dollars (issue 15): summed by the reader, shown beside C_raw; never invented."""
    header, *rest = (SAMPLES / "clean_pass.jsonl").read_text().splitlines(keepends=True)
    priced = tmp_path / "priced.jsonl"
    doc = json.loads(header)
    doc.update(run_id="priced", cost_usd=0.0421)
    priced.write_text(json.dumps(doc) + "\n" + "".join(rest))
    r = runner.invoke(
        app, ["score", str(priced), str(SAMPLES / "clean_pass.jsonl"), "-q"], env={"COLUMNS": "200"}
    )
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    head = next(line for line in lines if "C_raw" in line)
    assert head.index("C_raw") < head.index("cost $") < head.index("η_NRS")  # beside C_raw
    end = head.index("cost $") + len("cost $")  # numbers are right-aligned under it
    priced_row = next(line for line in lines if "priced" in line)
    plain_row = next(line for line in lines if "clean-pass" in line)
    assert priced_row[:end].split()[-1] == "0.0421"
    assert plain_row[:end].split()[-1] == "–"  # unknown, not 0
    r = runner.invoke(app, ["score", str(SAMPLES), "-q"], env={"COLUMNS": "200"})
    assert "cost $" not in r.stdout  # no run records dollars: no column


def test_export_open_and_diff_score_a_real_log_as_score_does(tmp_path: Path) -> None:
    """One estimator per run for every command: a real log's figures in `export` and in the
    app equal `score`'s (the real-runs estimator, its task demand and its W and ε)."""
    from efc_tui.api import load
    from efc_tui.app.app import EfcApp

    log = REPO / "tests" / "fixtures" / "agents" / "codex_session.jsonl"
    row = json.loads(invoke("score", log, "--jsonl").stdout.splitlines()[0])
    out = tmp_path / "cx.json"
    assert invoke("export", log, "-o", out).exit_code == 0
    figures = json.loads(out.read_text())["figures"]
    assert (figures["d_task"], figures["x_nrs"]) == (row["d_task"], row["x_nrs"])
    scored = EfcApp([log]).score(load(log))
    assert scored.ledger.estimator.source.endswith("estimator_real.json")
    assert scored.figures.x_nrs == pytest.approx(row["x_nrs"])
