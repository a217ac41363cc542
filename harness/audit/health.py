"""What the audit's outcomes say of each problem's tests, in each combo and across them.

Per problem and combo (:class:`Health`), from the reference's outcomes (its repeats
included) and its probes' (:mod:`harness.audit.probes`):

- **discriminating**: every null answer fails; each mutant is killed (fails) or survives
  (passes). The share killed is the **mutation score**. A survivor whose values, as they
  crossed to the check, were the reference copy's own is a *likely equivalent* mutant;
  one whose values differ is a wrong answer the tests accept. The values compared are
  those the check reads (``Audit.reads``: DS-1000's and our compact problems' ``result``;
  else every name the answer sent back), and whatever crossed unnamed (figures, values
  the check fetched, what calls returned), each by its digest (``Outcome.crossed``).
  ``weak``: a null passes, or a survivor is a wrong answer the tests accept.
- **deterministic**: the reference's verdicts over its repeats (other random seeds, other
  hash seeds, the batch in another order; each repeat grades the reference as an answer)
  agree, else ``flaky``; and the values it sends the check are the same in every run,
  else ``nondeterministic`` (inputs drawn unseeded: answers' verdicts may be weather).
- **within time**: the limit is at least :data:`HEADROOM` times the reference's slowest
  run here; else ``slow`` (a slower machine would turn right answers into timeouts).
- **safe to grade**: its answers crossed the boundary to be graded; else ``unsafe``,
  graded in the answer's own process, with the reason the run gave.
- **self-contained**: nothing it ran wanted the network or downloaded data; else
  ``network-bound`` (or ``data-bound``), which upstream's environment may not have.

Where the reference itself does not pass, the probes prove nothing: ``reference-fails``
(that is drift's business). Across the combos in era order, a mutant killed in one and
surviving in a later one, the reference passing in both, is :class:`Weakened`: a release
made the tests compare less.
"""

from __future__ import annotations

import enum
import itertools
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from harness.analysis.causes import Cause, diagnose
from harness.analysis.drift import era_order
from harness.audit.probes import COPY, SECOND_COPY, Probe
from harness.benchmarks import registry
from harness.core.problem import MODEL_PREFIX, REFERENCE
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from harness.core.findings import Finding
    from harness.core.problem import Problem
    from harness.core.results import Outcome

# A limit under this many times the reference's own time is flagged: a machine that much
# slower (a shared CI runner, an older laptop) times right answers out.
HEADROOM = 4.0
_GRADED_IN_PROCESS = "graded in the solution's process: "
_NETWORK_NOTE = "reached for the network"
# the frames of a library fetching a dataset into its data home (seaborn's load_dataset,
# scikit-learn's fetch_*): where that fails, the problem wants data a sandbox does not hold
_FETCHES = re.compile(r"\bin (load_dataset|fetch_\w+|get_data_home)\b")


class Flag(str, enum.Enum):
    """What the audit flags in a problem's tests (a problem may carry several)."""

    WEAK = "weak"
    FLAKY = "flaky"
    NONDETERMINISTIC = "nondeterministic"
    SLOW = "slow"
    UNSAFE = "unsafe"
    NETWORK = "network-bound"
    DATA = "data-bound"
    REFERENCE_FAILS = "reference-fails"
    WEAKENED = "weakened"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Survivor:
    """A mutant the tests passed."""

    name: str
    operator: str
    description: str
    diff: str
    # its values as they crossed were the reference copy's own: likely equivalent. None:
    # cannot tell, and ``uncompared`` says why (graded in one process, a figure crossed,
    # the copy did not pass, the reference's own values vary from run to run)
    equivalent: bool | None
    uncompared: str = ""


