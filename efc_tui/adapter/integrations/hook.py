"""The command-hook contract of Claude Code and Codex CLI (``efc-tui hook claude-code|codex``).

A hook entry runs the command once per hook event with one JSON object on stdin
(``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, and for tool events
``tool_name``, ``tool_input``, ``tool_use_id``; ``tool_response`` on PostToolUse; Codex adds
``turn_id`` and ``model``). ``handle`` reads it, reads the transcript's new bytes since its
last call (state per session in ``state_dir``), decides the events that are complete with a
``live.Monitor`` and answers by mode, on exit code 0 always:

- nothing on stdout: carry on (every call where no rule acts);
- ``warn``, on PostToolUse: ``{"decision": "block", "reason": …}`` (the tool has run; the
  reason is fed back to the model);
- ``stop``: ``{"continue": false, "stopReason": …}`` (the session ends);
- ``veto``, on PreToolUse: ``hookSpecificOutput.permissionDecision = "deny"`` for a call that
  repeats the failing action the repetition rule named, with no edit since its last failure
  (after an edit the check may pass: running it is new feedback); after a budget: every call.

A Stop hook's ``"decision": "block"`` means *keep going*: it is never answered. Exit code 2
(block, stderr to the model) is never used either: a hook must not block by accident.

It never breaks the agent: a malformed payload, a missing transcript or any internal error
answers nothing (exit 0, empty stdout) and is written to the audit log.

Which events are complete: the transcript is written while the agent runs, so its last event
may still change (a tool call whose result is not written yet, a text block that becomes the
thought of a call that follows). A call decides the events before the last one, and the last
one when it has an observation; a Stop, SubagentStop or SessionEnd call decides them all.

Files in ``state_dir`` (``$EFC_TUI_HOOK_DIR``, else ``$XDG_CACHE_HOME/efc-tui/hooks``, else
``~/.cache/efc-tui/hooks``):

- ``audit.jsonl``: one line per call, every call (schema ``efc-hook-audit/1``);
- ``<session>-<crc>.trace.jsonl``: the decided events of the session's transcript (``crc``:
  of its path; a subagent's calls carry the session id and their own transcript) as
  efc-trace/1, each step with the hook's verdict under ``"hook"`` (``efc-tui open
  --follow`` replays it);
- ``<session>-<crc>.state.json``: byte offset, events decided, what was answered;
- ``<session>-<crc>.reader.pickle`` and ``.monitor.pickle``: the transcript reader's
  checkpoint at its last settled line and the adapter's per-event state, so that a call
  reads only the new lines and scores only the new events (``_hook_read.py``).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from efc_tui.errors import EfcError

HARNESSES = ("claude-code", "codex")
MODES = ("warn", "stop", "veto")
AUDIT_SCHEMA = "efc-hook-audit/1"
#: hook events after which the agent's turn is over: every event is complete
FLUSH_EVENTS = frozenset({"Stop", "SubagentStop", "SessionEnd"})
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def default_state_dir() -> Path:
    """``$EFC_TUI_HOOK_DIR``, else ``$XDG_CACHE_HOME/efc-tui/hooks``, else ~/.cache/…"""
    env = os.environ.get("EFC_TUI_HOOK_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "efc-tui" / "hooks"


@dataclass
class HookOptions:
    harness: str = "claude-code"
    mode: str = "warn"
    state_dir: Path | None = None
    window: int | None = None
    epsilon: float | None = None
    repeat: int | None = None
    max_usd: float | None = None
    max_tokens: int | None = None
    max_steps: int | None = None
    window_rule: bool = False

    @property
    def directory(self) -> Path:
        return self.state_dir if self.state_dir is not None else default_state_dir()


@dataclass
class HookAnswer:
    """What the command does: exit code (always 0), stdout (empty or one JSON object), and
    the audit record it wrote."""

    exit_code: int = 0
    stdout: str = ""
    audit: dict[str, Any] = field(default_factory=dict)
    #: verdicts decided in this call (for ``hook replay``)
    verdicts: list[Any] = field(default_factory=list)


class _Bad(Exception):
    """A payload the contract does not allow: answered with nothing, audited."""


def _payload(data: bytes) -> dict[str, Any]:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise _Bad(f"payload is not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise _Bad(f"payload is not a JSON object ({type(obj).__name__})")
    for key in ("session_id", "transcript_path", "hook_event_name"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise _Bad(f"payload has no {key}")
    return obj


def call_action(tool_input: Any) -> str:
    """The whitespace-normalized action text of a pending call, as the transcript readers
    render it (a shell command; else the JSON of the input)."""
    from efc_tui.parsers import claude_code, codex

    text = None
    if isinstance(tool_input, dict):
        text = codex._command(tool_input.get("command")) or codex._command(tool_input.get("cmd"))
    if text is None:
        text = claude_code._action("", tool_input)
    return " ".join(text.split())


def _new_state(path: str) -> dict[str, Any]:
    return {
        "transcript": path,
        "ino": None,
        "offset": 0,
        "decided": 0,
        "events": 0,
        "answered": -1,  # the last acted verdict whose answer was given
        "pending": None,  # the latest acted verdict: {"index", "rule", "reason", "action"}
        "loop": None,  # the failing action the repetition rule named, while its streak lasts
        "budget": None,  # the budget reason once a budget has passed
    }


class Session:
    """One session's files in the state directory, held under an exclusive lock."""

    def __init__(self, directory: Path, session_id: str, transcript: str = "") -> None:
        import zlib

        directory.mkdir(parents=True, exist_ok=True)
        name = _SAFE.sub("_", session_id)[:120] or "session"
        if transcript:  # a subagent's calls carry the session id and its own transcript
            name += f"-{zlib.crc32(transcript.encode('utf-8', 'surrogatepass')):08x}"
        self.state_path = directory / f"{name}.state.json"
        self.trace_path = directory / f"{name}.trace.jsonl"
        #: the transcript reader's checkpoint, the adapter's state (``_hook_read``)
        self.reader_path = directory / f"{name}.reader.pickle"
        self.monitor_path = directory / f"{name}.monitor.pickle"
        self._lock_path = directory / f"{name}.lock"
        self._fd: int | None = None

    def __enter__(self) -> Session:
        try:
            import fcntl
        except ImportError:  # Windows has no flock: the files are used unlocked
            return self
        self._fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
            self._fd = None

    def load(self, transcript: str) -> dict[str, Any]:
        try:
            state = orjson.loads(self.state_path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return _new_state(transcript)
        return state if isinstance(state, dict) and "offset" in state else _new_state(transcript)

    def save(self, state: dict[str, Any]) -> None:
        tmp = self.state_path.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(state))
        os.replace(tmp, self.state_path)


