"""The worker pool: executions run to the end on ``jobs`` workers or more, one at a time each.

Each worker is a fork of the scheduler (a zygote, or the runner itself in fresh mode)
that lives in a pids and a cpu cgroup of its own (where the machine lets us make them), so
that the executions it forks are born in them: moving a process between cgroups costs the
kernel an RCU grace period (up to ~10 ms, during which every fork on the machine waits),
and a cgroup made and removed per execution paid that twice for every execution.

Workers take execution numbers from one pipe (``WORK``: a pipe never splits so small a
write) and report on pipes of their own (:class:`Reports`). A worker that dies (an
execution killed it) is replaced while work remains; what it was running is a crash.
What a worker does with a number is the scheduler's (``serve``).

While cores sit idle (executions that sleep or wait) the pool runs more workers than
``jobs``, up to its ceiling, and lets the added ones go when the cores are busy again
(``cores`` decides; ``clock`` keeps their waiting for a CPU off executions' time limits).
How many may take work is a number in memory shared with the workers: one whose slot is
beyond it ends after the execution it runs.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import selectors
import struct
import time
from typing import TYPE_CHECKING, Callable

from ..bridge.wire import JsonLines
from ..isolation import cgroups
from ..isolation.processes import fork
from ..protocol import CRASH, OutcomeLine, Record, outcome_line
from . import cores

if TYPE_CHECKING:
    from .supervisor import Emit

WORK = struct.Struct("<I")  # an execution's index in the batch, on the work pipe
_STARTED = "started"  # a report line: the execution a worker has taken
_PEAK = "peak_mb"  # a report line: how much memory its last execution held at most
_CGROUPS = "harness-%d-slot"  # the cgroups of a pool's workers, by the pool's pid


def cgroup_name(slot: int) -> str:
    """The name of the cgroups of the worker of ``slot``, in that worker."""
    return (_CGROUPS + "%d-%d") % (os.getppid(), slot, os.getpid())


def work_waiting(work_r: int) -> bool:
    """Whether execution numbers wait in the work pipe (its read end), unread."""
    import fcntl
    import termios

    try:
        waiting = fcntl.ioctl(work_r, termios.FIONREAD, b"\0\0\0\0")
    except OSError:
        return False
    return bool(struct.unpack("i", waiting)[0])


class Reports:
    """A worker's side of its report pipe: which execution it took, and how each ended."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._out = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def started(self, index: int) -> None:
        self._out.write(json.dumps({_STARTED: index}) + "\n")

    def peak(self, megabytes: float) -> None:
        """The most memory the last execution's process held (its peak resident size)."""
        self._out.write(json.dumps({_PEAK: round(megabytes, 1)}) + "\n")

    def outcome(self, index: int, record: Record) -> None:
        self._out.write(outcome_line(index, record))

    def flush(self) -> None:
        self._out.flush()


class Census:
    """How many workers each pool of a batch runs, and when the batch last ran more of
    them than the machine has cores, in memory every pool shares (made before the
    processes that run the pools are forked).

    The pools of a batch overlap: the next group's zygote starts its workers while the
    last executions of the one before finish (``scheduler``). Whether an execution may
    have waited for a CPU because of us is a question about the whole batch, not its
    own pool. Each pool writes only its own place; anyone reads them all.
    """

    _PLACE = struct.Struct("<Id")  # live workers, the monotonic time last seen crowded

    def __init__(self, pools: int = 1) -> None:
        self._pools = max(1, pools)
        self._memory = mmap.mmap(-1, self._PLACE.size * self._pools)
        self._cores = os.cpu_count() or 1

    def _places(self) -> list[tuple[int, float]]:
        return [
            self._PLACE.unpack_from(self._memory, member * self._PLACE.size)
            for member in range(self._pools)
        ]

    def total(self) -> int:
        """The workers every pool runs now."""
        return sum(live for live, _ in self._places())

    def count(self, member: int, live: int) -> None:
        """Pool ``member`` runs ``live`` workers from now on. The crowded time moves to now
        when the batch ran more workers than cores just before or runs them just after."""
        offset = (member % self._pools) * self._PLACE.size
        was, last = self._PLACE.unpack_from(self._memory, offset)
        before = self.total()
        if max(before, before - was + live) > self._cores:
            last = time.monotonic()
        self._PLACE.pack_into(self._memory, offset, live, last)

    def crowded_since(self, start: float) -> bool:
        """Whether the batch has run more workers than cores at any time since ``start``
        (a monotonic time), or does now."""
        places = self._places()
        return sum(live for live, _ in places) > self._cores or any(
            last >= start for _, last in places
        )


