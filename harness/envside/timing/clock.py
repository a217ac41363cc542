"""An execution's clock: its wall time, less the time it waited for a CPU while the pool
ran more executions than cores.

With more executions at once than cores (the pool adds workers while executions sleep or
wait, ``cores``), an execution that would have finished in time with a core of its own
may be killed while it waits on a run queue: a time limit on the wall clock alone would
change outcomes. So when its wall-clock deadline comes, and the pool has run more
workers than cores since the execution started, the supervisor asks how long the
execution's processes were held back (runnable, but not running: Linux's ``schedstat``)
and moves the deadline by that much, again and again, up to ``WALL_BOUND`` times the
limit on the wall clock: a machine so loaded that an execution gets less than half a
core still ends each one, and a fork bomb, whose own processes hold each other back,
runs at most that long.

The workers counted are the batch's (``pool.Census``): a group's last executions and the
next group's first run side by side in two pools. When the batch runs no more workers
than cores the limit is the wall clock, exactly as with a fixed ``-j``. An execution that
sleeps, waits on a subprocess or the network is not held back while it does: its clock
is the wall clock then too.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterable

# The wall-clock time an execution may take, at most, as a multiple of its time limit.
WALL_BOUND = 2.0
# The processes of an execution whose waits are read, at most (besides its own).
READ_AT_MOST = 16


def run_delay(pid: int) -> float:
    """The longest time any thread of process ``pid`` has waited on a run queue (seconds;
    0 where the kernel does not say or the process has gone)."""
    longest = 0
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/%d/task" % pid):
            path = "/proc/%d/task/%s/schedstat" % (pid, task)
            with contextlib.suppress(OSError, ValueError, IndexError), open(path) as fh:
                longest = max(longest, int(fh.read().split()[1]))
    return longest / 1e9


def held_back(pids: Iterable[int]) -> float:
    """How long the execution made of ``pids`` was held back: the longest wait of any of
    its threads (its processes run side by side, so their waits overlap, not add)."""
    return max((run_delay(pid) for pid in set(pids)), default=0.0)


def deadline(start: float, limit: float, waited: float) -> float:
    """The deadline of an execution started at ``start`` with a time limit of ``limit``
    that has waited ``waited`` seconds for a CPU: never beyond ``WALL_BOUND`` limits."""
    return min(start + limit + waited, start + WALL_BOUND * limit)
