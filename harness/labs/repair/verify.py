"""Verifying proposed repairs in throwaway runs of the run's own matrix.

A repair counts only when, run through the ordinary executor (``harness.execute.job``) in
a results root of its own (``repairs/runs/``):

1. **across the matrix** — the repaired reference, in the repaired context, passes in
   every combo where the original passed and in every combo where it drifted (combos
   where it failed before it ever passed — the API did not exist yet — are not asked);
2. **meaning** — in the baseline combo, the repaired context builds the same test
   inputs and expected results as the original, compared value by value with the
   problem's own comparison (``harness.labs.repair.meaning``), and the *original* reference
   passes it;
3. **check not weaker** — in the baseline combo, every model answer the run executed
   keeps its verdict against the repaired problem: what failed still fails, what
   passed still passes.

Where the repaired reference fails in some combo where the original passed, and the
original passes everywhere the repair is needed, version-conditioned code is built: one
branch per validity range, chosen by the installed version of the library that broke
it (from the first bad release ``harness bisect`` found, when the run was bisected;
else from the lowest release among the combos where the repair passes). The context
is conditioned too when it was rewritten. That code runs across the matrix in its turn,
and the checks of meaning and strength run again against it; where even that fails,
the row says why.
"""

from __future__ import annotations

import dataclasses
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from harness.analysis import repairs as table
from harness.analysis.staleness import load_catalogue
from harness.core.errors import UsageError
from harness.core.libraries import BY_KEY
from harness.core.problem import IDIOM_PREFIX, MODEL_PREFIX, REFERENCE, Solution, imported_modules
from harness.core.results import Status
from harness.envs.build import EnvBuilder
from harness.execute.job import Job, execute
from harness.execute.rundir import RunDir
from harness.labs.repair.answers import stale_answers, summarise
from harness.labs.repair.meaning import comparable, meaning_context
from harness.matrix.package_index import Index

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from harness.core.findings import Finding
    from harness.core.libraries import Library
    from harness.core.problem import Problem
    from harness.core.results import Outcome
    from harness.execute.progress import Reporter
    from harness.execute.runner import RunOptions
    from harness.labs.repair.plan import Proposal, RepairPlan
    from harness.matrix.spec import Combo, MatrixSpec

ORIGINAL = IDIOM_PREFIX + "original"  # the original reference, run in the repaired context
_NOT_RUN = (Status.SKIPPED.value, Status.ENV_ERROR.value)

Statuses = dict[tuple[str, str, str], str]  # (problem, source, combo) → status


@dataclass(frozen=True)
class Lab:
    """Where and how the throwaway runs are made: each with ``options`` (the repaired
    run's own limits, and what it hid, replayed: ``harness.execute.options.replay``)."""

    spec: MatrixSpec
    env_root: Path
    root: Path  # their results root
    options: RunOptions
    reporter: Reporter


def statuses(outcomes: Sequence[Outcome]) -> Statuses:
    """The first attempt's status of each (problem, source, combo)."""
    return {(o.problem_id, o.source, o.combo): o.status.value for o in outcomes if o.attempt == 0}


def required(order: Sequence[str], original: Mapping[str, str]) -> tuple[str, ...]:
    """Where a repair must pass: where the original passed, and every later combo where
    it failed (drift); failures before its first pass are not asked of it."""
    out: list[str] = []
    passed = False
    for combo in order:
        status = original.get(combo)
        if status is None or status in _NOT_RUN:
            continue
        passed = passed or status == Status.PASS.value
        if passed:
            out.append(combo)
    return tuple(out)


def repaired_problem(problem: Problem, proposal: Proposal, reference: str | None = None) -> Problem:
    """``problem`` with the proposal's code (or ``reference``) in place of its own."""
    code = proposal.new_reference if reference is None else reference
    return dataclasses.replace(
        problem,
        reference_code=code,
        code_context=proposal.new_context,
        idioms={},
        requires=imported_modules(proposal.new_context, code),
    )


