"""Release watching: what the package index published since the last look.

``harness releases`` lists, for each library of the matrix, the releases and
pre-releases uploaded since the previous check (remembered in the history database),
and what the matrix's ``latest`` and ``pre`` versions resolve to today. The nightly
workflow puts this in its summary and in its issue.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from harness.package_index import IndexUnavailableError
from harness.spec import VersionKind

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Mapping, Sequence

    from harness.package_index import Index
    from harness.spec import Combo


@dataclass(frozen=True)
class NewRelease:
    package: str
    version: str
    pre: bool
    uploaded: str  # ISO timestamp, or "" when the index does not say


def watch(
    index: Index,
    packages: Sequence[str],
    db: sqlite3.Connection,
    now: dt.datetime | None = None,
    first_window: dt.timedelta = dt.timedelta(days=30),
) -> list[NewRelease]:
    """Releases not seen before; the first look at a package reports its last 30 days."""
    moment = now or dt.datetime.now(dt.timezone.utc)
    found: list[NewRelease] = []
    for package in packages:
        seen = {
            v
            for (v,) in db.execute(
                "SELECT version FROM releases_seen WHERE package = ?", (package,)
            )
        }
        first_look = not seen
        rows = []
        for release in index.releases(package):
            version = str(release.version)
            if version in seen or release.yanked:
                continue
            uploaded = release.upload_time
            rows.append(
                (package, version, uploaded.isoformat() if uploaded else "", moment.isoformat())
            )
            recent = uploaded is not None and uploaded >= moment - first_window
            if not first_look or recent:
                found.append(
                    NewRelease(package, version, release.version.is_prerelease, rows[-1][2])
                )
        with db:
            db.executemany("INSERT OR IGNORE INTO releases_seen VALUES (?, ?, ?, ?)", rows)
    return sorted(found, key=lambda r: (r.uploaded, r.package, r.version))


def resolve(combos: Sequence[Combo], index: Index) -> list[dict[str, str]]:
    """What each ``latest`` / ``pre`` library of each combo means today."""
    out = []
    for combo in combos:
        for lib in combo.libraries:
            if lib.kind not in (VersionKind.LATEST, VersionKind.PRE):
                continue
            pre = lib.kind is VersionKind.PRE
            try:
                versions = index.versions_with_wheels(
                    lib.package, combo.python, pre=pre, as_of=combo.as_of
                )
            except (IndexUnavailableError, LookupError) as exc:
                out.append(
                    {
                        "combo": combo.id,
                        "library": lib.library,
                        "kind": lib.kind.value,
                        "version": f"? ({exc})",
                    }
                )
                continue
            version = str(versions[-1]) if versions else "none with a wheel"
            out.append(
                {
                    "combo": combo.id,
                    "library": lib.library,
                    "kind": lib.kind.value,
                    "version": version,
                }
            )
    return out


def report(new: Sequence[NewRelease], resolved: Sequence[dict[str, str]]) -> dict[str, Any]:
    return {"new": [asdict(r) for r in new], "resolved": list(resolved)}


def markdown(data: Mapping[str, Any]) -> list[str]:
    out = ["## Releases", ""]
    new = data.get("new", [])
    if new:
        out += ["| package | version | pre-release | uploaded |", "| --- | --- | --- | --- |"]
        out += [
            f"| {r['package']} | {r['version']} | {'yes' if r['pre'] else ''} | {r['uploaded'][:10]} |"
            for r in new
        ]
    else:
        out.append("No new releases since the last check.")
    resolved = data.get("resolved", [])
    if resolved:
        out += ["", "Today `latest` and `pre` mean:", ""]
        out += [f"- `{r['combo']}` {r['library']} ({r['kind']}): {r['version']}" for r in resolved]
    return out
