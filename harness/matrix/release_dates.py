"""When each release the catalogue of API changes names came out: the days that date a
model's knowledge from the APIs it uses (``harness.analysis.deprecations``).

Shipped with the package (``harness/data/release_dates.toml``), so that a run's reports
date its models offline, and refreshed from the package index when the catalogue names a
new release:

    python -m harness.matrix.release_dates        # rewrites harness/data/release_dates.toml

A release's day is the day its first file was uploaded.
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib
from typing import TYPE_CHECKING

from packaging.version import Version

from harness.core.libraries import lookup
from harness.matrix.package_index import Index

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "release_dates.toml"
CATALOGUE = SHIPPED.with_name("catalogue.toml")  # the releases it names
# the project whose releases date a library (TensorFlow's CPU build follows the main one)
PROJECTS = {"tensorflow": "tensorflow"}

Dates = dict[str, dict[str, dt.date]]  # library key → version → day


def load(path: Path = SHIPPED) -> Dates:
    """The shipped days, by library and version."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return {
        library: {str(v): day for v, day in versions.items() if isinstance(day, dt.date)}
        for library, versions in data.items()
        if isinstance(versions, dict)
    }


def day_of(
    dates: Mapping[str, Mapping[str, dt.date]], library: str, version: str
) -> dt.date | None:
    """The day ``version`` of ``library`` came out; a version written short (``1.0``) is its
    first final release (``1.0.0``)."""
    known = dates.get(library, {})
    if version in known:
        return known[version]
    return known.get(f"{version}.0") if version.count(".") == 1 else None


def fetch(wanted: Iterable[tuple[str, str]], index: Index) -> Dates:
    """The days of each (library, version) in ``wanted``, from ``index``."""
    found: Dates = {}
    by_library: dict[str, set[str]] = {}
    for library, version in wanted:
        by_library.setdefault(library, set()).add(version)
    for library, versions in sorted(by_library.items()):
        lib = lookup(library)
        project = PROJECTS.get(library, lib.package if lib else library)
        released = {str(r.version): r.upload_time for r in index.releases(project)}
        for version in sorted(versions):
            when = released.get(version) or released.get(f"{version}.0")
            if when is not None:
                found.setdefault(library, {})[version] = when.date()
    return found


def render(dates: Mapping[str, Mapping[str, dt.date]]) -> str:
    lines = [
        "# When each release the catalogue of API changes names came out (the day of its",
        "# first upload to PyPI). Written by `python -m harness.matrix.release_dates`.",
    ]
    for library in sorted(dates):
        lines += ["", f'["{library}"]']
        ordered = sorted(dates[library].items(), key=lambda item: Version(item[0]))
        lines += [f'"{v}" = {d.isoformat()}' for v, d in ordered]
    return "\n".join(lines) + "\n"


def main() -> int:
    catalogue = tomllib.loads(CATALOGUE.read_text(encoding="utf-8"))
    wanted = {
        (str(e["library"]), str(e[key]))
        for e in catalogue.get("api", [])
        for key in ("deprecated", "removed", "introduced")
        if e.get(key)
    }
    # Python's own releases are not on the package index: the shipped days are kept
    kept = {lib: days for lib, days in load().items() if lib == "python"}
    dates = {**kept, **fetch(wanted, Index())}
    SHIPPED.write_text(render(dates), encoding="utf-8")
    missing = sorted(f"{lib} {v}" for lib, v in wanted if day_of(dates, lib, v) is None)
    print(f"{SHIPPED}: {sum(len(v) for v in dates.values())} releases")
    if missing:
        print("not on the index: " + ", ".join(missing), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
