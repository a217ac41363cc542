"""Proposed repairs of a finished run's drifted problems: what broke, and its rewrite.

For every reference that drifted (passes in one era, fails in a later one), the
codemods are chosen from the catalogue (``harness/data/catalogue.toml``): the entries
of the failure's library whose old API the problem's code uses, or whose old API names
the failing symbol. When no entry fits, every default codemod is tried and those that
change the code are kept. Both the reference and the problem's context (its test-case
generation, its check) are rewritten: DS-1000's contexts often call the broken API too.

A codemod whose new API came after a release the repair must still hold in (the oldest
of its library among the combos from the reference's first pass on: BigCodeBench's pinned
pandas 2.0.3 has no ``DataFrame.map``) writes its portable form, one text that means the
same on releases before and after the change (``df.apply(lambda col: col.map(f))``,
``pd.offsets.MonthEnd()``); otherwise the new API, as a user moving on would write it.
Where a codemod has no portable form the verification builds version-conditioned code.

A problem no codemod changes is not an error but a proposal with the verdict
``needs-human`` and the reason, so that the report lists it beside the others.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from harness.analysis.drift import API_DRIFT, era_order, trajectories
from harness.analysis.staleness import load_catalogue, static_uses
from harness.benchmarks import registry
from harness.core.problem import REFERENCE
from harness.core.results import Status
from harness.labs.repair.codemods import (
    CODEMODS,
    DEFAULT,
    FOR_SOLUTIONS,
    Rewrite,
    apply,
    portable_for,
)
from harness.labs.repair.strength import loosened

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from harness.analysis.drift import Trajectory
    from harness.analysis.staleness import Entry
    from harness.benchmarks.base import Fix, Repairs
    from harness.core.problem import Problem
    from harness.execute.rundir import RunDir

PROPOSED = "proposed"
NEEDS_HUMAN = "needs-human"
# how the codemods were chosen
BY_CATALOGUE = "catalogue"
BY_TRYING = "all codemods"
BY_HAND = "hand fix"  # a reviewed edit (a benchmark's fixes.toml: Repairs.fixes)


@dataclass(frozen=True)
class Break:
    """Where and how a problem's reference drifted, as the drift analysis read it."""

    klass: str  # drifted | version-sensitive
    last_good: str
    first_bad: str
    cause: str  # harness.analysis.causes.Cause, "" when the failure was not diagnosed
    symbol: str
    library: str  # the symbol's library, else the problem's
    error: str  # the first bad outcome's one-line error

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Break:
        return cls(**{f.name: str(data.get(f.name, "")) for f in dataclasses.fields(cls)})


@dataclass(frozen=True)
class Proposal:
    """The rewrite proposed for one drifted problem (its code before and after)."""

    problem_id: str
    broke: Break
    verdict: str  # proposed | needs-human
    reason: str  # why a human is needed; "" for a proposal
    chosen_by: str  # catalogue | all codemods | ""
    codemods: tuple[str, ...]  # those that changed the reference or the context
    reference: str  # before
    context: str
    new_reference: str  # after (the same as before when nothing changed)
    new_context: str
    skipped: tuple[tuple[str, str], ...] = ()  # (codemod, why a use was left alone)
    # codemods asked for their portable form: the oldest combo the repair must hold in
    # has a release of their library from before the new API
    portable: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()  # the hand fixes applied, before the codemods

    @property
    def changed(self) -> bool:
        return self.verdict == PROPOSED

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["broke"] = self.broke.to_dict()
        data["codemods"] = list(self.codemods)
        data["skipped"] = [list(s) for s in self.skipped]
        data["portable"] = list(self.portable)
        data["fixes"] = [f.to_dict() for f in self.fixes]
        return data


@dataclass(frozen=True)
class RepairPlan:
    """Every drifted reference of a run, and what is proposed for it."""

    run_id: str
    baseline: str
    order: tuple[str, ...]  # the run's combos in era order
    proposals: tuple[Proposal, ...]

    @property
    def proposed(self) -> list[Proposal]:
        return [p for p in self.proposals if p.changed]


def drifted(run: RunDir) -> tuple[str, tuple[str, ...], list[Trajectory]]:
    """The run's baseline, its combos in era order, and its drifted references."""
    manifest = run.read_manifest()
    combos = run.known_combos(manifest)
    envs = run.read_envs(combos)
    versions = {c: {**e.library_versions(), "python": e.python} for c, e in envs.items()}
    order = era_order(combos, versions)
    baseline = (manifest.baseline if manifest else None) or (combos[0] if combos else "")
    found = [
        t
        for t in trajectories(run.read_all(), order)
        # a changed printed output (format drift) has no code to repair
        if t.source == REFERENCE and t.klass in API_DRIFT
    ]
    return baseline, tuple(order), found


