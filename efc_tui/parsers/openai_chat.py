"""OpenAI Chat Completions message lists (FORMATS.md §8).

Reads a request body (``{model, messages[], tools?}``), a ``chat.completion`` response,
a streamed response (``*.sse.txt``: ``data: {chat.completion.chunk}`` lines re-assembled,
tool-call argument fragments concatenated by index), a bare JSON list of
``{role, content}`` messages, a ``{"request", "response"}`` record, and JSONL (one message
per line: one run; or one request / conversation per line: one run each).

Assistant ``tool_calls`` (arguments: a JSON string) pair with ``role: "tool"`` messages by
``tool_call_id`` (legacy ``function_call`` / ``role: "function"`` by position). Usage
comes from a response's ``usage`` (``prompt_tokens`` includes cached tokens;
``prompt_tokens_details.cached_tokens`` is the cache share). Request histories carry no
usage and no timestamps: their tokens are estimated and wall time is flagged unknown. A
request and its response are separate files and separate runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from efc_tui.model import Run
from efc_tui.parsers._chat_docs import read_chat_file
from efc_tui.parsers._source import guarded
from efc_tui.parsers.base import ReadOptions

NAME = "openai-chat"


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("OpenAI chat", path, read_chat_file(path, options, NAME))
