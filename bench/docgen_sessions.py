"""Generators of the two JSON-lines session logs of coding agents (issue 31's moonshot: a
user's whole history): a Claude Code session (``~/.claude/projects/<project>/<id>.jsonl``)
and an OpenAI Codex CLI rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``), from
the same ``docgen.steps`` as the whole-document formats. ``docgen.SESSIONS`` lists them.

Each writes the lines the tool writes (../shared/fixtures/real/FORMATS.md §3-4 and the
real fixtures): compact JSON, one object a line, the keys in the tool's order.

Claude Code (an even seed 1.0.x, subagents inline; an odd one 2.x, subagents in files of
their own, a ``file-history-snapshot`` line before each prompt and a ``turn_duration``
``system`` line after each turn): ``summary`` title lines first, the user's prompt,
then per step one API message written one line per content block (an optional
``thinking`` and ``text`` block, then the ``tool_use``; every line repeats the message id
and its usage, the earlier lines with fewer output tokens) and the ``tool_result`` user
line with its tool-specific ``toolUseResult`` (which repeats the output: Bash ``stdout``,
Read the file, Edit the whole original file). A step's tool follows its command:
``sed -n`` reads are ``Read`` of a 20-70-line file (1-4 KB), tests and scripts are
``Bash`` (an error is ``is_error`` and ``Exit code 1``); every 10th step an ``Edit`` (of a
40-120-line file), every 12th a ``Grep``, every 25th a ``TodoWrite``, every 60th (at 33) a ``Write`` the user has not
allowed, every 20th a long build log (8-30 KB: Claude Code keeps 30,000 characters of an output), and
every 50th (at 25) a ``Task`` whose subagent's four steps are ``isSidechain`` lines before
its result (which reports the subagent's totals). Every 40 steps the turn ends with a
text answer and the user writes a new prompt.

Codex (rollout envelope ``{timestamp, type, payload}``): ``session_meta`` (with the base
instructions, ~6 KB), ``turn_context``, the ``<environment_context>`` and the task as user
``message`` items (the task also as a ``user_message`` event), then per step an optional
``reasoning`` item (summary and ``encrypted_content``, with its ``agent_reasoning`` event),
the ``shell`` ``function_call`` (arguments a JSON string), its ``function_call_output`` (every
20th a long build log of 8-30 KB; an
even seed writes the older JSON string with ``metadata.exit_code``, an odd one the newer
``Exit code:/Wall time:/Output:`` text) and a ``token_count`` event (cumulative and last
usage, rate limits); every 15th step an ``apply_patch`` ``custom_tool_call``, every 30th
an ``update_plan`` call, every 60th (at 33) a command the user declined; every 40 steps an assistant message (item and
``agent_message`` event), ``task_complete`` and a new prompt with its ``turn_context``.

stdlib + orjson only.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from docgen import _T0, TASK, WORDS, Step, steps

CLAUDE_MODEL = "claude-sonnet-4-20250514"
CODEX_MODEL = "gpt-5-codex"
#: steps per user turn (a new prompt after each)
TURN = 40
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _iso_z(t: float) -> str:
    """ISO-8601 with milliseconds and ``Z``, as both tools write it."""
    import datetime as dt

    d = dt.datetime.fromtimestamp(t, dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _words(rng: random.Random, k: int) -> str:
    return " ".join(rng.choices(WORDS, k=k))


def _file_lines(rng: random.Random, n: int) -> list[str]:
    return [f"    {_words(rng, rng.randint(3, 9))}" for _ in range(n)]


def _cat_n(lines: list[str], start: int = 1) -> str:
    """Claude Code's Read output: ``cat -n`` numbering, an arrow before each line."""
    return "\n".join(f"{i:6d}\u2192{line}" for i, line in enumerate(lines, start))


def _long_log(rng: random.Random, size: int) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        line = f"[{len(out):5d}] building {_words(rng, 6)} ... ok"
        out.append(line)
        total += len(line) + 1
    return "\n".join(out)


def _write_lines(path: Path, lines: Iterator[dict[str, Any]]) -> int:
    size = 0
    with path.open("wb") as f:
        for obj in lines:
            data = orjson.dumps(obj) + b"\n"
            f.write(data)
            size += len(data)
    return size


# ---------------------------------------------------------------------------- Claude Code


