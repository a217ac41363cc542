"""The numbers a run is summarised by: computed once from its outcomes (:func:`summarise`),
rendered by every report, kept as summary.json (:meth:`Summary.to_dict`) and read back
from it (:func:`read`, :meth:`Summary.from_dict`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from harness.analysis import deprecations, knowledge, staleness, upcoming
from harness.analysis.changes import Changes
from harness.analysis.deprecations import ModelApis
from harness.analysis.drift import (
    DRIFTING,
    DriftClass,
    DriftRow,
    Trajectory,
    WarningGroup,
    era_order,
    trajectories,
    will_break,
)
from harness.analysis.idioms import ChangeNote, IdiomStory, stories
from harness.analysis.knowledge import Knowledge
from harness.analysis.ranges import Reach
from harness.analysis.repairs import RepairTable
from harness.analysis.staleness import ModelStaleness
from harness.analysis.trends import Trends
from harness.analysis.upcoming import Breakage
from harness.analysis.validity import Validity, validities
from harness.analysis.vintage import Timeline
from harness.core.errors import RunFileError
from harness.core.problem import MODEL_PREFIX, REFERENCE
from harness.core.results import SCHEMA_VERSION, Outcome, Status
from harness.envs.build import EnvInfo
from harness.matrix import release_dates
from harness.matrix.releases import ReleaseNews

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from harness.analysis.staleness import Entry
    from harness.core.findings import Finding
    from harness.core.problem import Solution
    from harness.execute.rundir import RunDir

_NOT_RUN = (Status.SKIPPED.value, Status.ENV_ERROR.value)
_T = TypeVar("_T")


@dataclass(frozen=True)
class ComboSummary:
    """One combo of the run: its environment as the reports show it, and its counts."""

    id: str
    ok: bool
    counts: Mapping[str, Mapping[str, int]]  # source → status → count
    # source → answers whose tests could not run apart from them (graded in their process)
    in_process: Mapping[str, int] = field(default_factory=dict)
    python: str = ""
    versions: Mapping[str, str] = field(default_factory=dict)  # the seven libraries, by key
    stage: str = ""  # where its environment failed ("" when it is ok)
    error: str = ""
    reused: bool = False
    build_s: float = 0.0
    lane: str = ""  # a nightly lane's kind, "" for a combo

    @classmethod
    def of(
        cls,
        combo: str,
        env: EnvInfo,
        counts: Mapping[str, Mapping[str, int]],
        in_process: Mapping[str, int],
    ) -> ComboSummary:
        return cls(
            combo,
            env.ok,
            counts,
            in_process,
            python=env.python,
            versions=env.library_versions(),
            stage="" if env.ok else env.stage,
            error="" if env.ok else env.error,
            reused=env.reused,
            build_s=env.build_s,
            lane=env.lane,
        )

    def pass_rate(self, source: str) -> float | None:
        """Passes over executions that ran (skipped and env errors are not counted)."""
        counts = self.counts.get(source, {})
        ran = sum(n for s, n in counts.items() if s not in _NOT_RUN)
        return counts.get(Status.PASS.value, 0) / ran if ran else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "ok": self.ok,
            "python": self.python,
            "versions": dict(self.versions),
            "env_error": f"{self.stage}: {self.error}" if not self.ok else None,
            "reused": self.reused,
            "build_s": self.build_s,
            "lane": self.lane,
            "counts": {s: dict(n) for s, n in self.counts.items()},
            "pass_rate": {s: self.pass_rate(s) for s in self.counts},
            "graded_in_process": dict(self.in_process),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ComboSummary:
        """The inverse of :meth:`to_dict` (``pass_rate`` is derived)."""
        ok = bool(data["ok"])
        # "stage: error"; no stage has a colon in it
        stage, _, error = ("" if ok else str(data["env_error"])).partition(": ")
        return cls(
            str(data["id"]),
            ok,
            {str(s): {str(k): int(n) for k, n in c.items()} for s, c in data["counts"].items()},
            {str(s): int(n) for s, n in data.get("graded_in_process", {}).items()},
            python=str(data.get("python", "")),
            versions={str(k): str(v) for k, v in data.get("versions", {}).items()},
            stage=stage,
            error=error,
            reused=bool(data.get("reused", False)),
            build_s=float(data.get("build_s", 0.0)),
            lane=str(data.get("lane", "")),
        )


@dataclass(frozen=True)
class ModelReport:
    """One model of the run: its staleness, and its pass rates by library."""

    staleness: ModelStaleness
    per_library: Mapping[str, Mapping[str, float | None]]  # combo → library → pass rate

    def to_dict(self) -> dict[str, Any]:
        per_library = {c: dict(rates) for c, rates in self.per_library.items()}
        return {**self.staleness.to_dict(), "per_library": per_library}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelReport:
        per_library = {
            str(c): {str(lib): None if r is None else float(r) for lib, r in rates.items()}
            for c, rates in data.get("per_library", {}).items()
        }
        return cls(ModelStaleness.from_dict(data), per_library)


@dataclass(frozen=True)
class Summary:
    run_id: str
    baseline: str
    combos: Sequence[ComboSummary]  # in matrix order
    order: Sequence[str]  # the same combos in era order
    sources: Sequence[str]
    problems: int
    executions: int
    classes: Mapping[str, Mapping[str, int]]  # source → drift class → (problem, source)s
    # references that pass in one era and fail in a later one
    drift: Sequence[DriftRow] = ()
    # the cause of every pass → fail step, whatever its source: cause → source → steps
    causes: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # per source but the reference (models, idioms): problems passing in one combo, failing
    # in another
    answers_changing: Mapping[str, int] = field(default_factory=dict)
    warnings: Sequence[WarningGroup] = ()
    changes: Changes | None = None  # since the previous run
    models: Sequence[ModelReport] = ()
    releases: ReleaseNews | None = None  # from harness releases
    # our problems' change notes, and where each of their idioms holds
    notes: Sequence[ChangeNote] = ()
    stories: Sequence[IdiomStory] = ()
    repairs: RepairTable | None = None  # harness repair's verification table
    validity: Sequence[Validity] = ()  # each reference's validity range per library
    timeline: Timeline | None = None  # dated combos: each model's vintage, the decay
    upcoming: Sequence[Breakage] = ()  # references that hold today and fail in a lane
    trends: Trends | None = None  # the last nights, from the history
    reach: Sequence[Reach] = ()  # harness reach: each problem's range over its releases
    # what each model knows, dated from where its ranged answers work (from ``reach``)
    knowledge: Sequence[Knowledge] = ()
    apis: Sequence[ModelApis] = ()  # the deprecated or removed APIs each model reaches for
    # where expected outputs were derived rather than published (CIBench's), in words
    expected: str = ""
    # combo → why its sandbox was off, where model answers ran without it (allowed by
    # --allow-unsandboxed-answers): untrusted code that ran with the machine's reach
    unsandboxed: Mapping[str, str] = field(default_factory=dict)

    @property
    def api_drift(self) -> tuple[DriftRow, ...]:
        """The drifted references whose failure is more than a changed printed output."""
        return tuple(row for row in self.drift if row.klass is not DriftClass.FORMAT_DRIFT)

    @property
    def format_drift(self) -> tuple[DriftRow, ...]:
        """The drifted references whose every failure is a changed printed output, values
        the same (output-format drift: a changed repr, not a broken API)."""
        return tuple(row for row in self.drift if row.klass is DriftClass.FORMAT_DRIFT)

    def bisected_line(self) -> str:
        """How many drifted problems a bisection found the first bad release of."""
        found = [row for row in self.drift if row.finding and row.finding.first_bad]
        return f"{len(found)} of {len(self.drift)} drifted problems bisected"

    def to_dict(self) -> dict[str, Any]:
        optional = {
            "changes": self.changes.to_dict() if self.changes else None,
            "models": [m.to_dict() for m in self.models],
            "repairs": self.repairs.to_dict() if self.repairs else None,
            "releases": self.releases.to_dict() if self.releases else None,
            "notes": [n.to_dict() for n in self.notes],
            "idioms": [s.to_dict() for s in self.stories],
            "timeline": self.timeline.to_dict() if self.timeline else None,
            "upcoming": [b.to_dict() for b in self.upcoming],
            "trends": self.trends.to_dict() if self.trends else None,
            "answers_changing": dict(self.answers_changing),
            "validity": [v.to_dict() for v in self.validity],
            "reach": [r.to_dict() for r in self.reach],
            "knowledge": [k.to_dict() for k in self.knowledge],
            "apis": [m.to_dict() for m in self.apis],
            "expected": self.expected,
            "unsandboxed": dict(self.unsandboxed),
        }
        return {
            "schema": SCHEMA_VERSION,
            "run_id": self.run_id,
            "baseline": self.baseline,
            "era_order": list(self.order),
            "problems": self.problems,
            "executions": self.executions,
            "sources": list(self.sources),
            "combos": [c.to_dict() for c in self.combos],
            "classes": {s: dict(n) for s, n in self.classes.items()},
            "drift": [row.to_dict() for row in self.drift],
            "warnings": [g.to_dict() for g in self.warnings],
            "causes": {c: dict(n) for c, n in self.causes.items()},
            # what a run lacks is left out, not written empty
            **{key: value for key, value in optional.items() if value},
        }

    @classmethod
    def from_dict(cls, data: object, file: str = "summary.json") -> Summary:
        """The inverse of :meth:`to_dict`; a value it cannot read is a RunFileError naming
        the file and the key."""
        if not isinstance(data, dict):
            raise RunFileError(file, None, "expected an object")

        def parsed(key: str, parse: Callable[[Any], _T], default: _T) -> _T:
            if data.get(key) is None:
                return default
            try:
                return parse(data[key])
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise RunFileError(file, key, f"unreadable ({type(exc).__name__}: {exc})") from None

        def each(parse: Callable[[Any], _T]) -> Callable[[Any], tuple[_T, ...]]:
            return lambda items: tuple(parse(item) for item in items)

        def counts(table: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
            return {str(k): {str(c): int(n) for c, n in v.items()} for k, v in table.items()}

        return cls(
            run_id=parsed("run_id", str, ""),
            baseline=parsed("baseline", str, ""),
            combos=parsed("combos", each(ComboSummary.from_dict), ()),
            order=parsed("era_order", each(str), ()),
            sources=parsed("sources", each(str), ()),
            problems=parsed("problems", int, 0),
            executions=parsed("executions", int, 0),
            classes=parsed("classes", counts, {}),
            drift=parsed("drift", each(DriftRow.from_dict), ()),
            causes=parsed("causes", counts, {}),
            answers_changing=parsed(
                "answers_changing", lambda t: {str(s): int(n) for s, n in t.items()}, {}
            ),
            warnings=parsed("warnings", each(WarningGroup.from_dict), ()),
            changes=parsed("changes", Changes.from_dict, None),
            models=parsed("models", each(ModelReport.from_dict), ()),
            releases=parsed("releases", lambda r: ReleaseNews.from_dict(r, file), None),
            notes=parsed("notes", each(ChangeNote.from_dict), ()),
            stories=parsed("idioms", each(IdiomStory.from_dict), ()),
            repairs=parsed("repairs", lambda r: RepairTable.from_dict(r, file), None),
            validity=parsed("validity", each(Validity.from_dict), ()),
            timeline=parsed("timeline", Timeline.from_dict, None),
            upcoming=parsed("upcoming", each(Breakage.from_dict), ()),
            trends=parsed("trends", Trends.from_dict, None),
            reach=parsed("reach", each(Reach.from_dict), ()),
            knowledge=parsed("knowledge", each(Knowledge.from_dict), ()),
            apis=parsed("apis", each(ModelApis.from_dict), ()),
            expected=parsed("expected", str, ""),
            unsandboxed=parsed("unsandboxed", lambda t: {str(c): str(w) for c, w in t.items()}, {}),
        )


def read(run: RunDir) -> Summary | None:
    """The summary the run's reports last wrote (its summary.json); None before any."""
    data = run.read_summary()
    return None if data is None else Summary.from_dict(data, str(run.summary_json))


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
    answers: Sequence[Solution] = (),
    catalogue: Sequence[Entry] = (),
) -> Summary:
    """The summary of a run's ``outcomes`` in ``envs``; ``analysis``: what bisection found
    of its drift; ``answers`` and ``catalogue``: the models' code, for their use of old
    APIs."""
    combos = _combos(combo_ids, envs, outcomes)
    order = _era_order(combos)
    sources = tuple(sorted({o.source for o in outcomes}, key=_source_order))
    ran = {o.problem_id for o in outcomes}
    kept = tuple(sorted((n for n in notes if n.problem_id in ran), key=lambda n: n.problem_id))
    found = trajectories(outcomes, order)
    analysed = dict(analysis or {})
    return Summary(
        run_id=run_id,
        baseline=baseline,
        combos=combos,
        order=order,
        sources=sources,
        problems=len(ran),
        executions=sum(1 for o in outcomes if o.attempt == 0),
        classes={s: dict(Counter(t.klass.value for t in found if t.source == s)) for s in sources},
        drift=tuple(
            DriftRow.of(t, analysed.get((t.problem_id, t.source)))
            for t in found
            if t.source == REFERENCE and t.klass in DRIFTING
        ),
        causes=_causes(found),
        answers_changing=_answers_changing(outcomes, order),
        warnings=tuple(will_break(outcomes)),
        changes=changes,
        models=_models(outcomes, found, order, answers, catalogue),
        apis=tuple(
            deprecations.models(answers, outcomes, catalogue, release_dates.load())
            if answers and catalogue
            else ()
        ),
        notes=kept,
        stories=tuple(stories(found, kept, analysed)),
        validity=tuple(validities(found, analysed)),
        upcoming=tuple(upcoming.find(outcomes, envs, order)),
    )


