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
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from harness import allowlist
from harness.envs import ENVSIDE
from harness.problem import MODEL_PREFIX, REFERENCE, Solution
from harness.runner import ComboRun, Execution

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.envs import EnvInfo
    from harness.results import Outcome
    from harness.runner import RunOptions


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

    def to_dict(self) -> dict[str, Any]:
        return {"measured": self.measured, "cached": self.cached, "lines": self.lines}


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
    """A digest of the env side's code: what a recording sends and records."""
    digest = hashlib.sha256()
    for path in sorted(ENVSIDE.parent.glob("*.py")):
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
    answers, what its reference's values use there, recorded now or kept from before."""
    if not info.ok or not info.lock_hash or not options.guard or options.record_transport:
        return Admission()
    answered: dict[str, Execution] = {}
    for e in executions:
        if e.solution.source.startswith(MODEL_PREFIX) and e.problem.reference_code:
            answered.setdefault(key(e), e)
    if not answered:
        return Admission()
    path = cache_file(env_root, info)
    kept = _read(path)
    missing = [k for k in answered if k not in kept]
    if missing:
        if reporter is not None:
            reporter.log(
                f"{info.combo}: recording what {len(missing)} references' values use "
                f"({len(answered) - len(missing)} kept from before), before the answers run"
            )
            reporter.combo_started(f"{info.combo} (recording)", len(missing))
        references = [
            Execution(
                answered[k].problem,
                Solution(answered[k].problem.id, REFERENCE, answered[k].problem.reference_code),
            )
            for k in missing
        ]
        sink = _Kept()
        recording = replace(options, record_transport=True, repeat=1)
        on_outcome = reporter.outcome if reporter is not None else None
        ComboRun(run_id, info, sink, recording, on_outcome).run(references)
        for k, outcome in zip(missing, _in_order(references, sink), strict=True):
            # kept even when empty (a value of built-in types only): measured is measured
            kept[k] = {
                "problem": outcome.problem_id if outcome else "",
                "usage": dict(outcome.transport) if outcome else {},
            }
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(kept, indent=1, sort_keys=True), encoding="utf-8")
        temporary.replace(path)
    found = allowlist.Measured()
    versions = {k.lower(): v for k, v in info.versions.items()}
    for k in answered:
        usage = kept.get(k, {}).get("usage") or {}
        if usage:
            allowlist.fold(usage, info.python, versions, found)
    shipped = allowlist.parse(allowlist.SHIPPED.read_text(encoding="utf-8"))
    extra = allowlist.beyond(found, shipped)
    count = len(extra.globals) + len(extra.events)
    if not count:
        return Admission(measured=len(missing), cached=len(answered) - len(missing))
    text = allowlist.render(extra)
    _check(text)
    return Admission(text, len(missing), len(answered) - len(missing), count)


def _in_order(executions: Sequence[Execution], outcomes: Sequence[Outcome]) -> list[Outcome | None]:
    by_problem = {o.problem_id: o for o in outcomes}
    return [by_problem.get(e.problem.id) for e in executions]


def _check(text: str) -> None:
    """The env side reads the lines as the guard will (a line that would admit code
    evaluation is refused there, and so here)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", encoding="utf-8", delete=False) as fh:
        fh.write(text)
    try:
        allowlist.check(Path(fh.name), shown="the measured admission")
    finally:
        Path(fh.name).unlink()
