"""Which folders may be watched: never a virtual or device file system (``/proc``, ``/sys``, ``/dev``).

Those hold no documents, only endless or live "files" (37,639 queued from ``/proc`` in issue 21's test).
A folder is refused when it lies under one of the system paths below, or when the file system mounted
under it (``psutil.disk_partitions``, the mount table) is of a virtual or device type.
"""

from __future__ import annotations

from pathlib import Path

import psutil

__all__ = ["virtual_file_system"]

SYSTEM_PATHS = tuple(Path(p) for p in ("/proc", "/sys", "/dev"))
VIRTUAL_TYPES = frozenset(
    {
        "proc", "sysfs", "devtmpfs", "devpts", "devfs", "debugfs", "tracefs", "securityfs", "cgroup",
        "cgroup2", "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc",
        "efivarfs", "nsfs", "rpc_pipefs", "selinuxfs", "autofs", "fdescfs", "procfs", "kernfs",
    }
)  # fmt: skip


def _mount_type(path: Path) -> str | None:
    """The type of the file system ``path`` lies on (the longest mount point above it), if known."""
    try:
        mounts = psutil.disk_partitions(all=True)
    except (OSError, RuntimeError):
        return None
    best: tuple[int, str] | None = None
    for m in mounts:
        point = Path(m.mountpoint)
        if path == point or path.is_relative_to(point):
            depth = len(point.parts)
            if best is None or depth > best[0]:
                best = (depth, m.fstype)
    return best[1] if best else None


def virtual_file_system(path: Path) -> str | None:
    """Why ``path`` (resolved) is no folder of documents (a sentence), or None when it may be one."""
    for system in SYSTEM_PATHS:
        if path == system or path.is_relative_to(system):
            return f"{path} is part of the system's {system} (not documents); choose a folder of documents."
    kind = _mount_type(path)
    if kind is not None and kind.lower() in VIRTUAL_TYPES:
        return f"{path} is on a '{kind}' file system (the system's, not documents); choose a folder of documents."
    return None
