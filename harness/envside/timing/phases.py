"""Opt-in timing of an execution's phases, for the benchmarks (``benchmarks/phases.py``).

Off unless ``HARNESS_PHASES`` names a file: then each process of an execution marks the
moments it passes (``mark``) on the system-wide monotonic clock, the execution's process
hands its marks to its worker with its outcome, and the worker appends them, one JSON line
per execution, to that file. Off, a mark is one test of a module constant. The marks are
a measurement, never an outcome: nothing reads them but the benchmark.
"""

from __future__ import annotations

import json
import os
import time
from typing import List, Optional, Tuple

from . import clock

PATH = os.environ.get("HARNESS_PHASES", "")
ON = bool(PATH)
MARKS: List[Tuple[str, float]] = []  # this process's, since the execution began


def mark(name: str) -> None:
    """Note that this process has reached ``name`` now (when timing is on)."""
    if ON:
        MARKS.append((name, time.monotonic()))


def begin() -> None:
    """A new execution: forget the previous one's marks (a worker runs many)."""
    if ON:
        del MARKS[:]
        MARKS.append(("start", time.monotonic()))


# Not moments: the seconds the execution's process waited for a CPU (``run_delay``), and
# the CPU time it had used before its program was handed to it (a spare, made ahead)
WAITED = "waited"
CPU_BEFORE = "cpu_before"
_HANDED: List[float] = []  # run_delay and CPU time when the program was handed over


def handed() -> None:
    """The execution's process has its program: count its waiting and CPU from here."""
    if ON:
        _HANDED[:] = [run_delay(), time.process_time()]
        mark("handed")


def usage() -> List[Tuple[str, float]]:
    """The pseudo-marks the execution's process reports with its marks (see above)."""
    delay, cpu = _HANDED or [0.0, 0.0]
    return [(WAITED, run_delay() - delay), (CPU_BEFORE, cpu)]


def run_delay() -> float:
    """Seconds this process has waited on a run queue, for a CPU (its longest-waiting
    thread, as the supervisor reads an execution's): what a busy machine added to its
    wall time."""
    return clock.run_delay(os.getpid())


def stamps(text: str) -> List[Tuple[str, float]]:
    """Marks another process said as ``name=seconds`` words (the placer's status line);
    anything else in ``text`` is skipped."""
    found = []
    for word in text.split():
        name, _, value = word.partition("=")
        try:
            found.append((name, float(value)))
        except ValueError:
            continue
    return found


def said(marks: List[Tuple[str, float]]) -> str:
    """``name=seconds`` words of ``marks``, for ``stamps`` at the other end."""
    return " ".join("%s=%.6f" % (name, moment) for name, moment in marks)


def write(
    index: int,
    status: str,
    marks: List[Tuple[str, float]],
    cpu_s: Optional[float] = None,
    waited_s: float = 0.0,
) -> None:
    """Append one execution's marks to the file (the worker, outside any sandbox), the CPU
    time its process used (user + system, from its exit; None where not known) and the
    time it waited for a CPU (``run_delay``, as it reported)."""
    if not ON:
        return
    entry = {"index": index, "status": status, "marks": marks, "cpu_s": cpu_s}
    line = json.dumps(dict(entry, waited_s=waited_s)) + "\n"
    fd = os.open(PATH, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)