class _Claude:
    """The envelope every user/assistant line of one session shares, and its clock."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed + 2)
        self.session = _uuid(self.rng)
        self.parent: str | None = None
        self.now = _T0 + seed * 86_400
        self.msg = 0
        #: an odd seed writes a 2.x session: its subagents in files of their own
        self.v2 = seed % 2 == 1
        self.version = "2.0.76" if self.v2 else "1.0.108"

    def line(self, typ: str, body: dict[str, Any], side: bool = False, **more: Any) -> dict:
        uuid = _uuid(self.rng)
        self.now += 0.05 + self.rng.random() * 0.5
        obj: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": side,
            "userType": "external",
            "cwd": "/home/dev/repo",
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
        }
        if typ == "system":
            obj.update(type=typ, **body)
        elif typ == "assistant":
            obj["message"] = body
            obj["requestId"] = f"req_011C{self.msg:020x}"
            obj["type"] = typ
        else:
            obj["type"] = typ
            obj["message"] = body
        obj["uuid"] = uuid
        obj["timestamp"] = _iso_z(self.now)
        obj.update(more)
        self.parent = uuid
        return obj

    def message(
        self, blocks: list[dict[str, Any]], s: Step, side: bool = False
    ) -> Iterator[dict[str, Any]]:
        """One API message, one line per content block, each with the message's usage."""
        self.msg += 1
        mid = f"msg_01{self.msg:022x}"
        cw = self.rng.randint(100, 3000)
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            usage = {
                "input_tokens": self.rng.randint(3, 9),
                "cache_creation_input_tokens": cw,
                "cache_read_input_tokens": s.tokens_in * 20,
                "cache_creation": {"ephemeral_5m_input_tokens": cw, "ephemeral_1h_input_tokens": 0},
                "output_tokens": s.tokens_out if last else min(8, s.tokens_out),
                "service_tier": "standard",
            }
            body = {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": CLAUDE_MODEL,
                "content": [block],
                "stop_reason": "tool_use" if last and block["type"] == "tool_use" else None,
                "stop_sequence": None,
                "usage": usage,
            }
            yield self.line("assistant", body, side)

    def result(
        self, tid: str, content: str, structured: Any, error: bool = False, side: bool = False
    ) -> dict[str, Any]:
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if error or (isinstance(structured, dict) and "stdout" in structured):
            block["is_error"] = error
        self.now += 0.2 + self.rng.random() * 2
        return self.line(
            "user", {"role": "user", "content": [block]}, side, toolUseResult=structured
        )


def _claude_tool(c: _Claude, s: Step) -> tuple[str, dict[str, Any], str, Any, bool]:
    """(tool, input, result text, toolUseResult, is_error) of step ``s``."""
    rng = c.rng
    path = s.cmd.rsplit(" ", 1)[-1] if s.cmd.startswith("sed -n") else "src/pkg/mod7.py"
    full = f"/home/dev/repo/{path}"
    if s.t % 25 == 0:
        todos = [
            {
                "content": _words(rng, 6).capitalize(),
                "status": rng.choice(["pending", "in_progress", "completed"]),
                "activeForm": _words(rng, 6).capitalize(),
            }
            for _ in range(rng.randint(3, 7))
        ]
        text = (
            "Todos have been modified successfully. Ensure that you continue to use the todo "
            "list to track your progress. Please proceed with the current tasks if applicable"
        )
        return "TodoWrite", {"todos": todos}, text, {"oldTodos": [], "newTodos": todos}, False
    if s.t % 60 == 33:  # a write the user has not allowed: refused, nothing done
        inp = {"file_path": full, "content": s.text}
        text = f"Claude requested permissions to write to {full}, but you haven't granted it yet."
        return "Write", inp, text, f"Error: {text}", True
    if s.t % 10 == 0:
        original = _file_lines(rng, rng.randint(40, 120))
        i = rng.randrange(len(original) - 8)
        old, new = original[i], f"    {s.thought[:80]}"
        edited = [*original[:i], new, *original[i + 1 :]]
        snippet = _cat_n(edited[max(i - 5, 0) : i + 6], max(i - 5, 0) + 1)
        text = (
            f"The file {full} has been updated. Here's the result of running `cat -n` on a "
            f"snippet of the edited file:\n{snippet}"
        )
        patch = [
            {
                "oldStart": i + 1,
                "oldLines": 1,
                "newStart": i + 1,
                "newLines": 1,
                "lines": [f"-{old}", f"+{new}"],
            }
        ]
        structured = {
            "filePath": full,
            "oldString": old,
            "newString": new,
            "originalFile": "\n".join(original),
            "structuredPatch": patch,
            "userModified": False,
            "replaceAll": False,
        }
        inp = {"file_path": full, "old_string": old, "new_string": new}
        return "Edit", inp, text, structured, False
    if s.t % 12 == 0:
        files = [f"src/pkg/mod{rng.randint(0, 200)}.py" for _ in range(rng.randint(2, 30))]
        text = f"Found {len(files)} files\n" + "\n".join(f"/home/dev/repo/{f}" for f in files)
        structured = {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)}
        return "Grep", {"pattern": rng.choice(WORDS), "path": "src"}, text, structured, False
    if s.cmd.startswith("sed -n"):
        lines = s.text.split("\n") + _file_lines(rng, rng.randint(2, 50))
        text = _cat_n(lines)
        file = {
            "filePath": full,
            "content": "\n".join(lines),
            "numLines": len(lines),
            "startLine": 1,
            "totalLines": len(lines),
        }
        return "Read", {"file_path": full}, text, {"type": "text", "file": file}, False
    out = _long_log(rng, rng.randint(8_000, 30_000)) + "\n" + s.text if s.t % 20 == 5 else s.text
    inp = {"command": s.cmd, "description": s.thought[:60]}
    structured = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
    if s.rc:
        return "Bash", inp, f"Exit code {s.rc}\n{out}", f"Error: Exit code {s.rc}\n{out}", True
    return "Bash", inp, out, structured, False


