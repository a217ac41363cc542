"""The processes the env side forks, and the environment every execution sees.

A zygote, a worker, an execution's process, a fork probe: each is forked the one way
``fork`` does it, dies with the process that forked it, and holds none of that process's
descriptors but those it is given.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from typing import Callable, Sequence

from . import sandbox


def fork(
    body: Callable[[], None], close: Sequence[int] = (), cover: Sequence[int] = (), status: int = 0
) -> int:
    """Fork a child that dies with this process, runs ``body`` and leaves with ``status``
    (or sooner, by ``os._exit``); return its pid.

    In the child ``close`` are closed and ``cover`` are pointed at /dev/null: those are
    owned by a file object, whose finalizer would one day close whatever reused the number
    (the guard's pipe, say) if they were closed under it.
    """
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # or the child would write what is buffered a second time
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:  # pragma: no cover - runs in the child
        sandbox.die_with_parent(parent)
        for fd in close:
            with contextlib.suppress(OSError):
                os.close(fd)
        if cover:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in cover:
                with contextlib.suppress(OSError):
                    os.dup2(devnull, fd)
            os.close(devnull)
        body()
    finally:
        os._exit(status)


def exit_watch(pid: int) -> int | None:
    """A descriptor that becomes readable once our child ``pid`` has ended (a pidfd), or
    None where there is none (Python < 3.9, Linux < 5.3): then its parent polls."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd: int = opener(pid)
    except OSError:
        return None
    return fd


def children() -> list[int]:
    """Our child processes, from /proc (Linux); [] where that cannot be read."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open("/proc/self/task/%s/children" % task) as fh:
                found.extend(int(p) for p in fh.read().split())
    return found


def reap_strays(known: Sequence[int] = ()) -> None:
    """Kill what an execution left behind: we are a subreaper, so its orphans (even those
    in sessions of their own) became our children. Only children we did not start."""
    for pid in children():
        if pid not in known:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)


_ENVIRONMENT = {
    "PYTHONHASHSEED": "0",  # set and dict order of strings repeat from run to run
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "MPLBACKEND": "Agg",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    # One thread per execution: results do not depend on the core count, and
    # parallel executions do not fight over the same cores.
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def child_environment() -> dict[str, str]:
    """The environment executions see: ours, minus anything that redirects Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(_ENVIRONMENT)
    return env


def in_child_environment() -> bool:
    return all(os.environ.get(k) == v for k, v in _ENVIRONMENT.items())


EXIT_WAIT = 0.05  # seconds to wait for killed processes before reading the cgroup again
_WAIT_AT_MOST = 16  # more killed than this (a fork bomb): the 2 ms sleep, as before


def await_exits(pids: Sequence[int], timeout: float) -> None:
    """Wait until the processes ``pids`` have exited, or ``timeout``: on their pidfds,
    which are readable once a process has left its cgroups (they leave in ``do_exit``,
    before they are reaped). Else (no pidfds, or a fork bomb's many) 2 ms, the time a
    killed process was given before. The caller reads the cgroup again either way: this
    only says when."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None or len(pids) > _WAIT_AT_MOST:  # Python < 3.9; or too many to watch
        time.sleep(0.002)
        return
    fds = []
    try:
        for pid in pids:
            try:
                fds.append(opener(pid))
            except ProcessLookupError:
                continue  # gone already
            except OSError:  # no pidfds here (Linux < 5.3)
                time.sleep(0.002)
                return
        watch = select.poll()  # not select(): no limit on descriptor numbers
        for fd in fds:
            watch.register(fd, select.POLLIN)
        end = time.monotonic() + timeout
        waiting = len(fds)
        while waiting:
            left = end - time.monotonic()
            if left <= 0:
                return
            for fd, _ in watch.poll(left * 1000):
                watch.unregister(fd)
                waiting -= 1
    finally:
        for fd in fds:
            os.close(fd)
