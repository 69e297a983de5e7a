"""Run discovery: command-line paths to the log files to read, one per real run.

A benchmark's output folder mixes agent logs with the files that describe them. Walking it
file by file would read one Harbor trial as several runs (its ATIF ``trajectory.json``, the
agent's own ``claude-code.txt`` stream and its ``sessions/*.jsonl`` are the same run) and
report ``result.json``, ``config.json`` or ``reward.txt`` as unreadable logs. ``discover``
walks folders (sorted, hidden entries skipped) and returns:

- **sources**: the files to read. Outside trials, every file with a log ending
  (``TRACE_SUFFIXES``) that is not a known sidecar. In a **trial folder** (Harbor /
  Terminal-Bench 2: ``agent/`` beside a trial ``result.json`` or ``config.json``;
  Terminal-Bench 1: ``results.json`` beside ``sessions/``), exactly one log: the first
  that a reader recognizes in this preference order (``TRIAL_LOG_ORDER``):

  1. ``agent/trajectory.json``: Harbor's ATIF conversion, one schema for every agent;
  2. ``agent/*trajectory*.json``: an agent's own structured trajectory (mini-swe-agent,
     Gemini CLI, ...);
  3. ``*sessions/**/*.jsonl``: the agent's session log (Claude Code, Codex rollouts), the
     main session before subagent files (``agent-*.jsonl``), larger before smaller;
  4. ``agent/*.txt``: the agent's captured stdout (``claude -p`` stream-json
     ``claude-code.txt``, ``codex.txt``, ``openclaw-output.txt``);
  5. any other file under ``agent/``, ``agent-logs/`` or ``sessions/``, then the rest.

  The trial's other logs are kept in ``alternatives`` (not read), and a trial none of whose
  logs a reader recognizes is in ``unreadable_trials``.
- **sidecars**: files consumed as outcome / metadata sources, never read as logs
  (``results.json``, ``result.json``, ``config.json``, ``metadata.json|yaml``, ``reward.txt``,
  ``ctrf.json``, ``*report*.json``, ``all_preds.jsonl``, ``preds.json``, patches, anything
  under ``verifier/`` or ``logs/run_evaluation/``).

A path named on the command line is always a source. Nothing is read here except the
first 64 KB of a trial's candidate logs (to detect their format) and trial markers.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from msgspec import Struct, field

from efc_tui._lazy_re import LazyPattern
from efc_tui.errors import InputError
from efc_tui.parsers.base import read_head

if TYPE_CHECKING:
    from efc_tui.parsers.sidecars import Trial

#: file endings a folder walk picks up (content still decides the format)
TRACE_SUFFIXES = (
    ".jsonl",
    ".jsonl.gz",
    ".json",
    ".json.gz",
    ".traj",
    ".eval",
    ".ndjson",
    ".txt",
    ".cast",
)
_SKIP_NAMES = {"FORMATS.md", "SOURCES.md"}

#: names of sidecar files (lower case): read for outcomes and metadata, never as logs
SIDECAR_NAMES = frozenset(
    {
        "result.json",
        "results.json",
        "config.json",
        "metadata.json",
        "meta.json",
        "run_metadata.json",
        "reward.txt",
        "reward.json",
        "ctrf.json",
        "all_preds.jsonl",
        "preds.json",
        "preds.jsonl",
        "predictions.json",
        "predictions.jsonl",
        "report.json",
        "results_summary.json",
        "trial.log",
        "job.log",
        "exception.txt",
        "test-stdout.txt",
        "test-stderr.txt",
        "commands.txt",
        "post-test.txt",
        "pre-agent.txt",
        "post-agent.txt",
        "manifest.json",
        "args.yaml",
        "metadata.yaml",
        "config.yaml",
        "run_instance.log",
        "test_output.txt",
        "patch.diff",
        "eval.sh",
        "return-code.txt",
        "command.txt",
    }
)
#: files under these folders are sidecars (verifier output, SWE-bench evaluation logs)
SIDECAR_DIRS = frozenset({"verifier", "run_evaluation", "patches", "eval_outputs"})
_SIDECAR_SUFFIXES = (".patch", ".diff", ".pred")
_PREDS = frozenset({"preds.json", "all_preds.jsonl", "predictions.jsonl", "preds.jsonl"})

#: how many candidate logs of one trial are sniffed before giving up
_MAX_TRIAL_CANDIDATES = 64
#: how many files of one trial folder are looked at
_MAX_TRIAL_FILES = 20_000

TRIAL_LOG_ORDER = (
    "agent/trajectory.json",
    "agent/*trajectory*.json",
    "*sessions/**/*.jsonl (main session first, then larger)",
    "agent/*.txt",
    "agent/**, agent-logs/**, sessions/**",
    "anything else in the trial",
)


def is_trace_name(name: str) -> bool:
    """A file name a folder walk reads (content still decides the format)."""
    return (
        name not in _SKIP_NAMES
        and name.lower().endswith(TRACE_SUFFIXES)
        and not name.startswith(".")
    )


def is_sidecar(path: PurePath) -> bool:
    """A known sidecar file, by its name or the folder it is in."""
    name = path.name.lower()
    if name in SIDECAR_NAMES or name.endswith(_SIDECAR_SUFFIXES):
        return True
    if name.endswith(".json") and "report" in name and not name.endswith(".traj.json"):
        return True
    return any(part.lower() in SIDECAR_DIRS for part in path.parent.parts[-3:])


class Discovery(Struct):
    """What a set of command-line paths holds (see the module docstring)."""

    sources: list[Path] = field(default_factory=list)
    #: sources named on the command line (an unreadable one is an error, not a warning)
    named: set[Path] = field(default_factory=set)
    sidecars: list[Path] = field(default_factory=list)
    trials: int = 0
    #: chosen log of a trial -> the trial's other logs, not read
    alternatives: dict[Path, list[Path]] = field(default_factory=dict)
    #: trial folder -> its candidate logs, none of which a reader recognizes
    unreadable_trials: dict[Path, list[Path]] = field(default_factory=dict)
    _seen: set[Path] = field(default_factory=set)

    def _add(self, p: Path) -> None:
        if p not in self._seen:
            self._seen.add(p)
            self.sources.append(p)


def _rank(rel: PurePath, size: int) -> tuple[int, int, str]:
    parts = [x.lower() for x in rel.parts]
    name = parts[-1]
    dirs = parts[:-1]
    session_dir = any(d == "sessions" or d.endswith("-sessions") for d in dirs)
    if dirs == ["agent"] and name == "trajectory.json":
        r = 0
    elif dirs == ["agent"] and name.endswith(".json") and "trajectory" in name:
        r = 1
    elif session_dir and name.endswith((".jsonl", ".jsonl.gz")) and not name.startswith("agent-"):
        r = 2
    elif dirs == ["agent"] and name.endswith(".txt"):
        r = 3
    elif dirs[:1] in (["agent"], ["agent-logs"], ["sessions"]):
        r = 4
    else:
        r = 5
    return (r, -size, str(rel))


def _trial_files(folder: Path) -> Iterable[Path]:
    n = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            if f.startswith("."):
                continue
            n += 1
            if n > _MAX_TRIAL_FILES:
                return
            yield Path(root) / f


def _detectable(path: Path) -> bool:
    from efc_tui.errors import EfcError
    from efc_tui.parsers import detect_format  # here: parsers/__init__ imports this module

    try:
        detect_format(path, read_head(path))
    except EfcError:
        return False
    return True


def _take_trial(trial: Trial, found: Discovery) -> None:
    found.trials += 1
    candidates: list[tuple[tuple[int, int, str], Path]] = []
    for p in _trial_files(trial.folder):
        rel = p.relative_to(trial.folder)
        if is_sidecar(rel) or rel.parts[0].lower() == "verifier":
            found.sidecars.append(p)
            continue
        if not is_trace_name(p.name):
            continue
        try:
            size = p.stat().st_size
        except OSError:
            continue
        if size == 0:
            continue
        candidates.append((_rank(rel, size), p))
    candidates.sort(key=lambda c: c[0])
    logs = [p for _, p in candidates]
    for p in logs[:_MAX_TRIAL_CANDIDATES]:
        if _detectable(p):
            found._add(p)
            others = [q for q in logs if q != p]
            if others:
                found.alternatives[p] = others
            return
    found.unreadable_trials[trial.folder] = logs


def _walk(root: Path, found: Discovery) -> None:
    # imported here: a file named on the command line needs none of the trial machinery
    from efc_tui.parsers.sidecars import find_trial, preds_model, trial_folder

    inside = find_trial(root / "_")  # pointed at a trial's agent/ or sessions/ folder
    if inside is not None:
        _take_trial(inside, found)
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(folder)
        trial = trial_folder(here)
        if trial is not None:
            dirs[:] = []
            _take_trial(trial, found)
            continue
        # a SWE-bench harness summary is named after the predictions' model: <model>.<run>.json
        model = preds_model(here) if any(f in _PREDS for f in files) else None
        summary = model.replace("/", "__") + "." if model else None
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = here / name
            if is_sidecar(path.relative_to(root)) or (
                summary is not None and name.startswith(summary) and name.endswith(".json")
            ):
                found.sidecars.append(path)
            elif is_trace_name(name):
                found._add(path)


def discover(args: Iterable[str | Path]) -> Discovery:
    """Files, folders (walked recursively, sorted) and globs to the logs to read, one per
    trial. Raises InputError for a path that does not exist or a glob matching nothing."""
    found = Discovery()
    for arg in args:
        s = str(arg)
        p = Path(s)
        if p.is_dir():
            _walk(p, found)
        elif p.exists():
            found._add(p)
            found.named.add(p)
        elif any(ch in s for ch in "*?["):
            matches = sorted(glob.glob(s, recursive=True))
            if not matches:
                raise InputError("no file matches this pattern", s)
            for m in matches:
                mp = Path(m)
                if mp.is_dir():
                    _walk(mp, found)
                elif mp.is_file():
                    found._add(mp)
        else:
            raise InputError("no such file or folder", s)
    return found


# --------------------------------------------------------------------------- what a file looks like

_TRAJ_NAME = LazyPattern(
    r"traj|rollout|session|transcript|conversation|messages|history|episode|chat|"
    r"(^|[._-])output\.jsonl|\.eval$|\.cast$",
    re.IGNORECASE,
)
_TRAJ_DIRS = frozenset(
    {
        "trajs",
        "trajectories",
        "sessions",
        "rollouts",
        "transcripts",
        "agent",
        "agent-logs",
        "episodes",
    }
)
_TRAJ_KEYS = LazyPattern(
    rb'"(messages|steps|history|trajectory|traj|turns|conversation|transcript|tool_calls|'
    rb'tool_use|function_call|role|observation|action|events|spans|resourceSpans)"\s*:'
)
_SIDECAR_KEYS = LazyPattern(
    rb'"(resolved_ids|unresolved_ids|submitted_ids|completed_ids|empty_patch_ids|model_patch|'
    rb'verifier_result|is_resolved|reward|passed|resolved|trial_name|n_total_trials)"\s*:'
)


_REPORT_KEYS = LazyPattern(
    rb'"(resolved_ids|unresolved_ids|submitted_ids|completed_ids|empty_patch_ids|error_ids|'
    rb'incomplete_ids|n_total_trials)"\s*:'
)


def looks_like_sidecar(path: Path) -> bool:
    """A known sidecar by name, or an evaluation summary by shape (a SWE-bench harness
    report is named after the model and run: ``<model>.<run_id>.json``)."""
    if is_sidecar(path):
        return True
    if not path.name.lower().endswith(".json"):
        return False
    try:
        head = read_head(path).head
    except (InputError, OSError):
        return False
    return head.lstrip()[:1] == b"{" and _REPORT_KEYS.rx.search(head) is not None


def looks_like_trajectory(path: Path) -> bool:
    """A file no reader recognizes that is probably an agent log all the same: by its name
    (``*.traj``, ``trajectory``, ``session``, ``rollout``, ``output.jsonl``, in a ``trajs/``
    folder, ...) or its shape (JSON whose first 64 KB name messages, steps, history, tool
    calls, roles, ...). Known sidecars are never trajectories."""
    if is_sidecar(path):
        return False
    name = path.name
    if _TRAJ_NAME.rx.search(name) or any(
        part.lower() in _TRAJ_DIRS for part in path.parent.parts[-2:]
    ):
        return True
    try:
        head = read_head(path).head
    except (InputError, OSError):
        return False
    stripped = head.lstrip()
    if stripped[:1] not in (b"{", b"["):
        return False
    traj = set(_TRAJ_KEYS.rx.findall(head))
    side = set(_SIDECAR_KEYS.rx.findall(head))
    if not traj:
        return False
    # a report or a predictions file also has e.g. "history"-free ids and patches
    return not (side and not (traj & {b"messages", b"steps", b"history", b"trajectory", b"traj"}))


__all__ = [
    "SIDECAR_DIRS",
    "SIDECAR_NAMES",
    "TRACE_SUFFIXES",
    "TRIAL_LOG_ORDER",
    "Discovery",
    "discover",
    "is_sidecar",
    "is_trace_name",
    "looks_like_sidecar",
    "looks_like_trajectory",
]