def _claude_lines(n: int, seed: int) -> Iterator[dict[str, Any]]:
    c = _Claude(seed)
    rng = c.rng
    for _ in range(rng.randint(1, 2)):
        yield {"type": "summary", "summary": _words(rng, 5).title(), "leafUuid": _uuid(rng)}
    yield from _claude_prompt(c, TASK)
    for s in steps(n, seed):
        c.now += s.wall_s
        blocks: list[dict[str, Any]] = []
        if rng.random() < 0.3:
            sig = "".join(rng.choices(_B64, k=400))
            blocks.append({"type": "thinking", "thinking": _words(rng, 40), "signature": sig})
        if rng.random() < 0.4:
            blocks.append({"type": "text", "text": s.thought})
        tid = f"toolu_01{seed:06x}{s.t:016x}"
        if s.t % 50 == 25:
            yield from _claude_task(c, s, blocks, tid)
        else:
            tool, inp, text, structured, err = _claude_tool(c, s)
            blocks.append({"type": "tool_use", "id": tid, "name": tool, "input": inp})
            yield from c.message(blocks, s)
            yield c.result(tid, text, structured, err)
        if s.t % TURN == TURN - 1 and s.t < n - 1:
            yield from c.message([{"type": "text", "text": s.thought}], s)
            if c.v2:
                turn = {"subtype": "turn_duration", "durationMs": rng.randint(10_000, 900_000)}
                yield c.line("system", {**turn, "isMeta": False})
            c.now += 30 + rng.random() * 300  # the user reads, then writes the next prompt
            yield from _claude_prompt(c, _words(rng, 20))


def _claude_prompt(c: _Claude, text: str) -> Iterator[dict[str, Any]]:
    """The user's prompt; in 2.x after the snapshot of the files it may change."""
    if c.v2:
        mid = _uuid(c.rng)
        snap = {"messageId": mid, "trackedFileBackups": {}, "timestamp": _iso_z(c.now)}
        yield {
            "type": "file-history-snapshot",
            "messageId": mid,
            "snapshot": snap,
            "isSnapshotUpdate": False,
        }
    yield c.line("user", {"role": "user", "content": text})


