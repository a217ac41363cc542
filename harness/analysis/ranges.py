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

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
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
    source: str = "reference"  # whose solution: the reference, an idiom, a model's answer
    passes_pinned: bool | None = None  # does it pass at its own release (None: not known)
    # the signed version error: 0 when the range holds the pinned release, else how many
    # releases of the series lie between it and the range, negative when the range is
    # older (a stale answer), positive when newer; None without a range
    error: int | None = None
    # when the releases that bound the range came out (ISO dates; "" when unknown)
    dates: Mapping[str, str] = field(default_factory=dict)

    @property
    def ranged(self) -> bool:
        return self.lowest is not None and self.highest is not None

    @property
    def works(self) -> tuple[dt.date | None, dt.date | None] | None:
        """The days the answer's code works on, as the releases it passes on came out:
        from the release of ``lowest`` to the release of ``above`` (the first newer one
        that fails); an end the range reaches to is open (None). None without a range."""
        if not self.ranged:
            return None

        def day(version: str | None) -> dt.date | None:
            text = self.dates.get(version or "", "")
            return dt.date.fromisoformat(text) if text else None

        start = None if self.below is None and self.lowest == self.oldest else day(self.lowest)
        return start, day(self.above)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reach:
        given = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**{**given, "dates": dict(given.get("dates", {}))})


def signed_error(series: Sequence[str], pinned: str, lowest: str, highest: str) -> int:
    """How far the range [``lowest``, ``highest``] of ``series`` (final releases, oldest
    first) lies from ``pinned``, in releases: 0 inside, negative below, positive above."""
    # by Version, not by string: a problem that asks for "2" asks for 2.0.0
    position = {Version(v): i for i, v in reversed(list(enumerate(series)))}
    at = position[Version(pinned)]
    if Version(highest) < Version(pinned):
        return position[Version(highest)] - at
    if Version(lowest) > Version(pinned):
        return position[Version(lowest)] - at
    return 0


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
