"""Inspect AI eval logs: the ``.json`` log and the zipped ``.eval`` log (FORMATS.md §7).

One run per sample and epoch: ``run_id`` is ``<eval run_id>/<sample id>#<epoch>``,
``task_id`` the sample id, ``task_family`` the eval's task, ``success`` read from the
sample's first scorer (``C`` / ``I``, booleans, or 1.0 / 0.0 numbers).

The sample's ``events`` (``transcript.events`` in old logs) drive the run: each ``model``
event is one model call (its usage, timestamps and output message: text or tool calls),
each ``tool`` event the result of a call (joined by id; its ``error``, a ``ToolCallError``,
is a failure: ``timeout`` a timeout, ``parsing`` / ``approval`` / ``permission`` static
rejects, ``file_not_found`` / ``is_a_directory`` runtime errors, the rest typed from the
message),
a ``sandbox`` exec inside a tool's window gives its exit code, new user / system / tool
messages are picked up from the tail of each model call's input (deduplicated by message
id; ``input_refs`` are resolved against ``message_pool``), and ``error`` events (and a
sample's ``error``) become ``error`` events: ``api_error`` when the crash is in a model
call, else the failure the message names, else ``runtime_error`` (``_signals.crash_status``).
A sample the harness stopped at a limit (a ``sample_limit`` event, or the sample's
``limit``: messages, tokens, time, cost) gets a ``timeout`` error event of its own: the
limit is no verdict on the call that reached it. ``attachment://`` and ``tc://`` references are resolved. Logs without
model events fall back to the sample's ``messages`` (tokens then estimated and flagged).
The final answer of a scored sample (assistant text with no tool call) is a
``generation``.

``.eval`` members are read one at a time (one sample in memory). Current Inspect writes
them with zstd (ZIP method 93), which :mod:`zipfile` refuses: those members are read raw
and decompressed with :mod:`zstandard`, with their size and CRC checked.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import zstandard

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._content import result_text, text_of
from efc_tui.parsers._drafts import Draft
from efc_tui.parsers._msg import Usage, chat_message
from efc_tui.parsers._signals import crash_status
from efc_tui.parsers._source import guarded, load_document, loads_repairing, stem
from efc_tui.parsers._time import parse_time
from efc_tui.parsers._values import (
    as_dict,
    as_float,
    as_int,
    as_list,
    dumps,
    id_str,
    opt_count,
    opt_str,
)
from efc_tui.parsers.base import ReadOptions, read_head
from efc_tui.parsers.held import release
from efc_tui.parsers.sniffs import inspect_log

NAME = "inspect-ai"
ZIP_ZSTD = 93
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_MAX_MEMBER = 4 * 1024**3

# ---------------------------------------------------------------------------- reading
#: Inspect's ``ToolCallError.type`` values that decide the status on their own (the rest,
#: ``unknown``, ``output_limit``, ``file_not_found``, ``is_a_directory``, ..., are failures typed
#: from their message; ``timeout`` is a timeout)
_TOOL_ERROR_STATUS = {
    "parsing": Status.STATIC_REJECT,
    "approval": Status.STATIC_REJECT,
    "permission": Status.STATIC_REJECT,
    "file_not_found": Status.RUNTIME_ERROR,
    "is_a_directory": Status.RUNTIME_ERROR,
}


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    head = read_head(path)
    if head.is_zip:
        yield from guarded("Inspect AI .eval", path, _read_eval(path))
    else:
        yield from guarded("Inspect AI", path, _read_json(path, options))


def _read_json(path: Path, options: ReadOptions) -> Iterator[Run]:
    doc, warnings = load_document(path, options)
    if not inspect_log(doc):
        raise InputError("not an Inspect AI log (no eval header object)", path)
    samples = [s for s in as_list(doc.get("samples")) if isinstance(s, dict)]
    if not samples:
        raise InputError(
            "Inspect AI log holds no samples (written with log_samples=False, or no sample finished)",
            path,
        )
    for sample in samples:
        run = _sample_run(doc, sample, path)
        run.warnings.extend(warnings)
        yield run


def _read_eval(path: Path) -> Iterator[Run]:
    try:
        zf = zipfile.ZipFile(path)
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        struct.error,
        NotImplementedError,
        RuntimeError,
        OverflowError,
    ) as exc:
        raise InputError(f"not a readable .eval (zip) file: {exc}", path) from None
    with zf:
        try:
            infos = zf.infolist()
        except (zipfile.BadZipFile, ValueError, NotImplementedError) as exc:
            raise InputError(f"not a readable .eval (zip) file: {exc}", path) from None
        by_name = {i.filename: i for i in infos}
        header: dict[str, Any] = {}
        for name in ("header.json", "_journal/start.json"):
            if name in by_name:
                header = as_dict(_member_json(zf, path, by_name[name]))
                break
        samples = [
            i for i in infos if i.filename.startswith("samples/") and i.filename.endswith(".json")
        ]
        notes: list[str] = []
        if not header and not samples:
            raise InputError(
                "not an Inspect AI .eval log (no header.json or samples/ inside the zip)", path
            )
        if not samples:
            raise InputError("Inspect AI .eval log holds no samples", path)
        for info in samples:
            notes.clear()
            sample = _member_json(zf, path, info, notes)
            if not isinstance(sample, dict):
                raise InputError(f"{info.filename} inside the .eval is not a sample object", path)
            run = _sample_run(header, sample, path)
            run.warnings.extend(f"{path}: {info.filename}: {n}" for n in notes)
            yield run


def _member_json(
    zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, notes: list[str] | None = None
) -> Any:
    data = _member_bytes(zf, path, info)
    try:
        value, repaired = loads_repairing(data)
    except Exception as exc:  # orjson.JSONDecodeError, RecursionError
        raise InputError(
            f"{info.filename} inside the .eval is not valid JSON ({exc})", path
        ) from None
    if repaired and notes is not None:
        notes.append("invalid UTF-8 or lone surrogate escapes replaced by U+FFFD")
    return value


def _member_bytes(zf: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo) -> bytes:
    release()  # the run the command is done with (parsers.held)
    if info.file_size > _MAX_MEMBER:
        raise InputError(
            f"{info.filename} inside the .eval is too large ({info.file_size} bytes)", path
        )
    if info.compress_type == ZIP_ZSTD:
        return _zstd_member(path, info)
    try:
        return zf.read(info)
    except NotImplementedError:
        raise InputError(
            f"{info.filename} inside the .eval uses ZIP compression method {info.compress_type}, "
            "which efc-tui cannot read",
            path,
        ) from None
    except (
        zipfile.BadZipFile,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
        RuntimeError,
        struct.error,
        OverflowError,
    ) as exc:
        raise InputError(f"{info.filename} inside the .eval is corrupt: {exc}", path) from None


def _zstd_member(path: Path, info: zipfile.ZipInfo) -> bytes:
    """A zstd (method 93) member: read its raw bytes after the local header, decompress,
    and check size and CRC like :mod:`zipfile` does for the methods it knows."""
    if info.flag_bits & 0x1:
        raise InputError(f"{info.filename} inside the .eval is encrypted", path)
    try:
        with path.open("rb") as f:
            f.seek(info.header_offset)
            fixed = f.read(_LOCAL_HEADER.size)
            if len(fixed) != _LOCAL_HEADER.size:
                raise InputError(f"{info.filename} inside the .eval is cut off", path)
            sig, *_rest, name_len, extra_len = _LOCAL_HEADER.unpack(fixed)
            if sig != 0x04034B50:
                raise InputError(f"{info.filename} inside the .eval has a bad local header", path)
            f.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
            raw = f.read(info.compress_size)
    except OSError as exc:
        raise InputError(f"cannot read {info.filename} inside the .eval: {exc}", path) from None
    if len(raw) != info.compress_size:
        raise InputError(f"{info.filename} inside the .eval is cut off", path)
    out = bytearray()
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw)) as reader:
            while True:
                chunk = reader.read(1 << 20)
                if not chunk:
                    break
                out += chunk
                if len(out) > info.file_size:
                    break
    except zstandard.ZstdError as exc:
        raise InputError(
            f"{info.filename} inside the .eval is corrupt (zstd: {exc})", path
        ) from None
    if len(out) != info.file_size or (zlib.crc32(out) & 0xFFFFFFFF) != info.CRC:
        raise InputError(
            f"{info.filename} inside the .eval is corrupt (size or CRC mismatch)", path
        )
    return bytes(out)


# ---------------------------------------------------------------------------- one sample


class _Refs:
    """Resolves ``attachment://<hash>`` (sample.attachments) and ``tc://<hash>`` (old
    transcript content) references inside messages and results."""

    def __init__(self, *tables: Any) -> None:
        self.table: dict[str, Any] = {}
        for t in tables:
            self.table.update(as_dict(t))

    def __call__(self, value: Any, depth: int = 0) -> Any:
        if depth > 30:
            return value
        if isinstance(value, str):
            if value.startswith(("attachment://", "tc://")):
                key = value.split("://", 1)[1]
                hit = self.table.get(key)
                return hit if isinstance(hit, str) else value
            return value
        if isinstance(value, list):
            return [self(v, depth + 1) for v in value]
        if isinstance(value, dict):
            return {k: self(v, depth + 1) for k, v in value.items()}
        return value


def score_success(value: Any) -> bool | None:
    """An Inspect score value as a success label: ``C`` / true / 1.0 -> True; ``I``,
    ``N``, ``P`` (partial), false, numbers below 1 -> False; anything else unknown."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        if value != value:  # NaN
            return None
        return value >= 1.0
    if isinstance(value, str):
        v = value.strip().upper()
        if v in ("C", "CORRECT", "TRUE", "YES", "PASS", "PASSED", "RESOLVED"):
            return True
        if v in ("I", "INCORRECT", "N", "P", "PARTIAL", "FALSE", "NO", "FAIL", "FAILED"):
            return False
        f = as_float(v)
        return None if f is None else f >= 1.0
    if isinstance(value, dict | list):
        labels = [score_success(v) for v in (value.values() if isinstance(value, dict) else value)]
        labels = [lab for lab in labels if lab is not None]
        if not labels:
            return None
        return all(labels)
    return None