class Share:
    """What a pool tells its workers through memory they share with it: how many of them
    may take work (slots 0 to size - 1), and, through the batch's census, whether the
    batch ran more workers than cores while an execution ran (it may have waited for a
    CPU because of it)."""

    _SIZE = struct.Struct("<B")

    def __init__(self, size: int, census: Census | None = None) -> None:
        self._memory = mmap.mmap(-1, self._SIZE.size)
        self.census = census if census is not None else Census()
        self.size = size

    @property
    def size(self) -> int:
        """How many workers may take work (slots 0 to size - 1)."""
        return int(self._SIZE.unpack_from(self._memory)[0])

    @size.setter
    def size(self, value: int) -> None:
        self._SIZE.pack_into(self._memory, 0, value)

    def more(self, slot: int) -> bool:
        """Whether the worker of ``slot`` may take another execution."""
        return slot < self.size

    def crowded_since(self, start: float) -> bool:
        """Whether the batch has run more workers than cores since ``start``, or does now."""
        return self.census.crowded_since(start)


# What a worker does: (its slot, the read end of the work pipe, its reports, what the
# pool shares with it).
Serve = Callable[[int, int, Reports, Share], None]


def drain(
    indices: list[int],
    jobs: int,
    serve: Serve,
    emit: Emit,
    ceiling: int = 0,
    gauge: cores.Gauge | None = None,
    census: Census | None = None,
    member: int = 0,
    tail: Callable[[int], None] | None = None,
) -> None:
    """Run the executions ``indices`` on ``jobs`` workers, and on up to ``ceiling`` while
    cores sit idle (as ``gauge`` reads them); emit each outcome they report.

    ``census`` counts this pool's workers as its ``member`` among the batch's pools.
    Once every execution has been taken, ``tail`` hears how many workers still run, each
    time that changes (the scheduler starts the next pool by it)."""
    if not indices:
        return
    floor = min(jobs, len(indices))
    ceiling = max(floor, min(ceiling, len(indices), 255))
    pool = _Pool(serve, floor, census if census is not None else Census(), member)
    told = -1  # the number of workers last told to ``tail``
    if ceiling > floor and gauge is None:
        gauge = cores.Gauge()
    feed = b"".join(WORK.pack(index) for index in indices)
    selector = selectors.DefaultSelector()
    os.set_blocking(pool.work_w, False)
    selector.register(pool.work_w, selectors.EVENT_WRITE, None)
    for slot in range(pool.size):
        selector.register(pool.spawn(slot), selectors.EVENT_READ, slot)
    decided = time.monotonic()
    while pool.alive:
        tick = None
        if ceiling > floor:
            tick = max(0.0, decided + cores.INTERVAL_S - time.monotonic())
        events = selector.select(tick)
        if gauge is not None and time.monotonic() >= decided + cores.INTERVAL_S:
            decided = time.monotonic()
            reading = gauge.read()
            waiting = bool(feed) or pool.work_left()
            if reading is not None and (waiting or pool.size > floor):
                size = cores.wanted(pool.size, floor, ceiling, reading, pool.peak_mb)
                if not waiting:
                    size = min(size, pool.size)  # no work to add a worker for
                idle = pool.resize(size)
                # a worker is started only for work that waits: one that ended with the
                # work drained would only exit again
                for slot in idle if waiting else ():
                    selector.register(pool.spawn(slot), selectors.EVENT_READ, slot)
        for key, _ in events:
            if key.data is None:
                try:
                    written = os.write(pool.work_w, feed[:4096])
                except BlockingIOError:
                    continue
                feed = feed[written:]
                if not feed:
                    selector.unregister(pool.work_w)
                    pool.close_feed()
                continue
            slot = key.data
            for started, line in pool.read(slot):
                pool.running[slot] = started
                if line is not None:
                    emit(line.seq, line.outcome)
            if pool.ended(slot):
                selector.unregister(key.fd)
                lost = pool.running.pop(slot, None)
                if lost is not None:
                    reason = "the worker running this execution died before reporting it"
                    emit(lost, Record(CRASH, message=reason))
                if slot < pool.size and (feed or pool.work_left()):
                    selector.register(pool.spawn(slot), selectors.EVENT_READ, slot)
        if tail is not None and not feed and len(pool.outputs) != told and not pool.work_left():
            told = len(pool.outputs)
            tail(told)
    selector.close()
    pool.close()