def _append(path: Path, lines: list[bytes]) -> None:
    with path.open("ab") as f:
        f.write(b"".join(lines))


def _trace_lines(run: Any, verdicts: list[Any], header: bool, base: int = 0) -> list[bytes]:
    from efc_tui.parsers.native_writer import header_object, step_object

    opt = orjson.OPT_APPEND_NEWLINE | orjson.OPT_SERIALIZE_NUMPY
    out = []
    if header:
        head = header_object(run)
        head["hook"] = {"schema": AUDIT_SCHEMA}
        out.append(orjson.dumps(head, option=opt, default=str))
    for v in verdicts:
        step = step_object(run.events[v.index - base])
        step["hook"] = v.as_dict()
        out.append(orjson.dumps(step, option=opt, default=str))
    return out


def _decide(
    state: dict[str, Any], path: Path, opts: HookOptions, session: Session, flush: bool
) -> list[Any]:
    """Decide the transcript's newly complete events; update ``state`` and the trace. Only
    the transcript's new lines are read and only the new events scored, from the state the
    last call kept (``_hook_read``)."""
    from efc_tui.adapter.config import CANDIDATE_KINDS
    from efc_tui.adapter.integrations import _hook_read
    from efc_tui.adapter.live import Budgets, Monitor, complete_events

    decided = state["decided"]
    mon = Monitor(
        window=opts.window,
        epsilon=opts.epsilon,
        repeat=opts.repeat,
        budgets=Budgets(opts.max_usd, opts.max_tokens, opts.max_steps),
        window_rule=opts.window_rule,
        stable=True,
    )
    resumed = _hook_read.resume_monitor(mon, session.monitor_path, decided)
    # without the adapter's state, it is rebuilt from every event decided so far
    got = _hook_read.read(path, opts.harness, session.reader_path, state, not resumed)
    run, base = got.run, got.base
    total = base + len(run.events)
    upto = (
        total
        if flush
        else complete_events(run, codex=opts.harness == "codex", base=base, measured=got.measured)
    )
    state["events"] = total
    if upto <= decided:
        _hook_read.keep(got, session.reader_path, decided)
        return []
    if not resumed:
        mon.decided = decided
    verdicts = mon.sync(run, upto, base)
    _append(session.trace_path, _trace_lines(run, verdicts, decided == 0, base))
    _hook_read.save_monitor(mon, session.monitor_path)
    _hook_read.keep(got, session.reader_path, mon.decided)
    state["decided"] = mon.decided
    for v in verdicts:
        if v.act:
            state["pending"] = {
                "index": v.index,
                "rule": v.rule,
                "reason": v.reason,
                "action": list(v.action) if v.action else None,
            }
            if v.rule == "budget" and state["budget"] is None:
                state["budget"] = v.reason
        # the loop's action is vetoed while its streak lasts and nothing was edited since
        # (an edit may have fixed it: the next run of the check is new feedback)
        if v.action is not None and v.rule and "repeat" in v.rule:
            state["loop"] = {"action": v.action[1], "reason": v.reason, "index": v.index}
        elif state["loop"] is not None and (
            v.decision.repeat_count == 0 or run.events[v.index - base].kind in CANDIDATE_KINDS
        ):
            state["loop"] = None
    return verdicts


