"""The scheduler's groups (``envside/scheduling/scheduler.py``): a zygote per library, run in turn, the
next one beginning beside the last executions of the one before when the pool may run
more workers than ``-j`` (``max_jobs``), and only after it with a fixed ``-j``.

The env side runs as the host runs it, under this interpreter (it is stdlib-only). What is
asserted is the order in which outcomes arrive, not how long anything takes: a slow
execution at the end of the first group sleeps for seconds, the others take milliseconds.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.envside import protocol
from tests.envside import run_envside

CHECK = textwrap.dedent("""
    def test_execution(solution):
        namespace = {}
        exec(solution, namespace)
        assert namespace["result"] == 3
""")
SLOW = "import time\ntime.sleep(6)\nresult = 3"
QUICK = "result = 1 + 2"


def arrivals(tmp_path: Path, max_jobs: int) -> list[int]:
    """The executions' indices in the order their outcomes arrived (all must pass)."""
    # group "first": three quick executions, then a slow one (taken last); group
    # "second": four quick ones
    executions = [("first", QUICK)] * 3 + [("first", SLOW)] + [("second", QUICK)] * 4
    batch = {
        "protocol": protocol.PROTOCOL,
        "options": {"jobs": 1, "max_jobs": max_jobs, "timeout": 60, "isolation": "zygote"},
        "problems": {name: {"context": CHECK, "library": name} for name in ("first", "second")},
        "executions": [
            {"problem": problem, "solution": solution, "trusted": True}
            for problem, solution in executions
        ],
    }
    _, lines = run_envside(tmp_path, batch, check=True)
    outcomes = [line for line in lines if isinstance(line, protocol.OutcomeLine)]
    assert [o.outcome.status for o in outcomes] == ["pass"] * len(executions)
    done = lines[-1]
    assert isinstance(done, protocol.Done)
    assert [z.library for z in done.zygotes] == ["first", "second"]
    return [o.seq for o in outcomes]


def test_with_more_workers_allowed_the_next_group_begins_beside_a_slow_last_one(
    tmp_path: Path,
) -> None:
    order = arrivals(tmp_path, max_jobs=2)
    # the second group's four ran while the first group's slow one slept
    assert order[-1] == 3, order


@pytest.mark.parametrize("max_jobs", [0, 1], ids=["an older host", "a fixed -j"])
def test_with_a_fixed_j_the_groups_run_one_after_another(tmp_path: Path, max_jobs: int) -> None:
    order = arrivals(tmp_path, max_jobs=max_jobs)
    assert order[:4] == [0, 1, 2, 3], order
    assert sorted(order[4:]) == [4, 5, 6, 7]