def unsandboxed_answers(outcomes: Sequence[Outcome], sandbox: Mapping[str, str]) -> dict[str, str]:
    """combo → why its sandbox was off, for each combo where model answers ran without
    it; ``sandbox`` is each combo's state as its executor recorded it ("on", or why not).
    An answer refused for want of the sandbox (env_error) or skipped did not run."""
    ran = {
        o.combo
        for o in outcomes
        if o.source.startswith(MODEL_PREFIX) and o.status.value not in _NOT_RUN
    }
    return {c: state for c, state in sandbox.items() if state != "on" and c in ran}


def _combos(
    combo_ids: Sequence[str], envs: Mapping[str, EnvInfo], outcomes: Sequence[Outcome]
) -> tuple[ComboSummary, ...]:
    """Every combo asked for, then any other with outcomes: its env and its counts."""
    counts: dict[str, dict[str, Counter[str]]] = {c: {} for c in combo_ids}
    in_process: dict[str, Counter[str]] = {}
    for o in outcomes:
        if o.attempt == 0:
            counts.setdefault(o.combo, {}).setdefault(o.source, Counter())[o.status.value] += 1
            if o.graded == "in-process":
                in_process.setdefault(o.combo, Counter())[o.source] += 1
    ids = list(combo_ids) + [c for c in counts if c not in combo_ids]
    missing = EnvInfo("", ok=False, stage="missing", error="no env record")
    return tuple(
        ComboSummary.of(
            c,
            envs.get(c, missing),
            {s: dict(counts[c][s]) for s in sorted(counts[c], key=_source_order)},
            dict(in_process.get(c, {})),
        )
        for c in ids
    )


