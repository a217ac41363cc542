"""Upstream's own verdicts on a model's answers, where its tools write them next to the
answers file: the grader's best test is an agreement table with the benchmark's own.

* **BigCodeBench**: ``bigcodebench.evaluate --samples S.jsonl`` writes
  ``S_eval_results.json`` (``eval``: task id → one result per sample, each with a
  ``status`` — ``pass``, ``fail``, ``timeout`` — and ``details``: failing test → its
  traceback). The first sample of a task is its answer here.
* **GitChameleon**: ``run_eval --solution_file S.jsonl`` writes ``S_eval_results.csv``
  (``example_id``, ``passed`` from pytest's exit status, ``output`` its output).

DS-1000 publishes pass rates only, not verdicts per problem: there is nothing to compare.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# the file each upstream writes beside ``S.jsonl``, in the order they are looked for
SUFFIXES = ("_eval_results.json", "_eval_results.csv")


@dataclass(frozen=True)
class Verdict:
    """Upstream's verdict on one answer."""

    problem: str  # the id upstream names it by (``BigCodeBench/12``, ``12``)
    passed: bool
    status: str  # upstream's word: pass, fail, timeout, error…
    reason: str  # the last line of what its grader printed, or its failing tests


def beside(answers: Path) -> Path | None:
    """The verdict file upstream writes next to the answers file ``answers``, if any."""
    stem = answers.name
    for suffix in (".gz", ".jsonl"):
        stem = stem.removesuffix(suffix)
    return next(
        (answers.with_name(stem + s) for s in SUFFIXES if answers.with_name(stem + s).is_file()),
        None,
    )


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def _bigcodebench(data: Any, shown: str) -> dict[str, Verdict]:
    if not isinstance(data, dict) or not isinstance(data.get("eval"), dict):
        raise ProblemError(shown, None, "not BigCodeBench's eval results (no 'eval' object)")
    found = {}
    for task, results in data["eval"].items():
        if not isinstance(results, list) or not results or not isinstance(results[0], dict):
            raise ProblemError(shown, None, f"eval[{task!r}]: expected a list of results")
        first = results[0]
        status = str(first.get("status", ""))
        details = first.get("details") or {}
        failing = (
            "; ".join(f"{name}: {_last_line(str(tb))}" for name, tb in sorted(details.items()))
            if isinstance(details, dict)
            else _last_line(str(details))
        )
        found[str(task)] = Verdict(str(task), status == "pass", status, failing)
    return found


def _gitchameleon(path: Path, shown: str) -> dict[str, Verdict]:
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


def read(path: Path) -> Mapping[str, Verdict]:
    """The verdicts in ``path`` (either upstream's shape), by the id upstream uses."""
    shown = str(path)
    if path.suffix == ".csv":
        return _gitchameleon(path, shown)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ProblemError(shown, None, f"cannot read: {exc}") from None
    return _bigcodebench(data, shown)
