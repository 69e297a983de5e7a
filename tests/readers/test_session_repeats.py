"""The JSON-lines session readers skip work on a line that repeats the line before (a
Codex timestamp, a Claude Code version): only for a value that reads the same, never for
one JSON merely calls equal (``true == 1`` in Python, yet a timestamp ``true`` is no time
and ``1`` is 1 s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from efc_tui.parsers import load


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


def test_codex_timestamp_true_after_1_is_no_time(tmp_path: Path) -> None:
    call = {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}'}
    lines = [
        {"timestamp": 1, "type": "session_meta", "payload": {"id": "s"}},
        {"timestamp": True, "type": "response_item", "payload": {**call, "call_id": "a"}},
        {"timestamp": 2, "type": "response_item", "payload": {**call, "call_id": "b"}},
        {"timestamp": 2, "type": "response_item", "payload": {**call, "call_id": "c"}},
    ]
    (run,) = load(_write(tmp_path / "rollout-x.jsonl", lines))
    assert [e.timestamp for e in run.events] == [None, 2.0, 2.0]


def test_claude_version_true_after_1_and_repeats(tmp_path: Path) -> None:
    base = {"sessionId": "s", "cwd": "/x", "isSidechain": False}
    lines = [
        {**base, "type": "user", "version": 1, "message": {"role": "user", "content": "a"}},
        {**base, "type": "user", "version": True, "message": {"role": "user", "content": "b"}},
        {**base, "type": "user", "version": "2.0", "message": {"role": "user", "content": "c"}},
        {**base, "type": "user", "version": "2.0", "message": {"role": "user", "content": "d"}},
        {**base, "type": "user", "version": "2.1", "message": {"role": "user", "content": "e"}},
    ]
    (run,) = load(_write(tmp_path / "s.jsonl", lines))
    assert run.extra["cli_version"] == ["2.0", "2.1"]
