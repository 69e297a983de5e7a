"""Message content as text, for every reader (SPEC §2: text kept whole, images never).

Content in agent logs is a string, a list of blocks / parts, or one block, in the
dialects of OpenAI (``text``, ``image_url``, ``refusal``, Responses ``input_text`` /
``output_text``), Anthropic (``text``, ``image``, ``tool_result``, ``thinking``), Gemini
(``inlineData``) and others. :func:`content_text` reads all of them the same way:

- text blocks give their text; a refusal gives its ``refusal`` (else ``text``) string;
- an image becomes a note, ``[image: <media type>, N bytes]`` (N decoded from the base64
  length, never the bytes themselves) or ``[image: URL]``, and is counted; documents,
  audio and files become ``[<type>: N bytes]``;
- a ``tool_result`` block is read through (its content is the text);
- reasoning (``thinking``, ``reasoning``, ``redacted_thinking``) is left out: it is
  :func:`reasoning_of`'s; so are tool calls (readers take those separately);
- an unknown block with a ``text`` string gives it; anything else gives nothing.
"""

from __future__ import annotations

from typing import Any

from efc_tui.parsers._values import as_dict, as_list, as_str, dumps

_TEXT_TYPES = {"text", "input_text", "output_text", "summary_text", "reasoning_text"}
_REASONING_TYPES = {"thinking", "reasoning", "redacted_thinking"}
_IMAGE_TYPES = {"image", "image_url", "input_image", "output_image"}
_FILE_TYPES = {"document", "file", "audio", "input_audio", "input_file", "video"}
_CALL_TYPES = {
    "tool_use",
    "server_tool_use",
    "mcp_tool_use",
    "tool_call",
    "tool-call",
    "function_call",
}
_RESULT_SUFFIXES = ("tool_result", "tool-result", "tool_call_response", "function_response")
_MAX_DEPTH = 20

# --------------------------------------------------------------------------- images


