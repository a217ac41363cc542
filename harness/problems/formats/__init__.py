"""Benchmark formats, each compiled into the one shape the executor runs: a context that
defines ``test_execution(solution)``.

Six formats: our own TOML problems (``ours``, one file per problem) and five JSONL
formats, one problem (or, for CIBench, two) per row — ``bigcodebench``, ``exeds``,
``cibench``, ``gitchameleon`` (whose rows name their hidden tests beside the file, so
its file is loaded whole) and ``ds1000``, whose rows already are that shape. A JSONL
file is in one format, told by the keys of its first row (``detect``); DS-1000 is the
fallback, so a row of no known shape is reported as a DS-1000 row missing its keys.

A format is a loader (a row → ``Problem``) plus, where its grading differs, a driver:
a program the context runs on the solution's behalf, apart from the check like the
solution itself (``sandbox.RUNS_SOLUTION``), which reports the graded parts (unit tests,
session steps) back as data. Drift analysis, reports and history see ordinary outcomes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.problems.formats import bigcodebench, cibench, ds1000, exeds, gitchameleon

if TYPE_CHECKING:
    from harness.problems.formats.common import Format

# The JSONL formats in detection order: the first whose keys a row has is its format.
FORMATS: tuple[Format, ...] = (
    bigcodebench.FORMAT,
    exeds.FORMAT,
    cibench.FORMAT,
    gitchameleon.FORMAT,
    ds1000.FORMAT,
)
FALLBACK = ds1000.FORMAT


def find(row: dict[str, Any]) -> Format:
    """The format of a JSONL row: the first that matches, else DS-1000's."""
    return next((fmt for fmt in FORMATS if fmt.matches(row)), FALLBACK)


def detect(row: dict[str, Any]) -> str:
    """The name of a JSONL row's format: ``ds1000`` unless another format's keys are there."""
    return find(row).name