def _era_order(combos: Sequence[ComboSummary]) -> tuple[str, ...]:
    """The combos in era order, the nightly lanes last."""
    versions = {c.id: {**c.versions, "python": c.python} for c in combos if c.ok}
    order = era_order([c.id for c in combos], versions)
    # a nightly lane is what comes after today's releases, whatever its versions say
    lanes = [c.id for c in combos if c.lane]
    return tuple([c for c in order if c not in lanes] + [c for c in order if c in lanes])


def _causes(found: Sequence[Trajectory]) -> dict[str, dict[str, int]]:
    """The cause of every diagnosed pass → fail step: cause → source → steps."""
    per_cause: dict[str, Counter[str]] = {}
    for t in found:
        if t.klass in DRIFTING and t.first_bad and t.diagnosis:
            per_cause.setdefault(t.diagnosis.cause.value, Counter())[t.source] += 1
    return {cause: dict(n) for cause, n in per_cause.items()}


def _answers_changing(outcomes: Sequence[Outcome], order: Sequence[str]) -> dict[str, int]:
    """Per model source: problems whose pass/fail differs between any two combos."""
    seen: dict[tuple[str, str], set[bool]] = {}
    for o in outcomes:
        decided = o.status.is_failure or o.status is Status.PASS
        if o.source != REFERENCE and o.attempt == 0 and o.combo in order and decided:
            seen.setdefault((o.source, o.problem_id), set()).add(o.status is Status.PASS)
    return dict(Counter(source for (source, _), values in seen.items() if len(values) > 1))


def _models(
    outcomes: Sequence[Outcome],
    found: Sequence[Trajectory],
    order: Sequence[str],
    answers: Sequence[Solution],
    catalogue: Sequence[Entry],
) -> tuple[ModelReport, ...]:
    """Staleness and per-library pass rates of every model in the run."""
    return tuple(
        ModelReport(
            m,
            {c: staleness.per_library(outcomes, MODEL_PREFIX + m.model, c) for c in order},
        )
        for m in staleness.measure(outcomes, found, order, answers, catalogue)
    )


def with_reach(summary: Summary, found: Sequence[Reach]) -> Summary:
    """``summary`` with the ranges ``harness reach`` found in its run, and what they say
    each model knows."""
    return replace(summary, reach=tuple(found), knowledge=tuple(knowledge.by_source(found)))
