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

from harness.core.errors import UsageError
from harness.core.jsonfields import Fields
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.matrix.spec import VersionKind

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence
    from pathlib import Path

    from harness.matrix.spec import Combo, MatrixSpec


@dataclass(frozen=True)
class NewRelease:
    package: str
    version: str
    pre: bool
    uploaded: str  # ISO timestamp, or "" when the index does not say


@dataclass(frozen=True)
class ResolvedRelease:
    """What a ``latest`` or ``pre`` library of a combo resolves to today."""

    combo: str
    library: str
    kind: str  # "latest" or "pre"
    version: str


@dataclass(frozen=True)
class ReleaseNews:
    """What the index published since the last look, and what ``latest``/``pre`` mean today:
    ``releases.json``, as ``harness releases --write`` writes it."""

    new: tuple[NewRelease, ...] = ()
    resolved: tuple[ResolvedRelease, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "new": [asdict(r) for r in self.new],
            "resolved": [asdict(r) for r in self.resolved],
        }

    @classmethod
    def from_dict(cls, data: object, file: str | Path = "releases.json") -> ReleaseNews:
        given = Fields(data, str(file))
        return cls(
            new=tuple(
                NewRelease(
                    r.text("package", ""),
                    r.text("version", ""),
                    r.flag("pre", False),
                    r.text("uploaded", ""),
                )
                for r in given.tables("new")
            ),
            resolved=tuple(
                ResolvedRelease(
                    r.text("combo", ""),
                    r.text("library", ""),
                    r.text("kind", ""),
                    r.text("version", ""),
                )
                for r in given.tables("resolved")
            ),
        )


def check(matrix: MatrixSpec, db: sqlite3.Connection) -> ReleaseNews:
    """``harness releases``: what the index published for the matrix's libraries since
    the last look recorded in ``db``, and what its ``latest`` and ``pre`` mean today."""
    index = Index(matrix.index_url)
    packages = list(dict.fromkeys(lib.package for c in matrix.combos for lib in c.libraries))
    try:
        return report(watch(index, packages, db), resolve(matrix.combos, index))
    except IndexUnavailableError as exc:
        raise UsageError(f"package index: {exc}") from None


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


def resolve(combos: Sequence[Combo], index: Index) -> list[ResolvedRelease]:
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
                version = f"? ({exc})"
            else:
                version = str(versions[-1]) if versions else "none with a wheel"
            out.append(ResolvedRelease(combo.id, lib.library, lib.kind.value, version))
    return out


def report(new: Sequence[NewRelease], resolved: Sequence[ResolvedRelease]) -> ReleaseNews:
    return ReleaseNews(tuple(new), tuple(resolved))


def markdown(news: ReleaseNews) -> list[str]:
    """The releases section of a summary."""
    out = ["## Releases", ""]
    if news.new:
        out += ["| package | version | pre-release | uploaded |", "| --- | --- | --- | --- |"]
        out += [
            f"| {r.package} | {r.version} | {'yes' if r.pre else ''} | {r.uploaded[:10]} |"
            for r in news.new
        ]
    else:
        out.append("No new releases since the last check.")
    if news.resolved:
        out += ["", "Today `latest` and `pre` mean:", ""]
        out += [f"- `{r.combo}` {r.library} ({r.kind}): {r.version}" for r in news.resolved]
    return out
