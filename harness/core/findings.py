"""What an investigation of a drifted problem found: the library responsible and the
first release that breaks it (``harness bisect``, ``--bisect``; a run's ``analysis.json``).

A leaf value: produced by the bisection lab, stored by the run directory, read by the
analysis and the reports.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class Finding:
    problem_id: str
    source: str
    good: str  # where it passes: a combo id, or "<library> <version>"
    bad: str
    library: str | None = None  # the responsible library, when one was found
    how: str = ""  # how the library was found, or why none was
    python: str | None = None  # the Python the trials ran on
    last_good: str | None = None  # the responsible library's last release that passes
    first_bad: str | None = None  # ... and its first release that fails
    error: str = ""  # the failure at first_bad
    warning: str = ""  # a related warning raised at last_good
    candidates: int = 0  # releases in the range
    trials: int = 0  # executions it took
    # other libraries that had to rise with the first bad release (pandas 3 needs NumPy 2)
    moved: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        """The inverse of :meth:`to_dict` (a run's analysis.json)."""

        def optional(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        return cls(
            problem_id=str(data["problem_id"]),
            source=str(data["source"]),
            good=str(data["good"]),
            bad=str(data["bad"]),
            library=optional("library"),
            how=str(data.get("how", "")),
            python=optional("python"),
            last_good=optional("last_good"),
            first_bad=optional("first_bad"),
            error=str(data.get("error", "")),
            warning=str(data.get("warning", "")),
            candidates=int(data.get("candidates", 0)),
            trials=int(data.get("trials", 0)),
            moved={str(k): str(v) for k, v in dict(data.get("moved", {})).items()},
        )
