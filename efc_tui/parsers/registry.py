"""Every format efc-tui reads, in detection-priority order (earlier wins ties): the one
place a format is described.

Adding a format: write ``efc_tui/parsers/<module>.py`` with a ``read(path, options)``, its
sniff as ``sniffs.<module>``, and list it in ``FORMATS`` (name, module, summary, what
detection looks for, file endings, the most its sniff counts for). Detection calls the
sniffs from ``sniffs`` and imports a reader's module only when it wins (``reader``), so
detecting a file imports that file's reader alone; ``READERS`` imports them all.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from efc_tui.parsers.base import Reader

    READERS: list[Reader]  # every reader, in detection order (module __getattr__ below)


class Format(NamedTuple):
    """What efc-tui knows of a format before importing its reader."""

    #: ``efc_tui.parsers.<module>`` holds its ``read``; ``sniffs.<module>`` is its sniff
    module: str
    #: ``efc-tui formats``: what it is, and what detection looks for
    summary: str
    detects_on: str
    #: file endings that break a tie between two sniffs of the same score
    extensions: tuple[str, ...]
    #: the most its sniff counts for: detection caps the sniff's score here, and skips the
    #: format (without asking its sniff) when even this cannot beat the best score so far
    ceiling: float


#: every format, in detection order (earlier wins ties)
FORMATS: dict[str, Format] = {
    "native": Format(
        "native",
        "efc-trace/1 JSONL written by efc-tui simulate or by hand (SPEC §9)",
        'first line is {"type": "run", "schema": "efc-trace/1", ...}',
        (".jsonl", ".jsonl.gz"),
        1.0,
    ),
    "mini-swe-agent": Format(
        "mini_swe_agent",
        "mini-swe-agent trajectories (*.traj.json), v1 text mode and v2 tool calls",
        'JSON object with "trajectory_format": "mini-swe-agent-…" or info.mini_version',
        (".traj.json",),
        1.0,
    ),
    "swe-agent": Format(
        "swe_agent",
        "SWE-agent trajectories (*.traj), 0.x and 1.x",
        'JSON object with a "trajectory" list of {action, observation, ...} steps and "history"',
        (".traj",),
        0.9,
    ),
    "claude-code": Format(
        "claude_code",
        "Claude Code session JSONL (~/.claude/projects/*/*.jsonl), incl. sidechains; "
        "and `claude -p --output-format stream-json` output (Harbor's claude-code.txt)",
        'JSONL whose first line has "type" (user/assistant/summary/system/...) and sessionId/uuid/parentUuid; '
        'or stream-json lines with "session_id" (system init with "tools", result)',
        (".jsonl", ".txt"),
        0.95,
    ),
    "codex": Format(
        "codex",
        "OpenAI Codex CLI rollout JSONL (~/.codex/sessions/**/rollout-*.jsonl)",
        'JSONL of {"timestamp", "type": session_meta|turn_context|response_item|event_msg|compacted, "payload"}',
        (".jsonl",),
        0.95,
    ),
    "inspect-ai": Format(
        "inspect_ai",
        "Inspect AI eval logs: .json, and the zipped .eval (zstd or deflate members)",
        'ZIP holding header.json / samples/; or JSON {"version", "status", "eval", "samples"}',
        (".eval", ".json"),
        1.0,
    ),
    "atif": Format(
        "atif",
        "Harbor / Terminal-Bench ATIF trajectory.json (ATIF-v1.x)",
        'JSON object with "schema_version": "ATIF-v..." and steps[]',
        ("trajectory.json", ".json"),
        0.98,
    ),
    "openhands": Format(
        "openhands",
        "OpenHands event stream / trajectory export (JSON array of events, or history wrapper), or an OpenHands completion log",
        "JSON array of {id, timestamp, source, action|observation} events; {messages, response, kwargs, ...} with OpenHands' system prompt",
        (".json", ".jsonl"),
        0.9,
    ),
    "openai-chat": Format(
        "openai_chat",
        "OpenAI Chat Completions: request/response JSON, SSE streams, JSONL of messages",
        '{"object": "chat.completion"}, "data: {chat.completion.chunk}" streams, or messages[] with tool_calls / role "tool"',
        (".json", ".jsonl", ".sse.txt"),
        0.95,
    ),
    "anthropic-messages": Format(
        "anthropic_messages",
        "Anthropic Messages: request/response JSON, SSE streams, JSONL of messages",
        '{"type": "message", "role": "assistant"}, "event: message_start" streams, or messages[] with tool_use / tool_result blocks',
        (".json", ".jsonl", ".sse.txt"),
        0.95,
    ),
    "otel-genai": Format(
        "otel_genai",
        "OpenTelemetry GenAI spans: OTLP JSON (resourceSpans), SDK span dumps, attribute maps",
        '{"resourceSpans": [...]}; a list of spans with spanContext + attributes; gen_ai.* attribute maps',
        (".json", ".jsonl", ".span.json"),
        0.95,
    ),
    "gemini-cli": Format(
        "gemini_cli",
        "Gemini CLI chat session (session-*.json, and the newer session-*.jsonl)",
        'JSON object with "sessionId", "projectHash" and messages[] (type user / gemini)',
        (".json", ".jsonl"),
        0.95,
    ),
    "tau-bench": Format(
        "tau_bench",
        "tau-bench results JSON (a list of {task_id, reward, info, traj, trial}), one run per entry",
        'JSON array of objects with "task_id", "reward" and "traj" / "info"',
        (".json",),
        0.9,
    ),
    "cursor-cli": Format(
        "cursor_cli",
        "Cursor CLI stream-json (cursor-agent --output-format stream-json), JSONL or wrapped in steps[]",
        'JSONL events with "type" system/user/assistant/thinking/tool_call/result and '
        '"model_call_id" / "timestamp_ms"; or {"schema_version": "cursor-jsonl-v1", "steps": [...]}',
        (".jsonl", ".json", ".txt"),
        0.95,
    ),
    "terminal-bench": Format(
        "terminal_bench",
        "Terminal-Bench 1 trial recordings (tb run: <trial>/sessions/agent.cast, asciinema v2 with "
        "Terminus markers)",
        'JSONL whose first line is an asciinema v2 header {"version": 2, "width", "height"}',
        (".cast",),
        0.9,
    ),
    "openai-agents": Format(
        "openai_agents",
        "OpenAI Agents SDK: exported trace/span JSONL, RunResult.to_input_list() JSON, RunState JSON",
        'JSONL / JSON of {"object": "trace" | "trace.span", "span_data": {...}}; a JSON list of '
        "Responses items (function_call, function_call_output, reasoning, ...); "
        '{"$schemaVersion", "generated_items", "model_responses"}',
        (".jsonl", ".json"),
        0.95,
    ),
}


_BUILT: dict[str, Reader] = {}


def reader(name: str) -> Reader:
    """The reader of format ``name`` (a key of ``FORMATS``), its module imported now."""
    found = _BUILT.get(name)
    if found is None:
        from efc_tui.parsers import sniffs
        from efc_tui.parsers.base import Reader

        f = FORMATS[name]
        read = import_module(f"efc_tui.parsers.{f.module}").read
        sniff = getattr(sniffs, f.module)
        found = _BUILT[name] = Reader(name, f.summary, f.detects_on, f.extensions, sniff, read)
    return found


def __getattr__(name: str) -> Any:
    if name == "READERS":  # every reader, in detection order
        readers = [reader(n) for n in FORMATS]
        globals()["READERS"] = readers
        return readers
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
