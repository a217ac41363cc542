"""More workers while cores sit idle (``envside/scheduling/cores.py``, ``envside/scheduling/pool.py``): when the
pool adds one, when it lets one go, and that every execution is run and reported once
whatever the pool does. The machine's readings are replaced by given ones; nothing here
times anything.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pytest

from harness.envside.bridge.wire import read_exactly
from harness.envside.protocol import Record
from harness.envside.scheduling import cores, pool
from harness.envside.scheduling.pool import WORK, Reports
from harness.envside.scheduling.supervisor import Supervisor

IDLE = cores.Reading(idle_cores=1.5, available_mb=8192)
BUSY = cores.Reading(idle_cores=0.1, available_mb=8192)
SHORT = cores.Reading(idle_cores=1.5, available_mb=600)


@pytest.mark.parametrize(
    ("running", "reading", "peak_mb", "expected"),
    [
        (2, IDLE, 0, 3),  # a core idle, memory to spare: one more
        (4, IDLE, 0, 4),  # not above the ceiling
        (2, SHORT, 0, 2),  # 2 × 256 + 512 MiB needed, 600 left: none
        (2, IDLE, 4000, 2),  # twice the largest execution (8000) + 512 MiB > 8192: none
        (3, BUSY, 0, 2),  # the cores busy again: the last added goes
        (2, BUSY, 0, 2),  # never below the floor
        (3, cores.Reading(idle_cores=0.5, available_mb=8192), 0, 3),  # between: as it is
        (3, cores.Reading(idle_cores=1.5, available_mb=200), 0, 2),  # memory short: one goes
    ],
)
def test_how_many_workers(
    running: int, reading: cores.Reading, peak_mb: float, expected: int
) -> None:
    assert cores.wanted(running, 2, 4, reading, peak_mb) == expected


def test_the_gauge_reads_this_machine() -> None:
    gauge = cores.Gauge()
    time.sleep(0.05)
    reading = gauge.read()
    assert reading is not None
    assert 0.0 <= reading.idle_cores <= (os.cpu_count() or 1) + 1e-6
    assert reading.available_mb > 0


class Given:
    """A gauge that reads what the test says, in turn (the last one from then on)."""

    def __init__(self, *readings: cores.Reading) -> None:
        self.readings = list(readings)

    def read(self) -> cores.Reading:
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


def worker(sleep_s: Callable[[int], float]) -> pool.Serve:
    """A worker whose execution number N sleeps ``sleep_s(N)`` seconds, then passes and
    says which slot ran it (and that it held 50 MB, which the pool weighs only where a
    gauge decides)."""

    def serve(slot: int, work_r: int, reports: Reports, share: pool.Share) -> None:
        while share.more(slot):
            number = read_exactly(lambda size: os.read(work_r, size), WORK.size)
            if number is None:
                break
            index = WORK.unpack(number)[0]
            reports.started(index)
            reports.flush()
            time.sleep(sleep_s(index))
            reports.outcome(index, Record("pass", message=str(slot)))
            reports.peak(50.0)
            reports.flush()

    return serve


def drain(count: int, gauge: Given, ceiling: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(cores, "INTERVAL_S", 0.05)
    got: dict[int, Record] = {}

    def emit(index: int, record: Record) -> None:
        assert index not in got, f"execution {index} reported twice"
        got[index] = record

    serve = worker(lambda _index: 0.05)  # every execution waits a little
    pool.drain(list(range(count)), 1, serve, emit, ceiling=ceiling, gauge=gauge)  # type: ignore[arg-type]
    assert sorted(got) == list(range(count))
    assert {record.status for record in got.values()} == {"pass"}
    return [got[index].message for index in range(count)]


def test_idle_cores_get_more_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    slots = drain(60, Given(IDLE), ceiling=3, monkeypatch=monkeypatch)
    assert set(slots) == {"0", "1", "2"}


def test_busy_cores_keep_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    slots = drain(30, Given(BUSY), ceiling=3, monkeypatch=monkeypatch)
    assert set(slots) == {"0"}


def test_no_ceiling_above_jobs_no_gauge(monkeypatch: pytest.MonkeyPatch) -> None:
    slots = drain(10, Given(IDLE), ceiling=1, monkeypatch=monkeypatch)
    assert set(slots) == {"0"}


def test_workers_let_go_when_the_cores_are_busy_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # idle for two readings (two workers added), busy from then on (both let go)
    slots = drain(80, Given(IDLE, IDLE, BUSY), ceiling=3, monkeypatch=monkeypatch)
    assert {"1", "2"} <= set(slots)
    assert slots[-10:] == ["0"] * 10, slots


def test_the_census_says_when_the_batch_ran_more_workers_than_cores() -> None:
    cores_here = os.cpu_count() or 1
    census = pool.Census(2)  # two pools of one batch: a group's tail and the next group
    start = time.monotonic()
    census.count(0, cores_here)
    assert not census.crowded_since(start)
    census.count(1, 1)  # the next group begins beside the last executions of the first
    assert census.total() == cores_here + 1
    assert census.crowded_since(start)
    census.count(0, cores_here - 1)  # one of the first pool's workers ends: no longer
    assert census.crowded_since(start)  # crowded now, but it was since ``start``
    assert not census.crowded_since(time.monotonic() + 1)


def test_the_share_says_how_many_workers_may_take_work() -> None:
    share = pool.Share(2)
    assert share.more(1)
    assert not share.more(2)
    share.size = 3
    assert share.more(2)


def test_the_tail_is_told_once_every_execution_is_taken() -> None:
    told: list[int] = []
    got: list[int] = []
    serve = worker(lambda index: index / 10)  # execution number N: N tenths of a second
    pool.drain([0, 1, 2, 3, 8], 3, serve, lambda index, _: got.append(index), tail=told.append)
    assert sorted(got) == [0, 1, 2, 3, 8]
    # once execution 8 is taken, the workers still running, as each ends, down to none
    assert told[-1] == 0
    assert told == sorted(told, reverse=True)
    assert len(set(told)) == len(told)
    assert 1 in told


@pytest.mark.parametrize("fresh", [False, True], ids=["forked", "fresh"])
def test_the_supervisor_says_how_much_memory_an_execution_held(fresh: bool) -> None:
    # the pool adds a worker only where memory holds twice the largest execution: each
    # isolation mode must say how large its executions were (a fresh interpreter's too)
    payload: dict[str, Any] = {
        "context": "def test_execution(solution):\n    exec(solution, {})\n",
        "solution": "held = bytearray(200 * 1024 * 1024)",
        "memory_mb": None,
        "untrusted": False,
        "sandboxed": False,
        "hide": [],
        "cgroups": [],
        "limits": {"tasks": 1024, "task_cap": "none", "timeout": 60},
    }
    got: list[Record] = []
    supervisor = Supervisor(lambda _index, record: got.append(record), 65536, dict(os.environ))
    supervisor.run(0, payload, 60, fresh=fresh)
    supervisor.finish()
    assert got[0].status == "pass", got[0]
    assert supervisor.peak_mb >= 200
