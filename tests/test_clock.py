"""An execution's clock (``envside/timing/clock.py``): the time it waits for a CPU while the pool
runs more workers than cores is not on it, up to twice its limit on the wall clock.

The supervisor runs here in this process, with the clock's reading of how long an
execution was held back replaced: these tests check what the supervisor does with that
reading (outcomes), not how long anything takes.
"""

from __future__ import annotations

import os
import textwrap
from typing import Any

import pytest

from harness.envside.protocol import Record
from harness.envside.scheduling.supervisor import Supervisor
from harness.envside.timing import clock

CONTEXT = textwrap.dedent("""
    def test_execution(solution):
        exec(solution, {})
""")
SLEEPS = "import time; time.sleep(3.5)"  # 1.5 s beyond its limit of 2 s


def run(code: str, limit: float, crowded: bool = True) -> Record:
    payload: dict[str, Any] = {
        "context": CONTEXT,
        "solution": code,
        "memory_mb": None,
        "untrusted": False,
        "sandboxed": False,
        "hide": [],
        "cgroups": [],
        "limits": {"tasks": 1024, "task_cap": "none", "timeout": limit},
    }
    got: list[Record] = []
    supervisor = Supervisor(
        lambda _index, record: got.append(record),
        65536,
        {},
        crowded_since=lambda _start: crowded,
    )
    supervisor.run(0, payload, limit, fresh=False)
    supervisor.finish()
    return got[0]


def test_time_waiting_for_a_cpu_moves_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "held_back", lambda _pids: 1.9)
    assert run(SLEEPS, 2.0).status == "pass"


def test_without_waiting_the_limit_is_the_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clock, "held_back", lambda _pids: 0.0)
    record = run(SLEEPS, 2.0)
    assert record.status == "timeout"
    assert record.message == "exceeded the time limit of 2s"


def test_with_no_more_workers_than_cores_the_limit_is_the_wall_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(clock, "held_back", lambda _pids: 1.9)
    assert run(SLEEPS, 2.0, crowded=False).status == "timeout"


def test_however_long_it_waited_the_wall_clock_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(clock, "held_back", lambda _pids: 1000.0)
    record = run("import time; time.sleep(60)", 1.0)
    assert record.status == "timeout"
    # the same words as without waiting: outcomes compare across runs and machines
    assert record.message == "exceeded the time limit of 1s"
    assert record.duration_s < 60


def test_the_deadline_adds_the_waiting_up_to_the_bound() -> None:
    assert clock.deadline(100.0, 10.0, 3.0) == 113.0
    assert clock.deadline(100.0, 10.0, 50.0) == 100.0 + clock.WALL_BOUND * 10.0


def test_run_delay_is_read_for_live_processes_only() -> None:
    assert clock.run_delay(os.getpid()) >= 0.0
    assert clock.held_back([]) == 0.0
    gone = os.fork()
    if gone == 0:
        os._exit(0)
    os.waitpid(gone, 0)
    assert clock.run_delay(gone) == 0.0
