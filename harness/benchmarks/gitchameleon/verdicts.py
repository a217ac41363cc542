"""GitChameleon's own verdicts: ``run_eval --solution_file S.jsonl`` writes
``S_eval_results.csv`` (``example_id``, ``passed`` from pytest's exit status, ``output``
its output)."""

from __future__ import annotations

import csv
from typing import TYPE_CHECKING

from harness.benchmarks.base import Verdict, VerdictFile
from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from pathlib import Path


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def read(path: Path, shown: str) -> dict[str, Verdict]:
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    found = {}
    for number, row in enumerate(rows, start=2):
        if "example_id" not in row or "passed" not in row:
            raise ProblemError(
                shown, None, "not GitChameleon's eval results (no example_id, passed)", line=number
            )
        passed = row["passed"].strip().lower() == "true"
        found[row["example_id"]] = Verdict(
            row["example_id"],
            passed,
            "pass" if passed else "fail",
            _last_line(row.get("output", "")),
        )
    return found


FILE = VerdictFile("_eval_results.csv", read)
