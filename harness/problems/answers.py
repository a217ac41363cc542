"""Model answers: one JSONL file per model (``.jsonl`` or ``.jsonl.gz``, read as every
JSONL input is: ``harness.core.jsonl``), cleaned up as DS-1000's grader does.

A line holds the problem it answers (``problem_id``, ``task_id``, GitChameleon's
``example_id`` or ``metadata.problem_id``, the full id ``ds1000/12`` or the set's own
``12``) and ``code`` (or GitChameleon's ``answer``, or BigCodeBench's ``solution``): a
string, or a list whose first element is the answer (the shape of DS-1000's published
gpt-* answers). A session's answer may give ``steps``, a list of code strings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from harness.core.jsonl import line_error, read_rows
from harness.core.problem import IDIOM_PREFIX, MODEL_PREFIX, REFERENCE, Problem, Solution
from harness.problems import downloads
from harness.problems.formats import cibench

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from pathlib import Path

    from harness.core.problem import Problem


_SUFFIXES = ("-answers", "_answers", ".answers")


def postprocess(code: str | list[Any]) -> str:
    """DS-1000's clean-up of a raw completion, step for step.

    Take the first element of a list; cut at ``</code>``; remove every opening
    Python fence; cut at the next fence; cut at ``END SOLUTION``; drop ``<code>``.
    """
    text = code[0] if isinstance(code, list) else code
    text = str(text).split("</code>")[0]
    text = text.replace("```python", "")
    text = text.split("```")[0]
    text = text.split("\nEND SOLUTION")[0]
    return text.replace("<code>", "")


def model_name(path: Path) -> str:
    """``gpt-4-0613-answers.jsonl`` → ``gpt-4-0613``."""
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    for suffix in _SUFFIXES:
        name = name.removesuffix(suffix)
    return re.sub(r"[^A-Za-z0-9_.+-]+", "-", name) or "model"


def _problem_key(row: dict[str, Any]) -> str | None:
    for container in (row, row.get("metadata")):
        if isinstance(container, dict):
            for key in ("problem_id", "task_id", "example_id"):
                if key in container and container[key] is not None:
                    return str(container[key])
    return None


def load_answers(
    path: Path,
    problems: Sequence[Problem],
    selected: Collection[str] | None = None,
    model: str | None = None,
) -> list[Solution]:
    """Solutions from one answers file, matched to ``problems``.

    Answers to problems outside ``selected`` (ids chosen by ``--limit``, ``--library``)
    are dropped; an answer naming none of ``problems`` is an error.
    """
    shown = str(path)
    name = model or model_name(path)
    by_id = {p.id: p for p in problems}
    by_native: dict[str, list[Problem]] = {}
    for p in problems:
        by_native.setdefault(p.native_id, []).append(p)
    oracles: dict[str, list[Problem]] = {}
    for p in problems:
        if p.metadata.get("format") == "cibench" and p.metadata.get("oracle"):
            task = p.id.removesuffix(cibench.ORACLE_SUFFIX)
            oracles.setdefault(task, []).append(p)
    solutions: list[Solution] = []
    seen: dict[str, int] = {}
    for number, row in read_rows(path, shown):
        key = _problem_key(row)
        if key is None:
            raise line_error(shown, number, "no problem_id (or metadata.problem_id)")
        # ``answer`` before ``solution``: a GitChameleon answer may keep its problem's
        # row, whose ``solution`` is the reference's body
        code = next((row[k] for k in ("code", "answer", "solution") if k in row), None)
        if code is None and isinstance(row.get("steps"), list):
            steps = row["steps"]
            if not all(isinstance(step, str) for step in steps):
                raise line_error(shown, number, "steps must be a list of strings")
            code = cibench.script(steps)
        if not isinstance(code, str) and not (
            isinstance(code, list) and code and isinstance(code[0], str)
        ):
            raise line_error(
                shown,
                number,
                "code (or answer, solution, steps) must be a string or a list of strings",
            )
        if key in by_id:
            problem = by_id[key]
        elif len(by_native.get(key, [])) == 1:
            problem = by_native[key][0]
        elif key in by_native:
            sets = ", ".join(p.set_name for p in by_native[key])
            raise line_error(
                shown,
                number,
                f"problem_id {key!r} is ambiguous (in {sets}): use the full id",
            )
        else:
            raise line_error(shown, number, f"no problem {key!r} in the problem sets")
        if selected is not None and problem.id not in selected:
            continue
        if problem.id in seen:
            raise line_error(
                shown,
                number,
                f"second answer to {problem.id} (first on line {seen[problem.id]})",
            )
        seen[problem.id] = number
        cleaned = postprocess(code)
        # a session's answer is judged end to end and, step by step, with the oracle
        solutions.extend(
            Solution(target.id, MODEL_PREFIX + name, cleaned)
            for target in [problem, *oracles.get(problem.id, [])]
        )
    return solutions


def load_solutions(
    all_problems: Sequence[Problem],
    chosen: Sequence[Problem],
    answers: Sequence[str] = (),
    *,
    reference: bool = True,
    idioms: bool = False,
) -> list[Solution]:
    """The solutions to run for ``chosen``: references, our problems' idioms, and the
    answers files ``answers`` (``[NAME=]PATH``; answers are matched against every problem)."""
    selected = {p.id for p in chosen}
    solutions: list[Solution] = []
    if reference:
        solutions += [Solution(p.id, REFERENCE, p.reference_code) for p in chosen]
    if idioms:
        solutions += [
            Solution(p.id, IDIOM_PREFIX + name, code)
            for p in chosen
            for name, code in p.idioms.items()
        ]
    for entry in answers:
        name, sep, location = entry.partition("=")
        if not sep or downloads.is_url(entry):
            name, location = "", entry
        path = downloads.resolve(location)
        solutions += load_answers(path, all_problems, selected, name or None)
    return solutions
