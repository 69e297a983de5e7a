"""Inputs at fsspec URLs (``s3://``, ``gs://``, ``file://``, ...): listing and fetching.

The readers and the sidecar lookup work on local files. A URL input is therefore planned
from a listing here, on the client, and each source is **fetched by the worker that reads
it** into a private mirror on that worker (the folder structure below the URL kept), read
there exactly like a local path, then deleted:

- a **trial folder** (Harbor / Terminal-Bench 2: files under ``agent/`` beside a
  ``result.json`` or ``config.json``; Terminal-Bench 1: ``results.json`` beside
  ``sessions/``, ``agent-logs/`` or ``panes/``) is one source: the whole folder is fetched
  and discovery picks its one log, as for a local folder;
- any other file with a log ending that is not a sidecar is one source, fetched with the
  sidecars the outcome lookup reads around it (``metadata.json``, ``metadata.yaml``,
  evaluation reports, ``results/*.json``, predictions files, and the SWE-bench
  ``logs/run_evaluation/*/*/<log name>/report.json``) in its folder and the folder above,
  as far as they are below the URL. Sidecars stay in the mirror until the command ends
  (many logs share one report) and are fetched once per worker.

Paths in what a worker returns (``source_path``, warnings, errors, where a label came
from) name the URL, never the mirror. Credentials are fsspec's own (environment, config
files, the filesystem's options): the filesystem object travels to the workers as the
client built it. fsspec is imported only here.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from efc_tui.cluster.source import Source
from efc_tui.errors import InputError, UnrecognizedFormat, UsageError

if TYPE_CHECKING:
    from efc_tui.cluster.source import SourceResult
    from efc_tui.pipeline.score import Job, ScoredItem

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: sidecars larger than this are not fetched (the outcome lookup does not read them either)
MAX_SIDECAR_BYTES = 64 * 1024 * 1024
_PREDS = ("preds.json", "all_preds.jsonl", "predictions.jsonl", "preds.jsonl", "predictions.json")
_SIDECARS_READ = frozenset({"metadata.json", "metadata.yaml", "results.json", *_PREDS})
_TRIAL_LOG_DIRS = ("sessions", "agent-logs", "panes")


def is_url(arg: str) -> bool:
    """``scheme://...`` (a Windows drive letter is not a scheme: it has no ``//``)."""
    return bool(_URL.match(arg))


@dataclass(frozen=True)
class Remote:
    """What a worker fetches to read one URL source."""

    fs: Any  # an fsspec AbstractFileSystem (pickles with its options)
    #: the listed root (fs path, no protocol) and its URL
    root: str
    root_url: str
    #: "trial" (fetch the folder, discover its log) or "file"
    kind: str
    #: the log (kind "file") or the trial folder (kind "trial"), relative to root
    rel: str
    #: files fetched, read and deleted: (relative path, size)
    fetch: tuple[tuple[str, int], ...]
    #: sidecars kept in the worker's mirror until the command ends: (relative path, size)
    sidecars: tuple[tuple[str, int], ...] = ()
    #: the root is a folder the user named (a run's fit ``source`` label is then the
    #: first folder below it, as for a local folder)
    folder: bool = False


def _filesystem(url: str) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError:
        raise UsageError(f"{url}: URLs need fsspec: pip install 'efc-tui[dask]'") from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as exc:  # s3fs, gcsfs, ... not installed
        raise UsageError(f"{url}: {exc}") from None
    except ValueError as exc:
        raise InputError(f"not a URL fsspec can read: {exc}", url) from None
    return fs, str(path)


def _rel(path: str, root: str) -> str:
    return posixpath.relpath(path, root) if path != root else ""


def _parent(rel: str) -> str:
    p = posixpath.dirname(rel)
    return p


class _Listing:
    """Files below a root: sizes by relative path, and which folders hold what."""

    def __init__(self, files: dict[str, int]):
        self.files = files
        self.by_dir: dict[str, list[str]] = defaultdict(list)
        for rel in sorted(files):
            self.by_dir[_parent(rel)].append(rel)

    def has(self, rel: str) -> bool:
        return rel in self.files

    def under(self, folder: str) -> list[str]:
        prefix = folder + "/" if folder else ""
        return [r for r in sorted(self.files) if r.startswith(prefix)]

    def any_under(self, folder: str) -> bool:
        prefix = folder + "/"
        return any(r.startswith(prefix) for r in self.files)


def _join(folder: str, name: str) -> str:
    return posixpath.join(folder, name) if folder else name


def _trial_kind(listing: _Listing, folder: str) -> str | None:
    def j(name: str) -> str:
        return _join(folder, name)

    if listing.any_under(j("agent")) and (
        listing.has(j("result.json")) or listing.has(j("config.json"))
    ):
        return "harbor"
    if listing.has(j("results.json")) and any(listing.any_under(j(d)) for d in _TRIAL_LOG_DIRS):
        return "terminal-bench"
    return None