@dataclass(frozen=True)
class Health:
    """One problem's tests in one combo."""

    problem_id: str
    combo: str
    library: str
    reference: str  # the reference's status (its first run)
    verdicts: tuple[str, ...] = ()  # the reference's statuses over every repeat
    values_vary: bool = False  # the reference's values differ from one run to the next
    nulls: tuple[str, ...] = ()  # the null answers graded
    nulls_passed: tuple[str, ...] = ()  # ... and those the tests passed
    mutants: int = 0  # mutants graded (neither skipped nor refused an env)
    killed: int = 0
    survivors: tuple[Survivor, ...] = ()
    duration_s: float = 0.0  # the reference's slowest run
    limit_s: float = 0.0
    graded: str = "across"  # "across" the boundary, or "in-process"
    graded_why: str = ""
    needs: str = ""  # "network" or "data": what it reached for
    needs_evidence: str = ""
    flags: tuple[Flag, ...] = field(default=())

    @property
    def score(self) -> float | None:
        """The mutation score: the share of mutants killed; None without mutants."""
        return self.killed / self.mutants if self.mutants else None

    @property
    def headroom(self) -> float | None:
        return self.limit_s / self.duration_s if self.duration_s > 0 and self.limit_s else None

    @property
    def wrongly_accepted(self) -> tuple[Survivor, ...]:
        """Survivors shown to compute something else than the reference."""
        return tuple(s for s in self.survivors if s.equivalent is False)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["flags"] = [str(f) for f in self.flags]
        data["score"] = self.score
        data["headroom"] = round(self.headroom, 2) if self.headroom else None
        return data


@dataclass(frozen=True)
class Weakened:
    """A mutant killed in one combo that survives in a later one, the reference passing
    in both: a release made the problem's tests compare less. ``finding``: where
    bisection put the change, once it ran."""

    problem_id: str
    mutant: str
    description: str
    diff: str
    library: str
    killed_in: str
    survived_in: str
    versions: tuple[str, str]  # the library's version where killed, and where it survived
    finding: Finding | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if k != "finding"}
        data["versions"] = list(self.versions)
        data["finding"] = self.finding.to_dict() if self.finding else None
        return data


def assess(
    problems: Sequence[Problem],
    probes: Sequence[Probe],
    outcomes: Iterable[Outcome],
    *,
    default_limit: float,
) -> list[Health]:
    """Each problem's health in each combo where its reference ran, in problem order."""
    by_key: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        by_key.setdefault((o.problem_id, o.combo), []).append(o)
    probes_of: dict[str, list[Probe]] = {}
    for p in probes:
        probes_of.setdefault(p.problem_id, []).append(p)
    combos = sorted({combo for _, combo in by_key})
    found = []
    for problem in problems:
        limit = problem.timeout or default_limit
        for combo in combos:
            ran = by_key.get((problem.id, combo), [])
            references = sorted((o for o in ran if o.source == REFERENCE), key=lambda o: o.attempt)
            if not references or references[0].status in (Status.SKIPPED, Status.ENV_ERROR):
                continue
            found.append(
                _health(problem, combo, references, ran, probes_of.get(problem.id, []), limit)
            )
    return found


def _baseline(
    copies: Sequence[Outcome], copy: Outcome | None, reads: Sequence[str] | None
) -> tuple[dict[str, str] | None, str, bool]:
    """What survivors are compared with: the reference copy's digests of the names the
    check reads (None, and why not, where there is nothing to compare with), and whether
    the reference's own values vary between its passing copies."""
    digests = {
        tuple(sorted(read.items()))
        for read in (_read(o.crossed, reads) for o in copies if o.status is Status.PASS)
        if read and not any(d.startswith(UNDIGESTED) for d in read.values())
    }
    values_vary = len(digests) > 1
    if copy is None or copy.status is not Status.PASS:
        return None, "the reference copy did not pass", values_vary
    if values_vary:
        return None, "the reference's own values vary from run to run", values_vary
    return _read(copy.crossed, reads), "", values_vary


def _survivor(
    probe: Probe,
    outcome: Outcome,
    copy: Outcome | None,
    base: dict[str, str] | None,
    why: str,
    reads: Sequence[str] | None,
) -> Survivor:
    """A mutant that passed, judged equivalent or not where its values can be compared."""
    equivalent, uncompared = None, why
    if outcome.graded == "in-process" or (copy is not None and copy.graded):
        uncompared = "graded in the answer's own process: nothing crossed"
    elif base is not None:
        equivalent, uncompared = compare(base, _read(outcome.crossed, reads))
    return Survivor(
        probe.name, probe.operator, probe.description, probe.diff, equivalent, uncompared
    )