def b64_size(data: str) -> int:
    """Decoded size in bytes of a base64 string, without decoding it: its length × 3/4
    minus the ``=`` padding."""
    n = len(data.strip())
    pad = len(data) - len(data.rstrip("="))
    return max(0, n * 3 // 4 - pad)


def _data_uri(uri: str) -> tuple[str | None, str]:
    """(media type, payload) of a ``data:`` URI."""
    header, _, payload = uri.partition(",")
    media = header[5:].split(";")[0].strip()
    return (media or None), payload


def _looks_like_path(s: str) -> bool:
    """An absolute file path rather than bare base64: every JPEG's base64 starts with
    ``/9j/`` and images run to thousands of characters, paths do not."""
    return s.startswith("/") and not s.startswith("/9j/") and len(s) <= 1024 and "\n" not in s


def image_note(source: Any, media_type: str | None = None) -> str:
    """The text that stands for an image: never its bytes.

    ``[image: <media type>, N bytes]`` for an inline image (base64 data, or a ``data:``
    URI), where N is the decoded size (:func:`b64_size`); the media type is the source's
    own (``media_type`` / ``mimeType`` or the data URI's), else ``media_type``, else
    ``image``. ``[image: URL]`` for a linked image; ``[image: <media type>]`` or
    ``[image]`` when the log keeps neither. ``source`` is an image source object
    (``{media_type, data}``, ``{url}``), a data URI, a URL or bare base64.
    """
    media = media_type or None
    data: str | None = None
    if isinstance(source, dict):
        for key in ("media_type", "mime_type", "mimeType"):
            if isinstance(source.get(key), str) and source[key]:
                media = source[key]
                break
        if isinstance(source.get("data"), str):
            data = source["data"]
        elif isinstance(source.get("url"), str):
            return image_note(source["url"], media)
    elif isinstance(source, str) and source:
        if source.startswith("data:"):
            uri_media, data = _data_uri(source)
            media = uri_media or media
        elif source.startswith(("http://", "https://", "file:")) or _looks_like_path(source):
            return f"[image: {source[:200]}]"
        else:
            data = source
    if data is not None:
        return f"[image: {media or 'image'}, {b64_size(data)} bytes]"
    return f"[image: {media}]" if media else "[image]"


def _block_image(block: dict[str, Any]) -> str:
    media = block.get("media_type") or block.get("mime_type") or block.get("mimeType")
    media = media if isinstance(media, str) and media else None
    for key in ("source", "image_url", "image", "url", "inlineData", "inline_data", "data"):
        if key in block:
            return image_note(block[key], media)
    return image_note(None, media)


def _inline_data(block: dict[str, Any]) -> tuple[str, int]:
    """A Gemini ``inlineData`` part: an image note (counted) or ``[<kind>: N bytes]``."""
    inline = as_dict(block.get("inlineData") or block.get("inline_data"))
    mime = as_str(inline.get("mimeType")) or as_str(inline.get("mime_type"))
    data = inline.get("data")
    if mime.startswith("image/") or not mime:
        return image_note({"data": data} if isinstance(data, str) else None, mime or None), 1
    size = b64_size(data) if isinstance(data, str) else 0
    return f"[{mime.split('/')[0]}: {size} bytes]", 0


# --------------------------------------------------------------------------- text


def content_text(content: Any, _depth: int = 0) -> tuple[str, int]:
    """The text of message content and the number of images it held (module docstring)."""
    if content is None or _depth > _MAX_DEPTH:
        return "", 0
    if isinstance(content, str):
        return content, 0
    if isinstance(content, bool):
        return "", 0
    if isinstance(content, int | float):
        return str(content), 0
    if isinstance(content, list):
        parts: list[str] = []
        images = 0
        for c in content:
            if not isinstance(c, str | dict | list):
                continue  # a bare number or null inside a list of blocks is not content
            text, n = content_text(c, _depth + 1)
            if text:
                parts.append(text)
            images += n
        return "\n".join(parts), images
    if not isinstance(content, dict):
        return "", 0
    typ = content.get("type")
    if typ in _TEXT_TYPES or (typ is None and isinstance(content.get("text"), str | dict)):
        t = content.get("text")
        if isinstance(t, dict):  # OpenAI Assistants: {"text": {"value": ...}}
            t = t.get("value")
        return (t if isinstance(t, str) else ""), 0
    if typ == "refusal":
        return as_str(content.get("refusal")) or as_str(content.get("text")), 0
    if typ in _IMAGE_TYPES:
        return _block_image(content), 1
    if "inlineData" in content or "inline_data" in content:
        return _inline_data(content)
    if typ in _FILE_TYPES:
        src = content.get("source") or content.get("file") or content.get("input_audio")
        data = as_dict(src).get("data")
        return (f"[{typ}: {b64_size(data)} bytes]" if isinstance(data, str) else f"[{typ}]"), 0
    if typ == "tool_result" or (typ is None and "content" in content):
        return content_text(content.get("content"), _depth + 1)
    if (
        typ in _REASONING_TYPES
        or typ in _CALL_TYPES
        or (isinstance(typ, str) and typ.endswith(_RESULT_SUFFIXES))
    ):
        return "", 0
    t = content.get("text")
    return (t if isinstance(t, str) else ""), 0


def text_of(content: Any) -> str:
    """The text of message content (:func:`content_text` without the image count)."""
    return content_text(content)[0]


def reasoning_of(content: Any) -> str:
    """Thinking / reasoning blocks of a message's content, joined."""
    out: list[str] = []
    for block in [content] if isinstance(content, dict) else as_list(content):
        if not isinstance(block, dict):
            continue
        typ = block.get("type")
        t: Any
        if typ == "thinking":
            t = block.get("thinking")
        elif typ == "reasoning":
            t = block.get("reasoning") or block.get("text") or block.get("content")
            if isinstance(t, list):
                t = text_of(t)
            if not t and isinstance(block.get("summary"), list):
                t = text_of(block["summary"])
        elif typ == "redacted_thinking":
            t = "[redacted thinking]"
        else:
            continue
        if isinstance(t, str) and t:
            out.append(t)
    return "\n".join(out)


def is_call_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in _CALL_TYPES


def is_result_block(block: Any) -> bool:
    typ = as_dict(block).get("type")
    return isinstance(typ, str) and typ.endswith(_RESULT_SUFFIXES)


def result_text(body: Any) -> str:
    """A tool result's text: a string, blocks (images noted), or JSON of anything else."""
    if body is None:
        return ""
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        if all(isinstance(b, dict) and ("type" in b or "text" in b) for b in body):
            return text_of(body)
        return dumps(body)
    if isinstance(body, dict):
        if body.get("type") in _TEXT_TYPES | _IMAGE_TYPES:
            return text_of(body)
        for key in ("output", "content", "result", "text", "value"):
            if len(body) == 1 and key in body:
                return result_text(body[key])
        return dumps(body)
    return dumps(body)


# --------------------------------------------------------------------------- actions

_NOISE_ARGS = {
    "timeout",
    "duration",
    "is_input",
    "thought",
    "security_risk",
    "description",
    "restart",
    "blocking",
    "is_static",
    "cwd",
    "impl_source",
    "confirmation_state",
    "hidden",
    "max_output_tokens",
    "workdir",
    "yield_time_ms",
    "with_escalated_permissions",
    "justification",
}
_COMMAND_ARGS = ("command", "cmd", "code", "script", "keystrokes", "shell", "bash")


def action_text_of(args: Any) -> str:
    """The action text of a tool call: the command of a shell-like call (its only
    meaningful argument), else the arguments as compact JSON."""
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    if isinstance(args, dict):
        keys = [k for k in args if k not in _NOISE_ARGS]
        if len(keys) == 1 and keys[0] in _COMMAND_ARGS:
            v = args[keys[0]]
            if isinstance(v, str):
                return v
            if isinstance(v, list) and all(isinstance(x, str) for x in v):
                return " ".join(v)
        if not args:
            return ""
    return dumps(args)
