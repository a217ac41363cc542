"""The results directory as a workspace: one writer at a time, and room to write.

Both checks run before any environment is built or any problem is run, so that a run
that cannot keep its results says so at once instead of after an hour of work.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
from typing import TYPE_CHECKING

from harness.core.errors import HarnessError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

LOCK_NAME = ".harness.lock"
# A run writes outcomes, reports and a copy of the answers: a few MiB for DS-1000 over
# a handful of combos. Below this, a run would fail part way through.
MIN_FREE_MB = 64
_PROBE_BYTES = 1024 * 1024


class WorkspaceError(HarnessError):
    """The results directory cannot be used (busy, unwritable or full)."""


def check_writable(root: Path, min_free_mb: int = MIN_FREE_MB) -> None:
    """Fail unless ``root`` can be created and written, with ``min_free_mb`` to spare."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceError(
            str(root), None, f"cannot create the results directory: {exc.strerror}"
        ) from None
    free_mb = shutil.disk_usage(root).free // (1024 * 1024)
    if free_mb < min_free_mb:
        raise WorkspaceError(
            str(root), None, f"only {free_mb} MiB free; a run needs at least {min_free_mb} MiB"
        )
    probe = root / f".harness-write-probe-{os.getpid()}"
    try:
        # A real write of real size, flushed to disk: permissions, a read-only mount,
        # a full disk or quota all show here.
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            written = os.write(fd, b"\0" * _PROBE_BYTES)
            if written < _PROBE_BYTES:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        reason = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc.strerror
        raise WorkspaceError(str(root), None, f"cannot write results here: {reason}") from None
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()


@contextlib.contextmanager
def exclusive(root: Path, what: str) -> Iterator[None]:
    """Hold the results directory for one run; refuse if another run holds it.

    An advisory lock (flock) on ``<root>/.harness.lock``: the kernel drops it when the
    holder dies, so a killed run never leaves a stale lock behind.
    """
    root.mkdir(parents=True, exist_ok=True)
    path = root / LOCK_NAME
    handle = path.open("a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another harness process"
            raise WorkspaceError(
                str(root),
                None,
                f"in use by {holder}; wait for it to finish or pass another --results",
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} ({what})\n")
        handle.flush()
        yield
    finally:
        handle.close()
