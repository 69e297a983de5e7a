"""cpus.available_cpus: the CPU affinity and the control groups' CPU quotas (v2 and v1),
read from fake cgroup trees laid out as the kernel mounts them."""

from __future__ import annotations

from pathlib import Path

import pytest

from efc_tui import cpus
from efc_tui.cpus import available_cpus, cgroup_quota
from efc_tui.pipeline.score import default_jobs


def _files(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _v1(group: str, quota: str) -> dict[str, str]:
    """A v1 group's two files (period 100 ms), ``group`` the path under the cgroup root."""
    return {f"{group}/cpu.cfs_quota_us": f"{quota}\n", f"{group}/cpu.cfs_period_us": "100000\n"}


def _own(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "self-cgroup"
    p.write_text(text)
    return p


def test_v2_quota_of_own_group_rounded_up(tmp_path: Path) -> None:
    root = _files(
        tmp_path / "cg",
        {"cgroup.controllers": "cpu memory\n", "ci/job/cpu.max": "150000 100000\n"},
    )
    assert cgroup_quota(root, _own(tmp_path, "0::/ci/job\n")) == 2  # 1.5 CPUs -> 2


def test_v2_smallest_quota_on_the_way_up(tmp_path: Path) -> None:
    root = _files(
        tmp_path / "cg",
        {
            "cgroup.controllers": "cpu\n",
            "a/cpu.max": "300000 100000\n",  # the slice: 3 CPUs
            "a/b/cpu.max": "max 100000\n",  # the job itself: no limit of its own
        },
    )
    assert cgroup_quota(root, _own(tmp_path, "0::/a/b\n")) == 3


def test_v2_container_sees_its_group_as_the_root(tmp_path: Path) -> None:
    # in a cgroup namespace the group is "/" and its cpu.max lies at the mount itself; a
    # path the container cannot see (no cgroup namespace) falls back to the mount too
    root = _files(tmp_path / "cg", {"cgroup.controllers": "cpu\n", "cpu.max": "200000 100000"})
    assert cgroup_quota(root, _own(tmp_path, "0::/\n")) == 2
    assert cgroup_quota(root, _own(tmp_path, "0::/docker/0123abcd\n")) == 2


def test_v2_no_limit(tmp_path: Path) -> None:
    root = _files(tmp_path / "cg", {"cgroup.controllers": "cpu\n", "u/cpu.max": "max 100000\n"})
    assert cgroup_quota(root, _own(tmp_path, "0::/u\n")) is None


def test_v1_quota_and_the_unlimited_minus_one(tmp_path: Path) -> None:
    root = _files(
        tmp_path / "cg", {**_v1("cpu,cpuacct", "-1"), **_v1("cpu,cpuacct/kubepods/pod1", "400000")}
    )
    own = _own(tmp_path, "12:memory:/kubepods/pod1\n4:cpu,cpuacct:/kubepods/pod1\n0::/\n")
    assert cgroup_quota(root, own) == 4
    assert cgroup_quota(root, _own(tmp_path, "4:cpu,cpuacct:/\n")) is None


def test_hybrid_host_reads_v1(tmp_path: Path) -> None:
    # this machine's layout: v1 controllers, the v2 tree under unified/, "0::/" listed
    root = _files(tmp_path / "cg", {**_v1("cpu", "250000"), "unified/cgroup.controllers": "\n"})
    assert cgroup_quota(root, _own(tmp_path, "1:cpu:/\n0::/\n")) == 3


@pytest.mark.parametrize(
    "text", ["", "garbage", "0 100000", "-5 100000", "12x 100000", "100000 0", "1 100000"]
)
def test_v2_odd_files_set_no_limit_or_at_least_one(tmp_path: Path, text: str) -> None:
    root = _files(tmp_path / "cg", {"cgroup.controllers": "cpu\n", "cpu.max": text})
    got = cgroup_quota(root, _own(tmp_path, "0::/\n"))
    assert got == (1 if text == "1 100000" else None)  # a sliver of a CPU is still one


def test_a_huge_quota_is_no_limit_worth_a_float(tmp_path: Path) -> None:
    root = _files(tmp_path / "cg", {"cgroup.controllers": "cpu\n", "cpu.max": "9" * 400 + " 1"})
    assert cgroup_quota(root, _own(tmp_path, "0::/\n")) == int("9" * 400)
    assert available_cpus(root, _own(tmp_path, "0::/\n")) == available_cpus(tmp_path / "none")


def test_a_folder_it_may_not_look_into_sets_no_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _files(tmp_path / "cg", {"cgroup.controllers": "cpu\n", "cpu.max": "100000 100000"})
    own = _own(tmp_path, "0::/\n")
    affinity = available_cpus(tmp_path / "none", tmp_path / "none")  # no cgroup: the affinity

    def denied(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "is_file", denied)
    assert available_cpus(root, own) == affinity  # the 1-CPU quota could not be read


def test_nothing_to_read(tmp_path: Path) -> None:
    assert cgroup_quota(tmp_path / "none", tmp_path / "no-such-file") is None


def test_available_is_the_smaller_of_affinity_and_quota(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _files(tmp_path / "cg", {"cgroup.controllers": "cpu\n", "cpu.max": "200000 100000"})
    own = _own(tmp_path, "0::/\n")
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert available_cpus(root, own) == 2  # a 64-core host, a 2-CPU container
    monkeypatch.setattr(cpus.os, "sched_getaffinity", lambda pid: {5}, raising=False)
    assert available_cpus(root, own) == 1  # pinned to one core
    monkeypatch.delattr(cpus.os, "sched_getaffinity", raising=False)  # macOS, Windows
    monkeypatch.setattr(cpus.os, "cpu_count", lambda: None)
    assert available_cpus(tmp_path / "none", tmp_path / "none") == 1


def test_score_default_jobs_is_available_cpus() -> None:
    assert default_jobs() == available_cpus() >= 1
