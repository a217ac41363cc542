"""The numbers a run is summarised by, computed once and rendered by every writer."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.analysis import upcoming
from harness.analysis.causes import site
from harness.analysis.drift import (
    DriftClass,
    Trajectory,
    WarningGroup,
    era_order,
    trajectories,
    will_break,
)
from harness.analysis.idioms import ChangeNote, IdiomStory, stories
from harness.analysis.validity import Validity, validities
from harness.core.problem import REFERENCE
from harness.core.results import SCHEMA_VERSION, Outcome, Status
from harness.envs.build import EnvInfo

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.analysis.history import Changes
    from harness.analysis.ranges import Reach
    from harness.analysis.repairs import RepairTable
    from harness.analysis.staleness import ModelStaleness
    from harness.analysis.trends import Trends
    from harness.analysis.upcoming import Breakage
    from harness.analysis.vintage import Timeline
    from harness.core.findings import Finding
    from harness.matrix.releases import ReleaseNews

# Classes that have a pass → fail step worth a row in the drift table.
DRIFTING = (DriftClass.DRIFTED, DriftClass.VERSION_SENSITIVE)


@dataclass(frozen=True)
class ComboSummary:
    id: str
    env: EnvInfo
    counts: Mapping[str, Mapping[str, int]]  # source → status → count
    # source → answers whose tests could not run apart from them (graded in their process)
    in_process: Mapping[str, int] = field(default_factory=dict)

    def pass_rate(self, source: str) -> float | None:
        """Passes over executions that ran (skipped and env errors are not counted)."""
        counts = self.counts.get(source, {})
        ignored = (Status.SKIPPED.value, Status.ENV_ERROR.value)
        ran = sum(n for s, n in counts.items() if s not in ignored)
        return counts.get(Status.PASS.value, 0) / ran if ran else None


@dataclass(frozen=True)
class ModelReport:
    """One model of the run: its staleness, and its pass rates by library."""

    staleness: ModelStaleness
    per_library: Mapping[str, Mapping[str, float | None]]  # combo → library → pass rate

    def to_dict(self) -> dict[str, Any]:
        per_library = {c: dict(rates) for c, rates in self.per_library.items()}
        return {**self.staleness.to_dict(), "per_library": per_library}


@dataclass(frozen=True)
class Summary:
    run_id: str
    baseline: str
    combos: Sequence[ComboSummary]  # in matrix order
    order: Sequence[str]  # the same combos in era order
    sources: Sequence[str]
    problems: int
    executions: int
    trajectories: Sequence[Trajectory]
    warnings: Sequence[WarningGroup]
    # attribution and bisection, by (problem, source) (--bisect)
    analysis: Mapping[tuple[str, str], Finding] = field(default_factory=dict)
    changes: Changes | None = None  # since the previous run
    models: Sequence[ModelReport] = ()
    releases: ReleaseNews | None = None  # from harness releases
    # our problems' change notes, and where each of their idioms holds
    notes: Sequence[ChangeNote] = ()
    stories: Sequence[IdiomStory] = ()
    repairs: RepairTable | None = None  # harness repair's verification table
    validity: Sequence[Validity] = ()  # each reference's validity range per library
    timeline: Timeline | None = None  # dated combos: each model's vintage, the decay
    timeline_svg: str = field(default="", repr=False)  # its curves, for report.html
    upcoming: Sequence[Breakage] = ()  # references that hold today and fail in a lane
    trends: Trends | None = None  # the last nights, from the history
    trends_svg: str = field(default="", repr=False)  # their chart, for report.html
    reach: Sequence[Reach] = ()  # harness reach: each problem's range over its releases
    reach_svg: str = field(default="", repr=False)

    def finding(self, t: Trajectory) -> Finding | None:
        """The analysis of a drifted trajectory, when the run was bisected."""
        return self.analysis.get((t.problem_id, t.source))

    def bisected_line(self) -> str:
        """How many drifted problems a bisection found the first bad release of."""
        found = [t for t in self.drift if (f := self.finding(t)) and f.first_bad]
        return f"{len(found)} of {len(self.drift)} drifted problems bisected"

    @property
    def drift(self) -> list[Trajectory]:
        """Reference solutions that pass in one era and fail in a later one."""
        return [t for t in self.trajectories if t.source == REFERENCE and t.klass in DRIFTING]

    def classes(self, source: str) -> Counter[str]:
        return Counter(t.klass.value for t in self.trajectories if t.source == source)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "run_id": self.run_id,
            "baseline": self.baseline,
            "era_order": list(self.order),
            "problems": self.problems,
            "executions": self.executions,
            "sources": list(self.sources),
            "combos": [
                {
                    "id": c.id,
                    "ok": c.env.ok,
                    "python": c.env.python,
                    "versions": c.env.library_versions(),
                    "env_error": f"{c.env.stage}: {c.env.error}" if not c.env.ok else None,
                    "reused": c.env.reused,
                    "build_s": c.env.build_s,
                    "lane": c.env.lane,
                    "counts": {s: dict(n) for s, n in c.counts.items()},
                    "pass_rate": {s: c.pass_rate(s) for s in c.counts},
                    "graded_in_process": dict(c.in_process),
                }
                for c in self.combos
            ],
            "classes": {s: dict(self.classes(s)) for s in self.sources},
            "drift": [drift_record(t, self.finding(t)) for t in self.drift],
            "warnings": [
                {
                    "library": g.library,
                    "category": g.category,
                    "message": g.message,
                    "executions": [list(e) for e in g.executions],
                }
                for g in self.warnings
            ],
            **({"changes": self.changes.to_dict()} if self.changes else {}),
            **({"models": [m.to_dict() for m in self.models]} if self.models else {}),
            **({"repairs": self.repairs.to_dict()} if self.repairs else {}),
            **({"releases": self.releases.to_dict()} if self.releases else {}),
            **({"notes": [n.to_dict() for n in self.notes]} if self.notes else {}),
            **({"idioms": [s.to_dict() for s in self.stories]} if self.stories else {}),
            **({"timeline": self.timeline.to_dict()} if self.timeline else {}),
            **({"upcoming": [b.to_dict() for b in self.upcoming]} if self.upcoming else {}),
            **({"trends": self.trends.to_dict()} if self.trends else {}),
        }


def drift_record(t: Trajectory, analysis: Finding | None = None) -> dict[str, Any]:
    bad = t.outcome(t.first_bad) if t.first_bad else None
    return {
        "problem_id": t.problem_id,
        "library": t.library,
        "source": t.source,
        "class": t.klass.value,
        "last_good": t.last_good,
        "first_bad": t.first_bad,
        "status": bad.status.value if bad else None,
        "error": (bad.first_line or bad.status.value) if bad else None,
        "cause": t.diagnosis.cause.value if t.diagnosis else None,
        "symbol": t.diagnosis.symbol if t.diagnosis else "",
        # solution, test (the problem's own test code broke), assertion, or "" (unknown)
        "site": site(bad) if bad else "",
        "changed": {k: list(v) for k, v in t.changed.items()},
        "warnings": [w.message for w in t.warnings],
        **({"analysis": analysis.to_dict()} if analysis else {}),
    }


def _source_order(source: str) -> tuple[int, str]:
    return (0 if source == REFERENCE else 1, source)


def summarise(
    run_id: str,
    baseline: str,
    combo_ids: Sequence[str],
    envs: Mapping[str, EnvInfo],
    outcomes: Sequence[Outcome],
    analysis: Mapping[tuple[str, str], Finding] | None = None,
    changes: Changes | None = None,
    notes: Sequence[ChangeNote] = (),
) -> Summary:
    counts: dict[str, dict[str, Counter[str]]] = {c: {} for c in combo_ids}
    in_process: dict[str, Counter[str]] = {}
    for o in outcomes:
        if o.attempt == 0:
            counts.setdefault(o.combo, {}).setdefault(o.source, Counter())[o.status.value] += 1
            if o.graded == "in-process":
                in_process.setdefault(o.combo, Counter())[o.source] += 1
    ids = list(combo_ids) + [c for c in counts if c not in combo_ids]
    missing = EnvInfo("", ok=False, stage="missing", error="no env record")
    combos = [
        ComboSummary(
            c,
            envs.get(c, missing),
            {s: dict(counts[c][s]) for s in sorted(counts[c], key=_source_order)},
            dict(in_process.get(c, {})),
        )
        for c in ids
    ]
    versions = {
        c.id: {**c.env.library_versions(), "python": c.env.python} for c in combos if c.env.ok
    }
    order = era_order(ids, versions)
    # a nightly lane is what comes after today's releases, whatever its versions say
    lanes = [c.id for c in combos if c.env.lane]
    order = [c for c in order if c not in lanes] + [c for c in order if c in lanes]
    ran = {o.problem_id for o in outcomes}
    kept = sorted((n for n in notes if n.problem_id in ran), key=lambda n: n.problem_id)
    found = trajectories(outcomes, order)
    analysed = dict(analysis or {})
    return Summary(
        run_id=run_id,
        baseline=baseline,
        combos=combos,
        order=order,
        sources=sorted({o.source for o in outcomes}, key=_source_order),
        problems=len({o.problem_id for o in outcomes}),
        executions=sum(1 for o in outcomes if o.attempt == 0),
        trajectories=found,
        warnings=will_break(outcomes),
        analysis=analysed,
        changes=changes,
        notes=kept,
        stories=stories(found, kept, analysed),
        validity=validities(found, analysed),
        upcoming=upcoming.find(outcomes, envs, order),
    )