def _answer(state: dict[str, Any], payload: dict[str, Any], mode: str) -> tuple[str, Any]:
    """(what was answered, the stdout object or None)."""
    event = payload["hook_event_name"]
    pending = state["pending"]
    fresh = pending is not None and pending["index"] > state["answered"]
    if mode == "veto":
        if event != "PreToolUse":
            return "none", None
        reason = None
        if state["budget"] is not None:
            reason = state["budget"]
        elif state["loop"] is not None and call_action(payload.get("tool_input")) == " ".join(
            str(state["loop"]["action"]).split()
        ):
            reason = state["loop"]["reason"] + " This call repeats it: denied."
        if reason is None:
            return "none", None
        if fresh:
            state["answered"] = pending["index"]
        out = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
        return "deny", out
    if not fresh:
        return "none", None
    if mode == "stop":
        state["answered"] = pending["index"]
        return "stop", {"continue": False, "stopReason": pending["reason"]}
    # warn: the reason goes back to the model after a tool has run
    if event != "PostToolUse":
        return "none", None  # kept pending for the next PostToolUse
    state["answered"] = pending["index"]
    return "warn", {"decision": "block", "reason": pending["reason"]}


def handle(data: bytes, opts: HookOptions) -> HookAnswer:
    """One hook call: never raises; the answer is exit 0 with empty or JSON stdout."""
    t0 = time.perf_counter()
    audit: dict[str, Any] = {
        "schema": AUDIT_SCHEMA,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "harness": opts.harness,
        "mode": opts.mode,
    }
    answer = HookAnswer(audit=audit)
    try:
        _handle(data, opts, audit, answer)
    except _Bad as bad:
        audit["error"] = str(bad)
        answer.stdout = ""
    except EfcError as exc:  # the reader's word on the transcript (empty so far, malformed)
        audit["error"] = f"transcript not read: {exc}"
        answer.stdout = ""
    except Exception as exc:  # a hook must never break the agent
        audit["error"] = f"internal error: {type(exc).__name__}: {exc}"
        answer.stdout = ""
    audit.setdefault("answer", "none")
    if audit.get("error"):
        audit["answer"] = "none"
    audit["ms"] = round((time.perf_counter() - t0) * 1000, 2)
    try:
        directory = opts.directory
        directory.mkdir(parents=True, exist_ok=True)
        _append(directory / "audit.jsonl", [orjson.dumps(audit, option=orjson.OPT_APPEND_NEWLINE)])
    except OSError:
        pass  # nowhere to write: still answer
    return answer


