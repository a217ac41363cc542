"""What the guard admits in one combo: the shipped allowlist, and what the references'
values use in that combo's environment.

The shipped allowlist (``harness/envside/allowlist.txt``) was measured on the releases
this project has met. A release it has not met (a pre-release lane, a dated combo of
2020) may pickle its honest values under names the list has never seen, and every honest
answer would then be refused. So before a combo's model answers run, the references of
the same problems run once through the guard in recording mode: references are trusted,
so whatever their values use is data. The answers' checker then admits the shipped list
and what was recorded. A refusal of an honest answer that still happens stays an outcome
of its own, as before.

The measurement is kept beside the environments, per lock (one environment, one set of
releases) and per problem (its context and reference), so each new release is measured
once, and only for the problems that have answers to check.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from harness.benchmarks import registry
from harness.core.problem import MODEL_PREFIX, REFERENCE, Solution
from harness.core.results import Status
from harness.envs.build import ENVSIDE
from harness.execute import allowlist
from harness.execute.runner import ComboRun, Execution

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from harness.core.problem import Problem
    from harness.core.results import Outcome
    from harness.envs.build import EnvInfo
    from harness.execute.runner import RunOptions


class Progress(Protocol):
    """What the recording run reports to (``progress.Reporter``)."""

    def log(self, message: str) -> None: ...
    def combo_started(self, combo: str, total: int) -> None: ...
    def outcome(self, outcome: Outcome) -> None: ...


CACHE = "admission"  # under the env root: one file per lock


@dataclass(frozen=True)
class Admission:
    """What a combo's checker admits beyond the shipped allowlist."""

    text: str = ""  # allowlist lines ("" when the shipped list covers everything)
    measured: int = 0  # references recorded for this run
    cached: int = 0  # problems whose measurement was already kept for this lock
    lines: int = 0  # globals and events the text adds
    # problem id → why its answers are graded in their own process
    in_process: Mapping[str, str] = field(default_factory=dict)
    # problem id → its reference's outcome in one process, run now to compare: the run's
    # own outcome for that reference (it need not run again)
    references: Mapping[str, Outcome] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "measured": self.measured,
            "cached": self.cached,
            "lines": self.lines,
            "in_process": dict(self.in_process),
        }


class _Kept(list["Outcome"]):
    """An in-memory sink for the recording run's outcomes."""

    def write(self, outcome: Outcome) -> None:
        self.append(outcome)


def key(execution: Execution) -> str:
    """A problem as measured: its check, its reference and the env side that sends its
    values (any of them changing is a new measurement)."""
    text = execution.problem.code_context + "\0" + execution.problem.reference_code
    return hashlib.sha256((_ENV_SIDE + text).encode("utf-8")).hexdigest()[:20]


def _env_side() -> str:
    """A digest of the env side's code, the benchmarks' own env-side modules with it:
    what a recording sends and records."""
    digest = hashlib.sha256()
    harness = ENVSIDE.parents[1]
    files = [*ENVSIDE.parent.rglob("*.py"), *(harness / "benchmarks").glob("*/envside/*.py")]
    for path in sorted(files, key=lambda p: p.relative_to(harness).as_posix()):
        digest.update(path.read_bytes())
    return digest.hexdigest()


_ENV_SIDE = _env_side()


