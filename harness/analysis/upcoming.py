"""What will break next: references that hold in today's releases and fail in a lane.

A nightly lane (``[nightly.lanes]``) resolves the libraries' pre-releases or nightly
wheels. A reference that passes in the newest released combo and fails in a lane is a
breakage before it ships: grouped by lane and the problem's library, with the version
that breaks it, the version it passes on, and the warning (if any) today's release
already gives on that problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.analysis.drift import natural_key
from harness.core.problem import REFERENCE
from harness.core.results import Status

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.core.results import Outcome
    from harness.envs.build import EnvInfo


@dataclass(frozen=True)
class Breakage:
    """One problem that passes in ``current`` and fails in the lane ``lane``."""

    lane: str  # combo id
    kind: str  # "pre-release", "nightly wheels", "lane"
    library: str  # the problem's library
    version: str  # the library in the lane ("" if the lane lacks it)
    current: str  # the combo it passes in: the newest released one
    current_version: str
    problem_id: str
    error: str  # its first line in the lane
    warning: str = ""  # what the current release already says when it runs

    def to_dict(self) -> dict[str, Any]:
        return {
            "lane": self.lane,
            "kind": self.kind,
            "library": self.library,
            "version": self.version,
            "current": self.current,
            "current_version": self.current_version,
            "problem_id": self.problem_id,
            "error": self.error,
            "warning": self.warning,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Breakage:
        return cls(**{k: str(data.get(k, "")) for k in cls.__dataclass_fields__})


def find(
    outcomes: Sequence[Outcome], envs: Mapping[str, EnvInfo], order: Sequence[str]
) -> list[Breakage]:
    """Breakages in the lanes among ``outcomes``; ``order``: the combos in era order (the
    newest released combo is the last one that is not a lane and has an env)."""
    lanes = [c for c in order if envs.get(c) is not None and envs[c].lane]
    released = [c for c in order if c not in lanes and envs.get(c) is not None and envs[c].ok]
    if not lanes or not released:
        return []
    current = released[-1]
    references = {
        (o.combo, o.problem_id): o
        for o in outcomes
        if o.source == REFERENCE and o.attempt == 0 and o.combo in (current, *lanes)
    }
    now_versions = envs[current].library_versions()
    out = []
    for lane in lanes:
        versions = envs[lane].library_versions()
        for (combo, problem), o in references.items():
            if combo != lane or not o.status.is_failure or o.status is Status.ENV_ERROR:
                continue
            today = references.get((current, problem))
            if today is None or today.status is not Status.PASS:
                continue
            warning = next(
                (
                    f"{w.category}: {w.message}"
                    for w in today.warnings
                    if not w.module.startswith("<")
                ),
                "",
            )
            out.append(
                Breakage(
                    lane=lane,
                    kind=envs[lane].lane,
                    library=o.library,
                    version=versions.get(o.library, ""),
                    current=current,
                    current_version=now_versions.get(o.library, ""),
                    problem_id=problem,
                    error=o.first_line,
                    warning=warning,
                )
            )
    out.sort(key=lambda b: (b.lane, b.library, natural_key(b.problem_id)))
    return out


def grouped(found: Sequence[Breakage]) -> list[list[Breakage]]:
    """``found`` in groups of one lane and one library (each a sentence of the issue)."""
    groups: dict[tuple[str, str], list[Breakage]] = {}
    for b in found:
        groups.setdefault((b.lane, b.library), []).append(b)
    return list(groups.values())


def sentence(group: Sequence[Breakage]) -> str:
    """``pandas 3.2.0rc1 (lane `pre`, pre-release) breaks 4 problems that pass on
    3.1.1 (`latest`)``."""
    b = group[0]
    n = len(group)
    what = f"{b.library} {b.version}".strip() if b.version else f"{b.library} (in the lane)"
    on = f"{b.current_version} (`{b.current}`)" if b.current_version else f"`{b.current}`"
    problems = "problem that passes" if n == 1 else "problems that pass"
    return f"{what} (`{b.lane}`, {b.kind}) breaks {n} {problems} on {on}"
