"""Benchmark formats other than DS-1000's, each compiled into the one shape the executor
runs: a context that defines ``test_execution(solution)``.

A format is a loader (a JSONL row → ``Problem``) plus, where its grading differs, a driver:
a program the context runs on the solution's behalf, apart from the check like the
solution itself (``sandbox.RUNS_SOLUTION``), which reports the graded parts (unit tests,
session steps) back as data. Drift analysis, reports and history see ordinary outcomes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.formats import bigcodebench, cibench, exeds

if TYPE_CHECKING:
    from collections.abc import Callable

    from harness.problems import Problem

# format name → (is this row of the format?, row → problems)
FORMATS: dict[str, tuple[Callable[[dict[str, Any]], bool], Callable[..., list[Problem]]]] = {
    "bigcodebench": (bigcodebench.matches, bigcodebench.load_row),
    "exeds": (exeds.matches, exeds.load_row),
    "cibench": (cibench.matches, cibench.load_row),
}


def detect(row: dict[str, Any]) -> str:
    """The format of a JSONL row: ``ds1000`` unless another format's keys are there."""
    for name, (matches, _) in FORMATS.items():
        if matches(row):
            return name
    return "ds1000"