def conditioned(original: str, repaired: str, module: str, version: tuple[int, int]) -> str:
    """One reference of both: ``repaired`` from ``module`` ``version`` on, else ``original``.

    The snippet keeps the indentation it had (DS-1000's function bodies stay bodies);
    the test reads ``__version__``, as the env side has nothing else for certain.
    """
    first = next((line for line in original.splitlines() if line.strip()), "")
    base = first[: len(first) - len(first.lstrip())]
    new = textwrap.dedent(repaired).strip("\n") or "pass"
    old = textwrap.dedent(original).strip("\n") or "pass"
    test = (
        f'tuple(int(_n) for _n in __import__("{module}").__version__.split(".")[:2]) >= {version!r}'
    )
    code = "\n".join(
        [
            f"if {test}:",
            textwrap.indent(new, "    "),
            "else:",
            textwrap.indent(old, "    "),
        ]
    )
    return textwrap.indent(code, base) + "\n"


def conditioned_module(original: str, repaired: str, module: str, version: tuple[int, int]) -> str:
    """A module (a problem's context) that runs ``repaired`` from ``module`` ``version`` on,
    else ``original``, in its own namespace.

    Unlike a snippet, a context is not re-indented into an ``if``: its multi-line strings
    (DS-1000's ``exec_context``) would change with it. Both texts stay as they are, and
    the chosen one is executed as the module's own code (in ``globals()``, named: the
    guard's ``exec`` runs code without them in a namespace of its own). A code object,
    not a string, so the guard never mistakes the context for the solution.
    """
    test = (
        f'tuple(int(_n) for _n in __import__("{module}").__version__.split(".")[:2]) >= {version!r}'
    )
    return (
        "# version-conditioned by harness repair: the repaired context from "
        f"{module} {version[0]}.{version[1]} on, the original before\n"
        f"_HARNESS_CONTEXTS = ({original!r}, {repaired!r})\n"
        f"exec(compile(_HARNESS_CONTEXTS[{test}], '<context>', 'exec'), globals())\n"
    )


def _minor(version: str) -> tuple[int, int] | None:
    """(major, minor) of a release, None when ``version`` is none."""
    try:
        release = Version(version).release
    except InvalidVersion:
        return None
    return (release[0], release[1] if len(release) > 1 else 0)


def split_version(
    library: str,
    new_where: Sequence[str],
    old_where: Sequence[str],
    versions: Mapping[str, Mapping[str, str]],
) -> tuple[int, int] | None:
    """A release of ``library`` (major, minor) from which every combo of ``new_where``
    has it and none of ``old_where`` does; None when there is no such split."""
    news = [_minor(versions.get(c, {}).get(library, "")) for c in new_where]
    olds = [_minor(versions.get(c, {}).get(library, "")) for c in old_where]
    if not news or any(v is None for v in news + olds):
        return None
    split = min(v for v in news if v is not None)
    if any(v is not None and v >= split for v in olds):
        return None
    return split


def _split(
    p: Proposal,
    new_where: Sequence[str],
    old_where: Sequence[str],
    versions: Mapping[str, Mapping[str, str]],
    findings: Mapping[tuple[str, str], Finding],
) -> tuple[Library | None, tuple[int, int] | None]:
    """The library and release from which the repaired branch is chosen.

    The first bad release that ``harness bisect`` found, when the run was bisected and
    it separates the combos; else the lowest release among the combos where the repair
    passes (releases between the matrix's combos are then untested, and the table says
    which split was used).
    """
    finding = findings.get((p.problem_id, REFERENCE))
    if finding is not None and finding.library and finding.first_bad:
        bisected = _minor(finding.first_bad)
        library = BY_KEY.get(finding.library)
        olds = [_minor(versions.get(c, {}).get(finding.library, "")) for c in old_where]
        news = [_minor(versions.get(c, {}).get(finding.library, "")) for c in new_where]
        if (
            library is not None
            and bisected is not None
            and all(v is not None and v < bisected for v in olds)
            and all(v is not None and v >= bisected for v in news)
        ):
            return library, bisected
    return BY_KEY.get(p.broke.library), split_version(
        p.broke.library, new_where, old_where, versions
    )


def _run(
    lab: Lab,
    name: str,
    combos: Sequence[Combo],
    problems: Sequence[Problem],
    solutions: Sequence[Solution],
) -> Statuses:
    """Run ``solutions`` of ``problems`` in ``combos``, as ``<lab.root>/<name>``."""
    return statuses(_outcomes(lab, name, combos, problems, solutions))


