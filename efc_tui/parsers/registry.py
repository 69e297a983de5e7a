"""Every reader efc-tui knows, in detection-priority order (earlier wins ties).

Adding a format: write ``efc_tui/parsers/<module>.py`` with a ``READER``, its sniff as
``sniffs.<module>`` (``READER.sniff`` is that function), and list it in ``FORMATS`` (its
name and module) and ``CEILINGS``. Detection calls the sniffs from ``sniffs`` and imports a
reader's module only when it wins (``reader``), so detecting a file imports that file's
reader alone; ``READERS`` imports them all (a test checks ``FORMATS`` against each module's
``READER``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from efc_tui.parsers.base import Reader

    READERS: list[Reader]  # every reader, in detection order (module __getattr__ below)

#: format name -> the module of ``efc_tui.parsers`` that defines its ``READER``
FORMATS: dict[str, str] = {
    "native": "native",
    "mini-swe-agent": "mini_swe_agent",
    "swe-agent": "swe_agent",
    "claude-code": "claude_code",
    "codex": "codex",
    "inspect-ai": "inspect_ai",
    "atif": "atif",
    "openhands": "openhands",
    "openai-chat": "openai_chat",
    "anthropic-messages": "anthropic_messages",
    "otel-genai": "otel_genai",
    "gemini-cli": "gemini_cli",
    "tau-bench": "tau_bench",
    "cursor-cli": "cursor_cli",
    "terminal-bench": "terminal_bench",
    "openai-agents": "openai_agents",
}


#: format name -> (the highest score its ``sniff`` returns, its ``READER.extensions``): what
#: detection needs to skip a format that cannot beat the best score so far without asking
#: its sniff or importing its reader (tests check both against the readers, the ceiling on
#: each sniff's source in ``sniffs.py``)
CEILINGS: dict[str, tuple[float, tuple[str, ...]]] = {
    "native": (1.0, (".jsonl", ".jsonl.gz")),
    "mini-swe-agent": (1.0, (".traj.json",)),
    "swe-agent": (0.9, (".traj",)),
    "claude-code": (0.95, (".jsonl", ".txt")),
    "codex": (0.95, (".jsonl",)),
    "inspect-ai": (1.0, (".eval", ".json")),
    "atif": (0.98, ("trajectory.json", ".json")),
    "openhands": (0.9, (".json", ".jsonl")),
    "openai-chat": (0.95, (".json", ".jsonl", ".sse.txt")),
    "anthropic-messages": (0.95, (".json", ".jsonl", ".sse.txt")),
    "otel-genai": (0.95, (".json", ".jsonl", ".span.json")),
    "gemini-cli": (0.95, (".json", ".jsonl")),
    "tau-bench": (0.9, (".json",)),
    "cursor-cli": (0.95, (".jsonl", ".json", ".txt")),
    "terminal-bench": (0.9, (".cast",)),
    "openai-agents": (0.95, (".jsonl", ".json")),
}


def reader(name: str) -> Reader:
    """The reader of format ``name`` (a key of ``FORMATS``), its module imported now."""
    found: Reader = import_module(f"efc_tui.parsers.{FORMATS[name]}").READER
    return found


def __getattr__(name: str) -> Any:
    if name == "READERS":  # every reader, in detection order
        readers = [reader(n) for n in FORMATS]
        globals()["READERS"] = readers
        return readers
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
