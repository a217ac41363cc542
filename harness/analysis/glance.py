"""The first screen of a run's reports: how many problems, how many broke where, the top
causes of pass → fail steps, where model answers ran unsandboxed, and what is new since
the last run — counted once from the
summary, rendered by markdown and HTML (``harness.reports.glance`` words it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.analysis.changes import Changes
    from harness.analysis.summary import Summary

_FAILURES = tuple(s.value for s in Status if s.is_failure)
_NOT_RUN = (Status.SKIPPED.value, Status.ENV_ERROR.value)
TOP_CAUSES = 5


@dataclass(frozen=True)
class Broken:
    """One combo, one source: executions that failed of those that ran."""

    combo: str
    source: str
    failed: int
    ran: int
    env_ok: bool = True


@dataclass(frozen=True)
class CauseCount:
    """A cause of pass → fail steps, and how many per source."""

    cause: str
    total: int
    by_source: Sequence[tuple[str, int]]


@dataclass(frozen=True)
class Glance:
    problems: int
    ours: int  # problems of ours: a change note, or an old idiom that ran
    combos: int
    executions: int
    order: Sequence[str]
    sources: Sequence[str]
    broken: Sequence[Broken]  # combos in era order, then sources
    old_breaks: int  # old idioms that pass, then fail
    modern_not_yet: int  # modern idioms red before their first release
    drifted: int  # references that pass, then fail (an API: not only a printed output)
    causes: Sequence[CauseCount]
    changes: Changes | None
    # references whose printed output changed, its values the same (output-format drift)
    format_drifted: int = 0
    # (combo, why its sandbox was off) where model answers ran without it, in era order
    unsandboxed: Sequence[tuple[str, str]] = ()

    def cell(self, combo: str, source: str) -> Broken | None:
        return next((b for b in self.broken if b.combo == combo and b.source == source), None)


def glance(summary: Summary) -> Glance:
    by_id = {c.id: c for c in summary.combos}
    broken = []
    for combo in summary.order:
        c = by_id[combo]
        for source in summary.sources:
            counts = c.counts.get(source, {})
            failed = sum(counts.get(s, 0) for s in _FAILURES)
            ran = sum(n for s, n in counts.items() if s not in _NOT_RUN)
            broken.append(Broken(combo, source, failed, ran, c.ok))
    causes = sorted(
        (
            CauseCount(cause, sum(n.values()), sorted(n.items(), key=lambda i: (-i[1], i[0])))
            for cause, n in summary.causes.items()
        ),
        key=lambda c: (-c.total, c.cause),
    )
    return Glance(
        problems=summary.problems,
        ours=len(summary.stories),
        combos=len(summary.combos),
        executions=summary.executions,
        order=list(summary.order),
        sources=list(summary.sources),
        broken=broken,
        old_breaks=sum(1 for s in summary.stories if s.old_breaks),
        modern_not_yet=sum(1 for s in summary.stories if s.modern_not_yet),
        drifted=len(summary.api_drift),
        format_drifted=len(summary.format_drift),
        causes=causes[:TOP_CAUSES],
        changes=summary.changes,
        unsandboxed=[
            (c, summary.unsandboxed[c]) for c in summary.order if c in summary.unsandboxed
        ],
    )
