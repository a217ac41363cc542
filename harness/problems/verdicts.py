"""Upstream's own verdicts on a model's answers, where its tools write them next to the
answers file: the grader's best test is an agreement table with the benchmark's own.
Each benchmark declares the file its grader writes (``Benchmark.verdicts``): BigCodeBench's
``S_eval_results.json``, GitChameleon's ``S_eval_results.csv``. DS-1000 publishes pass
rates only, not verdicts per problem: there is nothing to compare.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.benchmarks import registry
from harness.benchmarks.base import Verdict, VerdictFile
from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Verdict", "beside", "read"]


def _files() -> tuple[VerdictFile, ...]:
    return tuple(b.verdicts for b in registry.benchmarks() if b.verdicts is not None)


def beside(answers: Path) -> Path | None:
    """The verdict file upstream writes next to the answers file ``answers``, if any."""
    stem = answers.name
    for suffix in (".gz", ".jsonl"):
        stem = stem.removesuffix(suffix)
    return next(
        (
            answers.with_name(stem + f.suffix)
            for f in _files()
            if answers.with_name(stem + f.suffix).is_file()
        ),
        None,
    )


def read(path: Path) -> Mapping[str, Verdict]:
    """The verdicts in ``path`` (read as the benchmark's whose file has its extension:
    ``.json``, ``.csv``), by the id upstream uses."""
    found = next((f for f in _files() if path.suffix == Path(f.suffix).suffix), None)
    if found is None:
        raise ProblemError(str(path), None, "not a verdict file of a known benchmark")
    return found.read(path, str(path))
