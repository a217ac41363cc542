"""Where a version-conditioned problem's solution works: the range of its library's
releases over which it passes (found by ``harness reach``, ``labs/reach.py``), and its
class:

* ``version-specific`` — it passes only around its version;
* ``breaks later`` — it works on older releases too, then stops working;
* ``version-robust`` — it passes from its version (not before) to today;
* ``works everywhere`` — on every release tried, old and new: the problem does not test
  knowledge of any version.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from harness.core.errors import RunFileError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path


CLASSES = ("version-specific", "breaks later", "version-robust", "works everywhere")


@dataclass(frozen=True)
class Reach:
    problem_id: str
    library: str  # the distribution whose releases were tried
    pinned: str  # the release the problem is written for
    python: str
    lowest: str | None = None  # the oldest release seen passing
    highest: str | None = None  # the newest release seen passing
    below: str | None = None  # the newest release under ``lowest`` seen failing
    above: str | None = None  # the oldest release over ``highest`` seen failing
    oldest: str = ""  # the oldest release with a wheel for ``python``
    today: str = ""  # the library's newest release
    klass: str = ""  # one of CLASSES; "" when the pinned release itself does not pass
    note: str = ""
    trials: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reach:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def _series(version: str) -> tuple[int, ...]:
    return Version(version).release[:2]


def classify(pinned: str, lowest: str, highest: str, today: str) -> str:
    earlier = _series(lowest) < _series(pinned)
    reaches = Version(highest) >= Version(today)
    if earlier:
        return "works everywhere" if reaches else "breaks later"
    return "version-robust" if reaches else "version-specific"


def share_untested(found: Sequence[Reach]) -> float | None:
    """Of the problems whose own release passes, the share that pass on every release
    tried: they test no knowledge of any version."""
    classed = [r for r in found if r.klass]
    return sum(r.klass == "works everywhere" for r in classed) / len(classed) if classed else None


def read(path: Path) -> list[Reach]:
    """The ranges in ``path`` (``RunDir.reach_json``); none when there is no such file."""
    if not path.is_file():
        return []
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        return [Reach.from_dict(r) for r in rows]
    except (ValueError, TypeError, KeyError) as exc:
        raise RunFileError(str(path), None, f"not what harness reach writes ({exc})") from None
