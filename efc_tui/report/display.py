"""How run outcomes and long names read, the same in every table and screen.

Plain strings (no markup): the CLI tables and the app both call these, so a run without a
success label reads "unknown" everywhere (never "no"), and a long id is shortened the
same way everywhere (its head and its tail, which is where ids differ).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from efc_tui.adapter import AdapterSummary
    from efc_tui.model import Run

ELLIPSIS = "…"

#: verdicts, short, for tables (the JSON has the full names): `diff`, the compare screen,
#: and (spelling passed and no verdict its own way) the replay's event column
VERDICT_SHOWN = {
    "passed": "pass",
    "assertion_error": "assert",
    "runtime_error": "runtime",
    "timeout": "timeout",
    "static_reject": "static",
    "api_error": "api_err",
    "other": "other",
    "none": "",
}


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: its head and tail around an ellipsis."""
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    keep = width - 1
    tail = keep // 2
    head = keep - tail
    out_head = _take(text, head)
    out_tail = _take(text[::-1], tail)[::-1]
    return out_head + ELLIPSIS + out_tail


def start_ellipsis(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: its tail after an ellipsis (for paths)."""
    from rich.cells import cell_len

    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    return ELLIPSIS + _take(text[::-1], width - 1)[::-1]


def _take(text: str, cells: int) -> str:
    from rich.cells import cell_len

    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > cells:
            break
        out.append(ch)
        used += w
    return "".join(out)


def common_folder(paths: list[Path]) -> Path | None:
    """The folder all ``paths`` share (None: none, e.g. different drives)."""
    try:
        return Path(os.path.commonpath([p.resolve().parent for p in paths])) if paths else None
    except ValueError:
        return None


def short_path(path: str | Path, base: Path | None) -> str:
    """A file as tables show it: relative to the folder all inputs share."""
    p = Path(path)
    if base is None:
        return str(p)
    try:
        rel = p.resolve().relative_to(base)
    except ValueError:
        return str(p)
    return str(rel) if str(rel) != "." else p.name


def success_label(success: bool | None) -> str:
    """yes / no / unknown (a run whose log and sidecars give no label)."""
    if success is None:
        return "unknown"
    return "yes" if success else "no"


def ended_label(run: Run) -> str | None:
    """How the run ended, as its source says (exit status, reward); None when it does not."""
    return ended_text(run.exit_status, run.reward)


def ended_text(exit_status: str | None, reward: float | None) -> str | None:
    """``ended_label`` from the two values (a run's row, when the run itself is gone)."""
    parts = []
    if exit_status:
        parts.append(exit_status)
    if reward is not None:
        parts.append(f"r={reward:.3g}")
    return " ".join(parts) or None


def at_risk_label(summary: AdapterSummary) -> str:
    """Whether the adapter's stop puts the run's success at risk: yes / no / unknown (the run
    has no success label; ``AdapterSummary.at_risk_label``)."""
    return summary.at_risk_label


_TAGS = re.compile(r"<(command-name|command-args)>(.*?)</\1>", re.DOTALL)
_ANY_TAG = re.compile(r"</?[\w-]+>")


def _first_prompt(run: Run) -> str | None:
    """The first thing the user asked (a Claude Code session has no other name): its first
    line, a slash command as ``/name args``; None when the run has no user message."""
    for e in run.events[:50]:
        x = e.extra
        if x.get("role") != "user" or x.get("meta") or e.tool:
            continue
        text = e.observation_text[:4000] or e.action_text[:4000]
        tags: dict[str, str] = {m.group(1): m.group(2) for m in _TAGS.finditer(text)}
        if tags:
            text = " ".join(
                v.strip() for v in (tags.get("command-name"), tags.get("command-args")) if v
            )
        text = _ANY_TAG.sub(" ", text)
        line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        if line:
            return line
    return None


def run_title(run: Run) -> str:
    """How a person tells a run apart, in one line: a Claude Code session by its first prompt
    and start time (UTC), a run whose id is its task and a random suffix (Harbor trials:
    ``hello-world__Ab3xY``) as ``hello-world (Ab3xY)``; else its id. Plain text: callers sanitize."""
    import time

    if run.source_format in ("claude-code", "codex") or run.harness == "claude-code":
        prompt = _first_prompt(run)
        if prompt:
            ts = next((e.timestamp for e in run.events[:50] if e.timestamp), None)
            when = time.strftime(" · %Y-%m-%d %H:%M", time.gmtime(ts)) if ts else ""
            return f"{prompt[:80]}{when}"
    task = run.task_id
    if task and task != run.run_id and run.run_id.startswith(task):
        rest = run.run_id[len(task) :].lstrip("_-.")
        return f"{task} ({rest})" if rest else task
    return run.run_id


def corpus_line(rows: Iterable[Mapping[str, Any]]) -> str:
    """One line over many runs (rows with ``success``, ``exit_status``, ``cost_usd``, as
    ``output.run_row`` gives them): "91 runs · 9 succeeded, 82 failed · ended: 63
    submitted, 19 exit_cost, 9 exit_context · $123.45 logged (88 runs)"."""
    from collections import Counter

    n = ok = failed = 0
    ended: Counter[str] = Counter()
    usd, priced = 0.0, 0
    for r in rows:
        n += 1
        s = r.get("success")
        ok += s is True
        failed += s is False
        status = r.get("exit_status")
        if status:
            ended[str(status)] += 1
        c = r.get("cost_usd")
        if isinstance(c, int | float) and not isinstance(c, bool):
            usd += float(c)
            priced += 1
    parts = [f"{n:,} run{'s' * (n != 1)}"]
    outcome = [f"{ok:,} succeeded", f"{failed:,} failed"]
    if n - ok - failed:
        outcome.append(f"{n - ok - failed:,} unknown")
    parts.append(", ".join(outcome))
    if ended:
        top = ended.most_common(4)
        rest = sum(ended.values()) - sum(k for _, k in top)
        text = ", ".join(f"{k:,} {name}" for name, k in top)
        parts.append("ended: " + text + (f", {rest:,} other" if rest else ""))
    if priced:
        parts.append(f"${usd:,.2f} logged" + (f" ({priced:,} runs)" if priced != n else ""))
    return " · ".join(parts)