class _Pool:
    """The workers of one drain: their pids, their report pipes, the shared work pipe."""

    def __init__(self, serve: Serve, size: int, census: Census, member: int) -> None:
        self.serve = serve
        # how many slots may take work, shared with the workers (a worker whose slot is
        # beyond it ends after its execution)
        self.share = Share(size, census)
        self.member = member  # this pool's place in the census
        self.peak_mb = 0.0  # the most memory an execution has held so far
        self.work_r, self.work_w = os.pipe()
        self.pids: dict[int, int] = {}  # slot → pid
        self.outputs: dict[int, int] = {}  # slot → read end of its reports
        self.lines: dict[int, JsonLines] = {}  # slot → its reports, read as they come
        self.running: dict[int, int | None] = {}  # slot → the execution it runs now
        self.feed_open = True

    @property
    def size(self) -> int:
        """How many workers may take work (slots 0 to size - 1)."""
        return self.share.size

    @property
    def alive(self) -> bool:
        return bool(self.outputs)

    def resize(self, size: int) -> list[int]:
        """Let ``size`` workers take work; returns the slots to start (those within it
        with no worker: a worker let go but still running its execution goes on)."""
        self.share.size = size
        return [slot for slot in range(size) if slot not in self.outputs]

    def spawn(self, slot: int) -> int:
        out_r, out_w = os.pipe()

        def worker() -> None:  # pragma: no cover - runs in the worker
            reports = Reports(out_w)
            self.serve(slot, self.work_r, reports, self.share)
            reports.flush()

        others = [out_r, *self.outputs.values(), *([self.work_w] if self.feed_open else [])]
        pid = fork(worker, close=others)
        os.close(out_w)
        self.pids[slot] = pid
        self.outputs[slot] = out_r
        self.lines[slot] = JsonLines()
        self.share.census.count(self.member, len(self.outputs))
        return out_r

    def read(self, slot: int) -> list[tuple[int | None, OutcomeLine | None]]:
        """What the worker of ``slot`` has reported since: per complete line, the execution
        it runs now, and the outcome line it sent (None for a line that it took one)."""
        chunk = os.read(self.outputs[slot], 1 << 16)
        if not chunk:
            os.close(self.outputs.pop(slot))
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pids.pop(slot), 0)
            self.share.census.count(self.member, len(self.outputs))
            return []
        events: list[tuple[int | None, OutcomeLine | None]] = []
        for event in self.lines[slot].feed(chunk):
            with contextlib.suppress(ValueError):  # none of the three: skipped, as a cut line is
                if _STARTED in event:
                    events.append((int(event[_STARTED]), None))
                elif _PEAK in event:
                    self.peak_mb = max(self.peak_mb, float(event[_PEAK]))
                else:
                    events.append((None, OutcomeLine.from_json(event, "worker report")))
        return events

    def ended(self, slot: int) -> bool:
        return slot not in self.outputs

    def work_left(self) -> bool:
        """Whether numbers wait in the work pipe, unread."""
        return work_waiting(self.work_r)

    def close_feed(self) -> None:
        os.close(self.work_w)
        self.feed_open = False

    def close(self) -> None:
        if self.feed_open:
            self.close_feed()
        os.close(self.work_r)
        deadline = time.monotonic() + 10
        while cgroups.remove_cgroups(_CGROUPS % os.getpid()) and time.monotonic() < deadline:
            time.sleep(0.05)