def _sidecar_names(listing: _Listing, folder: str, stem: str) -> list[str]:
    """Files in ``folder`` (relative) that the outcome lookup may read for a log there."""
    names = listing.by_dir.get(folder, [])
    base = {posixpath.basename(r).lower(): r for r in names}
    preds = any(p in base for p in _PREDS)
    out = []
    for low, rel in base.items():
        if (
            low in _SIDECARS_READ
            or (low.endswith(".json") and "report" in low)
            or (
                preds
                and low.endswith(".json")
                and low.count(".") >= 2
                and not low.endswith(".traj.json")
            )
        ):
            out.append(rel)
    out += [
        r for r in listing.by_dir.get(_join(folder, "results"), []) if r.lower().endswith(".json")
    ]
    evals = _join(folder, "logs/run_evaluation") + "/"
    out += [r for r in listing.files if r.startswith(evals) and r.endswith(f"/{stem}/report.json")]
    return out


def _files(fs: Any, folder: str, root: str, into: dict[str, int]) -> None:
    """The files directly in ``folder``, by path relative to ``root``, with their sizes."""
    for info in fs.ls(folder, detail=True):
        if info.get("type") != "directory":
            into[_rel(info["name"], root)] = int(info.get("size") or 0)


def plan_url(url: str, start: int = 0, named: bool = True) -> list[Source]:
    """The sources at a URL (a file, a folder or a glob), numbered from ``start``.
    Raises InputError for a URL that names nothing or cannot be listed, and UsageError
    when the filesystem's package (s3fs, gcsfs, ...) is missing."""
    fs, path = _filesystem(url)
    path = path.rstrip("/") or path
    try:
        if any(ch in path for ch in "*?["):
            matches = sorted(fs.glob(path))
            if not matches:
                raise InputError("no file matches this pattern", url)
            out: list[Source] = []
            for m in matches:
                out += plan_url(fs.unstrip_protocol(m), start + len(out), named=False)
            return out
        if fs.isdir(path):
            found = fs.find(path, detail=True)
            files = {
                _rel(p, path): int(info.get("size") or 0)
                for p, info in found.items()
                if info.get("type", "file") != "directory"
            }
            return _plan_folder(fs, path, files, start)
        if fs.isfile(path):
            return [_plan_file(fs, path, start, named)]
    except OSError as exc:
        raise InputError(f"cannot list: {exc}", url) from None
    raise InputError("no such file or folder", url)


def _source(
    fs: Any,
    root: str,
    files: dict[str, int],
    index: int,
    kind: str,
    rel: str,
    fetch: list[str],
    sidecars: list[str],
    named: bool,
    folder: bool = False,
) -> Source:
    def sized(names: list[str]) -> tuple[tuple[str, int], ...]:
        return tuple((r, files[r]) for r in dict.fromkeys(names))

    root_url = fs.unstrip_protocol(root)
    keep = [s for s in sidecars if files[s] <= MAX_SIDECAR_BYTES and s not in fetch]
    remote = Remote(fs, root, root_url, kind, rel, sized(fetch), sized(keep), folder)
    return Source(index, posixpath.join(root_url, rel) if rel else root_url, named, remote)


def _plan_file(fs: Any, path: str, index: int, named: bool) -> Source:
    """One log at a URL, with the sidecars in its folder and the folder above."""
    folder = posixpath.dirname(path)
    up = posixpath.dirname(folder)
    root = up if up and up != folder else folder
    files: dict[str, int] = {}
    for d in dict.fromkeys((folder, root)):
        _files(fs, d, root, files)
    for d in (posixpath.join(folder, "results"), posixpath.join(root, "results")):
        if fs.isdir(d):
            _files(fs, d, root, files)
    listing = _Listing(files)
    rel = _rel(path, root)
    stem = posixpath.basename(rel).split(".")[0]
    near = _sidecar_names(listing, _parent(rel), stem)
    if _parent(rel):
        near += _sidecar_names(listing, "", stem)
    return _source(fs, root, files, index, "file", rel, [rel], near, named)


def _plan_folder(fs: Any, root: str, files: dict[str, int], start: int) -> list[Source]:
    """The sources below a folder URL: its trials, then its other logs, in path order."""
    from efc_tui.parsers.discover import is_sidecar, is_trace_name

    listing = _Listing(files)
    trials: list[str] = []
    for folder in sorted(listing.by_dir, key=lambda f: (f.count("/"), f)):
        for cand in _ancestry(folder):
            if any(part.startswith(".") for part in cand.split("/") if part):
                break
            if any(cand == t or cand.startswith(t + "/") for t in trials):
                break
            if _trial_kind(listing, cand) is not None:
                trials.append(cand)
                break
    planned: list[tuple[str, str, list[str], list[str]]] = []
    taken: set[str] = set()
    for t in trials:
        members = [m for m in listing.under(t) if not any(p.startswith(".") for p in m.split("/"))]
        taken.update(members)
        extra = []
        if _trial_kind(listing, t) == "terminal-bench":
            meta = posixpath.join(_parent(_parent(t)), "run_metadata.json").lstrip("/")
            if listing.has(meta):
                extra.append(meta)
        planned.append(("trial", t, members, extra))
    for rel in sorted(files):
        if rel in taken or any(part.startswith(".") for part in rel.split("/")):
            continue
        name = posixpath.basename(rel)
        if not is_trace_name(name) or is_sidecar(PurePosixPath(rel)):
            continue
        folder = _parent(rel)
        stem = name.split(".")[0]
        near = _sidecar_names(listing, folder, stem)
        if folder:
            near += _sidecar_names(listing, _parent(folder), stem)
        planned.append(("file", rel, [rel], near))
    planned.sort(key=lambda p: _walk_key(p[1], p[0] == "trial"))
    return [
        _source(fs, root, files, start + i, kind, rel, fetch, near, False, folder=True)
        for i, (kind, rel, fetch, near) in enumerate(planned)
    ]


