"""BigCodeBench's own verdicts: ``bigcodebench.evaluate --samples S.jsonl`` writes
``S_eval_results.json`` (``eval``: task id → one result per sample, each with a
``status`` — ``pass``, ``fail``, ``timeout`` — and ``details``: failing test → its
traceback). The first sample of a task is its answer here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Verdict, VerdictFile
from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from pathlib import Path


def last_line(text: str) -> str:
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
            "; ".join(f"{name}: {last_line(str(tb))}" for name, tb in sorted(details.items()))
            if isinstance(details, dict)
            else last_line(str(details))
        )
        found[str(task)] = Verdict(str(task), status == "pass", status, failing)
    return found


def read(path: Path, shown: str) -> dict[str, Verdict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ProblemError(shown, None, f"cannot read: {exc}") from None
    return _bigcodebench(data, shown)


FILE = VerdictFile("_eval_results.json", read)
