"""How many workers the pool runs: ``jobs`` always, and more while cores sit idle.

Executions that sleep, wait on a subprocess, a socket or the disk leave their core idle;
BigCodeBench has many. So the pool measures, about once a second, what the machine's
cores did (``/proc/stat``: the share of the last interval they were idle, whoever else
runs on the machine) and how much memory is left (``MemAvailable``), and adds a worker
while at least one core sat idle and memory holds twice the largest execution seen so
far (and a margin), up to its ceiling; it lets the last added worker go (after the
execution it runs) once the cores are busy again or memory runs short. Every decision is
made from measurements, none from a guess of what the executions will do.

More executions than cores would make a wall-clock time limit fire earlier; an
execution's clock does not count the time it waits for a CPU (``clock``), so outcomes
stay as they would be with one core each.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

# A worker is added while at least this many cores sat idle over the last interval...
IDLE_TO_ADD = 1.0
# ...and the last added one let go once fewer than this many did.
IDLE_TO_DROP = 0.25
MARGIN_MB = 512.0  # memory kept free beyond twice the largest execution
ASSUMED_PEAK_MB = 256.0  # the largest execution, until one has been measured
INTERVAL_S = 1.0  # between two decisions


@dataclass(frozen=True)
class Reading:
    """What the machine did over one interval."""

    idle_cores: float  # cores idle on average (0 to the number of cores)
    available_mb: float  # memory left (MemAvailable), at its end


def wanted(running: int, floor: int, ceiling: int, reading: Reading, peak_mb: float) -> int:
    """How many workers to run next, given ``running`` now: one more, one fewer or the
    same (never below ``floor`` or above ``ceiling``)."""
    need_mb = 2 * max(peak_mb, ASSUMED_PEAK_MB) + MARGIN_MB
    if running < ceiling and reading.idle_cores >= IDLE_TO_ADD and reading.available_mb >= need_mb:
        return running + 1
    if running > floor and (
        reading.idle_cores < IDLE_TO_DROP or reading.available_mb < need_mb / 2
    ):
        return running - 1
    return max(floor, min(running, ceiling))


class Gauge:
    """Reads the machine's cores and memory; each ``read`` covers the time since the last."""

    def __init__(self) -> None:
        self._last = _cpu_times()

    def read(self) -> Reading | None:
        """The last interval's reading; None where ``/proc`` does not tell (no decisions
        are made then: the pool keeps its floor)."""
        now = _cpu_times()
        last, self._last = self._last, now
        available = _available_mb()
        if now is None or last is None or available is None:
            return None
        idle = now[0] - last[0]
        total = now[1] - last[1]
        if total <= 0:
            return None
        # /proc/stat's first line sums every online CPU of the machine
        return Reading(idle_cores=(os.cpu_count() or 1) * idle / total, available_mb=available)


def _cpu_times() -> tuple[int, int] | None:
    """The machine's idle time (idle and waiting for I/O) and its total, in ticks."""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/stat") as fh:
        fields = [int(n) for n in fh.readline().split()[1:]]
        # user nice system idle iowait irq softirq steal (guest times are inside user)
        return fields[3] + fields[4], sum(fields[:8])
    return None


def _available_mb() -> float | None:
    with contextlib.suppress(OSError, ValueError), open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return None
