"""The compute floor (benchmarks only): the batch's programs with no isolation at all.

Not a grader: state carries from one program to the next, and nothing is limited. It
bounds from below what any isolating executor can reach: the programs' own compute.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from ..isolation.processes import fork
from ..protocol import OutcomeLine, Record, outcome_line
from .execution import execute
from .scheduler import Scheduler

if TYPE_CHECKING:
    from ..protocol import Batch
    from .supervisor import Emit


def floor(batch: Batch, emit: Emit) -> None:
    """Run the programs one after another in warm processes. With ``jobs`` > 1 the
    preloaded process forks that many workers, each taking every ``jobs``-th program."""
    executions = list(enumerate(batch.executions))
    Scheduler(batch, emit).prepare_zygote(executions)
    jobs = batch.options.jobs
    workers = []
    for worker in range(jobs):
        read_fd, write_fd = os.pipe()
        mine = list(range(worker, len(executions), jobs))
        pid = fork(functools.partial(_run_programs, batch, mine, write_fd), close=[read_fd])
        os.close(write_fd)
        workers.append((pid, read_fd))
    for pid, read_fd in workers:
        with os.fdopen(read_fd) as lines:
            for line in lines:
                outcome = OutcomeLine.from_json(json.loads(line), "floor's outcome line")
                emit(outcome.seq, outcome.outcome)
        os.waitpid(pid, 0)


def _run_programs(batch: Batch, indices: list[int], write_fd: int) -> None:
    """A floor worker: the programs of ``indices``, one after another in this process."""
    # files the programs write (DS-1000's figures) go to a scratch directory, not
    # wherever the benchmark was started
    os.chdir(tempfile.mkdtemp(prefix="harness-floor-"))
    with os.fdopen(write_fd, "w") as out:
        for index in indices:
            spec = batch.executions[index]
            start = time.monotonic()
            report = execute(
                {"context": batch.problems[spec.problem].context, "solution": spec.solution}
            )
            record = Record.from_json(report, "the program's report")
            duration = round(time.monotonic() - start, 4)
            out.write(outcome_line(index, replace(record, duration_s=duration)))
            out.flush()