def _usage(u: Any) -> Usage | None:
    """Inspect ModelUsage: ``total_tokens - output_tokens`` is every input token (Inspect's
    ``input_tokens`` excludes the cache for Anthropic but not for OpenAI)."""
    u = as_dict(u)
    if not u:
        return None
    tin = opt_count(u.get("input_tokens"))
    tout = opt_count(u.get("output_tokens"))
    total = opt_count(u.get("total_tokens"))
    if tin is None and tout is None and total is None:
        return None
    cr = opt_count(u.get("input_tokens_cache_read"))
    cw = opt_count(u.get("input_tokens_cache_write"))
    if total is not None and tout is not None and total >= tout:
        all_in: int | None = total - tout
    else:
        all_in = tin
    return Usage(
        all_in, tout, cr, cw, opt_count(u.get("reasoning_tokens")), as_float(u.get("total_cost"))
    )


def _sample_run(header: dict[str, Any], sample: dict[str, Any], path: Path) -> Run:
    ev = as_dict(header.get("eval"))
    sid = sample.get("id")
    sid_s = id_str(sid) or ("" if sid is None else dumps(sid))
    epoch = opt_count(sample.get("epoch")) or 1
    eval_run = id_str(ev.get("run_id")) or stem(path)
    config = as_dict(ev.get("config"))
    budget = {
        k: config[k]
        for k in ("message_limit", "token_limit", "time_limit", "working_limit", "epochs")
        if config.get(k) is not None
    }
    for k in ("message_limit", "token_limit", "time_limit", "working_limit"):
        if sample.get(k) is not None:
            budget[k] = sample[k]
    scores = as_dict(sample.get("scores"))
    success = None
    extra: dict[str, Any] = {}
    if scores:
        first_name = next(iter(scores))
        first = scores[first_name]
        value = first.get("value") if isinstance(first, dict) else first
        success = score_success(value)
        extra["scores"] = {
            k: (v.get("value") if isinstance(v, dict) else v) for k, v in scores.items()
        }
        extra["success_from"] = f"score {first_name!r}"
    if sample.get("error"):
        success = False if success is None else success
    for key in ("eval_id", "task_id", "created"):
        if ev.get(key) is not None:
            extra[f"eval_{key}"] = ev[key]
    if header.get("status") is not None:
        extra["eval_status"] = header.get("status")
    for key in ("uuid", "total_time", "working_time", "model_usage", "limit", "target"):
        if sample.get(key) not in (None, {}, ""):
            extra[key] = sample[key]
    run = Run(
        run_id=f"{eval_run}/{sid_s}#{epoch}",
        task_id=sid_s or None,
        task_family=opt_str(ev.get("task")),
        harness="inspect-ai",
        model=opt_str(ev.get("model")),
        budget=budget,
        success=success,
        source_format=NAME,
        source_path=str(path),
        extra=extra,
    )
    transcript = as_dict(sample.get("transcript"))
    refs = _Refs(sample.get("attachments"), transcript.get("content"))
    events = as_list(sample.get("events")) or as_list(transcript.get("events"))
    b = RunBuilder(run)
    if any(isinstance(e, dict) and e.get("event") == "model" for e in events):
        _from_events(b, events, sample, refs)
    else:
        if events or sample.get("messages"):
            run.flags.append("inspect-ai: no model events in the sample; built from its messages")
        _from_messages(b, as_list(sample.get("messages")), refs)
    limit = as_dict(sample.get("limit"))
    if limit and not any(d.extra.get("harness_stop") for d in b.drafts):
        b.error(_limit_text(limit), status=Status.TIMEOUT, extra={"harness_stop": True})
    err = sample.get("error")
    if err:
        e = as_dict(err)
        msg = opt_str(e.get("message")) or (err if isinstance(err, str) else dumps(err))
        tb = opt_str(e.get("traceback")) or ""
        b.error(
            msg + ("\n" + tb if tb else ""),
            status=crash_status(msg, tb),
            extra={"sample_error": True},
        )
    if scores:
        _final_answer_is_generation(b.drafts)
    return b.finish()


