"""Our verdicts against upstream's own, answer by answer (``harness run --compare-upstream``).

Upstream graded the answers in its own environment: BigCodeBench's pinned one, each
GitChameleon problem's own. Each answer's outcome is taken from the run's baseline combo
(where the run's combos are each problem's own, ``--own-envs``, from the one it ran in),
and set beside upstream's verdict: both pass, both fail, or a disagreement, listed with
both reasons. An answer that could not run here (``skipped``, ``env_error``) or that
upstream did not grade is counted apart, never as a disagreement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from harness.analysis.drift import natural_key
from harness.core.problem import MODEL_PREFIX
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.core.problem import Problem
    from harness.core.results import Outcome
    from harness.problems.verdicts import Verdict

_NOT_RUN = (Status.SKIPPED, Status.ENV_ERROR)


@dataclass(frozen=True)
class Disagreement:
    problem_id: str
    combo: str
    ours: str  # our status
    our_reason: str
    theirs: str  # upstream's status
    their_reason: str


@dataclass(frozen=True)
class Agreement:
    """One model's answers: how our verdicts and upstream's compare."""

    model: str
    verdicts: str  # the file upstream wrote
    both_pass: int = 0
    both_fail: int = 0
    not_run: int = 0  # could not run here
    ungraded: int = 0  # upstream has no verdict on them
    disagreements: tuple[Disagreement, ...] = ()

    @property
    def compared(self) -> int:
        return self.both_pass + self.both_fail + len(self.disagreements)

    @property
    def rate(self) -> float | None:
        """The share of compared answers with the same verdict."""
        return (self.both_pass + self.both_fail) / self.compared if self.compared else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "disagreements": [asdict(d) for d in self.disagreements]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Agreement:
        return cls(
            model=str(data["model"]),
            verdicts=str(data["verdicts"]),
            both_pass=int(data.get("both_pass", 0)),
            both_fail=int(data.get("both_fail", 0)),
            not_run=int(data.get("not_run", 0)),
            ungraded=int(data.get("ungraded", 0)),
            disagreements=tuple(Disagreement(**d) for d in data.get("disagreements", ())),
        )


def _chosen(outcomes: Sequence[Outcome], baseline: str) -> dict[str, Outcome]:
    """Each problem's outcome in the baseline, or in the only combo it ran in."""
    by_problem: dict[str, dict[str, Outcome]] = {}
    for o in outcomes:
        if o.attempt == 0:
            by_problem.setdefault(o.problem_id, {})[o.combo] = o
    chosen = {}
    for problem, by_combo in by_problem.items():
        if baseline in by_combo:
            chosen[problem] = by_combo[baseline]
        elif len(by_combo) == 1:
            chosen[problem] = next(iter(by_combo.values()))
    return chosen


def compare(
    model: str,
    verdicts_file: str,
    verdicts: Mapping[str, Verdict],
    outcomes: Sequence[Outcome],
    problems: Sequence[Problem],
    baseline: str,
) -> Agreement:
    """The model's outcomes in ``outcomes`` against upstream's ``verdicts`` (by the id
    upstream uses: a problem's native id)."""
    source = MODEL_PREFIX + model
    ours = _chosen([o for o in outcomes if o.source == source], baseline)
    native = {p.id: p.native_id for p in problems}
    counts = {"both_pass": 0, "both_fail": 0, "not_run": 0, "ungraded": 0}
    disagreements = []
    for problem_id in sorted(ours, key=natural_key):
        outcome = ours[problem_id]
        verdict = verdicts.get(native.get(problem_id, problem_id))
        if outcome.status in _NOT_RUN:
            counts["not_run"] += 1
        elif verdict is None:
            counts["ungraded"] += 1
        elif (outcome.status is Status.PASS) == verdict.passed:
            counts["both_pass" if verdict.passed else "both_fail"] += 1
        else:
            disagreements.append(
                Disagreement(
                    problem_id,
                    outcome.combo,
                    outcome.status.value,
                    outcome.first_line,
                    verdict.status,
                    verdict.reason,
                )
            )
    return Agreement(model, verdicts_file, **counts, disagreements=tuple(disagreements))
