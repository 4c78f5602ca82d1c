"""The CPU quota of the control group attn runs in: how many processors' worth of time it may use.

/proc/self/cgroup names the group of each hierarchy: cgroup v2's line is `0::/path`, whose quota is
/sys/fs/cgroup/<path>/cpu.max ("quota period", or "max period"); cgroup v1's cpu controller has a
line such as `4:cpu,cpuacct:/path`, its quota in /sys/fs/cgroup/cpu,cpuacct/<path>/ as
cpu.cfs_quota_us (-1: none) over cpu.cfs_period_us. The kernel holds a group to its own quota and
to each ancestor's, so the folders are read from the group up to the hierarchy's root and the
tightest quota counts. A container often sees its own group as the root (its path in
/proc/self/cgroup then names no folder it can see): the walk up reaches the root, which is that
group. The two paths are module constants, so a test can point them at a tree of its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

PROC_CGROUP = Path("/proc/self/cgroup")
CGROUP_ROOT = Path("/sys/fs/cgroup")


def cpu_quota() -> float | None:
    """The processors' worth of time the control group and its ancestors allow (1.5: one and a
    half), the tightest of their quotas; None when there is none or none can be read."""
    quotas = [quota for kind, folder in cpu_folders()
              if (quota := folder_quota(kind, folder)) is not None]
    return min(quotas, default=None)


def cpu_folders() -> Iterator[tuple[str, Path]]:
    """("v2" or "v1", folder) for each folder whose quota applies: the group's, then each
    ancestor's up to the root. Without /proc/self/cgroup, the roots alone."""
    try:
        lines = PROC_CGROUP.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    if not lines:
        yield from (("v2", CGROUP_ROOT), ("v1", CGROUP_ROOT / "cpu"))
        return
    for line in lines:
        number, controllers, path = [*line.split(":", 2), "", ""][:3]
        if number == "0" and controllers == "":
            yield from ancestors("v2", CGROUP_ROOT, path)
        elif "cpu" in controllers.split(","):
            mount = CGROUP_ROOT / controllers  # "cpu,cpuacct"; "cpu" is often a link to it
            yield from ancestors("v1", mount if mount.is_dir() else CGROUP_ROOT / "cpu", path)


def ancestors(kind: str, root: Path, path: str) -> Iterator[tuple[str, Path]]:
    """`root`/`path` and each folder above it up to `root`, deepest first. A path outside the
    group's view (`/../..` under a cgroup namespace) is read at the root alone."""
    parts = [part for part in path.split("/") if part and part != "."]
    if ".." in parts:
        parts = []
    for depth in range(len(parts), -1, -1):
        yield kind, root.joinpath(*parts[:depth])


def folder_quota(kind: str, folder: Path) -> float | None:
    """The quota one folder sets, in processors; None when it sets none or cannot be read."""
    with contextlib.suppress(OSError, ValueError, ZeroDivisionError):
        if kind == "v2":
            quota, period = (folder / "cpu.max").read_text(encoding="ascii").split()[:2]
            return None if quota == "max" else int(quota) / int(period)
        quota_us = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii"))
        period_us = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii"))
        return quota_us / period_us if quota_us > 0 and period_us > 0 else None
    return None
