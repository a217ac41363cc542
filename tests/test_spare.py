"""An execution's process made ahead (the supervisor's spare, made when it is given a
``place``; the scheduler does not ask for them, measured slower): one that an execution
ends is replaced, and no working directory outlives a batch.

Nothing here times anything.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

from harness.envside import protocol
from harness.envside.protocol import Record
from harness.envside.scheduling.supervisor import Supervisor
from tests.envside import run_envside

# A trusted check that SIGKILLs every other process it may (the spare made for the next
# execution, waiting in its sandbox, as the same user in the same pid namespace; where the
# harness is not root, its worker's other children), then passes.
KILLS_SIBLINGS = textwrap.dedent("""
    import os, signal
    def siblings():
        parent = os.getppid()
        if parent == 0:  # born in its worker's pid namespace: all it sees is its worker's
            return [int(p) for p in os.listdir("/proc") if p.isdigit()]
        found = []
        for task in os.listdir("/proc/%d/task" % parent):
            with open("/proc/%d/task/%s/children" % (parent, task)) as fh:
                found += [int(pid) for pid in fh.read().split()]
        return found
    def test_execution(solution):
        for pid in siblings():
            if pid not in (os.getpid(), 1):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        namespace = {}
        exec(solution, namespace)
        assert namespace["result"] == 3
""")


def run(tmp_path: Path, context: str, count: int) -> list[dict[str, Any]]:
    batch = {
        "protocol": protocol.PROTOCOL,
        "options": {"jobs": 1, "timeout": 30, "isolation": "zygote"},
        "problems": {"p": {"context": context}},
        "executions": [
            {"problem": "p", "solution": "result = 1 + 2", "trusted": True} for _ in range(count)
        ],
    }
    scratch = tmp_path / "scratch"  # the executions' working directories, spares' too
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    _, lines = run_envside(tmp_path, batch, check=True, env=env, timeout=300)
    outcomes = {
        line.seq: line.outcome.to_json() for line in lines if isinstance(line, protocol.OutcomeLine)
    }
    assert sorted(outcomes) == list(range(count))
    assert [p.name for p in scratch.iterdir() if p.name.startswith("harness_exec_")] == []
    return [outcomes[i] for i in range(count)]


def test_an_execution_that_kills_the_next_ones_process_does_not_cost_it_its_run(
    tmp_path: Path,
) -> None:
    outcomes = run(tmp_path, KILLS_SIBLINGS, 4)
    assert [o["status"] for o in outcomes] == ["pass"] * 4, outcomes


def test_every_working_directory_is_removed_spares_included(tmp_path: Path) -> None:
    check = "def test_execution(solution):\n    ns = {}\n    exec(solution, ns)\n    assert ns['result'] == 3\n"
    outcomes = run(tmp_path, check, 5)
    assert [o["status"] for o in outcomes] == ["pass"] * 5, outcomes


def test_a_spare_an_execution_killed_is_replaced(tmp_path: Path) -> None:
    """Spares made ahead (a supervisor given a place), each execution killing the one made
    for the next: without the check and replacement, that one would be a crash."""
    records: list[Record] = []
    supervisor = Supervisor(
        lambda index, record: records.append(record),
        10_000,
        dict(os.environ),
        place={"sandboxed": False, "hide": [], "memory_mb": None},
    )
    payload = {"context": KILLS_SIBLINGS, "solution": "result = 1 + 2", "untrusted": False}
    try:
        for index in range(3):
            supervisor.run(index, dict(payload), 30.0, fresh=False)
            assert supervisor.keep(), "a spare is made while an execution runs"
    finally:
        supervisor.finish()
    assert [r.status for r in records] == ["pass"] * 3, records
    assert supervisor.keep() == []