def _claude_task(
    c: _Claude, s: Step, blocks: list[dict[str, Any]], tid: str
) -> Iterator[dict[str, Any]]:
    """A ``Task`` call, its subagent's four steps inline (``isSidechain``; in 2.x they are in
    a file of their own) and its result."""
    rng = c.rng
    prompt = f"Find where {rng.choice(WORDS)} is handled. {s.thought}"
    inp = {"description": "Search the code", "prompt": prompt, "subagent_type": "general-purpose"}
    blocks.append({"type": "tool_use", "id": tid, "name": "Task", "input": inp})
    yield from c.message(blocks, s)
    main_parent = c.parent
    c.parent = None
    side = [c.line("user", {"role": "user", "content": prompt}, True)]
    tokens = 0
    for k in range(4):
        sub = Step(s.t, f"grep -rn {rng.choice(WORDS)} src", s.text, 0, s.thought, 900, 60, 0.3)
        sid = f"{tid}_{k}"
        use = {"type": "tool_use", "id": sid, "name": "Bash", "input": {"command": sub.cmd}}
        side += c.message([use], sub, True)
        out = {"stdout": sub.text, "stderr": "", "interrupted": False}
        side.append(c.result(sid, sub.text, out, side=True))
        tokens += 900 * 20 + 60
    answer = f"The {rng.choice(WORDS)} handling lives in src/pkg/mod{rng.randint(0, 200)}.py."
    side += c.message([{"type": "text", "text": answer}], s, True)
    if not c.v2:
        yield from side
    c.parent = main_parent
    structured = {
        "content": [{"type": "text", "text": answer}],
        "totalDurationMs": rng.randint(5_000, 60_000),
        "totalTokens": tokens,
        "totalToolUseCount": 4,
        "usage": {"input_tokens": 40, "output_tokens": 300},
    }
    yield c.result(tid, answer, structured)


def claude_code(path: Path, n: int, seed: int = 0) -> int:
    """A Claude Code session of ``n`` steps (module docstring)."""
    return _write_lines(path, _claude_lines(n, seed))


# ---------------------------------------------------------------------------- Codex


