"""Outcomes and run metadata from the files a benchmark keeps beside its logs (sidecars).

A reader turns one log file into runs. How a run ended, and often which agent, model and
task it was, live elsewhere: in the files the benchmark harness wrote around the log. This
module finds them from the log's path and fills the run in (``apply_sidecars``), in this
order, the first that gives a verdict wins:

1. **A Harbor / Terminal-Bench 2 trial** (the log sits under ``<trial>/agent/``):
   ``result.json`` (``verifier_result.rewards.reward``; success when the reward reaches the
   threshold, the reward kept as a number; an ``exception_info`` with no reward leaves the
   outcome unknown: a crashed trial is not a failure), else ``verifier/reward.txt``, else
   ``verifier/reward.json``; ``verifier/ctrf.json`` adds its test counts and decides when
   there is no reward at all. Run id = the trial name, task id = ``task_name``; agent,
   model, dataset, cost and the trial's own token totals are read from the whitelisted
   fields of ``result.json`` (never ``config``: Harbor configs hold API keys).
   **A Terminal-Bench 1 trial** (under ``<trial>/sessions/`` or ``agent-logs/``):
   ``results.json`` (``is_resolved``, ``failure_mode``) and the run's
   ``run_metadata.json`` (agent, model).
2. **The reader's own label** (tau-bench rewards, OpenHands ``resolved``, Inspect scores,
   the native header). A reader that only has a number sets ``run.reward`` and leaves
   ``success`` unset; the threshold decides here.
3. **A ``metadata.json`` beside the log** with ``passed`` / ``success`` / ``resolved`` /
   ``reward`` (e.g. ATIF corpora keeping one metadata file per trajectory).
4. **SWE-bench evaluation reports** naming the run's task id: an sb-cli run folder up to
   three levels above the log (``logs/<id>/report.json``, ``results_summary.json``), then in
   the log's folder and the folder above: per-instance reports (``{id: {"resolved": ...}}``), harness summaries
   (``resolved_ids`` / ``unresolved_ids`` / ``error_ids`` / ``empty_patch_ids``; files
   named ``*report*.json``, ``results.json``, ``results/*.json``, or
   ``<model>.<run_id>.json`` after the model in ``preds.json`` / ``all_preds.jsonl``),
   Multi-SWE-bench and SWE-bench ``experiments`` ``results/results.json`` (``resolved``
   list), and ``logs/run_evaluation/*/*/<id>/report.json``.

Metadata comes from the same places: the benchmark's record of the agent and model (Harbor
``result.json``, Terminal-Bench ``run_metadata.json``, ``metadata.json``) wins over the log's
spelling, which is kept in ``extra["log_model"]`` / ``extra["log_harness"]``; task family,
exit status and cost fill what the reader left empty, as does a SWE-bench ``experiments``
submission's ``metadata.yaml`` (the model lives only there and in the folder name).

Nothing here prints or raises on a bad sidecar: an unreadable one is a warning on the run
and the outcome stays unknown. Parsed sidecars are cached (bounded), so a folder of
thousands of runs reads each report once.
"""

from __future__ import annotations

import glob
import math
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson
from msgspec import Struct

from efc_tui.model import Run
from efc_tui.parsers import _swebench as swebench
from efc_tui.parsers._reward import DEFAULT_SUCCESS_THRESHOLD, reward_success
from efc_tui.parsers._submission import read_submission_yaml
from efc_tui.parsers._totals import set_source_totals, totals_from_counts

_SMALL_BYTES = 16 * 1024 * 1024  # result.json, metadata.json, ctrf.json
_REPORT_BYTES = 64 * 1024 * 1024  # evaluation reports
_CACHE_SIZE = 256
_CACHED_BYTES = 256 * 1024


# --------------------------------------------------------------------------- values


def _dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) and v.strip() else None


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float | str):
        return None
    try:
        f = float(v)
    except ValueError:
        return None
    return f if math.isfinite(f) else None