def _outcomes(
    lab: Lab,
    name: str,
    combos: Sequence[Combo],
    problems: Sequence[Problem],
    solutions: Sequence[Solution],
) -> list[Outcome]:
    """:func:`_run`, its outcomes."""
    if not solutions or not combos:
        return []
    job = Job(
        spec=lab.spec,
        combos=combos,
        problems=problems,
        solutions=solutions,
        run_dir=RunDir(lab.root / name),
        env_root=lab.env_root,
        options=lab.options,
    )
    lab.reporter.log(f"repair: {name}: {len(solutions)} solutions in {len(combos)} combos")
    execute(
        job, EnvBuilder(lab.env_root, Index(lab.spec.index_url), log=lab.reporter.log), lab.reporter
    )
    return job.run_dir.read_all()


def _meaning(
    lab: Lab,
    name: str,
    baseline: Sequence[Combo],
    cases: Sequence[tuple[Problem, Proposal, str]],
) -> dict[str, str]:
    """Whether each repaired context (problem, its proposal, the context to check) keeps
    the problem's meaning in the baseline: problem id → "kept: …" or "changed: …"."""
    problems, how = [], {}
    for problem, p, context in cases:
        if comparable(p.context, context):
            composite = meaning_context(p.context, context)
            how[p.problem_id] = "the test inputs and expected results are the original ones"
        else:
            composite = context
            how[p.problem_id] = "the original reference passes the repaired check"
        problems.append(dataclasses.replace(problem, code_context=composite))
    ran = _outcomes(
        lab,
        name,
        baseline,
        problems,
        [Solution(p.problem_id, ORIGINAL, p.reference) for _, p, _ in cases],
    )
    found = {o.problem_id: o for o in ran if o.attempt == 0}
    out = {}
    for _, p, _ in cases:
        o = found.get(p.problem_id)
        if o is None:
            out[p.problem_id] = "changed: the check did not run"
        elif o.status is Status.PASS:
            out[p.problem_id] = f"kept: {how[p.problem_id]}"
        else:
            out[p.problem_id] = f"changed: {o.first_line or o.status.value}"
    return out


@dataclass(frozen=True)
class Conditioned:
    """A version-conditioned repair: the reference (and context) that run the repaired
    code from a release on and the original before it."""

    reference: str
    context: str
    split: str  # "the repaired code from pandas 2.0 on"


@dataclass(frozen=True)
class Trials:
    """The statuses the throwaway runs of a verification gave, and the meaning checks."""

    before: Statuses  # the run's own outcomes
    matrix: Statuses  # the repaired references across the matrix
    in_baseline: Statuses  # the original reference and the model answers, in the baseline
    branches: Statuses  # the version-conditioned references, everywhere and in the baseline
    meaning: Mapping[str, str]  # problem → the meaning check's verdict


def verify(
    run: RunDir,
    plan: RepairPlan,
    problems: Sequence[Problem],
    answers: Sequence[Solution],
    lab: Lab,
) -> table.RepairTable:
    """Run the proposals of ``plan`` through the matrix and the baseline; the table."""
    by_combo = {c.id: c for c in lab.spec.combos}
    missing = [c for c in plan.order if c not in by_combo]
    if missing:
        raise UsageError(
            f"{lab.spec.path}: the run's combos {', '.join(missing)} are not in this matrix"
        )
    combos = [by_combo[c] for c in plan.order]
    baseline = [by_combo[plan.baseline]] if plan.baseline in by_combo else []
    before = statuses(run.read_all())
    by_id = {p.id: p for p in problems}
    proposed = [p for p in plan.proposed if p.problem_id in by_id]
    repaired = [repaired_problem(by_id[p.problem_id], p) for p in proposed]

    # 1. the repaired references across the matrix
    matrix = _run(lab, "matrix", combos, repaired, _references(repaired))
    # 2 and 3. in the baseline: the original reference, and the run's model answers
    in_baseline = _run(lab, "baseline", baseline, repaired, _checks(proposed, answers))
    changed = [(r, p, p.new_context) for r, p in zip(repaired, proposed, strict=True)]
    meaning = _meaning(lab, "meaning", baseline, [c for c in changed if c[2] != c[1].context])
    # version-conditioned code where the repair holds only from some release on
    conditional = _conditional(run, plan, proposed, before, matrix)
    both = [p for p in proposed if p.problem_id in conditional]
    branch_problems = [
        dataclasses.replace(
            repaired_problem(by_id[p.problem_id], p, conditional[p.problem_id].reference),
            code_context=conditional[p.problem_id].context,
        )
        for p in both
    ]
    # the conditioned reference everywhere; the checks of meaning and strength again,
    # in the baseline, against the conditioned context
    branches = _run(lab, "conditioned", combos, branch_problems, _references(branch_problems))
    branches |= _run(lab, "conditioned-baseline", baseline, branch_problems, _checks(both, answers))
    branched = zip(branch_problems, both, strict=True)
    meaning |= _meaning(
        lab,
        "conditioned-meaning",
        baseline,
        [(r, p, r.code_context) for r, p in branched if r.code_context != p.context],
    )
    trials = Trials(before, matrix, in_baseline, branches, meaning)
    rows = [_row(p, plan, trials, conditional, answers) for p in plan.proposals]
    models = _stale_answers(run, plan, problems, answers, lab)
    return table.RepairTable(plan.run_id, plan.baseline, plan.order, tuple(rows), tuple(models))


