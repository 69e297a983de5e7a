"""Claude Code session transcripts and hook payloads, written line by line as Claude Code
writes them (for the hook tests and ``bench/hook_bench.py``).

Line shapes follow the recorded sessions in ``tests/fixtures/agents/claude_*.jsonl``: one
``user`` prompt, then per tool call an ``assistant`` line with a ``tool_use`` block and its
``usage``, and a ``user`` line with the ``tool_result``. The payload shapes are the ones in
``tests/fixtures/hooks/`` (Claude Code's hook input: ``session_id``, ``transcript_path``,
``cwd``, ``hook_event_name``, ``tool_name``, ``tool_input``, ``tool_use_id``,
``tool_response``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
SESSION = "0b8f4c1e-5d2a-4c7e-9f31-2a6d8e0c7b15"


def _base(n: int, parent: str | None) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "sessionId": SESSION,
        "version": "2.0.14",
        "gitBranch": "main",
        "uuid": f"u{n}",
        "timestamp": f"2026-11-20T10:{(n // 60) % 60:02d}:{n % 60:02d}.000Z",
    }


def prompt_line(text: str = "The tests fail, please fix them.") -> str:
    obj = _base(0, None) | {"type": "user", "message": {"role": "user", "content": text}}
    return json.dumps(obj)


def call_lines(n: int, command: str, output: str, *, is_error: bool = False) -> tuple[str, str]:
    """The assistant line with the n-th Bash call and the user line with its result."""
    tid = f"toolu_{n:06d}"
    a = _base(2 * n + 1, f"u{2 * n}") | {
        "type": "assistant",
        "requestId": f"req_{n}",
        "message": {
            "id": f"msg_{n:06d}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1200 + n, "output_tokens": 40, "cache_read_input_tokens": 0},
        },
    }
    result: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": output}
    if is_error:
        result["is_error"] = True
    u = _base(2 * n + 2, f"u{2 * n + 1}") | {
        "type": "user",
        "message": {"role": "user", "content": [result]},
        "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
    }
    return json.dumps(a), json.dumps(u)


FAIL = (
    "Exit code 1\n============ FAILURES ============\n___ test_add ___\n"
    "    assert add(2, 2) == 4\nE   assert 5 == 4\nFAILED tests/test_calc.py::test_add - "
    "assert 5 == 4\n1 failed, 3 passed in 0.02s"
)


def session_calls(explore: int, loop: int = 0) -> list[tuple[str, str, bool]]:
    """(command, output, is_error) of ``explore`` distinct reading calls, then ``loop``
    identical failing test runs."""
    calls = [
        (f"cat src/module_{i}.py", f"def f{i}(x):\n    return x + {i}\n# line {i}", False)
        for i in range(explore)
    ]
    calls += [("python -m pytest tests/test_calc.py -q", FAIL, True)] * loop
    return calls


def write_session(path: Path, calls: list[tuple[str, str, bool]]) -> Path:
    lines = [prompt_line()]
    for n, (cmd, out, err) in enumerate(calls, 1):
        lines.extend(call_lines(n, cmd, out, is_error=err))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def payload(event: str, transcript: Path, **fields: Any) -> bytes:
    """A hook payload of the recorded shape (``fixtures/hooks/claude-code.<event>.json``)
    for this transcript."""
    obj = json.loads((FIXTURES / f"claude-code.{event}.json").read_text(encoding="utf-8"))
    obj["transcript_path"] = str(transcript)
    obj.update(fields)
    return json.dumps(obj).encode()