def cache_file(env_root: Path, info: EnvInfo) -> Path:
    return env_root / CACHE / f"{info.lock_hash}.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def measure(
    env_root: Path,
    info: EnvInfo,
    executions: Sequence[Execution],
    options: RunOptions,
    run_id: str,
    reporter: Progress | None = None,
) -> Admission:
    """The admission for ``executions`` in the env ``info``: for each problem a model
    answers, what its reference's values use there, recorded now or kept from before;
    and which of those problems are graded in the answer's own process, because their
    reference does not grade the same across the boundary as in one process."""
    if not info.ok or not info.lock_hash or not options.guard or options.record_transport:
        return Admission()
    answered: dict[str, Execution] = {}
    for e in executions:
        # a problem that cannot run anywhere is skipped, not measured (runner.py)
        runs = not e.problem.metadata.get("unavailable")
        if e.solution.source.startswith(MODEL_PREFIX) and e.problem.reference_code and runs:
            answered.setdefault(key(e), e)
    if not answered:
        return Admission()
    path = cache_file(env_root, info)
    kept = _read(path)
    missing = [k for k in answered if k not in kept]
    references: dict[str, Outcome] = {}
    if missing:
        recorded, references = _record(
            info, [answered[k] for k in missing], missing, options, run_id, reporter
        )
        kept.update(recorded)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
        temporary.replace(path)
    found = allowlist.Measured()
    versions = {k.lower(): v for k, v in info.versions.items()}
    in_process = {}
    for k, e in answered.items():
        entry = kept.get(k, {})
        usage = entry.get("usage") or {}
        if usage:
            allowlist.fold(usage, info.python, versions, found)
        if entry.get("in_process"):
            in_process[e.problem.id] = str(entry["in_process"])
    shipped = allowlist.parse(allowlist.SHIPPED.read_text(encoding="utf-8"), str(allowlist.SHIPPED))
    extra = allowlist.beyond(found, shipped)
    count = len(extra.globals) + len(extra.events)
    text = allowlist.render(extra) if count else ""
    # the guard reads the lines as this does: one that would admit code evaluation is
    # refused there, and so here
    allowlist.parse(text, "the measured admission")
    return Admission(
        text, len(missing), len(answered) - len(missing), count, in_process, references
    )


def _calls_answer(problem: Problem) -> bool:
    """Whether the problem's tests call what the answer defined (its benchmark says):
    graded across the boundary by calls (harness/envside/bridge/crossing_*.py), with an
    in-process fallback."""
    benchmark = registry.of(problem)
    return benchmark is not None and benchmark.calls_answer


def _record(
    info: EnvInfo,
    answered: Sequence[Execution],
    keys: Sequence[str],
    options: RunOptions,
    run_id: str,
    reporter: Progress | None,
) -> tuple[dict[str, Any], dict[str, Outcome]]:
    """Run the references of ``answered`` through the guard, recording what their values
    use; those of the formats whose tests call the answer also in one process, as the run
    grades references, to compare (those outcomes are returned too)."""
    references = [
        Execution(e.problem, Solution(e.problem.id, REFERENCE, e.problem.reference_code))
        for e in answered
    ]
    calling = [e for e in references if _calls_answer(e.problem)]
    if reporter is not None:
        reporter.log(
            f"{info.combo}: recording what {len(references)} references' values use, "
            f"before the answers run ({len(calling)} also in one process, to compare)"
        )
        reporter.combo_started(f"{info.combo} (recording)", len(references) + len(calling))
    on_outcome = reporter.outcome if reporter is not None else None
    across, alone = _Kept(), _Kept()
    ComboRun(
        run_id, info, across, replace(options, record_transport=True, repeat=1), on_outcome
    ).run(references)
    ComboRun(run_id, info, alone, replace(options, guard=False, repeat=1), on_outcome).run(calling)
    apart = dict(
        zip([e.problem.id for e in references], _in_order(references, across), strict=True)
    )
    together = {o.problem_id: o for o in alone}
    recorded: dict[str, Any] = {}
    for k, e in zip(keys, references, strict=True):
        outcome = apart.get(e.problem.id)
        # kept even when empty (a value of built-in types only): measured is measured
        recorded[k] = {
            "problem": e.problem.id,
            "usage": dict(outcome.transport) if outcome else {},
            "in_process": _in_process(together.get(e.problem.id), outcome),
        }
    return recorded, together


def _in_process(together: Outcome | None, apart: Outcome | None) -> str:
    """Why a task's answers are graded in their own process: its reference passes in one
    process and not across the boundary, or its values need what the checker never
    admits. '' when it grades the same both ways (or fails both ways)."""
    if together is None or apart is None or together.status is not Status.PASS:
        return ""
    refusable = [str(r) for r in apart.transport.get("refusable", [])]
    if refusable:
        return f"its reference's values need what the checker never admits ({', '.join(refusable[:3])})"
    cannot = apart.first_line.partition("CannotCrossError: ")[2]
    if cannot:  # the test shares what cannot be carried to the answer's process
        return cannot[:200]
    if apart.status is not Status.PASS:
        return (
            f"its reference passes in one process and ends {apart.status.value} across the "
            f"boundary: {apart.first_line[:200]}"
        )
    return ""


def _in_order(executions: Sequence[Execution], outcomes: Sequence[Outcome]) -> list[Outcome | None]:
    by_problem = {o.problem_id: o for o in outcomes}
    return [by_problem.get(e.problem.id) for e in executions]
