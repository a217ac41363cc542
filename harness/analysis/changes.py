"""What changed from one run to the next, as the history finds it (``harness.analysis.history``)
and summary.json keeps it: new failures and fixes, new warnings, library versions that moved."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class StatusChange:
    """An execution that passed in one run and failed in the next, or the reverse."""

    combo: str
    problem_id: str
    source: str
    before: str  # status
    after: str
    error: str | None = None  # for a new failure: its first line ("" when it has none)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "combo": self.combo,
            "problem_id": self.problem_id,
            "source": self.source,
            "before": self.before,
            "after": self.after,
        }
        return data if self.error is None else {**data, "error": self.error}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StatusChange:
        error = data.get("error")
        return cls(
            str(data["combo"]),
            str(data["problem_id"]),
            str(data["source"]),
            str(data["before"]),
            str(data["after"]),
            None if error is None else str(error),
        )


@dataclass(frozen=True)
class NewWarning:
    """A warning no execution of the previous run raised."""

    library: str
    category: str
    message: str
    problems: tuple[str, ...]  # "combo:problem" that raised it

    def to_dict(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "category": self.category,
            "message": self.message,
            "problems": list(self.problems),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NewWarning:
        return cls(
            str(data["library"]),
            str(data["category"]),
            str(data["message"]),
            tuple(str(p) for p in data["problems"]),
        )


@dataclass(frozen=True)
class VersionChange:
    """A library whose version in a combo moved between the two runs."""

    combo: str
    library: str
    before: str  # "-" when the library was not there
    after: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "combo": self.combo,
            "library": self.library,
            "before": self.before,
            "after": self.after,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VersionChange:
        return cls(
            str(data["combo"]), str(data["library"]), str(data["before"]), str(data["after"])
        )


@dataclass(frozen=True)
class Changes:
    """What changed from run ``previous`` to run ``current`` (kept in summary.json)."""

    previous: str
    current: str
    new_failures: tuple[StatusChange, ...] = ()
    new_fixes: tuple[StatusChange, ...] = ()
    new_warnings: tuple[NewWarning, ...] = ()
    releases: tuple[VersionChange, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "previous": self.previous,
            "current": self.current,
            "new_failures": [c.to_dict() for c in self.new_failures],
            "new_fixes": [c.to_dict() for c in self.new_fixes],
            "new_warnings": [w.to_dict() for w in self.new_warnings],
            "releases": [r.to_dict() for r in self.releases],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Changes:
        return cls(
            previous=str(data["previous"]),
            current=str(data["current"]),
            new_failures=tuple(StatusChange.from_dict(c) for c in data.get("new_failures", [])),
            new_fixes=tuple(StatusChange.from_dict(c) for c in data.get("new_fixes", [])),
            new_warnings=tuple(NewWarning.from_dict(w) for w in data.get("new_warnings", [])),
            releases=tuple(VersionChange.from_dict(r) for r in data.get("releases", [])),
        )