def break_of(t: Trajectory, library: str) -> Break:
    """The break of a drifted trajectory, as the drift analysis read its first bad outcome."""
    bad = t.outcome(t.first_bad) if t.first_bad else None
    d = t.diagnosis
    return Break(
        klass=t.klass.value,
        last_good=t.last_good or "",
        first_bad=t.first_bad or "",
        cause=d.cause.value if d else "",
        symbol=d.symbol if d else "",
        library=(d.library if d and d.library else library),
        error=bad.first_line if bad else "",
    )


def _names(symbol: str) -> list[str]:
    """The identifiers of a symbol that can name an API (not the library's own name)."""
    words = re.findall(r"[A-Za-z_]\w*", symbol)
    return [w for w in words[1:] if w not in ("DataFrame", "Series")] or words[-1:]


def choose(code: str, broke: Break, catalogue: Sequence[Entry]) -> list[str]:
    """The catalogue's codemods for this break, in catalogue order: the entries of the
    failure's library whose old API names the failing symbol or whose failure message
    (``error``, of any library) is the break's, and every entry whose old API ``code``
    uses, of that library or, when it is a removal, of another (the next failure once the first is
    repaired: ``rolling("25S").apply(integrate.trapz)``)."""
    names = _names(broke.symbol)
    chosen: dict[str, None] = {}
    used = static_uses(code, catalogue)
    for entry in catalogue:
        if entry.codemod is None:
            continue
        # the failure's message names the change whichever library the break is filed under
        failed = entry.error is not None and bool(entry.error.search(broke.error))
        if entry.library != broke.library:
            if failed or (entry in used and entry.removed):
                chosen[entry.codemod] = None
            continue
        named = entry.pattern is not None and any(
            re.search(rf"\b{re.escape(n)}\b", entry.old) for n in names
        )
        if named or failed or entry in used:
            chosen[entry.codemod] = None
    return list(chosen)


def oldest_releases(t: Trajectory) -> dict[str, str]:
    """The oldest release of each library among the combos a repair of ``t`` must hold
    in: the first where the reference passed, and every one after it."""
    oldest: dict[str, tuple[Version, str]] = {}
    passed = False
    for combo, _ in t.steps:
        outcome = t.outcome(combo)
        passed = passed or (outcome is not None and outcome.status is Status.PASS)
        if not passed or outcome is None:
            continue
        for library, version in outcome.versions.items():
            try:
                parsed = Version(version)
            except InvalidVersion:
                continue
            if library not in oldest or parsed < oldest[library][0]:
                oldest[library] = (parsed, version)
    return {library: version for library, (_, version) in oldest.items()}


def rewrite(
    problem: Problem, names: Sequence[str], portable: Collection[str] = ()
) -> tuple[Rewrite, Rewrite]:
    """``problem``'s reference and context with the codemods ``names`` applied (those of
    ``portable`` in their portable form).

    A BigCodeBench task's context is built from its ``test`` field: the tests are
    rewritten (read after the rewritten solution, whose function they call) and the
    context built again from them and the rewritten prompt.
    """
    solution_names = [n for n in names if n in FOR_SOLUTIONS]
    ref = apply(problem.reference_code, solution_names, portable=portable)
    apart = _repairs(problem)
    tests = apart.tests_of(problem.code_context) if apart is not None else None
    prompt = str(problem.metadata.get("code_prompt", ""))
    if apart is None or tests is None:
        return ref, apply(problem.code_context, names, portable=portable)
    new_tests = apply(tests, names, after=problem.reference_code, portable=portable)
    split = apart.split(prompt, ref.source)
    if split is None:
        return ref, dataclasses.replace(new_tests, source=problem.code_context, applied=())
    entry = str(problem.metadata.get("entry_point") or "task_func")
    if not new_tests.changed and split[0] == prompt:
        return ref, dataclasses.replace(new_tests, source=problem.code_context)
    context = apart.context_of(new_tests.source, split[0], entry)
    return ref, dataclasses.replace(new_tests, source=context)


def weaker(problem: Problem, new_context: str) -> str:
    """What a rewritten BigCodeBench test checks less than the original ("" when nothing:
    :func:`harness.labs.repair.strength.loosened`)."""
    apart = _repairs(problem)
    if apart is None:
        return ""
    before = apart.tests_of(problem.code_context)
    after = apart.tests_of(new_context)
    if before is None or after is None or before == after:
        return ""
    return loosened(before, after)


