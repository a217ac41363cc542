"""Drift across combos: a solution that passes in the baseline combo and fails in another."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.problems import REFERENCE
from harness.results import Outcome, Status

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence


@dataclass(frozen=True)
class Drift:
    problem_id: str
    library: str
    source: str
    baseline: str
    combo: str
    status: Status
    line: str  # the failure's one-line form, e.g. "AttributeError: ... 'append'"
    changed: Mapping[str, tuple[str, str]]  # library → (baseline version, combo version)


def index(outcomes: Iterable[Outcome]) -> dict[tuple[str, str], dict[str, Outcome]]:
    """Outcomes by (problem, source), then by combo."""
    table: dict[tuple[str, str], dict[str, Outcome]] = {}
    for o in outcomes:
        table.setdefault((o.problem_id, o.source), {})[o.combo] = o
    return table


def changed_versions(
    before: Mapping[str, str], after: Mapping[str, str]
) -> dict[str, tuple[str, str]]:
    keys = sorted(set(before) | set(after))
    return {
        k: (before.get(k, "-"), after.get(k, "-")) for k in keys if before.get(k) != after.get(k)
    }


def find_drift(
    outcomes: Iterable[Outcome],
    baseline: str,
    combos: Sequence[str],
    sources: Sequence[str] = (REFERENCE,),
) -> list[Drift]:
    """Executions of ``sources`` that pass in ``baseline`` and fail in another combo."""
    found = []
    for (problem_id, source), by_combo in index(outcomes).items():
        if source not in sources:
            continue
        base = by_combo.get(baseline)
        if base is None or base.status is not Status.PASS:
            continue
        for combo in combos:
            other = by_combo.get(combo)
            if combo == baseline or other is None or not other.status.is_failure:
                continue
            found.append(
                Drift(
                    problem_id=problem_id,
                    library=other.library,
                    source=source,
                    baseline=baseline,
                    combo=combo,
                    status=other.status,
                    line=other.first_line or other.status.value,
                    changed=changed_versions(base.versions, other.versions),
                )
            )
    order = {c: i for i, c in enumerate(combos)}
    return sorted(found, key=lambda d: (order.get(d.combo, 0), _natural(d.problem_id), d.source))


def _natural(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort ``ds1000/9`` before ``ds1000/10``."""
    return tuple(
        (0, int(chunk)) if chunk.isdigit() else (1, chunk)
        for chunk in text.replace("/", " / ").split()
    )
