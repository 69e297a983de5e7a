"""Terminal-Bench 1 (``tb run``) trial recordings: ``sessions/agent.cast``.

``tb run`` writes ``runs/<run-id>/<task-id>/<trial-name>/`` with ``sessions/`` (the tmux
session the agent typed into, recorded by asciinema), ``panes/``, ``commands.txt``,
``agent-logs/`` and the trial's ``results.json`` (laude-institute/terminal-bench,
``TrialPaths``). The recording is the trial's log for every agent: asciinema v2, one JSON
header line (``version: 2``, ``timestamp``: unix start) and then one ``[seconds, code,
data]`` array per line: ``"o"`` terminal output, ``"i"`` keyboard input, ``"m"`` a marker.
After the agent finishes the harness merges the agent's markers into it
(``AsciinemaHandler``): Terminus writes one per episode, the JSON of its parsed response
(``state_analysis``, ``explanation``, ``commands`` of ``{keystrokes, is_blocking,
timeout_sec}``, ``is_task_complete``).

- **Markers** are model calls: each command of a Terminus response is one tool call
  (``terminal``, the keystrokes), its analysis and explanation the first call's thought;
  any other marker text is one call whose action is that text. The terminal output until
  the next marker is the result of the episode's last command (Terminus reads the screen
  once per episode).
- **Without markers**, typed input (``"i"``) ending in Enter is one command each, its
  output until the next command its result; a recording with neither (an installed
  agent's terminal) is one ``message`` event of the whole output, flagged.
- Output before the first action (the prompt the shell printed) is an ``environment``
  message. Terminal output is kept whole, escape sequences included (displays sanitize it).
- **Time:** the header's ``timestamp`` plus each event's offset.
- **Tokens:** the trial's ``results.json`` ``total_input_tokens`` /
  ``total_output_tokens`` (Terminus' totals; installed agents write 0, i.e. unknown) are
  shared out over the model calls (flagged) and kept as source totals; otherwise tokens
  are estimated from text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from efc_tui.errors import InputError
from efc_tui.model import Run
from efc_tui.parsers._builder import RunBuilder
from efc_tui.parsers._drafts import Draft, share_totals
from efc_tui.parsers._msg import ToolCall
from efc_tui.parsers._source import JsonlSource, stem
from efc_tui.parsers._totals import set_source_totals, totals_from_counts
from efc_tui.parsers._values import as_dict, as_float, as_list, as_str, opt_count, opt_str
from efc_tui.parsers.base import ReadOptions
from efc_tui.parsers.sidecars import load_json
from efc_tui.parsers.sniffs import cast_header

NAME = "terminal-bench"


def read(path: Path, options: ReadOptions) -> Iterator[Run]:
    source = JsonlSource(path, options)
    rec = _Recording(path)
    for lineno, value in source.values():
        if rec.header is None:
            if not cast_header(value):
                raise InputError("not an asciinema v2 recording (no header line)", path, lineno)
            rec.header = as_dict(value)
            continue
        if (
            not isinstance(value, list)
            or len(value) != 3
            or not isinstance(value[1], str)
            or as_float(value[0]) is None
        ):
            source.bad("expected an asciinema event [seconds, code, data]", lineno)
            continue
        rec.event(as_float(value[0]) or 0.0, value[1], value[2])
    source.require(1 if rec.header is not None else 0, "recording", "not an asciinema v2 recording")
    yield source.settle(rec.finish())


def _terminus(marker: str) -> dict[str, Any] | None:
    """A Terminus episode marker: the JSON of its parsed response, when it is one."""
    if not marker.lstrip().startswith("{"):
        return None
    try:
        doc = orjson.loads(marker)
    except orjson.JSONDecodeError:
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("commands"), list) else None


class _Recording:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        # the agent's name is in the run's run_metadata.json (the sidecars read it); Terminus
        # markers name it here
        self.run = Run(run_id=stem(path), source_format=NAME, source_path=str(path))
        self.b = RunBuilder(self.run)
        self.output: list[str] = []
        self.typed: list[str] = []
        self.target: Draft | None = None  # the call the current output answers
        self.markers = self.commands = 0
        self.last_ts: float | None = None

    def t(self, offset: float) -> float | None:
        start = as_float(as_dict(self.header).get("timestamp"))
        return start + offset if start is not None else None

    def event(self, offset: float, code: str, data: Any) -> None:
        text = data if isinstance(data, str) else ""
        ts = self.t(offset)
        self.last_ts = ts
        if code == "o":
            self.output.append(text)
        elif code == "m":
            self.close(ts)
            self.markers += 1
            self.marker(text, ts)
        elif code == "i" and not self.markers:
            self.typed.append(text)
            line = "".join(self.typed)
            if "\r" in line or "\n" in line:
                self.close(ts)
                self.typed = []
                command = line.replace("\r", "\n").strip("\n")
                self.commands += 1
                [d] = self.b.assistant("", [ToolCall(None, "terminal", command)], t_end=ts)
                d.model_call = False  # typed by someone or something we cannot see: no model call
                self.target = d

    def close(self, ts: float | None) -> None:
        """The output so far answers the current call (or is the terminal's first screen)."""
        text = "".join(self.output)
        self.output = []
        if self.target is not None:
            self.b.fill(self.target, text, ts=ts)
            self.target = None
        elif text.strip():
            self.b.message(text, role="environment", ts=ts)

    def marker(self, text: str, ts: float | None) -> None:
        batch = _terminus(text)
        if batch is None:
            [d] = self.b.assistant("", [ToolCall(None, "terminal", text)], t_end=ts)
            self.target = d
            return
        self.run.harness = self.run.harness or "terminus"
        thought = "\n".join(
            x for x in (as_str(batch.get("state_analysis")), as_str(batch.get("explanation"))) if x
        )
        calls = [
            ToolCall(None, "terminal", as_str(as_dict(c).get("keystrokes")) or "")
            for c in as_list(batch.get("commands"))
        ]
        if not calls:  # nothing typed this episode: the model's words only
            self.b.assistant(thought, (), t_start=ts, t_end=ts, always=True)
            return
        drafts = self.b.assistant(thought, calls, t_end=ts)
        for d, c in zip(drafts, as_list(batch.get("commands")), strict=False):
            c = as_dict(c)
            if c.get("timeout_sec") is not None:
                d.extra["timeout_sec"] = c["timeout_sec"]
            if c.get("is_blocking") is not None:
                d.extra["is_blocking"] = c["is_blocking"]
        for d in drafts[:-1]:
            self.b.fill(d, "", ts=ts)  # the screen is read once, after the episode's last command
            d.extra["output_with_last_command"] = True
        if batch.get("is_task_complete") is True:
            drafts[-1].extra["task_complete"] = True
        self.target = drafts[-1]

    def finish(self) -> Run:
        self.close(self.last_ts)
        if self.typed and self.markers == 0:
            self.run.flags.append("typed input without a final Enter is not an action")
        run = self.run
        header = as_dict(self.header)
        run.extra["terminal"] = {k: header[k] for k in ("width", "height") if k in header}
        if not self.markers and not self.commands:
            run.flags.append(
                "no markers or typed commands in the recording (an installed agent's terminal): "
                "its output is one event"
            )
        trial = self.path.parent.parent if self.path.parent.name == "sessions" else None
        totals = self.trial_tokens(trial) if trial is not None else None
        if totals is not None:
            n = share_totals(self.b.drafts, totals[0], totals[1])
            if n:
                run.flags.append(
                    f"tokens: the trial keeps only its totals (results.json: {totals[0]} in, "
                    f"{totals[1]} out); shared over the {n} model calls by context and output"
                )
        run = self.b.finish()
        if totals is not None:
            set_source_totals(
                run,
                totals_from_counts(
                    input_tokens=totals[0],
                    output_tokens=totals[1],
                    source="results.json total tokens",
                    cache_separate=False,
                ),
            )
        return run

    def trial_tokens(self, trial: Path) -> tuple[int, int] | None:
        doc, _ = load_json(trial / "results.json")
        res = as_dict(doc)
        tin, tout = (
            opt_count(res.get("total_input_tokens")),
            opt_count(res.get("total_output_tokens")),
        )
        if not tin and not tout:
            return None  # installed agents report 0: unknown, not zero
        if opt_str(res.get("trial_name")):
            self.run.extra.setdefault("trial_name", res["trial_name"])
        return tin or 0, tout or 0
