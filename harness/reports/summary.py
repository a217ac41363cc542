"""The numbers a run is summarised by, computed once and rendered by every writer."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.drift import Drift, find_drift
from harness.envs import EnvInfo
from harness.problems import REFERENCE
from harness.results import SCHEMA_VERSION, Outcome, Status

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


@dataclass(frozen=True)
class ComboSummary:
    id: str
    env: EnvInfo
    counts: Mapping[str, Mapping[str, int]]  # source → status → count

    def pass_rate(self, source: str) -> float | None:
        """Passes over executions that ran (skipped and env errors are not counted)."""
        counts = self.counts.get(source, {})
        ran = sum(
            n for s, n in counts.items() if s not in (Status.SKIPPED.value, Status.ENV_ERROR.value)
        )
        return counts.get(Status.PASS.value, 0) / ran if ran else None


@dataclass(frozen=True)
class Summary:
    run_id: str
    baseline: str
    combos: Sequence[ComboSummary]
    sources: Sequence[str]
    problems: int
    executions: int
    drift: Sequence[Drift]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "run_id": self.run_id,
            "baseline": self.baseline,
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
                    "counts": {s: dict(n) for s, n in c.counts.items()},
                    "pass_rate": {s: c.pass_rate(s) for s in c.counts},
                }
                for c in self.combos
            ],
            "drift": [
                {
                    "problem_id": d.problem_id,
                    "library": d.library,
                    "source": d.source,
                    "baseline": d.baseline,
                    "combo": d.combo,
                    "status": d.status.value,
                    "error": d.line,
                    "changed": {k: list(v) for k, v in d.changed.items()},
                }
                for d in self.drift
            ],
            **({"meta": dict(self.meta)} if self.meta else {}),
        }


def _source_order(source: str) -> tuple[int, str]:
    return (0 if source == REFERENCE else 1, source)


def summarise(
    run_id: str,
    baseline: str,
    combo_ids: Sequence[str],
    envs: Mapping[str, EnvInfo],
    outcomes: Sequence[Outcome],
    meta: Mapping[str, Any] | None = None,
) -> Summary:
    counts: dict[str, dict[str, Counter[str]]] = {c: {} for c in combo_ids}
    for o in outcomes:
        counts.setdefault(o.combo, {}).setdefault(o.source, Counter())[o.status.value] += 1
    order = list(combo_ids) + [c for c in counts if c not in combo_ids]
    sources = sorted({o.source for o in outcomes}, key=_source_order)
    combos = [
        ComboSummary(
            c,
            envs.get(c, EnvInfo(c, ok=False, stage="missing", error="no env record")),
            {s: dict(counts[c][s]) for s in sorted(counts[c], key=_source_order)},
        )
        for c in order
    ]
    return Summary(
        run_id=run_id,
        baseline=baseline,
        combos=combos,
        sources=sources,
        problems=len({o.problem_id for o in outcomes}),
        executions=len(outcomes),
        drift=find_drift(outcomes, baseline, order),
        meta=dict(meta or {}),
    )
