"""`efc-tui hook claude-code|codex`: the hook contract (exit code, stdout), the transcript
read as it grows, and the audit log (docs/live.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from efc_tui.adapter.integrations.hook import HookOptions, handle
from tests import hookgen
from tests.conftest import FIXTURES

LOOP = hookgen.session_calls(4, 5)  # events 0 (prompt), 1-4 reading, 5-9 the same failure


def _audit(state: Path) -> list[dict]:
    return [json.loads(x) for x in (state / "audit.jsonl").read_text().splitlines()]


def _one(state: Path, suffix: str) -> Path:
    """The one file of the session with this suffix in the state folder."""
    (path,) = state.glob(f"{hookgen.SESSION}-*{suffix}")
    return path


def _grow(path: Path, calls: list[tuple[str, str, bool]], upto: int) -> None:
    """The transcript as written after the result of call ``upto`` (1-based)."""
    hookgen.write_session(path, calls[:upto])


def _opts(tmp_path: Path, mode: str = "warn", **kw: Any) -> HookOptions:
    return HookOptions(harness="claude-code", mode=mode, state_dir=tmp_path / "state", **kw)


def _call(tmp_path: Path, event: str, t: Path, mode: str = "warn", **fields: object) -> str:
    return handle(hookgen.payload(event, t, **fields), _opts(tmp_path, mode)).stdout


def test_the_console_command_answers_a_garbage_payload_with_exit_0_and_nothing(
    tmp_path: Path,
) -> None:
    """Whatever comes on stdin, the process exits 0 with an empty stdout (exit 2 would block
    the tool call, exit 1 shows an error), and the call is in the audit log."""
    env = {**os.environ, "EFC_TUI_HOOK_DIR": str(tmp_path)}
    for data in (b"not json", b"[1, 2]", b'{"session_id": "x"}', b""):
        r = subprocess.run(
            [sys.executable, "-m", "efc_tui", "hook", "claude-code"],
            input=data,
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert (r.returncode, r.stdout) == (0, b"")
    errors = [a["error"] for a in _audit(tmp_path)]
    assert len(errors) == 4
    assert errors[0].startswith("payload is not JSON")
    assert errors[1] == "payload is not a JSON object (list)"
    assert errors[2] == "payload has no transcript_path"


def test_a_usage_error_in_the_hook_entry_still_exits_0(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "efc_tui", "hook", "claude-code", "--no-such-option"],
        input=b"{}",
        capture_output=True,
        env={**os.environ, "EFC_TUI_HOOK_DIR": str(tmp_path)},
        timeout=60,
    )
    assert (r.returncode, r.stdout) == (0, b"")
    assert b"No such option" in r.stderr


def test_stop_mode_ends_the_session_through_the_console_command(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:8])
    r = subprocess.run(
        [sys.executable, "-m", "efc_tui", "hook", "claude-code", "--mode", "stop"],
        input=hookgen.payload("PreToolUse", t),
        capture_output=True,
        env={**os.environ, "EFC_TUI_HOOK_DIR": str(tmp_path / "state")},
        timeout=60,
    )
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert set(out) == {"continue", "stopReason"} and out["continue"] is False
    assert "failed the same way 3 times in a row" in out["stopReason"]


def test_a_growing_transcript_is_decided_as_it_grows(tmp_path: Path) -> None:
    """Each call decides the events that can no longer change, once each; the last event
    waits for the next call (or Stop); the stop comes with the third identical failure."""
    t = tmp_path / "s.jsonl"
    decided: list[int] = []
    answers = []
    for n in range(1, len(LOOP) + 1):
        _grow(t, LOOP, n)
        ans = handle(hookgen.payload("PostToolUse", t), _opts(tmp_path))
        decided += [v.index for v in ans.verdicts]
        answers.append(ans)
    ans = handle(hookgen.payload("Stop", t), _opts(tmp_path))
    decided += [v.index for v in ans.verdicts]
    assert decided == list(range(10))
    # the third identical failure is event 7 (calls 5, 6, 7 fail); it is complete once call 8
    # is written: the warning goes back after call 8
    acted = [a.audit.get("answer") for a in answers]
    assert acted[:7] == ["none"] * 7 and acted[7] == "warn"
    out = json.loads(answers[7].stdout)
    assert out["decision"] == "block"
    assert "python -m pytest tests/test_calc.py -q" in out["reason"]
    assert "3 times in a row (since event 5)" in out["reason"]
    assert "raw-cost units" in out["reason"] and "tokens" in out["reason"]
    assert len(_audit(tmp_path / "state")) == len(LOOP) + 1  # every call


def test_a_stop_hook_is_never_answered_with_decision_block(tmp_path: Path) -> None:
    """On a Stop hook ``"decision": "block"`` means keep going: warn mode answers nothing
    there, whatever is pending."""
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP)
    assert _call(tmp_path, "Stop", t, "warn") == ""
    assert _audit(tmp_path / "state")[-1]["acted"]  # decided and recorded all the same
    stop = json.loads(_call(tmp_path / "b", "Stop", t, "stop"))
    assert stop["continue"] is False and "decision" not in stop


def test_veto_denies_only_the_call_that_repeats_the_failing_one(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:8])
    other = _call(tmp_path, "PreToolUse", t, "veto", tool_input={"command": "cat src/calc.py"})
    assert other == ""
    same = json.loads(_call(tmp_path, "PreToolUse", t, "veto"))
    spec = same["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse" and spec["permissionDecision"] == "deny"
    assert "This call repeats it: denied." in spec["permissionDecisionReason"]
    # the same command with other spacing is the same action
    spaced = _call(
        tmp_path,
        "PreToolUse",
        t,
        "veto",
        tool_input={"command": "python -m  pytest tests/test_calc.py  -q"},
    )
    assert json.loads(spaced)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert _call(tmp_path, "PostToolUse", t, "veto") == ""  # veto answers PreToolUse only


def test_a_truncated_last_line_waits_for_the_rest(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:3])
    whole = t.read_bytes()
    cut = whole.rstrip(b"\n").rfind(b"\n") + 1 + 40  # 40 bytes into the last line
    t.write_bytes(whole[:cut])
    a = handle(hookgen.payload("PostToolUse", t), _opts(tmp_path))
    assert a.stdout == "" and "error" not in a.audit
    assert a.audit["partial_line"] is True
    first = [v.index for v in a.verdicts]
    t.write_bytes(whole)
    b = handle(hookgen.payload("Stop", t), _opts(tmp_path))
    assert first + [v.index for v in b.verdicts] == list(range(4))
    state = json.loads(_one(tmp_path / "state", ".state.json").read_text())
    assert state["offset"] == len(whole)


def test_a_call_with_no_new_line_does_not_rescore(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:3])
    handle(hookgen.payload("PostToolUse", t), _opts(tmp_path))
    again = handle(hookgen.payload("PreToolUse", t), _opts(tmp_path))
    assert again.verdicts == [] and "decided" not in again.audit and "error" not in again.audit


def test_a_rotated_transcript_starts_afresh(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:6])
    handle(hookgen.payload("Stop", t), _opts(tmp_path))
    hookgen.write_session(t, LOOP[:2])  # shorter: rewritten
    a = handle(hookgen.payload("Stop", t), _opts(tmp_path))
    assert "started afresh" in a.audit["note"]
    assert [v.index for v in a.verdicts] == [0, 1, 2]
    trace = _one(tmp_path / "state", ".trace.jsonl").read_text().splitlines()
    assert len(trace) == 1 + 3  # the trace restarted with the new file


def test_a_missing_transcript_answers_nothing_and_is_audited(tmp_path: Path) -> None:
    a = handle(hookgen.payload("PostToolUse", tmp_path / "gone.jsonl"), _opts(tmp_path))
    assert (a.exit_code, a.stdout) == (0, "")
    assert a.audit["error"].startswith("transcript not readable")


def test_an_internal_error_answers_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from efc_tui.adapter.integrations import hook

    def boom(*a: object, **k: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(hook, "_decide", boom)
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP)
    a = handle(hookgen.payload("PostToolUse", t), _opts(tmp_path, "stop"))
    assert (a.exit_code, a.stdout) == (0, "")
    assert a.audit["error"] == "internal error: RuntimeError: boom"


def test_the_session_trace_is_efc_trace_and_scores_as_the_transcript(tmp_path: Path) -> None:
    """The session's trace (what `open --follow` replays) holds every decided event with
    the hook's verdict, and scores with the same adapter decisions as the transcript."""
    import efc_tui
    from efc_tui.parsers import load

    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP)
    handle(hookgen.payload("Stop", t), _opts(tmp_path))
    trace = _one(tmp_path / "state", ".trace.jsonl")
    steps = [json.loads(x) for x in trace.read_text().splitlines()[1:]]
    assert [s["hook"]["index"] for s in steps] == list(range(10))
    assert [s["hook"]["act"] for s in steps] == [False] * 7 + [True] * 3
    ref = efc_tui.score(next(iter(load(t))))
    again = efc_tui.score(next(iter(load(trace))))
    assert [d.control for d in again.decisions] == [d.control for d in ref.decisions]
    assert again.summary.stop_event == ref.summary.stop_event == 7


