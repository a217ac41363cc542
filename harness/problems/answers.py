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
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.jsonl import line_error, read_rows
from harness.core.problem import IDIOM_PREFIX, MODEL_PREFIX, REFERENCE, Problem, Solution
from harness.benchmarks import registry
from harness.problems import downloads, shapes

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence
    from pathlib import Path

    from harness.core.problem import Problem


_SUFFIXES = ("-answers", "_answers", ".answers")



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


@dataclass(frozen=True)
class Answers:
    """One answers file as read: its solutions, and a line saying what shape it had."""

    solutions: tuple[Solution, ...]
    description: str


def read_answers(
    path: Path,
    problems: Sequence[Problem],
    selected: Collection[str] | None = None,
    model: str | None = None,
) -> Answers:
    """Solutions from one answers file, matched to ``problems``, each line's code taken
    out as its benchmark's own tools take it (``harness.problems.shapes``).

    Answers to problems outside ``selected`` (ids chosen by ``--limit``, ``--library``)
    are dropped. An answer naming a problem the sets do not hold (a published file
    written for an older release of its dataset) is skipped, and the line saying what
    the file held says how many and which; only a file none of whose answers names a
    problem of the sets is an error (the wrong file, or the wrong ``--problems``).
    """
    shown = str(path)
    name = model or model_name(path)
    match = _Matcher(problems)
    solutions: list[Solution] = []
    seen: dict[str, int] = {}
    described: dict[str, None] = {}  # the shapes met, in order (a file may mix them)
    how: Counter[str] = Counter()
    unknown: dict[str, int] = {}  # problem ids the sets do not hold → their first line
    for number, row in read_rows(path, shown):
        shape = shapes.shape_of(row)
        described.setdefault(shape.describe(row))
        key = _problem_key(row)
        if key is None:
            raise line_error(shown, number, "no problem_id (or metadata.problem_id)")
        problem = match(key, shown, number)
        if problem is None:
            unknown.setdefault(key, number)
            continue
        try:
            read = shape.code(row, problem, path.name)
        except shapes.ShapeError as exc:
            raise line_error(shown, number, str(exc)) from None
        if selected is not None and problem.id not in selected:
            continue
        if problem.id in seen:
            raise line_error(
                shown,
                number,
                f"second answer to {problem.id} (first on line {seen[problem.id]})",
            )
        seen[problem.id] = number
        how[read.how] += 1
        # a session's answer is judged end to end and, step by step, with the oracle
        solutions.extend(
            Solution(target.id, MODEL_PREFIX + name, read.code)
            for target in [problem, *match.oracles.get(problem.id, [])]
        )
    if unknown and not match.matched:
        key, number = next(iter(unknown.items()))
        raise line_error(shown, number, f"no problem {key!r} in the problem sets")
    ways = ", ".join(f"{n} {way}" for way, n in how.most_common())
    shown_shapes = " and ".join(described) or "empty"
    line = f"{path.name}: {shown_shapes}, {sum(how.values())} answers" + (
        f" ({ways})" if ways else ""
    )
    if unknown:
        named = ", ".join(f"{key!r} (line {number})" for key, number in list(unknown.items())[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        line += (
            f"; {len(unknown)} skipped, naming problems the problem sets do not hold: {named}{more}"
        )
    return Answers(tuple(solutions), line)


class _Matcher:
    """The problem an answer names: by full id, or by the id within its set when only one
    set has it."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.by_id = {p.id: p for p in problems}
        self.by_native: dict[str, list[Problem]] = {}
        for p in problems:
            self.by_native.setdefault(p.native_id, []).append(p)
        self.matched = 0  # the answers that named a problem of the sets
        # problems an answer to another answers too (CIBench's oracle session, its task's)
        self.oracles: dict[str, list[Problem]] = {}
        for p in problems:
            benchmark = registry.of(p)
            task = benchmark.aliases(p) if benchmark is not None else None
            if task is not None:
                self.oracles.setdefault(task, []).append(p)

    def __call__(self, key: str, shown: str, number: int) -> Problem | None:
        """The problem ``key`` names; None where the sets hold none by that id."""
        found = self.by_id.get(key)
        if found is None and len(self.by_native.get(key, [])) == 1:
            found = self.by_native[key][0]
        if found is None and key in self.by_native:
            sets = ", ".join(p.set_name for p in self.by_native[key])
            raise line_error(
                shown, number, f"problem_id {key!r} is ambiguous (in {sets}): use the full id"
            )
        self.matched += found is not None
        return found


def load_answers(
    path: Path,
    problems: Sequence[Problem],
    selected: Collection[str] | None = None,
    model: str | None = None,
) -> list[Solution]:
    """:func:`read_answers`' solutions."""
    return list(read_answers(path, problems, selected, model).solutions)


def load_solutions(
    all_problems: Sequence[Problem],
    chosen: Sequence[Problem],
    answers: Sequence[str] = (),
    *,
    reference: bool = True,
    idioms: bool = False,
    log: Callable[[str], None] = lambda _m: None,
) -> list[Solution]:
    """The solutions to run for ``chosen``: references, our problems' idioms, and the
    answers files ``answers`` (``[NAME=]PATH``; answers are matched against every problem),
    each file's shape said in one line to ``log``."""
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
        name, path = answers_file(entry)
        read = read_answers(path, all_problems, selected, name)
        log(f"answers {read.description}")
        solutions += read.solutions
    return solutions


def answers_file(entry: str) -> tuple[str | None, Path]:
    """``--answers [NAME=]PATH``: the model's name, if given, and the local path of the
    file (a URL is downloaded once into the cache)."""
    name, sep, location = entry.partition("=")
    if not sep or downloads.is_url(entry):
        name, location = "", entry
    return name or None, downloads.resolve(location)
