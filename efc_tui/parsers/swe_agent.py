"""SWE-agent trajectories (``*.traj``), the 0.x and 1.x layouts.

One file is one run. Each entry of ``trajectory[]`` is one agent step: one model call that
chose ``action`` (a command such as ``open "file"``, ``edit 3:5 ...``, ``python x.py`` or
``submit``) and the ``observation`` it got back. It becomes one event: the tool is the
function name of the matching ``history`` tool call (1.x function calling) or, failing
that, the command's first word when it is a SWE-agent command (``open``, ``edit``,
``find_file``, ``submit``, ...), else ``bash``. The kind is inferred from tool and command
(edits are ``generation`` / ``repair``, tests ``check``, ``submit`` a ``generation``); the
status is read from the observation text (SWE-agent records no exit codes; a rejected
edit, "Your proposed edit has introduced new syntax error(s)", is ``static_reject``). SWE-agent's
own commands answer a bad call in a fixed form: a usage line alone, or an argument named in
angle brackets (``Error: <line> must be ...``), is ``static_reject``; an ``Error: ...`` line
or ``File X not found`` / ``Directory X not found`` after a well-formed call is a failure
typed from the text. The
harness's own answers in place of an output: "The command '...' was cancelled because it
took more than N seconds" (0.x "EXECUTION TIMED OUT") is a timeout; "Your bash command
contained syntax errors and was NOT executed" is ``static_reject``.
``thought`` is kept in the event's ``extra``. ``exit_cost`` / ``exit_context`` / ... steps
(the harness stopping the agent) are ``error`` events of their own, so the limit is no
verdict on the step that reached it: ``exit_cost`` is ``timeout`` (a budget limit),
``exit_context`` and ``exit_api`` ``api_error``, ``exit_format`` ``static_reject``,
``exit_error`` ``runtime_error``, ``exit_forfeit`` none.

The task is the first non-demonstration user message of ``history`` (a ``message``
event); demonstrations (``is_demo``) and the system prompt are not events. The huge
per-step ``query`` field (1.x: the whole prompt again) is never read, nor decoded: nor are
the texts of ``history`` the reader does not take, nor a step's ``messages`` (``_swe_lean``).

Tokens: SWE-agent keeps only run totals (``info.model_stats.tokens_sent`` /
``tokens_received``). They are distributed over the steps, input in proportion to the
context each call saw (system prompt, task and all earlier steps) and output in proportion
to the step's response, with the totals preserved exactly; every step is flagged
``tokens``. Cost: ``model_stats.instance_cost`` (run ``extra``). Wall time: 1.x
``execution_time`` (tool execution only; model latency is not recorded); 0.x has none
(flagged). Model: ``replay_config.agent.model.name`` (1.x; ``replay_config`` may be a JSON
string), else ``model_name`` in an ``args.yaml`` beside the file, else the first part of a
``<model>__<dataset>__<config>__t-...`` folder name (flagged). Task id:
``replay_config.problem_statement.id`` or the file name. Success: ``resolved`` from a
SWE-bench report beside the file; ``info.exit_status`` is kept in ``extra``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from efc_tui.errors import InputError
from efc_tui.model import EventKind, Run, Status
from efc_tui.parsers._content import content_text
from efc_tui.parsers._drafts import Draft, finalize, share_totals
from efc_tui.parsers._patterns import _Guarded
from efc_tui.parsers._source import load_document, loads_repairing
from efc_tui.parsers._swe_lean import lean_document
from efc_tui.parsers._swebench import swebench_family
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import as_count, as_dict, as_float, as_int, as_list, as_str, opt_str
from efc_tui.parsers.base import ReadOptions, read_all

NAME = "swe-agent"
#: SWE-agent's own commands (0.x and 1.x tool bundles); anything else runs in bash
_COMMANDS = {
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "insert",
    "search_dir",
    "search_file",
    "find_file",
    "submit",
    "str_replace_editor",
    "filemap",
    "exit_forfeit",
    "skip",
    "append",
    "view",
    "str_replace",
    "undo_edit",
    "windowed_edit_linting",
    "edit_linting",
}
#: the harness's exit steps: a limit reached (cost) is a timeout-like stop, the context
#: window exceeded a failed model call (GUIDE.md: api_error), a format the harness could not
#: parse a rejection; the agent forfeiting carries no verdict
_EXIT_STATUS = {
    "exit_cost": Status.TIMEOUT,
    "exit_context": Status.API_ERROR,
    "exit_format": Status.STATIC_REJECT,
    "exit_api": Status.API_ERROR,
    "exit_error": Status.RUNTIME_ERROR,
    "exit_forfeit": Status.NONE,
}
_DIR_MODEL_RE = re.compile(r"^(?P<model>[^_][^/]*?)__[^/]+__[^/]+__t-[\d.]+__p-[\d.]+__c-[\d.]+")
_ARGS_MODEL_RE = re.compile(r"^\s*model_name:\s*['\"]?(?P<model>[^'\"\s#]+)", re.MULTILINE)


# The structural characters that matter for finding where a JSON value ends.
_STRUCT = re.compile(rb'[\[\]{}"]')
_AFTER_KEY = re.compile(rb"\s*:\s*\[")
_WS = b" \t\r\n"


def _value_end(data: bytes, pos: int) -> int | None:
    """Where the JSON array or object starting at ``pos`` ends (None: it does not). String
    bodies are skipped with ``bytes.find`` (memchr speed), so prompts cost little."""
    find = data.find
    depth = 0
    while True:
        t = _STRUCT.search(data, pos)
        if t is None:
            return None
        k = t.start()
        c = data[k]
        if c == 0x22:  # a string: find its closing quote (one not escaped)
            q = k + 1
            while True:
                q = find(b'"', q)
                if q < 0:
                    return None
                b = q - 1
                while data[b] == 0x5C:
                    b -= 1
                q += 1
                if (q - 2 - b) % 2 == 0:
                    break
            pos = q
            continue
        depth += 1 if c in b"[{" else -1
        pos = k + 1
        if depth == 0:
            return pos


def strip_queries(data: bytes) -> bytes | None:
    """The document with every ``"query": [...]`` value replaced by ``null``: SWE-agent 1.x
    repeats the whole prompt in every step under that key, and this way those copies are
    scanned as bytes instead of being built as Python objects. A match counts only as a key
    (after ``{`` or ``,``; inside a JSON string a quote would be escaped). None when there
    is nothing to strip or the scan does not balance (the caller then parses it all)."""
    view = memoryview(data)
    parts: list[memoryview | bytes] = []
    pos = 0
    find = data.find
    i = find(b'"query"', pos)
    while i >= 0:
        j = i - 1
        while j >= 0 and data[j] in _WS:
            j -= 1
        m = _AFTER_KEY.match(data, i + 7) if j >= 0 and data[j] in b"{," else None
        if m is None:
            i = find(b'"query"', i + 7)
            continue
        end = _value_end(data, m.end() - 1)
        if end is None:
            return None
        parts.append(view[pos : m.end() - 1])
        parts.append(b"null")
        pos = end
        i = find(b'"query"', pos)
    if not parts:
        return None
    parts.append(view[pos:])
    return b"".join(parts)


def _load(path: Path, options: ReadOptions) -> tuple[Any, list[str]]:
    """The trajectory document, read without what the reader never reads (``_swe_lean``),
    else without its ``query`` fields when it has them, else whole."""
    data = read_all(path, options)
    fields = lean_document(data)
    if fields is not None:
        return fields, []
    lean = strip_queries(data) if b'"query"' in data else None
    if lean is not None:
        try:
            doc, repaired = loads_repairing(lean)
        except orjson.JSONDecodeError:
            pass  # fall back to the whole document, for its error message
        else:
            return doc, ([f"{path}: invalid UTF-8 bytes replaced by U+FFFD"] if repaired else [])
    return load_document(path, data=data)


def _json_field(value: Any) -> dict[str, Any]:
    """A dict field that 0.x (and some 1.x) versions write as a JSON string."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {}
    return as_dict(value)


def _model_from_files(path: Path) -> tuple[str | None, str | None]:
    """(model, where) from an args.yaml beside the trajectory or its folder's name (0.x)."""
    folder = path.parent
    args = folder / "args.yaml"
    try:
        if args.is_file() and args.stat().st_size < 1_000_000:
            m = _ARGS_MODEL_RE.search(args.read_text(encoding="utf-8", errors="replace"))
            if m:
                return m.group("model"), "args.yaml"
    except OSError:
        pass
    m = _DIR_MODEL_RE.match(folder.name)
    if m:
        return m.group("model"), "the folder name"
    return None, None


#: a SWE-agent command's answer that shows its arguments were wrong: its usage line, or an
#: argument named in angle brackets ("Error: <line> must be less than or equal to 1048")
_USAGE = re.compile(r"^Usage: \S+")
_BAD_ARG = _Guarded(r"^Error: <\w+> ", re.MULTILINE, ("Error: <",))
#: ... or that it ran and could not do it ("Error: File name X not found", "File X not found",
#: "Directory X not found",
#: "Error: File 'X' already exists."; 1.x's str_replace_editor: "No replacement was performed",
#: "Invalid `view_range` parameter", "The path X does not exist", ...)
_COMMAND_ERROR = _Guarded(
    r"^(?:Error: |(?:File|Directory) \S.* not found\s*$|No replacement was performed"
    r"|Invalid `\w+` parameter"
    r"|Parameter `\w+` is required|The path \S+ does not exist|File already exists at: )",
    re.MULTILINE,
    (
        "Error: ",
        " not found",
        "No replacement was performed",
        "Invalid `",
        "Parameter `",
        " does not exist",
        "File already exists at: ",
    ),
)


#: SWE-agent's own messages in place of a command's output (its ``templates`` config): the
#: command hung (``command_cancelled_timeout_template``; 0.x "EXECUTION TIMED OUT"), or was
#: not run at all (``shell_check_error_template``: ``bash -n`` refused its syntax)
_CANCELLED = _Guarded(
    r"was cancelled because it took more than \d+ seconds|^EXECUTION TIMED OUT",
    re.MULTILINE,
    ("was cancelled because", "EXECUTION TIMED OUT"),
)
_NOT_EXECUTED = "Your bash command contained syntax errors and was NOT executed"


def _harness_outcome(d: Draft, obs: str) -> None:
    """The harness's answer instead of a command's output (``_CANCELLED``, ``_NOT_EXECUTED``)."""
    head = obs.lstrip()[:400]
    if head.startswith(_NOT_EXECUTED):
        d.status = Status.STATIC_REJECT
    elif _CANCELLED.search(head):
        d.timed_out = True


def _command_outcome(d: Draft, obs: str) -> None:
    """The outcome of one of SWE-agent's own commands (``open``, ``goto``, ``edit``,
    ``search_file``, ``create``, ...), which answer a bad call with their usage line and an
    ``Error: ...`` line: arguments it refused are ``static_reject``; a well-formed call it
    could not carry out is a failure typed by the text classifier."""
    head = obs.lstrip()[:600]
    failed = _COMMAND_ERROR.search(head)
    if _BAD_ARG.search(head) or (_USAGE.match(head) and not failed):
        d.status = Status.STATIC_REJECT
    elif failed:
        d.is_error = True


def _tool_name(action: str) -> str:
    word = action.strip().split(None, 1)[0] if action.strip() else ""
    return word if word in _COMMANDS else "bash"


def convert(doc: dict[str, Any], path: Path) -> Run:
    info = as_dict(doc.get("info"))
    stats = as_dict(info.get("model_stats"))
    replay = _json_field(doc.get("replay_config"))
    history = as_list(doc.get("history"))
    trajectory = as_list(doc.get("trajectory"))
    stem = path.name.removesuffix(".gz").removesuffix(".traj")
    task_id = opt_str(as_dict(replay.get("problem_statement")).get("id")) or stem
    flags: list[str] = []

    model = opt_str(as_dict(as_dict(replay.get("agent")).get("model")).get("name"))
    if model is None:
        model, where = _model_from_files(path)
        if model is not None:
            flags.append(f"model: read from {where} (0.x trajectories do not record it)")

    # history: the task message, the size of the fixed prompt (system + demonstrations),
    # and the tool names of 1.x function calls
    system_chars = 0
    task: Draft | None = None
    tool_names: list[str] = []
    for raw in history:
        h = as_dict(raw)
        if h.get("is_demo") or h.get("message_type") == "demonstration":
            system_chars += len(content_text(h.get("content"))[0])  # in every prompt
            continue
        role = h.get("role")
        if role == "system":
            system_chars += len(content_text(h.get("content"))[0])
        elif role == "user" and task is None:
            text, images = content_text(h.get("content"))
            task = Draft(observation=text, images=images, extra={"role": "user"})
        elif role == "assistant":
            calls = as_list(h.get("tool_calls"))
            if calls:
                fn = as_dict(as_dict(calls[0]).get("function"))
                tool_names.append(as_str(fn.get("name")) or "bash")
    use_names = len(tool_names) == len(trajectory)

    drafts: list[Draft] = [task] if task is not None else []
    steps: list[Draft] = []
    for i, raw in enumerate(trajectory):
        st = as_dict(raw)
        action = as_str(st.get("action")).strip()
        obs = as_str(st.get("observation"))
        response = as_str(st.get("response"))
        thought = as_str(st.get("thought"))
        d = Draft(
            action=action,
            observation=obs,
            step=i + 1,
            model_call=True,
            gen_text=response or f"{thought}\n{action}",
        )
        d.wall_s = as_float(st.get("execution_time"))
        if thought:
            d.extra["thought"] = thought
        first = action.split(None, 1)[0] if action else ""
        if first in _EXIT_STATUS:  # the harness (or the agent, forfeiting) ended the run
            d.kind, d.status, d.tool = EventKind.ERROR, _EXIT_STATUS[first], None
        else:
            d.tool = tool_names[i] if use_names else _tool_name(action)
            d.is_call = True
            d.has_result = True
            _harness_outcome(d, obs)
            if first in _COMMANDS and d.status is None:
                _command_outcome(d, obs)
        state = _json_field(st.get("state"))
        if state:
            d.extra["state"] = state
        steps.append(d)
    drafts.extend(steps)

    sent = as_count(stats.get("tokens_sent"))
    received = as_count(stats.get("tokens_received"))
    api_calls = as_int(stats.get("api_calls"))
    if steps and (sent or received):
        # SWE-agent keeps only run totals: share them out over the model calls.
        share_totals(drafts, sent, received, base_chars=system_chars)
        over = f" over {api_calls} API calls" if api_calls is not None else ""
        flags.append(
            f"tokens: SWE-agent keeps only run totals (info.model_stats: {sent} sent, {received} "
            f"received{over}); distributed over the {len(steps)} steps by context and response length"
        )
        if api_calls is not None and api_calls != len(steps):
            flags.append(
                f"{api_calls} API calls for {len(steps)} steps: retries or requeries are folded in"
            )

    fin = finalize(drafts)
    run = Run(
        run_id=stem,
        events=fin.events,
        task_id=task_id,
        task_family=swebench_family(task_id),
        harness=NAME,
        model=model,
        source_format=NAME,
        source_path=str(path),
        flags=flags + fin.flags,
    )
    if any(d.wall_s is not None for d in steps):
        run.flags.append(
            "wall time: tool execution time only (execution_time); model latency is not recorded"
        )
    if info.get("exit_status") is not None:
        run.extra["exit_status"] = info["exit_status"]
    if isinstance(info.get("submission"), str):
        run.extra["submission_chars"] = len(info["submission"])
    cost = as_float(stats.get("instance_cost"))
    if cost is not None:
        run.cost_usd = cost
    if sent or received or cost is not None:
        set_source_totals(
            run,
            totals_from_counts(
                input_tokens=sent if sent else None,
                output_tokens=received if received else None,
                cost_usd=cost,
                source=f"{path.name} info.model_stats",
                cache_separate=False,
            ),
        )
    if api_calls is not None:
        run.extra["api_calls"] = api_calls
    run.extra["usage"] = {"tokens_in": fin.tokens_in, "tokens_out": fin.tokens_out}
    if isinstance(doc.get("environment"), str):
        run.extra["environment"] = doc["environment"]
    return run


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    doc, warnings = _load(path, options)
    if not isinstance(doc, dict) or not isinstance(doc.get("trajectory"), list):
        raise InputError("not a SWE-agent trajectory (no top-level 'trajectory' list)", path)
    run = convert(doc, path)
    run.warnings.extend(warnings)
    yield run