def test_budgets_stop_and_say_which(tmp_path: Path) -> None:
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:4])
    opts = HookOptions(harness="claude-code", mode="stop", state_dir=tmp_path / "st", max_steps=2)
    out = json.loads(handle(hookgen.payload("Stop", t), opts).stdout)
    assert out == {
        "continue": False,
        "stopReason": "efc-tui: step budget passed: 5 events > --max-steps 2",  # the latest
    }
    opts = HookOptions(
        harness="claude-code", mode="veto", state_dir=tmp_path / "tk", max_tokens=2000
    )
    out = json.loads(handle(hookgen.payload("PreToolUse", t), opts).stdout)
    assert "token budget passed: 2,4" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_codex_payloads_get_the_same_contract(tmp_path: Path) -> None:
    """Codex's PostToolUse payload (with turn_id and model) on a Codex rollout: nothing to
    say on a session without a loop, and the call is audited."""
    src = FIXTURES / "agents" / "codex_session.jsonl"
    t = tmp_path / src.name
    t.write_bytes(src.read_bytes())
    data = json.loads((hookgen.FIXTURES / "codex.PostToolUse.json").read_text())
    data["transcript_path"] = str(t)
    opts = HookOptions(harness="codex", mode="stop", state_dir=tmp_path / "state")
    a = handle(json.dumps(data).encode(), opts)
    assert (a.exit_code, a.stdout) == (0, "") and "error" not in a.audit
    assert a.audit["hook_event"] == "PostToolUse" and a.audit["decided"][0] == 0


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["claude-code"], HookOptions()),
        (["codex", "--mode", "veto"], HookOptions("codex", "veto")),
        (
            ["claude-code", "--mode=stop", "--max-usd", "2.5", "--max-tokens", "90000"],
            HookOptions(mode="stop", max_usd=2.5, max_tokens=90_000),
        ),
        (
            ["claude-code", "--max-steps", "40", "--window-rule", "--epsilon", "0"],
            HookOptions(max_steps=40, window_rule=True, epsilon=0.0),
        ),
        (
            ["codex", "--window", "8", "--repeat", "0", "--state-dir", "/tmp/x"],
            HookOptions("codex", window=8, repeat=0, state_dir=Path("/tmp/x")),
        ),
    ],
)
def test_the_hook_entry_s_options_reach_the_hook(
    argv: list[str], expected: HookOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a hook entry writes on its command line is what the hook is run with."""
    from typer.testing import CliRunner

    from efc_tui.adapter.integrations import hook
    from efc_tui.cli import app

    seen: list[HookOptions] = []

    def capture(data: bytes, opts: HookOptions) -> hook.HookAnswer:
        seen.append(opts)
        return hook.HookAnswer()

    monkeypatch.setattr(hook, "handle", capture)
    r = CliRunner().invoke(app, ["hook", *argv], input="{}")
    assert r.exit_code == 0, r.output
    assert seen == [expected]


def test_veto_lets_the_check_run_again_after_an_edit(tmp_path: Path) -> None:
    """An edit after the loop may have fixed it: the same test run is allowed once more."""
    t = hookgen.write_session(tmp_path / "s.jsonl", LOOP[:8])
    assert json.loads(_call(tmp_path, "PreToolUse", t, "veto"))  # denied
    lines = t.read_text().splitlines()
    a, u = hookgen.call_lines(9, "true", "ok")  # reshaped into an Edit call below
    edit = json.loads(a)
    edit["message"]["content"][0] = {
        "type": "tool_use",
        "id": "toolu_000009",
        "name": "Edit",
        "input": {"file_path": "/repo/calc.py", "old_string": "+ 1", "new_string": ""},
    }
    assert _call(tmp_path, "Stop", t, "veto") == ""  # the turn ends: all decided
    assert json.loads(_call(tmp_path, "PreToolUse", t, "veto"))  # still denied
    t.write_text("\n".join([*lines, json.dumps(edit), u]) + "\n")
    assert _call(tmp_path, "Stop", t, "veto") == ""  # the edit decided
    assert _call(tmp_path, "PreToolUse", t, "veto") == ""  # the check may run again


def test_a_transcript_with_nothing_to_read_yet_is_audited_as_such(tmp_path: Path) -> None:
    t = tmp_path / "s.jsonl"
    t.write_text('{"foo": 1}\n')  # no line of a Claude Code session yet
    a = handle(hookgen.payload("PostToolUse", t), _opts(tmp_path))
    assert (a.exit_code, a.stdout) == (0, "")
    assert a.audit["error"].startswith("transcript not read: ")
    assert "not a Claude Code session" in a.audit["error"]
    hookgen.write_session(t, LOOP[:3])  # the next call reads it from the start
    b = handle(hookgen.payload("Stop", t), _opts(tmp_path))
    assert [v.index for v in b.verdicts] == [0, 1, 2, 3] and "error" not in b.audit


def test_a_subagent_transcript_of_the_session_keeps_its_own_state(tmp_path: Path) -> None:
    """Calls from a subagent carry the session id and another transcript: each transcript
    is followed on its own, neither restarts the other."""
    main = hookgen.write_session(tmp_path / "main.jsonl", LOOP[:8])
    sub = hookgen.write_session(tmp_path / "agent-1.jsonl", LOOP[:2])
    first = handle(hookgen.payload("PreToolUse", main), _opts(tmp_path, "stop"))
    assert first.audit["answer"] == "stop"
    handle(hookgen.payload("PreToolUse", sub), _opts(tmp_path, "stop"))
    again = handle(hookgen.payload("PreToolUse", main), _opts(tmp_path, "stop"))
    assert "note" not in again.audit and again.verdicts == []
    assert again.audit["answer"] == "none"  # already answered; not started afresh
    assert len(list((tmp_path / "state").glob("*.state.json"))) == 2


def _decisions_call_by_call(tmp_path: Path, spoil: object = None, **kw: Any) -> list[dict]:
    """The decisions of a growing looping transcript, one PostToolUse call per tool call;
    ``spoil(state_dir, k)`` runs before call k (deletes or corrupts a cache file)."""
    tmp_path.mkdir(exist_ok=True)
    t = tmp_path / "s.jsonl"
    opts = HookOptions(harness="claude-code", mode="warn", state_dir=tmp_path / "state", **kw)
    out = []
    for k in range(1, len(LOOP) + 1):
        _grow(t, LOOP, k)
        if spoil is not None and k > 2:
            spoil(tmp_path / "state", k)  # type: ignore[operator]
        ans = handle(hookgen.payload("PostToolUse", t), opts)
        assert "error" not in ans.audit, ans.audit
        out += [v.decision.as_dict() for v in ans.verdicts]
    ans = handle(hookgen.payload("Stop", t), opts)
    return out + [v.decision.as_dict() for v in ans.verdicts]


@pytest.mark.parametrize("suffix", [".reader.pickle", ".monitor.pickle"])
@pytest.mark.parametrize("how", ["deleted", "garbage", "cut"])
def test_the_kept_reader_and_adapter_state_are_only_caches(
    tmp_path: Path, suffix: str, how: str
) -> None:
    """Each call reads on from the reader's checkpoint and steps the adapter's state kept by
    the last call; without them (deleted, unreadable, cut short) a call reads and scores
    the transcript whole, with the same decisions."""
    import efc_tui
    from efc_tui.parsers import load

    def spoil(state: Path, k: int) -> None:
        path = _one(state, suffix)
        if k % 2:
            return
        if how == "deleted":
            path.unlink()
        elif how == "garbage":
            path.write_bytes(b"not a pickle")
        else:
            path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    kept = _decisions_call_by_call(tmp_path / "a")
    spoiled = _decisions_call_by_call(tmp_path / "b", spoil)
    _grow(tmp_path / "whole.jsonl", LOOP, len(LOOP))
    offline = efc_tui.score(next(iter(load(tmp_path / "whole.jsonl")))).decisions
    assert kept == spoiled == [d.as_dict() for d in offline]


def test_the_kept_state_follows_the_hook_entry_s_settings(tmp_path: Path) -> None:
    """An adapter state kept with other settings (the hook entry changed mid-session) is
    not taken on: the events are decided with the new settings."""
    t = tmp_path / "s.jsonl"
    _grow(t, LOOP, 5)
    handle(hookgen.payload("PostToolUse", t), _opts(tmp_path))
    _grow(t, LOOP, len(LOOP))
    ans = handle(hookgen.payload("PostToolUse", t), _opts(tmp_path, repeat=4))
    assert ans.verdicts and all(
        v.decision.repeat_rule is False or v.decision.repeat_count >= 4 for v in ans.verdicts
    )
    assert any(v.decision.repeat_count == 3 and not v.decision.repeat_rule for v in ans.verdicts)


def test_processes_with_other_string_hashes_take_on_each_other_s_state(tmp_path: Path) -> None:
    """Each hook call is a new process with its own string hashes (PYTHONHASHSEED): the
    state one keeps (stable digests) is taken on by the next, and the session is decided as
    ``score --adapter`` decides the transcript, every call audited without an error."""
    import efc_tui
    from efc_tui.parsers import load

    calls = hookgen.session_calls(6, 5) + hookgen.session_calls(3)
    t = tmp_path / "s.jsonl"
    for k in range(1, len(calls) + 1):
        _grow(t, calls, k)
        for event in ("PostToolUse", "Stop") if k == len(calls) else ("PostToolUse",):
            r = subprocess.run(
                [sys.executable, "-m", "efc_tui", "hook", "claude-code"],
                input=hookgen.payload(event, t),
                capture_output=True,
                env={
                    **os.environ,
                    "EFC_TUI_HOOK_DIR": str(tmp_path / "state"),
                    "PYTHONHASHSEED": str(k),
                },
                timeout=60,
            )
            assert r.returncode == 0, r.stderr
    audit = _audit(tmp_path / "state")
    assert len(audit) == len(calls) + 1 and not [a for a in audit if "error" in a]
    assert any("decided" in a and a["decided"][0] > 0 for a in audit[2:])  # went on
    trace = _one(tmp_path / "state", ".trace.jsonl")
    live = [json.loads(x)["hook"]["adapter"] for x in trace.read_text().splitlines()[1:]]
    offline = efc_tui.score(next(iter(load(t)))).decisions
    assert live == [json.loads(json.dumps(d.as_dict())) for d in offline]
