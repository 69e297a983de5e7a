"""How many CPUs this process may use: the one answer for every default that sizes a pool
(``score --jobs``, the picker's readers, a local Dask cluster, the fit's bootstrap threads).

``os.cpu_count()`` counts the machine's cores, which overcounts twice over in the places
efc-tui runs in CI: a process pinned to some cores (``taskset``, a container's cpuset)
may run on those only, and a container or systemd slice with a CPU quota (``docker
--cpus=2``, a Kubernetes limit) gets that many cores' worth of time however many the
machine has. A pool sized to a 64-core host in a 2-CPU container runs 64 processes on two
cores' time: slower than two, with 32 times the memory. So the answer is the smallest of

- the cores in this process's CPU affinity (``os.sched_getaffinity``), else the machine's;
- the CPU quota of this process's control group and of each group above it that the
  process can see, rounded up (cgroup v2 ``cpu.max``: ``"200000 100000"`` = 2 CPUs,
  ``"max 100000"`` = no limit; cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``,
  ``-1`` = no limit).

What cannot be read (no such files: macOS, Windows, a container without its cgroup
mounted) sets no limit. The result is at least 1.
"""

from __future__ import annotations

import os
from pathlib import Path

#: where the kernel mounts the control groups (cgroup v2: one tree; v1: a tree per controller)
CGROUP_ROOT = Path("/sys/fs/cgroup")


def available_cpus(root: Path = CGROUP_ROOT, own: Path = Path("/proc/self/cgroup")) -> int:
    """The CPUs this process may use (module docstring); ``root`` and ``own``: the cgroup
    mount and this process's ``/proc/self/cgroup`` (others in tests)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota = cgroup_quota(root, own)
    except OSError:  # a cgroup folder this process may not look into (EACCES on stat)
        quota = None
    if quota is not None:
        cores = min(cores, quota)
    return max(1, cores)


def cgroup_quota(root: Path = CGROUP_ROOT, own: Path = Path("/proc/self/cgroup")) -> int | None:
    """The smallest CPU quota, in whole CPUs rounded up, of this process's control group
    and the groups above it (v2, else v1); None when none sets one or none can be read."""
    try:
        lines = own.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    v2 = v1 = None
    for line in lines:  # "0::/a/b" (v2), "4:cpu,cpuacct:/a/b" (v1)
        hierarchy, _, rest = line.partition(":")
        controllers, colon, path = rest.partition(":")
        if not colon:
            continue
        if hierarchy == "0" and not controllers:
            v2 = path
        elif "cpu" in controllers.split(","):
            v1 = (controllers, path)
    found: list[int | None] = []
    if (root / "cgroup.controllers").is_file():  # cgroup v2 mounted at the root
        found = [_v2_limit(group / "cpu.max") for group in _up_from(root, v2 or "/")]
    else:
        names = [v1[0]] if v1 else []
        for name in [*names, "cpu,cpuacct", "cpu"]:
            mount = root / name
            if (mount / "cpu.cfs_quota_us").is_file():
                found = [_v1_limit(group) for group in _up_from(mount, v1[1] if v1 else "/")]
                break
    limits = [n for n in found if n is not None]
    return min(limits) if limits else None


def _up_from(mount: Path, path: str) -> list[Path]:
    """The group at ``path`` under ``mount`` and each group above it, up to the mount (a
    container sees its own group as ``/``; groups it cannot see are left out)."""
    parts = [p for p in path.split("/") if p and p not in (".", "..")]
    return [mount.joinpath(*parts[:k]) for k in range(len(parts), -1, -1)]


def _v2_limit(cpu_max: Path) -> int | None:
    try:
        fields = cpu_max.read_text(encoding="ascii", errors="replace").split()
    except OSError:
        return None
    if not fields:
        return None
    return _limit(fields[0], fields[1] if len(fields) > 1 else "100000")


def _v1_limit(group: Path) -> int | None:
    try:
        quota = (group / "cpu.cfs_quota_us").read_text(encoding="ascii", errors="replace")
        period = (group / "cpu.cfs_period_us").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return _limit(quota.strip(), period.strip())


def _limit(quota: str, period: str) -> int | None:
    """``ceil(quota / period)``, or None for no limit (``max``, ``-1``) or unreadable text."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    if q <= 0 or p <= 0:
        return None
    return max(1, -(-q // p))  # (integers: a quota of 400 digits is no float)