def propose(
    problem: Problem,
    broke: Break,
    catalogue: Sequence[Entry],
    oldest: Mapping[str, str] | None = None,
    fixes: Sequence[Fix] = (),
) -> Proposal:
    """The rewrite of ``problem``'s reference and context for ``broke``: its hand fixes
    (``fixes``, reviewed edits) first, then the codemods the catalogue chooses, in the
    portable form of each codemod whose new API is newer than ``oldest`` (library → the
    oldest release the repair must hold in)."""
    apart = _repairs(problem)
    fixed = apart.apply_fixes(problem, fixes) if apart is not None and fixes else problem
    code = fixed.reference_code + "\n" + fixed.code_context
    names = choose(code, broke, catalogue)
    chosen_by = BY_HAND if fixes else BY_CATALOGUE
    portable = portable_for(CODEMODS, oldest or {})
    ref, ctx = rewrite(fixed, names, portable)
    # the break's own: its library's, or named by its message whatever the library
    told = {e.codemod for e in catalogue if e.error is not None and e.error.search(broke.error)}
    own = [
        n for n in (*ref.applied, *ctx.applied) if CODEMODS[n].library == broke.library or n in told
    ]
    if not own and not fixes:
        # the failure names no catalogued API of its library: try every repair (those
        # chosen for other libraries among them), keep what changes code
        chosen_by = BY_TRYING
        ref, ctx = rewrite(fixed, DEFAULT, portable)
    applied = tuple(dict.fromkeys([*ref.applied, *ctx.applied]))
    skipped = tuple(dict.fromkeys([*ref.skipped, *ctx.skipped]))
    base = Proposal(
        problem.id,
        broke,
        PROPOSED,
        "",
        chosen_by,
        applied,
        problem.reference_code,
        problem.code_context,
        ref.source,
        ctx.source,
        skipped,
        tuple(n for n in applied if n in portable),
        tuple(fixes),
    )
    weakened = weaker(problem, ctx.source)
    if (applied or fixes) and weakened:
        reason = f"the rewritten test would check less: {weakened}"
        return dataclasses.replace(base, verdict=NEEDS_HUMAN, reason=reason)
    if applied or fixes:
        return base
    what = broke.symbol or broke.error or "the failure"
    # a codemod that saw the use but left it alone says why: the human starts there
    why = "; ".join(f"{name}: {reason}" for name, reason in skipped if name in names)
    reason = f"no codemod applies to {what}" + (f" ({why})" if why else "")
    return dataclasses.replace(base, verdict=NEEDS_HUMAN, reason=reason, chosen_by="")


def plan(
    run: RunDir,
    problems: Sequence[Problem],
    catalogue: Sequence[Entry] | None = None,
    fixes: Sequence[Fix] | None = None,
) -> RepairPlan:
    """The proposals for every drifted reference of ``run``, whose ``problems`` these are
    (with the hand fixes of ``fixes``, by default each benchmark's reviewed ones)."""
    baseline, order, found = drifted(run)
    entries = load_catalogue() if catalogue is None else catalogue
    reviewed, unfixed = _reviewed(fixes)
    by_id = {p.id: p for p in problems}
    proposals = []
    for t in found:
        problem = by_id.get(t.problem_id)
        broke = break_of(t, problem.library if problem else t.library)
        if problem is None:
            proposals.append(
                Proposal(
                    t.problem_id,
                    broke,
                    NEEDS_HUMAN,
                    "the problem is not among the run's problem files any more",
                    "",
                    (),
                    "",
                    "",
                    "",
                    "",
                )
            )
            continue
        ours = _repairs(problem) is not None
        proposal = propose(
            problem,
            broke,
            entries,
            oldest_releases(t),
            reviewed.get(problem.native_id, []) if ours else [],
        )
        why = unfixed.get(problem.native_id) if ours else None
        if why and not proposal.changed:
            proposal = dataclasses.replace(proposal, reason=f"reviewed by hand, not fixed: {why}")
        proposals.append(proposal)
    return RepairPlan(run.run_id, baseline, order, tuple(proposals))


def _repairs(problem: Problem) -> Repairs | None:
    """What the problem's benchmark offers the repair lab (tests apart from the solution,
    hand fixes), or None: then its context is rewritten as one program."""
    benchmark = registry.of(problem)
    return benchmark.repairs if benchmark is not None else None


def _reviewed(fixes: Sequence[Fix] | None) -> tuple[dict[str, list[Fix]], dict[str, str]]:
    """The hand fixes by task (``fixes``, else every benchmark's reviewed ones), and the
    tasks reviewed and left alone, with why."""
    unfixed: dict[str, str] = {}
    if fixes is None:
        found: list[Fix] = []
        for benchmark in registry.benchmarks():
            if benchmark.repairs is not None:
                found += benchmark.repairs.fixes()
                unfixed.update(benchmark.repairs.unfixed())
        fixes = found
    by_task: dict[str, list[Fix]] = {}
    for fix in fixes:
        by_task.setdefault(fix.task, []).append(fix)
    return by_task, unfixed