def _final_answer_is_generation(drafts: list[Draft]) -> None:
    for d in reversed(drafts):
        if d.is_call:
            return
        if d.model_call:
            d.kind = EventKind.GENERATION
            return


def _message_key(m: dict[str, Any]) -> Any:
    mid = m.get("id")
    if isinstance(mid, str):
        return mid
    return (m.get("role"), dumps(m.get("content"))[:500], m.get("tool_call_id"))


def _model_inputs_reversed(e: dict[str, Any], sample: dict[str, Any]) -> Iterator[Any]:
    """A model event's input messages, last first: its ``input``, or (current Inspect,
    which keeps each message once) its ``input_refs``, ranges into the sample's
    ``message_pool``. Read lazily from the end: a caller wants the messages after the last
    assistant one, and each event's refs span the whole conversation so far (copying the
    ranges made reading a 100k-step sample quadratic: 4 minutes instead of 16 s)."""
    inputs = as_list(e.get("input"))
    if inputs:
        yield from reversed(inputs)
        return
    pool = as_list(sample.get("message_pool"))
    for rng in reversed(as_list(e.get("input_refs"))):
        if isinstance(rng, list) and len(rng) == 2:
            start, end = opt_count(rng[0]), opt_count(rng[1])
            if start is not None and end is not None:
                # pool[start:end], backwards, without the copy
                for i in range(min(end, len(pool)) - 1, start - 1, -1):
                    yield pool[i]