class _Codex:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed + 3)
        self.now = _T0 + seed * 86_400
        self.total = [0, 0, 0, 0]  # input (cached included), cached, output, reasoning

    def line(self, typ: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.now += 0.01 + self.rng.random() * 0.2
        return {"timestamp": _iso_z(self.now), "type": typ, "payload": payload}

    def item(self, **payload: Any) -> dict[str, Any]:
        return self.line("response_item", payload)

    def event(self, **payload: Any) -> dict[str, Any]:
        return self.line("event_msg", payload)

    def tokens(self, s: Step) -> dict[str, Any]:
        cached = s.tokens_in * 18
        reasoning = self.rng.randint(0, s.tokens_out)
        last = [s.tokens_in + cached, cached, s.tokens_out, reasoning]
        self.total = [a + b for a, b in zip(self.total, last, strict=True)]

        def usage(u: list[int]) -> dict[str, int]:
            return {
                "input_tokens": u[0],
                "cached_input_tokens": u[1],
                "output_tokens": u[2],
                "reasoning_output_tokens": u[3],
                "total_tokens": u[0] + u[2],
            }

        info = {
            "total_token_usage": usage(self.total),
            "last_token_usage": usage(last),
            "model_context_window": 272000,
        }
        limits = {
            "primary": {"used_percent": 12.0, "window_minutes": 299, "resets_in_seconds": 9000},
            "secondary": {"used_percent": 3.0, "window_minutes": 10079, "resets_in_seconds": 6e5},
        }
        return self.event(type="token_count", info=info, rate_limits=limits)

    def turn(self, turn_id: str) -> dict[str, Any]:
        sandbox = {
            "mode": "workspace-write",
            "network_access": False,
            "exclude_tmpdir_env_var": False,
        }
        return self.line(
            "turn_context",
            {
                "cwd": "/home/dev/repo",
                "approval_policy": "on-request",
                "sandbox_policy": sandbox,
                "model": CODEX_MODEL,
                "effort": "medium",
                "summary": "auto",
                "turn_id": turn_id,
            },
        )

    def prompt(self, text: str) -> Iterator[dict[str, Any]]:
        content = [{"type": "input_text", "text": text}]
        yield self.item(type="message", role="user", content=content)
        yield self.event(type="user_message", message=text, images=[])


def _codex_output(c: _Codex, s: Step, text: str, old: bool) -> str:
    secs = round(s.wall_s, 1)
    if old:
        meta = {"exit_code": s.rc, "duration_seconds": secs}
        return orjson.dumps({"output": text, "metadata": meta}).decode()
    return f"Exit code: {s.rc}\nWall time: {secs} seconds\nOutput:\n{text}"


def _codex_lines(n: int, seed: int) -> Iterator[dict[str, Any]]:
    c = _Codex(seed)
    rng = c.rng
    old = seed % 2 == 0
    sid = _uuid(rng)
    meta = {
        "id": sid,
        "timestamp": _iso_z(c.now),
        "cwd": "/home/dev/repo",
        "originator": "codex_cli_rs",
        "cli_version": "0.46.0",
        "instructions": None,
        "source": "cli",
        "model_provider": "openai",
        "base_instructions": {"text": _words(rng, 900)},
        "git": {
            "commit_hash": f"{rng.getrandbits(160):040x}",
            "branch": "main",
            "repository_url": "https://github.com/example/repo.git",
        },
    }
    yield c.line("session_meta", meta)
    yield c.turn(_uuid(rng))
    env = (
        "<environment_context>\n  <cwd>/home/dev/repo</cwd>\n  <approval_policy>on-request"
        "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>"
        "restricted</network_access>\n  <shell>bash</shell>\n</environment_context>"
    )
    yield c.item(type="message", role="user", content=[{"type": "input_text", "text": env}])
    yield from c.prompt(TASK)
    for s in steps(n, seed):
        c.now += s.wall_s
        if rng.random() < 0.5:
            summary = [{"type": "summary_text", "text": f"**Planning** {s.thought}"}]
            enc = "".join(rng.choices(_B64, k=rng.randint(800, 2400)))
            yield c.item(type="reasoning", summary=summary, content=None, encrypted_content=enc)
            yield c.event(type="agent_reasoning", text=f"**Planning** {s.thought}")
        cid = f"call_{rng.getrandbits(96):024x}"
        if s.t % 15 == 7:
            patch = (
                f"*** Begin Patch\n*** Update File: src/pkg/mod{s.t % 200}.py\n@@\n"
                f"-    {_words(rng, 6)}\n+    {s.thought[:80]}\n*** End Patch\n"
            )
            yield c.item(
                type="custom_tool_call",
                status="completed",
                call_id=cid,
                name="apply_patch",
                input=patch,
            )
            done = f"Success. Updated the following files:\nM src/pkg/mod{s.t % 200}.py\n"
            meta_out = orjson.dumps(
                {"output": done, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
            )
            yield c.item(type="custom_tool_call_output", call_id=cid, output=meta_out.decode())
        elif s.t % 30 == 20:
            plan = [
                {
                    "step": _words(rng, 5),
                    "status": rng.choice(["pending", "in_progress", "completed"]),
                }
                for _ in range(rng.randint(3, 6))
            ]
            args = orjson.dumps({"explanation": _words(rng, 10), "plan": plan}).decode()
            yield c.item(type="function_call", name="update_plan", arguments=args, call_id=cid)
            yield c.item(type="function_call_output", call_id=cid, output="Plan updated")
        elif s.t % 60 == 33:  # declined by the user: never ran
            args = orjson.dumps({"command": ["bash", "-lc", f"rm -rf build && {s.cmd}"]})
            yield c.item(type="function_call", name="shell", arguments=args.decode(), call_id=cid)
            yield c.item(
                type="function_call_output", call_id=cid, output="exec command rejected by user"
            )
        else:
            cmd = ["bash", "-lc", s.cmd]
            args = orjson.dumps({"command": cmd, "workdir": "/home/dev/repo", "timeout_ms": 120000})
            yield c.item(type="function_call", name="shell", arguments=args.decode(), call_id=cid)
            text = s.text
            if s.t % 20 == 5:
                text = _long_log(rng, rng.randint(8_000, 30_000)) + "\n" + text
            yield c.item(
                type="function_call_output", call_id=cid, output=_codex_output(c, s, text, old)
            )
        yield c.tokens(s)
        if s.t % TURN == TURN - 1 and s.t < n - 1:
            content = [{"type": "output_text", "text": s.thought}]
            yield c.item(type="message", role="assistant", content=content)
            yield c.event(type="agent_message", message=s.thought)
            yield c.event(type="task_complete", last_agent_message=s.thought)
            c.now += 30 + rng.random() * 300
            yield c.turn(_uuid(rng))
            yield from c.prompt(_words(rng, 20))


def codex(path: Path, n: int, seed: int = 0) -> int:
    """A Codex CLI rollout of ``n`` steps (module docstring)."""
    return _write_lines(path, _codex_lines(n, seed))
