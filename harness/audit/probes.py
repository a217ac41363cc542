"""The audit's probes: the answers it grades to learn whether a problem's tests
discriminate. Per problem, as its benchmark declares (``Benchmark.audit``):

- its **null answers** (``null-pass``, ``null-none``, ``null-input``, ``null-empty``),
  which do none of the work and must all fail;
- up to ``limit`` **mutants** of its reference (``mutant-1`` …), single-point changes
  made with LibCST (:mod:`harness.audit.mutants`), seeded per problem, which a strong
  test fails;
- **the reference itself, as an answer** (``reference-copy``): graded across the
  boundary as the others are, it gives the digest of the values a right answer sends
  the check, which tells a surviving mutant that computes the same values (a likely
  equivalent) from one the tests wrongly accept.

Probes are untrusted answers: each is a ``model:`` solution, run apart from its check,
never a reference. They are written to ``audit-probes.jsonl`` in the run's directory,
one line each with its diff, so a report can show what survived.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from harness.benchmarks import registry
from harness.core.errors import RunFileError
from harness.core.problem import MODEL_PREFIX, Solution

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

    from harness.core.problem import Problem

NULL = "null-"
MUTANT = "mutant-"
COPY = "reference-copy"
# the reference as an answer once more: if the two copies' values differ, the problem's
# values vary from run to run (inputs drawn unseeded), and a digest cannot tell an
# equivalent mutant from a wrong one
SECOND_COPY = "reference-copy-2"


@dataclass(frozen=True)
class Probe:
    """One answer the audit grades for one problem."""

    problem_id: str
    name: str  # "null-pass", "mutant-3", "reference-copy"
    code: str
    operator: str = ""  # of a mutant: which operator made it
    description: str = ""  # of a mutant: what it changed, in one line
    diff: str = ""  # of a mutant: the unified diff from the reference

    @property
    def source(self) -> str:
        """The source its outcomes carry: ``model:<name>``."""
        return MODEL_PREFIX + self.name

    @property
    def kind(self) -> str:
        """``null``, ``mutant`` or ``copy`` (either copy)."""
        if self.name.startswith(NULL):
            return "null"
        return "mutant" if self.name.startswith(MUTANT) else "copy"

    def solution(self) -> Solution:
        return Solution(self.problem_id, self.source, self.code)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v}

    @classmethod
    def from_dict(cls, data: Any, file: str, line: int | None = None) -> Probe:
        fields = cls.__dataclass_fields__
        if not isinstance(data, dict):
            raise RunFileError(file, None, "a probe is a JSON object", line=line)
        wrong = [k for k in fields if not isinstance(data.get(k, ""), str)]
        missing = [k for k in ("problem_id", "name", "code") if k not in data]
        if wrong or missing:
            said = ", ".join(
                [*(f"{k} is not a string" for k in wrong), *(f"no {k}" for k in missing)]
            )
            raise RunFileError(file, None, f"not a probe: {said}", line=line)
        return cls(**{k: data[k] for k in fields if k in data})


def seed_of(problem: Problem, seed: int) -> int:
    """The seed of one problem's mutants: the run's, mixed with the problem's id, so a
    problem gets the same mutants whichever problems run beside it."""
    return zlib.crc32(f"{seed}:{problem.id}".encode())


def probes_of(
    problem: Problem, *, limit: int = 5, seed: int = 0, copy: bool = True
) -> tuple[Probe, ...]:
    """The probes of one problem, with its reference as an answer unless ``copy`` is
    false (:func:`copies` then adds it where it is needed); none where its benchmark
    declares no audit."""
    # LibCST takes half a second to load: only making probes pays it, not reading them
    from harness.audit.mutants import mutants  # noqa: PLC0415

    audit = registry.audit_of(problem)
    if audit is None:
        return ()
    found = [Probe(problem.id, NULL + name, code) for name, code in audit.nulls(problem).items()]
    target = audit.mutable(problem)
    for number, m in enumerate(mutants(target, seed=seed_of(problem, seed), limit=limit), 1):
        found.append(
            Probe(
                problem.id,
                f"{MUTANT}{number}",
                m.code,
                operator=m.operator,
                description=m.description,
                diff=m.diff(target),
            )
        )
    if copy:
        found.append(Probe(problem.id, COPY, target))
    return tuple(found)


def build(
    problems: Iterable[Problem], *, limit: int = 5, seed: int = 0, copy: bool = True
) -> tuple[Probe, ...]:
    """Every problem's probes, in problem order."""
    return tuple(
        p for problem in problems for p in probes_of(problem, limit=limit, seed=seed, copy=copy)
    )


def copies(problems: Iterable[Problem]) -> tuple[Probe, ...]:
    """The reference of each problem as an answer, twice: the values it sends the check
    judge its survivors, where the two copies agree (an audit with no repeats grades
    these only for the problems with a surviving mutant)."""
    found = []
    for problem in problems:
        audit = registry.audit_of(problem)
        if audit is not None:
            code = audit.mutable(problem)
            found += [Probe(problem.id, COPY, code), Probe(problem.id, SECOND_COPY, code)]
    return tuple(found)


def write(path: Path, probes: Sequence[Probe]) -> None:
    path.write_text(
        "".join(json.dumps(p.to_dict(), sort_keys=True) + "\n" for p in probes), encoding="utf-8"
    )


def read(path: Path) -> tuple[Probe, ...]:
    """The probes a run wrote; a line that is not one is an error naming it."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise RunFileError(str(path), None, f"not JSON ({exc})", line=number) from None
        found.append(Probe.from_dict(data, str(path), number))
    return tuple(found)