def _bool(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


class _Lru(OrderedDict[Any, Any]):
    def put(self, key: Any, value: Any) -> Any:
        self[key] = value
        self.move_to_end(key)
        while len(self) > _CACHE_SIZE:
            self.popitem(last=False)
        return value

    def kept(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``make()``'s, kept."""
        hit = self.get(key)
        return hit if hit is not None else self.put(key, make())


_json_cache = _Lru()
_report_cache = _Lru()
_dir_cache = _Lru()
_yaml_cache = _Lru()


def _stat_key(path: Path, *, regular: bool = False) -> tuple[str, int, int] | None:
    """(path, mtime, size), the key of the caches below; None when ``path`` cannot be
    stat'ed, or (``regular``) is not a regular file (what ``path.is_file()`` answers, from
    the same stat)."""
    try:
        st = path.stat()
    except OSError:
        return None
    if regular and not stat.S_ISREG(st.st_mode):
        return None
    return (str(path), st.st_mtime_ns, st.st_size)


def _parse_json(path: Path, size: int, max_bytes: int) -> tuple[Any, str | None]:
    if size > max_bytes:
        return None, f"{path}: larger than {max_bytes >> 20} MB, not read"
    try:
        return orjson.loads(path.read_bytes()), None
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    except orjson.JSONDecodeError as exc:
        return None, f"{path}: not valid JSON ({exc.msg})"


def load_json(path: Path) -> tuple[Any, str | None]:
    """(document, problem) of a small JSON sidecar (result.json, metadata.json, ...);
    (None, None) when there is no such file, (None, reason) when it cannot be used.
    Cached by path, size and mtime."""
    key = _stat_key(path, regular=True)
    if key is None:
        return None, None
    hit = _json_cache.get(key)
    if hit is not None:
        return hit
    parsed = _parse_json(path, key[2], _SMALL_BYTES)
    # only small documents are kept (a trial's result.json is a few KB): the cache stays small
    return _json_cache.put(key, parsed) if key[2] <= _CACHED_BYTES else parsed


def _read_number(path: Path) -> tuple[float | None, str | None]:
    try:
        if not path.is_file():
            return None, None
        if path.stat().st_size > 4096:
            return None, f"{path}: too large for a reward file"
        text = path.read_text(errors="replace").strip()
    except OSError as exc:
        return None, f"{path}: cannot read: {exc.strerror or exc}"
    value = _num(text)
    if value is None:
        return None, f"{path}: not a number ({text[:40]!r})"
    return value, None


# --------------------------------------------------------------------------- outcome setting


class Verdict(Struct, frozen=True):
    """One outcome a sidecar gives: a success label, a numeric reward, or both."""

    success: bool | None
    reward: float | None
    source: str

    @property
    def decides(self) -> bool:
        return self.success is not None


def set_outcome(run: Run, verdict: Verdict, *, override: bool) -> bool:
    """Record a verdict on the run; ``override`` replaces a label already there (saying
    so in the flags when it differs). Returns whether the run's label now comes from it."""
    if not verdict.decides and verdict.reward is None:
        return False
    if run.success is not None and not override:
        if run.reward is None and verdict.reward is not None and run.success == verdict.success:
            run.reward = verdict.reward
        return False
    if run.success is not None and verdict.success is not None and run.success != verdict.success:
        run.flags.append(
            f"success: {verdict.source} says {verdict.success}, replacing {run.success} "
            f"from {run.success_from or run.source_format}"
        )
    if verdict.success is not None or override:
        run.success = verdict.success
        run.success_from = verdict.source
    if verdict.reward is not None or override:
        run.reward = verdict.reward
    return True


# --------------------------------------------------------------------------- trials


def _harbor_result_shape(doc: Any) -> bool:
    d = _dict(doc)
    return any(k in d for k in ("trial_name", "task_name", "verifier_result", "agent_info"))


def is_harbor_trial(folder: Path) -> bool:
    """A Harbor trial folder: ``agent/`` beside a trial ``result.json`` or ``config.json``."""
    if not (folder / "agent").is_dir():
        return False
    for name in ("result.json", "config.json"):
        doc, _ = load_json(folder / name)
        if _harbor_result_shape(doc) or ("agent" in _dict(doc) and "task" in _dict(doc)):
            return True
    return False


def is_tb1_trial(folder: Path) -> bool:
    """A Terminal-Bench 1 trial folder: ``results.json`` with ``is_resolved`` / ``trial_name``
    beside ``sessions/``, ``agent-logs/`` or ``panes/``."""
    if not any((folder / d).is_dir() for d in ("sessions", "agent-logs", "panes")):
        return False
    doc, _ = load_json(folder / "results.json")
    d = _dict(doc)
    return "trial_name" in d and ("is_resolved" in d or "task_id" in d)


class Trial(Struct, frozen=True):
    """The trial folder a log belongs to, and which harness wrote it."""

    folder: Path
    kind: str  # "harbor" | "terminal-bench"


def trial_folder(folder: Path) -> Trial | None:
    """The trial this folder is (not an ancestor): for discovery."""
    if is_harbor_trial(folder):
        return Trial(folder, "harbor")
    if is_tb1_trial(folder):
        return Trial(folder, "terminal-bench")
    return None


def ancestors(path: Path) -> list[Path]:
    """The folders above a path, nearest first, spelled as the path was given (relative
    stays relative) and continuing from the current folder's absolute path."""
    return list(_ancestors(str(path.parent), os.getcwd()))


@lru_cache(maxsize=256)
def _ancestors(folder: str, cwd: str) -> tuple[Path, ...]:
    """``ancestors`` of a path in ``folder`` (its ``parent``, as a string), from the current
    folder ``cwd``. Keyed by the folder, not the path: every log of a folder of trajectories
    asks the same (building them was a quarter of a SWE-agent trajectory's sidecar look-up),
    and every run of a file of many runs (a tau-bench results file) too."""
    here = Path(folder)
    out = [q for q in (here, *here.parents) if str(q) not in (".", "")]
    if not here.is_absolute():
        start = Path(cwd)
        out += [start, *start.parents]
    return tuple(out)


#: the folders a trial keeps its logs in, and the harness whose trial that makes it
_LOG_FOLDERS = {
    "agent": "harbor",
    "sessions": "terminal-bench",
    "agent-logs": "terminal-bench",
    "panes": "terminal-bench",
}


def find_trial(path: Path) -> Trial | None:
    """The Harbor trial whose ``agent/`` holds this log, or the Terminal-Bench 1 trial
    whose ``sessions/`` / ``agent-logs/`` / ``panes/`` does (up to four levels down)."""
    for folder, kind in _trial_candidates(str(path.parent), os.getcwd()):
        if is_harbor_trial(folder) if kind == "harbor" else is_tb1_trial(folder):
            return Trial(folder, kind)
    return None


@lru_cache(maxsize=256)
def _trial_candidates(folder: str, cwd: str) -> tuple[tuple[Path, str], ...]:
    """The folders that could be the trial of a log in ``folder``, nearest first, by their
    names alone: the parents of its nearest five ancestors named as ``_LOG_FOLDERS``. Asked
    for every log of a folder and every run of a file of many runs (most logs have none:
    nothing is read for them)."""
    return tuple(
        (up.parent, kind)
        for up in _ancestors(folder, cwd)[:5]
        if (kind := _LOG_FOLDERS.get(up.name)) is not None
    )


def _harbor_reward(rewards: Any) -> tuple[float | None, dict[str, float]]:
    """The reward of a Harbor rewards map: ``reward``, else its only number."""
    d = {k: v for k, v in _dict(rewards).items() if _num(v) is not None}
    nums = {str(k): float(v) for k, v in d.items()}
    if "reward" in nums:
        return nums["reward"], nums
    if len(nums) == 1:
        return next(iter(nums.values())), nums
    return None, nums


def _ctrf_counts(path: Path, run: Run) -> dict[str, int] | None:
    doc, problem = load_json(path)
    if problem:
        run.warnings.append(problem)
    summary = _dict(_dict(_dict(doc).get("results")).get("summary"))
    if not summary:
        return None
    out: dict[str, int] = {}
    for k in ("tests", "passed", "failed", "skipped", "pending", "other"):
        v = _num(summary.get(k))
        if v is not None:
            out[k] = int(v)
    return out or None


def _prefer(run: Run, attr: str, value: str | None) -> None:
    """The benchmark's record of the agent or model wins over the log's spelling (the same
    name for every agent of a job: ``z-ai/glm-5``, not ``openai/z-ai/glm-5`` in one log and
    a display name in another); the log's own value is kept in ``extra["log_<attr>"]``."""
    current = getattr(run, attr)
    if not value or value == current:
        return
    if current:
        run.extra.setdefault(f"log_{attr}", current)
    setattr(run, attr, value)


def _fill(run: Run, attr: str, value: str | None) -> None:
    if value and getattr(run, attr) in (None, ""):
        setattr(run, attr, value)


def _harbor(run: Run, trial: Path, threshold: float) -> None:
    res, problem = load_json(trial / "result.json")
    if problem:
        run.warnings.append(f"harbor: {problem}")
    res = _dict(res)
    trial_name = _str(res.get("trial_name")) or trial.name
    if run.run_id != trial_name:
        run.extra.setdefault("log_run_id", run.run_id)
        run.run_id = trial_name
    task = _str(res.get("task_name")) or (
        trial.name.rsplit("__", 1)[0] if "__" in trial.name else None
    )
    if task:
        run.task_id = task
    info = _dict(res.get("agent_info"))
    harness = _str(info.get("name"))
    model = _str(_dict(info.get("model_info")).get("name"))
    if harness is None or model is None:
        # only the agent's name and model from a config: never its env (API keys) or kwargs
        cfg, _ = load_json(trial / "config.json")
        agent = _dict(_dict(cfg).get("agent")) or _dict(_dict(res.get("config")).get("agent"))
        harness = harness or _str(agent.get("name"))
        model = model or _str(agent.get("model_name"))
    _prefer(run, "harness", harness)
    _prefer(run, "model", model)
    _fill(run, "task_family", _str(res.get("source")))
    run.extra["trial"] = {
        k: v
        for k, v in (
            ("name", trial_name),
            ("job", trial.parent.name),
            ("started_at", _str(res.get("started_at"))),
            ("finished_at", _str(res.get("finished_at"))),
        )
        if v is not None
    }
    agent_result = _dict(res.get("agent_result"))
    # the trial's own totals, in the one source-totals structure (parsers/_totals.py): the
    # cache is part of the input unless the producer kept it apart (OpenClaw: larger)
    totals = totals_from_counts(
        input_tokens=agent_result.get("n_input_tokens"),
        output_tokens=agent_result.get("n_output_tokens"),
        cache_tokens=agent_result.get("n_cache_tokens"),
        cost_usd=agent_result.get("cost_usd"),
        source=f"{trial.name}/result.json agent_result",
    )
    set_source_totals(run, totals)
    if run.cost_usd is None and totals["cost_usd"] is not None:
        run.cost_usd = totals["cost_usd"]
    exc = _dict(res.get("exception_info"))
    exc_type = _str(exc.get("exception_type"))
    if exc_type:
        run.exit_status = exc_type
        message = _str(exc.get("exception_message"))
        if message:
            run.extra["trial_exception"] = message.strip().splitlines()[0][:300]

    reward, rewards = _harbor_reward(_dict(res.get("verifier_result")).get("rewards"))
    where = trial / "result.json"
    if reward is None:
        reward, problem = _read_number(trial / "verifier" / "reward.txt")
        where = trial / "verifier" / "reward.txt"
        if problem:
            run.warnings.append(f"harbor: {problem}")
    if reward is None and not rewards:
        doc, problem = load_json(trial / "verifier" / "reward.json")
        if problem:
            run.warnings.append(f"harbor: {problem}")
        reward, rewards = _harbor_reward(doc)
        where = trial / "verifier" / "reward.json"
    if len(rewards) > 1:
        run.extra["rewards"] = rewards
    tests = _ctrf_counts(trial / "verifier" / "ctrf.json", run)
    if tests:
        run.extra["tests"] = tests
    if reward is not None:
        set_outcome(
            run,
            Verdict(reward_success(reward, threshold), reward, f"harbor reward: {where}"),
            override=True,
        )
        return
    if tests and tests.get("tests", tests.get("passed", 0) + tests.get("failed", 0)) > 0:
        ok = (
            tests.get("failed", 0) == 0
            and tests.get("other", 0) == 0
            and tests.get("passed", 0) > 0
        )
        set_outcome(
            run,
            Verdict(ok, None, f"harbor ctrf: {trial / 'verifier' / 'ctrf.json'}"),
            override=True,
        )
        return
    if rewards:
        run.flags.append(f"harbor: {len(rewards)} rewards and none named 'reward'; outcome unknown")
    elif exc_type:
        run.flags.append(f"harbor: the trial ended with {exc_type} and no reward; outcome unknown")
    elif res:
        run.flags.append("harbor: the trial has no verifier reward; outcome unknown")


def _tb1(run: Run, trial: Path) -> None:
    res, problem = load_json(trial / "results.json")
    if problem:
        run.warnings.append(f"terminal-bench: {problem}")
    res = _dict(res)
    name = _str(res.get("trial_name")) or trial.name
    if run.run_id != name:
        run.extra.setdefault("log_run_id", run.run_id)
        run.run_id = name
    task = _str(res.get("task_id"))
    if task:
        run.task_id = task
    meta, _ = load_json(trial.parent.parent / "run_metadata.json")
    meta = _dict(meta)
    _prefer(run, "harness", _str(meta.get("agent_name")))
    _prefer(run, "model", _str(meta.get("model_name")))
    mode = _str(res.get("failure_mode"))
    if mode and mode.lower() != "unset":
        run.exit_status = mode
    resolved = _bool(res.get("is_resolved"))
    if resolved is not None:
        set_outcome(
            run,
            Verdict(
                resolved,
                1.0 if resolved else 0.0,
                f"terminal-bench results.json: {trial / 'results.json'}",
            ),
            override=True,
        )
    elif mode and mode.lower() != "unset":
        run.flags.append(
            f"terminal-bench: the trial ended with {mode} and no verdict; outcome unknown"
        )


# --------------------------------------------------------------------------- metadata.json


_META_SUCCESS = ("passed", "success", "resolved", "is_resolved")


def _beside_metadata(run: Run, path: Path, threshold: float) -> None:
    meta = path.parent / "metadata.json"
    doc, problem = load_json(meta)
    if problem:
        run.warnings.append(problem)
    d = _dict(doc)
    if not d:
        return
    success = next((b for b in (_bool(d.get(k)) for k in _META_SUCCESS) if b is not None), None)
    reward = _num(d.get("reward"))
    if reward is None:
        reward = _num(d.get("score"))
    _prefer(run, "model", _str(d.get("model")))
    _prefer(run, "harness", _str(d.get("agent")))
    _fill(run, "task_family", _str(d.get("benchmark")) or _str(d.get("task_family")))
    _fill(run, "task_id", _str(d.get("task_id")) or _str(d.get("instance_id")))
    if success is None:
        success = reward_success(reward, threshold)
    if success is not None or reward is not None:
        set_outcome(run, Verdict(success, reward, f"metadata.json: {meta}"), override=False)


# --------------------------------------------------------------------------- SWE-bench


_RESOLVED_KEYS = ("resolved_ids", "resolved")
#: lists whose ids were evaluated and not resolved (beside a resolved list, any other id
#: list of the report counts as not resolved too, except those below)
_NEGATIVE_KEYS = ("unresolved_ids", "error_ids", "empty_patch_ids")
_NOT_EVALUATED = ("incomplete_ids", "unstopped_containers", "unremoved_images")


class ReportMap(Struct, frozen=True):
    """Per task id: True (resolved), False (evaluated, not resolved), None (the report
    contradicts itself)."""

    labels: dict[str, bool | None]


def parse_report(doc: Any) -> ReportMap:
    """The resolution of every instance a SWE-bench-style report names."""
    labels: dict[str, bool | None] = {}
    if not isinstance(doc, dict):
        return ReportMap(labels)
    for k, v in doc.items():  # per-instance: {id: {"resolved": bool}}
        if isinstance(v, dict) and isinstance(v.get("resolved"), bool):
            labels[str(k)] = v["resolved"]
    resolved: set[str] = set()
    for key in _RESOLVED_KEYS:
        v = doc.get(key)
        if isinstance(v, list):
            resolved.update(i for i in v if isinstance(i, str))
    negative: set[str] = set()
    for key in _NEGATIVE_KEYS:
        v = doc.get(key)
        if isinstance(v, list):
            negative.update(i for i in v if isinstance(i, str))
    has_lists = any(isinstance(doc.get(k), list) for k in (*_RESOLVED_KEYS, *_NEGATIVE_KEYS))
    if has_lists:
        others: set[str] = set()
        for key, v in doc.items():
            if key in _RESOLVED_KEYS or key in _NOT_EVALUATED or not isinstance(v, list):
                continue
            others.update(i for i in v if isinstance(i, str))
        for i in others:
            labels.setdefault(i, i in resolved)
        for i in resolved:
            labels[i] = None if i in negative else True
    return ReportMap(labels)


def _report_map(path: Path) -> ReportMap | None:
    key = _stat_key(path)
    if key is None:
        return None
    # the map is kept, not the document
    return _report_cache.kept(
        key, lambda: parse_report(_parse_json(path, key[2], _REPORT_BYTES)[0])
    )


def preds_model(folder: Path) -> str | None:
    """``model_name_or_path`` of a SWE-bench predictions file in this folder."""
    for name in ("preds.json", "all_preds.jsonl", "predictions.jsonl", "preds.jsonl"):
        p = folder / name
        if not p.is_file():
            continue
        try:
            with p.open("rb") as f:
                head = f.read(1 << 20)
        except OSError:
            continue
        m = re.search(rb'"model_name_or_path"\s*:\s*"((?:[^"\\]|\\.){1,300})"', head)
        if m:
            try:
                return str(orjson.loads(b'"' + m.group(1) + b'"'))
            except orjson.JSONDecodeError:
                return None
    return None


def _report_files(folder: Path) -> list[Path]:
    """The evaluation reports a folder holds (cached by the folder's mtime)."""
    key = _stat_key(folder)
    if key is None:
        return []
    hit = _dir_cache.get(key)
    if hit is not None:
        return hit
    found: list[Path] = []
    model = preds_model(folder)
    prefix = model.replace("/", "__") + "." if model else None
    for sub in (folder, folder / "results"):
        try:  # names first: a folder of thousands of logs costs no stat per file
            with os.scandir(sub) as entries:
                names = sorted(
                    e.name
                    for e in entries
                    if _is_report_name(e.name, sub != folder, prefix) and e.is_file()
                )
        except OSError:
            continue
        found += [sub / name for name in names]
    return _dir_cache.put(key, found)


def _is_report_name(name: str, in_results: bool, prefix: str | None) -> bool:
    """A report's name: ``*report*.json``, ``results.json``, ``*result*.json`` under
    ``results/``, or ``<model>.*.json`` (a SWE-bench harness report); never a trajectory."""
    low = name.lower()
    if not low.endswith(".json") or low.endswith(".traj.json"):
        return False
    return (
        "report" in low
        or low == "results.json"
        or (in_results and "result" in low)
        or (prefix is not None and name.startswith(prefix))
    )


def _swebench(run: Run, path: Path) -> None:
    ids = [i for i in dict.fromkeys((run.task_id, run.run_id, _stem(path))) if i]
    if not ids:
        return
    sbcli = swebench.sbcli_outcome(ids, ancestors(path), load_json)
    if sbcli is not None:  # an sb-cli run folder: logs/<id>/report.json, results_summary.json
        _, resolved, where = sbcli
        set_outcome(run, Verdict(resolved, float(resolved), f"sb-cli: {where}"), override=False)
        run.extra.setdefault("benchmark", swebench.BENCHMARK)
        return
    for folder in ancestors(path)[:2]:
        reports = list(_report_files(folder))
        evals = folder / "logs" / "run_evaluation"
        if evals.is_dir():
            for iid in ids:
                reports += [
                    Path(p)
                    for p in sorted(
                        glob.glob(str(evals / "*" / "*" / glob.escape(iid) / "report.json"))
                    )
                ]
        for report in reports:
            rmap = _report_map(report)
            if rmap is None:
                continue
            for iid in ids:
                if iid not in rmap.labels:
                    continue
                label = rmap.labels[iid]
                if label is None:
                    run.warnings.append(
                        f"swe-bench report {report} lists {iid} as resolved and as not resolved; "
                        "outcome unknown"
                    )
                    return
                set_outcome(
                    run,
                    Verdict(label, 1.0 if label else 0.0, f"swe-bench report: {report}"),
                    override=False,
                )
                run.flags.append(f"success: 'resolved' from the SWE-bench report {report.name}")
                run.extra.setdefault("benchmark", swebench.BENCHMARK)
                return


def _stem(path: Path) -> str:
    name = path.name if isinstance(path, Path) else Path(path).name
    for suffix in (".traj.json", ".traj", ".json", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(name).stem


# --------------------------------------------------------------------------- experiments


_DATE_PREFIX = re.compile(r"^\d{8}_(?P<rest>.+)$")


def _submission(meta: Path) -> dict[str, Any] | None:
    """``read_submission_yaml`` of a ``metadata.yaml`` (None: no such file), cached by its
    path, size and mtime: every trajectory of a submission asks for the same one."""
    key = _stat_key(meta, regular=True)
    return None if key is None else _yaml_cache.kept(key, lambda: read_submission_yaml(meta))


def _experiments(run: Run, path: Path) -> None:
    """A SWE-bench ``experiments`` submission (``<date>_<name>/{metadata.yaml, trajs/}``):
    the model from ``metadata.yaml`` (``tags.model``, else the part of ``name`` after
    "+"), else the predictions' ``model_name_or_path``, else the folder name."""
    if run.model:
        return
    up = ancestors(path)[:2]
    for folder in up:
        info = _submission(folder / "metadata.yaml")
        if info is None:
            continue
        model, where = None, None
        if info.get("models"):
            model, where = info["models"][0], "metadata.yaml tags.model"
        elif info.get("name") and "+" in info["name"]:
            model, where = info["name"].rsplit("+", 1)[1].strip(), "metadata.yaml name"
        if model is None:
            m = _DATE_PREFIX.match(folder.name)
            if m:
                model, where = m.group("rest"), "the submission folder name"
        if model:
            run.model = model
            run.extra.setdefault("submission", folder.name)
            run.flags.append(f"model: from {where} of the submission {folder.name}")
            return
    model = next((m for m in map(preds_model, up) if m), None)
    if model:
        run.model = model.split("__", 1)[0]
        run.flags.append("model: from model_name_or_path of the predictions file")


# --------------------------------------------------------------------------- entry point


def _promote_reader_fields(run: Run) -> None:
    """Readers that keep ``exit_status`` / ``cost_usd`` / ``reward`` in ``extra`` get
    them in the Run fields too."""
    ex = run.extra
    if run.exit_status is None and _str(ex.get("exit_status")):
        run.exit_status = ex["exit_status"]
    if run.cost_usd is None and _num(ex.get("cost_usd")) is not None:
        run.cost_usd = float(ex["cost_usd"])
    if run.reward is None and _num(ex.get("reward")) is not None:
        run.reward = float(ex["reward"])


def apply_sidecars(run: Run, path: str | Path, threshold: float = DEFAULT_SUCCESS_THRESHOLD) -> Run:
    """Fill the run's outcome and metadata from the sidecars around its log (see the
    module docstring for the order). Never raises for a bad sidecar: it becomes a warning."""
    p = path if isinstance(path, Path) else Path(path)
    _promote_reader_fields(run)
    if (
        run.reward is not None
        and run.success is not None
        and threshold != DEFAULT_SUCCESS_THRESHOLD
        and (run.success_from or "").endswith("reward")
    ):
        # a reader that derived its label from a reward did so at the default threshold
        run.success = reward_success(run.reward, threshold)
    trial = find_trial(p)
    if trial is not None and trial.kind == "harbor":
        _harbor(run, trial.folder, threshold)
    elif trial is not None:
        _tb1(run, trial.folder)
    if run.success is None and run.reward is not None:
        run.success = reward_success(run.reward, threshold)
        run.success_from = run.success_from or f"{run.source_format} reward"
    _beside_metadata(run, p, threshold)
    if run.success is None and trial is None:
        _swebench(run, p)
    _experiments(run, p)
    return run


def clear_caches() -> None:
    """Forget every parsed sidecar (tests; long-lived processes after files change)."""
    _json_cache.clear()
    _report_cache.clear()
    _dir_cache.clear()
    _yaml_cache.clear()


__all__ = [
    "DEFAULT_SUCCESS_THRESHOLD",
    "ReportMap",
    "Trial",
    "Verdict",
    "apply_sidecars",
    "clear_caches",
    "find_trial",
    "is_harbor_trial",
    "is_tb1_trial",
    "load_json",
    "parse_report",
    "preds_model",
    "read_submission_yaml",
    "reward_success",
    "set_outcome",
    "trial_folder",
]
