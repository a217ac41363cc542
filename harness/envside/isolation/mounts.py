"""The kernel calls a sandbox is made of: namespaces, mounts, the root's pivot.

Thin wrappers over libc (through ctypes, standard library only) that raise a
``SandboxError`` naming the step that failed. ``sandbox`` makes an execution's sandbox
with them and ``view`` its filesystem.
"""

from __future__ import annotations

import ctypes
import os
import platform
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
# the flags a bind mount keeps from its source: a remount must repeat them, or a process
# in a user namespace is refused (it may not clear what a more privileged one set)
_KEPT = {
    os.ST_NOSUID: MS_NOSUID,
    os.ST_NODEV: MS_NODEV,
    os.ST_NOEXEC: MS_NOEXEC,
    getattr(os, "ST_NOATIME", 1024): 1024,  # MS_NOATIME
    getattr(os, "ST_NODIRATIME", 2048): 2048,  # MS_NODIRATIME
    getattr(os, "ST_RELATIME", 4096): 1 << 21,  # MS_RELATIME
}
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # syscall numbers (glibc has no wrapper)


class SandboxError(OSError):
    """The sandbox could not be set up; the message says which step."""


_libc: Any = None


def libc() -> Any:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise SandboxError(errno, "%s: %s" % (what, os.strerror(errno)))


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    check(
        libc().mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        "mount %s" % target,
    )


def read_only(point: str) -> None:
    """Remount the mount at ``point`` read-only, keeping the flags it has."""
    flags = MS_BIND | MS_REMOUNT | MS_RDONLY
    kept = os.statvfs(point).f_flag
    for stat_flag, mount_flag in _KEPT.items():
        if kept & stat_flag:
            flags |= mount_flag
    mount(None, point, None, flags)


def unshare(flags: int, what: str = "unshare") -> None:
    check(libc().unshare(flags), what)


def pivot_root(new_root: str, put_old: str) -> None:
    """Make ``new_root`` this mount namespace's root; the old one moves to ``put_old``."""
    number = _PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise SandboxError(0, "pivot_root: unknown on %s" % platform.machine())
    check(libc().syscall(number, new_root.encode(), put_old.encode()), "pivot_root")


def detach(target: str) -> None:
    """Unmount ``target`` and everything under it, even while in use."""
    check(libc().umount2(target.encode(), MNT_DETACH), "umount %s" % target)


def mount_points() -> list[str]:
    """The mount points this process sees, from its mountinfo."""
    points = []
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) > 4:
                points.append(fields[4].encode().decode("unicode_escape"))
    return points