def _references(problems: Sequence[Problem]) -> list[Solution]:
    return [Solution(p.id, REFERENCE, p.reference_code) for p in problems]


def _conditional(
    run: RunDir,
    plan: RepairPlan,
    proposed: Sequence[Proposal],
    before: Statuses,
    matrix: Statuses,
) -> dict[str, Conditioned]:
    """The proposals whose repair fails only where the original passes, split by release:
    the reference, and the context when it changed too (its calls may be as new)."""
    versions = {
        c: {**e.library_versions(), "python": e.python}
        for c, e in run.read_envs(plan.order).items()
    }
    findings = run.read_analysis()
    conditional: dict[str, Conditioned] = {}
    for p in proposed:
        original = _original(before, p.problem_id, plan.order)
        need = required(plan.order, original)
        fails = [c for c in need if matrix.get((p.problem_id, REFERENCE, c)) != "pass"]
        if not fails or any(original.get(c) != "pass" for c in fails):
            continue
        library, split = _split(p, [c for c in need if c not in fails], fails, versions, findings)
        if library is None or split is None:
            continue
        module = library.module
        context = p.new_context
        if p.new_context != p.context:
            context = conditioned_module(p.context, p.new_context, module, split)
        conditional[p.problem_id] = Conditioned(
            conditioned(p.reference, p.new_reference, module, split),
            context,
            f"the repaired code from {library.key} {split[0]}.{split[1]} on",
        )
    return conditional


def _checks(proposed: Sequence[Proposal], answers: Sequence[Solution]) -> list[Solution]:
    """The run's model answers to the proposals' problems (the baseline runs them against
    each repaired problem)."""
    ids = {p.problem_id for p in proposed}
    return [a for a in answers if a.problem_id in ids and a.source.startswith(MODEL_PREFIX)]


def _stale_answers(
    run: RunDir,
    plan: RepairPlan,
    problems: Sequence[Problem],
    answers: Sequence[Solution],
    lab: Lab,
) -> list[table.ModelRow]:
    """Every stale model answer, rewritten and run in the combo where it first failed."""
    measured, stale = stale_answers(run.read_all(), plan.order, answers, load_catalogue())
    rewritten = [a for a in stale if a.codemods]
    by_id = {p.id: p for p in problems}
    where = {a.first_bad for a in rewritten}
    ran = _run(
        lab,
        "answers",
        [c for c in lab.spec.combos if c.id in where],
        [p for p in problems if p.id in {a.problem_id for a in rewritten}],
        [Solution(a.problem_id, a.source, a.new_code) for a in rewritten if a.problem_id in by_id],
    )
    return summarise(measured, stale, ran)


def _original(before: Statuses, problem_id: str, order: Sequence[str]) -> dict[str, str]:
    return {c: s for c in order if (s := before.get((problem_id, REFERENCE, c))) is not None}