def _handle(data: bytes, opts: HookOptions, audit: dict[str, Any], answer: HookAnswer) -> None:
    if opts.harness not in HARNESSES or opts.mode not in MODES:
        raise _Bad(f"unknown harness or mode: {opts.harness} {opts.mode}")
    for name in ("max_usd", "max_tokens", "max_steps", "window"):
        value = getattr(opts, name)
        if value is not None and not value > 0:
            raise _Bad(f"--{name.replace('_', '-')} must be > 0, got {value}")
    payload = _payload(data)
    event = payload["hook_event_name"]
    audit.update(
        session_id=payload["session_id"],
        hook_event=event,
        transcript=payload["transcript_path"],
    )
    if payload.get("tool_name") is not None:
        audit["tool_name"] = payload.get("tool_name")
    path = Path(payload["transcript_path"])
    with Session(opts.directory, payload["session_id"], str(path)) as session:
        state = session.load(str(path))
        try:
            st = os.stat(path)
        except OSError as exc:
            raise _Bad(f"transcript not readable: {exc.strerror or exc}") from None
        if state["ino"] is not None and state["ino"] != st.st_ino:
            audit["note"] = "another file at the transcript's path: state started afresh"
            state = _new_state(str(path))
        elif st.st_size < state["offset"]:
            audit["note"] = (
                "transcript shorter than what was read (rotated or rewritten): started afresh"
            )
            state = _new_state(str(path))
        if state["decided"] == 0 and state["offset"] == 0:
            for stale in (session.trace_path, session.reader_path, session.monitor_path):
                stale.unlink(missing_ok=True)
        state["ino"] = st.st_ino
        flush = event in FLUSH_EVENTS
        grew = False
        if st.st_size > state["offset"]:
            with path.open("rb") as f:  # only the new bytes: where the last whole line ends
                f.seek(state["offset"])
                new = f.read(st.st_size - state["offset"])
            end = new.rfind(b"\n")
            if end >= 0:
                state["offset"] += end + 1
                grew = True
            audit["partial_line"] = end + 1 < len(new)
        if grew or (flush and state["decided"] < state["events"]):
            verdicts = _decide(state, path, opts, session, flush)
            answer.verdicts = verdicts
            if verdicts:
                audit["decided"] = [verdicts[0].index, verdicts[-1].index]
                acted = [v.as_dict() for v in verdicts if v.act]
                for a in acted:
                    a.pop("adapter", None)
                if acted:
                    audit["acted"] = acted
        audit["events"] = state["events"]
        what, out = _answer(state, payload, opts.mode)
        session.save(state)
    audit["answer"] = what
    if out is not None:
        answer.stdout = orjson.dumps(out).decode()
        audit["stdout"] = out


# --- replay: a finished transcript, call by call, as the harness would have made them


@dataclass
class ReplayCall:
    """One hook call of a replay: the line of the transcript it follows and its answer."""

    line: int
    event: str
    tool_name: str | None
    answer: HookAnswer


def _calls_of_line(obj: Any, harness: str) -> list[tuple[str, dict[str, Any]]]:
    """The hook calls the harness makes once this transcript line is written:
    (hook_event_name, extra payload fields)."""
    if not isinstance(obj, dict):
        return []
    calls: list[tuple[str, dict[str, Any]]] = []
    if harness == "claude-code":
        msg = obj.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            return []
        for block in content:
            if not isinstance(block, dict):
                continue
            if obj.get("type") == "assistant" and block.get("type") == "tool_use":
                calls.append(
                    (
                        "PreToolUse",
                        {
                            "tool_name": block.get("name"),
                            "tool_input": block.get("input"),
                            "tool_use_id": block.get("id"),
                        },
                    )
                )
            elif obj.get("type") == "user" and block.get("type") == "tool_result":
                calls.append(("PostToolUse", {"tool_use_id": block.get("tool_use_id")}))
        return calls
    p = obj.get("payload")
    if obj.get("type") != "response_item" or not isinstance(p, dict):
        return []
    typ = p.get("type")
    if typ in ("function_call", "custom_tool_call", "local_shell_call"):
        from efc_tui.parsers.codex import _call_action

        name, action = _call_action(p)
        calls.append(
            (
                "PreToolUse",
                {
                    "tool_name": name,
                    "tool_input": {"command": action},
                    "tool_use_id": p.get("call_id"),
                },
            )
        )
    elif typ in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        calls.append(("PostToolUse", {"tool_use_id": p.get("call_id")}))
    return calls


def replay(transcript: Path, opts: HookOptions, work_dir: Path) -> list[ReplayCall]:
    """Feed a finished transcript through ``handle`` line by line, as the harness would have
    called the hook: PreToolUse once a tool call is written, PostToolUse once its result
    is, Stop at the end. The transcript grows in ``work_dir`` (its own state directory
    there too), so the user's state and audit log are not touched."""
    raw = transcript.read_bytes()
    work_dir.mkdir(parents=True, exist_ok=True)
    live = work_dir / transcript.name
    opts = HookOptions(**{**opts.__dict__, "state_dir": work_dir / "state"})
    session = "replay-" + transcript.stem
    out: list[ReplayCall] = []
    live.write_bytes(b"")

    def call(event: str, extra: dict[str, Any], line: int) -> None:
        payload = {
            "session_id": session,
            "transcript_path": str(live),
            "cwd": str(work_dir),
            "hook_event_name": event,
            **extra,
        }
        ans = handle(orjson.dumps(payload), opts)
        out.append(ReplayCall(line, event, extra.get("tool_name"), ans))

    lines = raw.splitlines(keepends=True)
    with live.open("ab") as f:
        for n, line in enumerate(lines, 1):
            f.write(line)
            f.flush()
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            for event, extra in _calls_of_line(obj, opts.harness):
                call(event, extra, n)
    call("Stop", {"stop_hook_active": False}, len(lines))
    return out
