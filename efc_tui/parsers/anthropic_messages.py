"""Anthropic Messages API message lists (FORMATS.md §8).

Reads a request body (``{model, max_tokens, system?, messages[], tools?}``), a response
(``{"type": "message", "role": "assistant", "content": [...]}``), a streamed response
(``*.sse.txt``: ``message_start`` / ``content_block_*`` / ``message_delta`` events
re-assembled; ``input_json_delta`` fragments joined into the tool input), a bare JSON list
of messages, a ``{"request", "response"}`` record, and JSONL of messages or requests.

``tool_use`` blocks in assistant messages pair with ``tool_result`` blocks in the next
user message by ``tool_use_id`` (``is_error`` marks failures). ``thinking`` blocks go to
``extra["reasoning"]``; ``image`` blocks become ``[image: <media type>, N bytes]`` notes. Usage: the
response's ``input_tokens`` excludes the cache, so ``tokens_in`` adds
``cache_creation_input_tokens`` and ``cache_read_input_tokens`` back; in a stream the
input comes from ``message_start`` and the (cumulative) output from the last
``message_delta``. Stream ``error`` events become ``error`` / ``api_error`` events.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from efc_tui.model import Run
from efc_tui.parsers._chat_docs import read_chat_file
from efc_tui.parsers._source import guarded
from efc_tui.parsers.base import ReadOptions

NAME = "anthropic-messages"


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    yield from guarded("Anthropic messages", path, read_chat_file(path, options, NAME))