def _health(
    problem: Problem,
    combo: str,
    references: Sequence[Outcome],
    ran: Sequence[Outcome],
    probes: Sequence[Probe],
    limit: float,
) -> Health:
    graded = {o.source: o for o in ran if o.source.startswith(MODEL_PREFIX) and o.attempt == 0}
    first = references[0]
    copies = sorted(
        (o for o in ran if o.source in (MODEL_PREFIX + COPY, MODEL_PREFIX + SECOND_COPY)),
        key=lambda o: (o.attempt, o.source),
    )
    copy = graded.get(MODEL_PREFIX + COPY)
    verdicts = tuple(o.status.value for o in references)
    if copy is not None and copy.status is first.status:
        # the repeats grade the reference as an answer: where that gives the reference's
        # own verdict, their verdicts are the reference's
        verdicts += tuple(o.status.value for o in copies if o.attempt > 0)
    audit = registry.audit_of(problem)
    reads = audit.reads(problem) if audit is not None else None
    base, why, values_vary = _baseline(copies, copy, reads)
    nulls, nulls_passed, survivors = [], [], []
    mutants = killed = 0
    for probe in probes:
        outcome = graded.get(probe.source)
        if outcome is None or not _judged(outcome):
            continue
        if probe.kind == "null":
            nulls.append(probe.name)
            if outcome.status is Status.PASS:
                nulls_passed.append(probe.name)
        elif probe.kind == "mutant":
            mutants += 1
            if outcome.status is Status.PASS:
                survivors.append(_survivor(probe, outcome, copy, base, why, reads))
            else:
                killed += 1
    in_process = next((o for o in graded.values() if o.graded == "in-process"), None)
    why = ""
    if in_process is not None:
        why = in_process.note.split(_GRADED_IN_PROCESS, 1)[-1].split("; ")[0]
    needs, evidence = _needs([*references, *graded.values()])
    health = Health(
        problem_id=problem.id,
        combo=combo,
        library=first.library or problem.library,
        reference=first.status.value,
        verdicts=verdicts,
        values_vary=values_vary,
        nulls=tuple(nulls),
        nulls_passed=tuple(nulls_passed),
        mutants=mutants,
        killed=killed,
        survivors=tuple(survivors),
        duration_s=round(max(o.duration_s for o in references), 3),
        limit_s=limit,
        graded="in-process" if in_process is not None else "across",
        graded_why=why,
        needs=needs,
        needs_evidence=evidence,
    )
    return _flagged(health)


UNDIGESTED = "?"  # a digest that is none: ``?`` and why


def _read(crossed: Mapping[str, str], reads: Sequence[str] | None) -> dict[str, str]:
    """The digests of what the check reads: the variables ``reads`` names, and what
    crossed under a label that is no variable's name (figures, calls, values fetched, an
    older outcome's one digest of everything); every label where ``reads`` is None."""
    if reads is None:
        return dict(crossed)
    return {k: v for k, v in crossed.items() if k in reads or not k.isidentifier()}


def compare(base: Mapping[str, str], other: Mapping[str, str]) -> tuple[bool | None, str]:
    """Whether an answer sent the check the values the reference copy sent it (``base``:
    the copy's digests of what the check reads, ``other``: the answer's): True, False,
    or None and why it cannot tell."""
    if not base or not other:
        return None, "nothing the check reads crossed"
    for label in sorted({*base, *other}):
        for digest in (base.get(label, ""), other.get(label, "")):
            if digest.startswith(UNDIGESTED):
                return None, f"{label or 'what crossed'}: {digest[len(UNDIGESTED) :]}"
    return dict(base) == dict(other), ""


def _judged(o: Outcome) -> bool:
    """Whether the tests judged the answer: it ran, and what the check gives it or what it
    sent back crossed (a guard refusal is not a verdict on the code, as in drift)."""
    if o.status in (Status.SKIPPED, Status.ENV_ERROR):
        return False
    diagnosis = diagnose(o) if o.status.is_failure else None
    return diagnosis is None or diagnosis.cause is not Cause.GUARD_REFUSED