def _from_events(b: RunBuilder, events: list[Any], sample: dict[str, Any], refs: _Refs) -> None:
    seen: set[Any] = set()
    last_tool: Draft | None = None
    execs: list[Any] = []

    def sandbox(e: dict[str, Any]) -> None:
        if last_tool is None or e.get("action") != "exec":
            return
        execs.append(e.get("result"))
        code = as_int(execs[0]) if len(execs) == 1 and not isinstance(execs[0], bool) else None
        last_tool.exit_code = code

    for e in events:
        if not isinstance(e, dict):
            continue
        typ = e.get("event")
        ts = parse_time(e.get("timestamp"))
        if typ == "model":
            last_tool = None
            tail: list[dict[str, Any]] = []
            for m in _model_inputs_reversed(e, sample):
                if not isinstance(m, dict) or m.get("role") == "assistant":
                    break
                tail.append(m)
            for m in reversed(tail):
                key = _message_key(m)
                if key in seen:
                    continue
                seen.add(key)
                msg = chat_message(refs(m))
                if msg is not None:
                    b.feed(msg, t_start=ts)
            out = as_dict(e.get("output"))
            t_end = parse_time(e.get("completed"))
            if t_end is None and ts is not None:
                dur = as_float(out.get("time"))
                t_end = ts + dur if dur is not None else None
            choices = as_list(out.get("choices"))
            message = as_dict(as_dict(choices[0]).get("message")) if choices else {}
            if message:
                seen.add(_message_key(message))
                msg = chat_message(refs(message))
                if msg is not None:
                    b.assistant(
                        msg.text,
                        msg.calls,
                        usage=_usage(out.get("usage")),
                        reasoning=msg.reasoning,
                        t_start=ts,
                        t_end=t_end,
                        model=opt_str(out.get("model")),
                    )
            elif _usage(out.get("usage")) is not None:
                b.assistant(
                    "", (), usage=_usage(out.get("usage")), t_start=ts, t_end=t_end, always=True
                )
            err = e.get("error")
            if err:
                b.error(
                    text_of(err) if not isinstance(err, str) else err,
                    ts=t_end or ts,
                    extra={"model_error": True},
                )
        elif typ == "tool":
            cid = id_str(e.get("id"))
            name = opt_str(e.get("function"))
            if cid is None or not b.has_call(cid):
                b.call(name, e.get("arguments"), call_id=cid, ts=ts)
            err = as_dict(e.get("error"))
            etype = opt_str(err.get("type"))
            text = result_text(refs(e.get("result")))
            if err:
                emsg = opt_str(refs(err.get("message"))) or ""
                text = (text + "\n" + emsg).strip() if emsg and emsg not in text else text
            status = _TOOL_ERROR_STATUS.get(etype or "")
            d = b.result(
                cid,
                text,
                name=name,
                is_error=True if err else None,
                timed_out=True if etype == "timeout" else None,
                ts=parse_time(e.get("completed")) or ts,
                status=status,
                truncated=bool(e.get("truncated")),
                extra={"tool_error": etype} if etype else None,
            )
            mid = e.get("message_id")
            if isinstance(mid, str):
                seen.add(mid)
            last_tool = d
            execs = []
            for sub in as_list(e.get("events")):
                if isinstance(sub, dict) and sub.get("event") == "sandbox":
                    sandbox(sub)
        elif typ == "sandbox":
            sandbox(e)
        elif typ == "sample_limit":
            b.error(_limit_text(e), ts=ts, status=Status.TIMEOUT, extra={"harness_stop": True})
        elif typ == "error":
            err = as_dict(e.get("error"))
            emsg = opt_str(err.get("message")) or dumps(e.get("error"))
            tb = opt_str(err.get("traceback")) or ""
            b.error(
                emsg + ("\n" + tb if tb else ""),
                ts=ts,
                status=crash_status(emsg, tb),
            )
        elif typ in ("compaction", "context_compaction"):
            text = opt_str(e.get("summary")) or opt_str(e.get("message")) or "context compacted"
            b.message(text, role="system", ts=ts, compaction=True)


def _limit_text(e: dict[str, Any]) -> str:
    """What a ``sample_limit`` event (or the sample's ``limit``) says: which limit stopped it."""
    kind = opt_str(e.get("type")) or "limit"
    return opt_str(e.get("message")) or f"{kind} limit reached ({dumps(e.get('limit'))})"


def _from_messages(b: RunBuilder, messages: list[Any], refs: _Refs) -> None:
    for m in messages:
        if not isinstance(m, dict):
            continue
        msg = chat_message(refs(m))
        if msg is None:
            continue
        for d in b.feed(msg):
            err = m.get("error")
            if d.is_call and err:
                etype = opt_str(as_dict(err).get("type"))
                if etype == "timeout":
                    d.timed_out = True
                elif etype in _TOOL_ERROR_STATUS:
                    d.status = _TOOL_ERROR_STATUS[etype]
                emsg = opt_str(as_dict(err).get("message"))
                if emsg and emsg not in d.observation:
                    d.observation = (d.observation + "\n" + emsg).strip()
