"""The compute floor (benchmarks only): the batch's programs with no isolation at all.

Not a grader: state carries from one program to the next, and nothing is limited. It
bounds from below what any isolating executor can reach: the programs' own compute.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from typing import TYPE_CHECKING, Callable

from .execution import execute
from .scheduler import Scheduler

if TYPE_CHECKING:
    from .protocol import Json


def floor(batch: Json, emit: Callable[[int, Json], None]) -> None:
    """Run the programs one after another in warm processes. With ``jobs`` > 1 the
    preloaded process forks that many workers, each taking every ``jobs``-th program."""
    scheduler = Scheduler(batch, emit)
    scheduler.prepare_zygote(list(enumerate(batch["executions"])))
    jobs = scheduler.jobs
    executions = list(enumerate(batch["executions"]))
    workers = []
    for worker in range(jobs):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker
            os.close(read_fd)
            # files the programs write (DS-1000's figures) go to a scratch directory,
            # not wherever the benchmark was started
            os.chdir(tempfile.mkdtemp(prefix="harness-floor-"))
            with os.fdopen(write_fd, "w") as out:
                for index, spec in executions[worker::jobs]:
                    problem = batch["problems"][spec["problem"]]
                    start = time.monotonic()
                    outcome = execute({"context": problem["context"], "solution": spec["solution"]})
                    outcome["duration_s"] = round(time.monotonic() - start, 4)
                    out.write(json.dumps({"seq": index, "outcome": outcome}) + "\n")
                    out.flush()
            os._exit(0)
        os.close(write_fd)
        workers.append((pid, read_fd))
    for pid, read_fd in workers:
        with os.fdopen(read_fd) as lines:
            for line in lines:
                event = json.loads(line)
                emit(event["seq"], event["outcome"])
        os.waitpid(pid, 0)