def _walk_key(rel: str, folder: bool) -> tuple[tuple[int, str], ...]:
    """The order a folder walk meets a path in: in each folder its files (sorted), then its
    subfolders (sorted), depth first, as ``discover`` walks a local folder."""
    parts = rel.split("/") if rel else []
    last = 1 if folder else 0
    return (*((1, p) for p in parts[:-1]), (last, parts[-1])) if parts else ()


def _ancestry(folder: str) -> list[str]:
    """``a/b/c`` -> ``["", "a", "a/b", "a/b/c"]``: the outermost trial wins, as in a walk."""
    parts = folder.split("/") if folder else []
    return ["/".join(parts[:i]) for i in range(len(parts) + 1)]


# --------------------------------------------------------------------------- on the worker


def _mirror_base(job_token: str) -> Path:
    try:
        from distributed import get_worker

        base = Path(get_worker().local_directory)
    except (ImportError, ValueError):
        base = Path(tempfile.gettempdir())
    return base / f"efc-tui-mirror-{job_token}"


def _fetch(fs: Any, src: str, dest: Path, size: int) -> None:
    if dest.is_file() and dest.stat().st_size == size:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.part")
    try:
        fs.get_file(src, str(tmp))
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def read_remote(
    source: Source,
    job: Job,
    res: SourceResult,
    read_local: Callable[[Path, Job], list[ScoredItem]],
) -> list[ScoredItem]:
    """Fetch a URL source into this worker's mirror, read and score it there (as a local
    path, with ``read_local``: ``tasks``'), then delete the fetched log; every path
    returned names the URL."""
    from efc_tui.parsers import discover

    remote: Remote = source.remote
    base = _mirror_base(job.token) / "m"
    local_root = str(base)

    def shown(text: str) -> str:
        return text.replace(local_root, remote.root_url.rstrip("/"))

    def fetch(items: tuple[tuple[str, int], ...]) -> None:
        for rel, size in items:
            try:
                _fetch(remote.fs, posixpath.join(remote.root, rel), base / rel, size)
            except OSError as exc:
                raise InputError(
                    f"cannot fetch: {exc}", posixpath.join(remote.root_url, rel)
                ) from None

    target = base / remote.rel if remote.rel else base
    # a run's fit source label: the first folder below the URL's folder, as for a local one
    job = replace(job, roots=(local_root,) if remote.folder else ())
    try:
        fetch(remote.sidecars)
        fetch(remote.fetch)
        try:
            if remote.kind == "trial":
                found = discover([target])
                if not found.sources:
                    res.looks_like = "trial"
                    raise UnrecognizedFormat("a trial whose logs no reader recognizes", source.path)
                items = [it for p in found.sources for it in read_local(p, job)]
            else:
                items = read_local(target, job)
        except InputError as exc:
            if isinstance(exc, UnrecognizedFormat) and res.looks_like is None:
                from efc_tui.pipeline.score import looks_like

                res.looks_like = looks_like(target)
            raise type(exc)(
                shown(exc.reason), shown(exc.path) if exc.path else None, exc.line
            ) from None
    finally:
        for rel, _ in remote.fetch:
            with contextlib.suppress(OSError):
                (base / rel).unlink()
        if remote.kind == "trial":
            shutil.rmtree(target, ignore_errors=True)
    for it in items:
        it.source_path = shown(it.source_path) if it.source_path else it.source_path
        it.warnings = [shown(w) for w in it.warnings]
        for key in ("source_path", "success_from"):
            v = it.row.get(key)
            if isinstance(v, str):
                it.row[key] = shown(v)
        if it.document is not None and local_root.encode() in it.document:
            it.document = it.document.replace(
                local_root.encode(), remote.root_url.rstrip("/").encode()
            )
    return items


def clean_mirror(job_token: str) -> None:
    """Remove this worker's mirror of one command (run on every worker at the end)."""
    shutil.rmtree(_mirror_base(job_token), ignore_errors=True)


__all__ = ["MAX_SIDECAR_BYTES", "Remote", "clean_mirror", "is_url", "plan_url", "read_remote"]
