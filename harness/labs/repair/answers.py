"""Stale model answers, rewritten by the same codemods: which are only API-stale.

An answer is stale (``harness.analysis.staleness``) when it passes in one combo and fails in a
later one, for an API change, while the problem itself still holds there. The same
codemods the references get are applied to it (chosen by the symbol its failure
names, else every default codemod); run in the combo where it first failed, an
answer that then passes was stale only in its API: the model knew the task, not the
library's current spelling. The API-stale rate is reported beside the stale rate,
over the same candidates.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.analysis import staleness
from harness.analysis.drift import trajectories
from harness.analysis.repairs import ModelRow
from harness.core.problem import MODEL_PREFIX
from harness.labs.repair.codemods import DEFAULT, FOR_SOLUTIONS, apply
from harness.labs.repair.plan import break_of, choose

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.staleness import Entry
    from harness.core.problem import Solution
    from harness.core.results import Outcome


@dataclass(frozen=True)
class StaleAnswer:
    """One stale answer and its rewrite (the same code when no codemod changed it)."""

    model: str
    problem_id: str
    last_good: str
    first_bad: str
    code: str
    new_code: str
    codemods: tuple[str, ...]

    @property
    def source(self) -> str:
        return MODEL_PREFIX + self.model


def stale_answers(
    outcomes: Sequence[Outcome],
    order: Sequence[str],
    answers: Sequence[Solution],
    catalogue: Sequence[Entry],
) -> tuple[list[staleness.ModelStaleness], list[StaleAnswer]]:
    """Every model's staleness, and its stale answers with their rewrites."""
    found = trajectories(outcomes, order)
    measured = staleness.measure(outcomes, found, order, answers, catalogue)
    by_key = {(t.problem_id, t.source): t for t in found}
    code = {(a.problem_id, a.source): a.code for a in answers}
    out = []
    for m in measured:
        source = MODEL_PREFIX + m.model
        for problem_id, good, bad in m.stale:
            original = code.get((problem_id, source))
            t = by_key.get((problem_id, source))
            if original is None or t is None:
                continue
            broke = break_of(t, t.library)
            names = [n for n in choose(original, broke, catalogue) if n in FOR_SOLUTIONS]
            rewrite = apply(original, names)
            if not rewrite.changed:
                rewrite = apply(original, DEFAULT)
            out.append(
                StaleAnswer(
                    m.model, problem_id, good, bad, original, rewrite.source, rewrite.applied
                )
            )
    return measured, out


def summarise(
    measured: Sequence[staleness.ModelStaleness],
    stale: Sequence[StaleAnswer],
    statuses: dict[tuple[str, str, str], str],
) -> list[ModelRow]:
    """Per model: its stale answers, those rewritten, and those passing after it
    (``statuses``: (problem, source, combo) → status of the rewritten answers' run)."""
    out = []
    for m in measured:
        mine = [a for a in stale if a.model == m.model and a.codemods]
        passing = [a for a in mine if statuses.get((a.problem_id, a.source, a.first_bad)) == "pass"]
        missed = Counter(name for a in passing for name in a.codemods)
        out.append(
            ModelRow(
                m.model,
                m.candidates,
                len(m.stale),
                len(mine),
                len(passing),
                revived=tuple(a.problem_id for a in passing),
                missed=tuple(sorted(missed.items(), key=lambda kv: (-kv[1], kv[0]))),
            )
        )
    return out