def _row(
    p: Proposal,
    plan: RepairPlan,
    trials: Trials,
    conditional: Mapping[str, Conditioned],
    answers: Sequence[Solution],
) -> table.Row:
    pid = p.problem_id
    original = _original(trials.before, pid, plan.order)
    need = required(plan.order, original)
    base = table.Row(
        pid,
        table.NEEDS_HUMAN,
        p.reason,
        p.codemods,
        f"{p.broke.last_good} → {p.broke.first_bad}: {p.broke.error}",
        need,
        original,
        hand_fixed=tuple(dict.fromkeys(f.field for f in p.fixes)),
    )
    if not p.changed:
        return base
    after = {c: s for c in plan.order if (s := trials.matrix.get((pid, REFERENCE, c))) is not None}
    if not after:
        return dataclasses.replace(base, reason="the repaired problem did not run")
    row = dataclasses.replace(base, repaired=after)
    fails = [c for c in need if after.get(c) != "pass"]
    if fails and pid in conditional:
        branch = conditional[pid]
        branched = {c: s for c in plan.order if (s := trials.branches.get((pid, REFERENCE, c)))}
        checked = _checked(p, plan, trials.before, trials.branches, answers, trials.meaning)
        held = [c for c in need if branched.get(c) != "pass"]
        problems = [
            *checked.problems,
            *([f"the version-conditioned code fails in {', '.join(held)}"] if held else []),
        ]
        row = checked.applied(row)
        if problems:
            return dataclasses.replace(row, reason="; ".join(problems))
        return dataclasses.replace(
            row,
            verdict=table.CONDITIONED,
            reason=f"the repair fails in {', '.join(fails)}: one branch per range ({branch.split})",
            conditioned=branch.reference,
            conditioned_context=branch.context if branch.context != p.new_context else "",
            repaired=branched,
        )
    checked = _checked(p, plan, trials.before, trials.in_baseline, answers, trials.meaning)
    row = checked.applied(row)
    problems = list(checked.problems)
    if fails:
        shown = ", ".join(f"{c} ({after.get(c, 'not run')})" for c in fails)
        problems.append(f"the repaired reference fails in {shown}")
    if problems:
        return dataclasses.replace(row, reason="; ".join(problems))
    return dataclasses.replace(row, verdict=table.VERIFIED, reason="")


@dataclass(frozen=True)
class Checked:
    """What the meaning and strength checks of one proposal found."""

    meaning: str  # the meaning check's verdict ("context unchanged" when not checked)
    answers_kept: int  # model answers whose verdict in the baseline is unchanged
    answers_changed: tuple[str, ...]  # "model:m: pass → fail"
    problems: tuple[str, ...]  # what is wrong, for the row's reason

    def applied(self, row: table.Row) -> table.Row:
        return dataclasses.replace(
            row,
            meaning=self.meaning,
            answers_kept=self.answers_kept,
            answers_changed=self.answers_changed,
        )


def _checked(
    p: Proposal,
    plan: RepairPlan,
    before: Statuses,
    ran: Statuses,
    answers: Sequence[Solution],
    meanings: Mapping[str, str],
) -> Checked:
    """The meaning and strength checks of ``p``: the meaning check's verdict (none when
    the context did not change), and the model answers' verdicts in the baseline run
    ``ran``."""
    pid, baseline = p.problem_id, plan.baseline
    meaning = meanings.get(pid, "context unchanged")
    kept, changed = 0, []
    for a in answers:
        if a.problem_id != pid or not a.source.startswith(MODEL_PREFIX):
            continue
        was = before.get((pid, a.source, baseline))
        now = ran.get((pid, a.source, baseline))
        if was is None or now is None or was in _NOT_RUN or now in _NOT_RUN:
            continue
        if (was == "pass") == (now == "pass"):
            kept += 1
        else:
            changed.append(f"{a.source}: {was} → {now}")
    problems = []
    if meaning.startswith("changed"):
        problems.append("the repaired context changes the problem")
    if changed:
        problems.append(f"the check changed its verdict on {len(changed)} model answers")
    return Checked(meaning, kept, tuple(changed), tuple(problems))


def unverified(plan: RepairPlan, run: RunDir) -> table.RepairTable:
    """The table of proposals not run (``--no-verify``)."""
    before = statuses(run.read_all())
    rows = []
    for p in plan.proposals:
        original = _original(before, p.problem_id, plan.order)
        rows.append(
            table.Row(
                p.problem_id,
                table.UNVERIFIED if p.changed else table.NEEDS_HUMAN,
                p.reason,
                p.codemods,
                f"{p.broke.last_good} → {p.broke.first_bad}: {p.broke.error}",
                required(plan.order, original),
                original,
            )
        )
    return table.RepairTable(plan.run_id, plan.baseline, plan.order, tuple(rows))
