"""The cgroups of a worker's executions: a cap on tasks where RLIMIT_NPROC has none
(root), a fair share of CPU, and emptying them between executions.

Runs under the combo's interpreter (standard library only, Linux, Python 3.8+); where
cgroups are not writable (an unprivileged run without delegation) nothing here is made,
and the sandbox caps tasks with RLIMIT_NPROC instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Sequence

from .processes import EXIT_WAIT, await_exits

# -- cgroups: a cap on tasks where RLIMIT_NPROC has none (root), a fair share of CPU ----

_PIDS_ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")  # cgroup v1, then v2
_CPU_ROOTS = ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct")  # v1 (v2: same as pids)


def _new_cgroup(roots: tuple[str, ...], name: str, settings: dict[str, str]) -> str | None:
    for root in roots:
        path = os.path.join(root, name)
        try:
            os.mkdir(path)
        except OSError:
            continue
        try:
            for key, value in settings.items():
                with open(os.path.join(path, key), "w") as fh:
                    fh.write(value)
        except OSError:
            with contextlib.suppress(OSError):
                os.rmdir(path)
        else:
            return path
    return None


def execution_cgroups(name: str, max_tasks: int) -> list[str]:
    """New cgroups for one execution: at most ``max_tasks`` tasks (RLIMIT_NPROC does
    not bind root), and a CPU share of its own, so that a fork bomb starves nobody but
    itself. Empty where we may not make cgroups."""
    made = []
    pids = _new_cgroup(_PIDS_ROOTS, name, {"pids.max": str(max_tasks)})
    if pids:
        made.append(pids)
        if os.path.dirname(pids) not in _PIDS_ROOTS[1:]:  # v1: cpu is a hierarchy of its own
            cpu = _new_cgroup(_CPU_ROOTS, name, {})
            if cpu:
                made.append(cpu)
    return made


def sweep_cgroups(prefix: str = "harness-", older_than_s: float = 600.0) -> int:
    """Remove the empty cgroups a killed run left behind (it could not release them).

    Only ones untouched for ``older_than_s``: a run starting beside this one may have
    made a cgroup its execution has not joined yet. A cgroup with processes in it cannot
    be removed, so a live execution's never is."""
    import time

    removed = 0
    now = time.time()
    for root in _PIDS_ROOTS + _CPU_ROOTS:
        try:
            names = [n for n in os.listdir(root) if n.startswith(prefix)]
        except OSError:
            continue
        for name in names:
            path = os.path.join(root, name)
            try:
                if now - os.stat(path).st_mtime < older_than_s:
                    continue
                os.rmdir(path)
                removed += 1
            except OSError:
                continue
    return removed


def processes_in(path: str) -> list[int]:
    """The processes of the cgroup at ``path`` ([] where it cannot be read)."""
    try:
        with open(os.path.join(path, "cgroup.procs")) as fh:
            return [int(p) for p in fh.read().split()]
    except (OSError, ValueError):
        return []


def empty_cgroup(path: str, keep: Sequence[int]) -> None:
    """Kill every process of the cgroup but those in ``keep``, and wait (briefly) until
    they are gone."""
    import time

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(os.path.join(path, "cgroup.procs")) as fh:
                pids = [int(p) for p in fh.read().split() if int(p) not in keep]
        except OSError:
            return
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        await_exits(pids, min(EXIT_WAIT, max(0.0, deadline - time.monotonic())))


def remove_cgroups(prefix: str) -> list[str]:
    """Kill what is in the cgroups named ``prefix...`` and remove them; returns those that
    could not be removed yet (their last processes still exiting)."""
    left = []
    for root in _PIDS_ROOTS + _CPU_ROOTS:
        try:
            names = [n for n in os.listdir(root) if n.startswith(prefix)]
        except OSError:
            continue
        for name in names:
            path = os.path.join(root, name)
            if not release_cgroup(path):
                left.append(path)
    return left


def join_cgroup(path: str) -> None:
    with open(os.path.join(path, "cgroup.procs"), "w") as fh:
        fh.write(str(os.getpid()))


def release_cgroup(path: str) -> bool:
    """Kill whatever is still in the cgroup, then remove it; False while it cannot be
    removed yet (its last processes are still exiting): call again later."""
    try:
        with open(os.path.join(path, "cgroup.procs")) as fh:
            pids = [int(p) for p in fh.read().split()]
    except OSError:
        return not os.path.isdir(path)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True
