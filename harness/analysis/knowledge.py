"""What a model knows of its libraries' versions, dated from where its answers work.

Every answer to a version-conditioned problem was ranged over its library's releases
(``harness reach --answers``: ``labs/reach.py``): it works from some release to some
other. From those ranges, per model:

* the **signed version errors**: 0 for an answer that works at the release its problem
  asks for, negative for one written for older releases (stale), positive for newer ones,
  in releases of the library; their distribution and the **share of stale answers**;
* the **version-knowledge date**, as far as the ranges can tell it
  (``harness.analysis.dating``): an answer that works only from a release on uses what
  that release brought (it shows that change); one that stops working at a release did
  not take up what that release changed (it meets the change and does not show it). The
  date is no earlier than the newest change shown, and bounded above only where the
  newer changes met were not shown beyond chance; an end a range reaches to is open.

An answer that works nowhere tried is wrong, not dated: it counts in neither.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.analysis import dating
from harness.analysis.dating import Dating, Evidence
from harness.core.problem import MODEL_PREFIX

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.ranges import Reach


@dataclass(frozen=True)
class Knowledge:
    """One source's answers (a model, or an idiom of ours) over their ranges."""

    source: str
    answers: int  # answers ranged
    ranged: int  # of them, with a range (the rest work nowhere tried)
    errors: Mapping[int, int]  # signed version error → answers
    dating: Dating = field(default_factory=Dating)  # the version-knowledge date

    @property
    def stale(self) -> float | None:
        """The share of ranged answers written for older releases than asked."""
        if not self.ranged:
            return None
        return sum(n for e, n in self.errors.items() if e < 0) / self.ranged

    @property
    def ahead(self) -> float | None:
        if not self.ranged:
            return None
        return sum(n for e, n in self.errors.items() if e > 0) / self.ranged

    @property
    def model(self) -> str:
        return self.source.removeprefix(MODEL_PREFIX)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "answers": self.answers,
            "ranged": self.ranged,
            "errors": {str(k): v for k, v in sorted(self.errors.items())},
            "stale": self.stale,
            "ahead": self.ahead,
            "dating": self.dating.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Knowledge:
        """The inverse of :meth:`to_dict` (one written before the date was censored has no
        ``dating``: it reads as undated)."""
        return cls(
            source=str(data["source"]),
            answers=int(data["answers"]),
            ranged=int(data["ranged"]),
            errors={int(k): int(v) for k, v in dict(data.get("errors", {})).items()},
            dating=Dating.from_dict(data.get("dating") or {}),
        )


def evidence(found: Sequence[Reach]) -> list[Evidence]:
    """What the ranges of ``found`` show: an answer that fails below the oldest release
    it works on shows the change that release brought; one that fails above the newest
    it works on meets the change of the release where it stops, and does not show it."""
    out = []
    for r in found:
        works = r.works
        if works is None:
            continue
        start, end = works
        if start is not None:
            out.append(Evidence(r.problem_id, f"{r.library} {r.lowest}", start, True))
        if end is not None:
            out.append(Evidence(r.problem_id, f"{r.library} {r.above}", end, False))
    return out


def knowledge(source: str, found: Sequence[Reach]) -> Knowledge:
    """The knowledge of ``source`` from the ranges of its answers in ``found``."""
    mine = [r for r in found if r.source == source]
    ranged = [r for r in mine if r.ranged]
    errors = Counter(r.error for r in ranged if r.error is not None)
    return Knowledge(
        source, len(mine), len(ranged), dict(errors), dating.date(evidence(ranged), len(mine))
    )


def by_source(found: Sequence[Reach]) -> list[Knowledge]:
    """One :class:`Knowledge` per source other than the references, in name order."""
    sources = sorted({r.source for r in found if r.source != "reference"})
    return [knowledge(s, found) for s in sources]