def _needs(outcomes: Sequence[Outcome]) -> tuple[str, str]:
    """What the problem's executions reached for that a sandbox does not give: the
    network or downloaded data, with the line that says so."""
    for o in outcomes:
        said = [o.note, o.message, *(p.message for p in o.parts)]
        noted = next((s for s in said if _NETWORK_NOTE in s), None)
        if noted is not None:
            return "network", noted[:200]
        diagnosis = diagnose(o) if o.status.is_failure else None
        if diagnosis is not None and diagnosis.cause is Cause.NEEDS_NETWORK:
            return "network", o.first_line[:200]
        if diagnosis is not None and diagnosis.cause is Cause.NEEDS_DATA:
            return "data", o.first_line[:200]
        fetched = _FETCHES.search(o.traceback) if o.status.is_failure else None
        if fetched is not None:
            return "data", f"{o.first_line[:160]} (in {fetched.group(1)})"
    return "", ""


def _flagged(h: Health) -> Health:
    flags: list[Flag] = []
    if len({v == Status.PASS.value for v in h.verdicts}) > 1:
        flags.append(Flag.FLAKY)
    if h.reference != Status.PASS.value:
        flags.append(Flag.REFERENCE_FAILS)
    else:
        if h.values_vary:
            flags.append(Flag.NONDETERMINISTIC)
        if h.nulls_passed or h.wrongly_accepted:
            flags.append(Flag.WEAK)
        if h.headroom is not None and h.headroom < HEADROOM:
            flags.append(Flag.SLOW)
    if h.graded == "in-process":
        flags.append(Flag.UNSAFE)
    if h.needs:
        flags.append(Flag.NETWORK if h.needs == "network" else Flag.DATA)
    return Health(**{**h.__dict__, "flags": tuple(flags)})


def with_survivors(probes: Sequence[Probe], outcomes: Iterable[Outcome]) -> set[str]:
    """The problems one of whose mutants passed, in some combo."""
    mutants = {p.source for p in probes if p.kind == "mutant"}
    return {
        o.problem_id
        for o in outcomes
        if o.source in mutants and o.status is Status.PASS and o.attempt == 0
    }


def weakened(
    healths: Sequence[Health],
    probes: Sequence[Probe],
    outcomes: Iterable[Outcome],
    versions: Mapping[str, Mapping[str, str]],
) -> list[Weakened]:
    """Mutants killed in one combo and surviving in a later one (era order), the
    reference passing in both: the first such step of each (problem, mutant)."""
    status: dict[tuple[str, str, str], Status] = {
        (o.problem_id, o.source, o.combo): o.status
        for o in outcomes
        if o.attempt == 0 and _judged(o)
    }
    passing = {(h.problem_id, h.combo) for h in healths if h.reference == Status.PASS.value}
    order = era_order(sorted({h.combo for h in healths}), versions)
    library_of = {h.problem_id: h.library for h in healths}
    found = []
    for probe in probes:
        if probe.kind != "mutant":
            continue
        steps = [
            (c, status[(probe.problem_id, probe.source, c)])
            for c in order
            if (probe.problem_id, c) in passing and (probe.problem_id, probe.source, c) in status
        ]
        for (before, was), (after, now) in itertools.pairwise(steps):
            if was.is_failure and now is Status.PASS:
                library = library_of.get(probe.problem_id, "")
                found.append(
                    Weakened(
                        probe.problem_id,
                        probe.name,
                        probe.description,
                        probe.diff,
                        library,
                        before,
                        after,
                        (
                            versions.get(before, {}).get(library, "-"),
                            versions.get(after, {}).get(library, "-"),
                        ),
                    )
                )
                break
    return found


def flagged(healths: Sequence[Health], found: Sequence[Weakened] = ()) -> dict[str, list[str]]:
    """The problems each flag names, in any combo (what the nightly compares night to night)."""
    named: dict[str, set[str]] = {str(f): set() for f in Flag}
    for h in healths:
        for f in h.flags:
            named[str(f)].add(h.problem_id)
    named[str(Flag.WEAKENED)] = {w.problem_id for w in found}
    return {flag: sorted(ids) for flag, ids in named.items()}


def counts(healths: Sequence[Health], found: Sequence[Weakened] = ()) -> dict[str, int]:
    """How many problems carry each flag, in any combo."""
    return {name: len(ids) for name, ids in flagged(healths, found).items()}
