"""Release watching against a package index in a directory (``file://``): never the network."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import history
from harness.core.errors import RunFileError, UsageError
from harness.matrix.package_index import Index
from harness.matrix.releases import (
    NewRelease,
    ReleaseNews,
    ResolvedRelease,
    check,
    markdown,
    report,
    resolve,
    watch,
)
from harness.matrix.spec import Combo, LibrarySpec, MatrixSpec, VersionKind
from tests.indexserver import wheel

NOW = dt.datetime(2026, 11, 29, 12, tzinfo=dt.timezone.utc)


class DirIndex:
    """A PEP 691 index as files: ``<root>/<project>/index.json``; a fresh ``Index`` per look."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def publish(self, project: str, *files: dict[str, Any]) -> None:
        page = self.root / project / "index.json"
        page.parent.mkdir(parents=True, exist_ok=True)
        known = json.loads(page.read_text())["files"] if page.exists() else []
        page.write_text(json.dumps({"meta": {"api-version": "1.1"}, "files": [*known, *files]}))

    def yank(self, project: str, version: str, yanked: bool = True) -> None:
        page = self.root / project / "index.json"
        data = json.loads(page.read_text())
        for f in data["files"]:
            if f["filename"].startswith(f"{project}-{version}-"):
                f["yanked"] = yanked
        page.write_text(json.dumps(data))

    def index(self) -> Index:
        return Index(self.root.as_uri())


@pytest.fixture
def pypi(tmp_path: Path) -> DirIndex:
    return DirIndex(tmp_path / "index")


@pytest.fixture
def db(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    with closing(history.connect(tmp_path / "history.sqlite")) as connection:
        yield connection


def up(project: str, version: str, uploaded: str, **kw: Any) -> dict[str, Any]:
    return wheel(project, version, "py3-none-any", uploaded=uploaded, **kw)


def found(news: list[NewRelease]) -> list[tuple[str, str, bool, str]]:
    return [(r.package, r.version, r.pre, r.uploaded) for r in news]


def test_the_first_look_reports_the_last_thirty_days_only(
    pypi: DirIndex, db: sqlite3.Connection
) -> None:
    pypi.publish(
        "numpy",
        up("numpy", "1.26.4", "2024-02-05T00:00:00Z"),
        up("numpy", "2.5.0", "2026-10-30T12:00:00Z"),  # exactly thirty days before: in
        up("numpy", "2.4.0", "2026-10-30T11:59:59Z"),  # a second more: out
        up("numpy", "2.6.0rc1", "2026-11-25T00:00:00Z"),
    )
    first = watch(pypi.index(), ["numpy"], db, now=NOW)
    assert found(first) == [
        ("numpy", "2.5.0", False, "2026-10-30T12:00:00+00:00"),
        ("numpy", "2.6.0rc1", True, "2026-11-25T00:00:00+00:00"),
    ]
    # everything was seen, reported or not: the next look reports nothing
    assert watch(pypi.index(), ["numpy"], db, now=NOW + dt.timedelta(days=1)) == []


def test_later_looks_report_every_new_release_however_old(
    pypi: DirIndex, db: sqlite3.Connection
) -> None:
    pypi.publish("pandas", up("pandas", "2.2.3", "2024-09-20T00:00:00Z"))
    watch(pypi.index(), ["pandas"], db, now=NOW)
    # a backport uploaded long ago but published (to us) only now, and one without a time
    pypi.publish(
        "pandas",
        up("pandas", "1.5.4", "2020-01-01T00:00:00Z"),
        {**up("pandas", "3.0.0", ""), "upload-time": None},
    )
    later = watch(pypi.index(), ["pandas"], db, now=NOW)
    assert found(later) == [
        ("pandas", "3.0.0", False, ""),  # no upload time sorts first
        ("pandas", "1.5.4", False, "2020-01-01T00:00:00+00:00"),
    ]


def test_a_first_look_skips_releases_without_an_upload_time(
    pypi: DirIndex, db: sqlite3.Connection
) -> None:
    pypi.publish("scipy", {**up("scipy", "1.14.1", ""), "upload-time": None})
    assert watch(pypi.index(), ["scipy"], db, now=NOW) == []
    assert watch(pypi.index(), ["scipy"], db, now=NOW) == []


def test_yanked_releases_are_not_seen_until_unyanked(
    pypi: DirIndex, db: sqlite3.Connection
) -> None:
    pypi.publish("torch", up("torch", "2.5.0", "2026-11-20T00:00:00Z", yanked=True))
    assert watch(pypi.index(), ["torch"], db, now=NOW) == []
    pypi.yank("torch", "2.5.0", yanked=False)
    assert found(watch(pypi.index(), ["torch"], db, now=NOW)) == [
        ("torch", "2.5.0", False, "2026-11-20T00:00:00+00:00")
    ]


def test_several_packages_sorted_by_upload_time(pypi: DirIndex, db: sqlite3.Connection) -> None:
    pypi.publish("numpy", up("numpy", "2.5.0", "2026-11-20T00:00:00Z"))
    pypi.publish(
        "scipy",
        up("scipy", "1.15.0", "2026-11-10T00:00:00Z"),
        up("scipy", "1.15.1", "2026-11-20T00:00:00Z"),
    )
    news = watch(pypi.index(), ["numpy", "scipy"], db, now=NOW)
    assert [(r.package, r.version) for r in news] == [
        ("scipy", "1.15.0"),
        ("numpy", "2.5.0"),  # same time: by package name
        ("scipy", "1.15.1"),
    ]


def test_a_shorter_first_window(pypi: DirIndex, db: sqlite3.Connection) -> None:
    pypi.publish(
        "numpy",
        up("numpy", "2.5.0", "2026-11-20T00:00:00Z"),
        up("numpy", "2.5.1", "2026-11-28T00:00:00Z"),
    )
    news = watch(pypi.index(), ["numpy"], db, now=NOW, first_window=dt.timedelta(days=7))
    assert [r.version for r in news] == ["2.5.1"]


# -- what latest and pre mean today -------------------------------------------------------


def spec(library: str, constraint: str) -> LibrarySpec:
    kind = VersionKind(constraint) if constraint in ("latest", "pre") else VersionKind.PIN
    return LibrarySpec(library, library, constraint, kind)


def plain(row: object) -> dict[str, Any]:
    """A resolved row as a dict, whether the module returns mappings or dataclasses."""
    if dataclasses.is_dataclass(row) and not isinstance(row, type):
        return dataclasses.asdict(row)
    assert isinstance(row, Mapping)
    return dict(row)


def test_resolve_latest_and_pre(pypi: DirIndex) -> None:
    pypi.publish(
        "numpy",
        up("numpy", "2.4.0", "2026-06-01T00:00:00Z"),
        up("numpy", "2.5.0", "2026-11-01T00:00:00Z"),
        up("numpy", "2.6.0rc1", "2026-11-25T00:00:00Z"),
        wheel("numpy", "2.5.1", "cp27-cp27m-win32", uploaded="2026-11-26T00:00:00Z"),
    )
    combos = [
        Combo("latest", "3.11", (spec("numpy", "latest"), spec("pandas", "2.2.3"))),
        Combo("pre", "3.11", (spec("numpy", "pre"),)),
        Combo("then", "3.11", (spec("numpy", "latest"),), as_of=dt.date(2026, 10, 1)),
        Combo("pinned", "3.11", (spec("numpy", "2.4.0"),)),
    ]
    assert [plain(r) for r in resolve(combos, pypi.index())] == [
        # the newest with a wheel here: 2.5.1 has none for this machine
        {"combo": "latest", "library": "numpy", "kind": "latest", "version": "2.5.0"},
        {"combo": "pre", "library": "numpy", "kind": "pre", "version": "2.6.0rc1"},
        {"combo": "then", "library": "numpy", "kind": "latest", "version": "2.4.0"},
    ]


def test_resolve_says_what_it_could_not_find(pypi: DirIndex) -> None:
    pypi.publish("scipy", wheel("scipy", "1.15.0", "cp27-cp27m-win32"))
    combos = [Combo("c", "3.11", (spec("scipy", "latest"), spec("torch", "latest")))]
    rows = [plain(r) for r in resolve(combos, pypi.index())]
    assert [r["version"] for r in rows] == [
        "none with a wheel",
        f"? ({pypi.root.as_uri()}: no page for 'torch' in {pypi.root / 'torch'})",
    ]


# -- the report -----------------------------------------------------------------------------


def test_the_markdown_of_a_look(pypi: DirIndex, db: sqlite3.Connection) -> None:
    pypi.publish(
        "numpy",
        up("numpy", "2.5.0", "2026-11-20T08:00:00Z"),
        up("numpy", "2.6.0rc1", "2026-11-25T00:00:00Z"),
    )
    combos = [Combo("latest", "3.11", (spec("numpy", "latest"),))]
    data = report(watch(pypi.index(), ["numpy"], db, now=NOW), resolve(combos, pypi.index()))
    assert markdown(data) == [
        "## Releases",
        "",
        "| package | version | pre-release | uploaded |",
        "| --- | --- | --- | --- |",
        "| numpy | 2.5.0 |  | 2026-11-20 |",
        "| numpy | 2.6.0rc1 | yes | 2026-11-25 |",
        "",
        "Today `latest` and `pre` mean:",
        "",
        "- `latest` numpy (latest): 2.5.0",
    ]


def test_the_markdown_of_a_quiet_night() -> None:
    assert markdown(report([], [])) == [
        "## Releases",
        "",
        "No new releases since the last check.",
    ]


def test_releases_json_round_trips() -> None:
    news = ReleaseNews(
        (NewRelease("numpy", "2.6.0rc1", pre=True, uploaded="2026-11-25T00:00:00+00:00"),),
        (ResolvedRelease("latest", "numpy", "latest", "2.5.0"),),
    )
    assert ReleaseNews.from_dict(news.to_dict()) == news


def test_a_releases_file_of_the_wrong_shape_is_one_line() -> None:
    with pytest.raises(RunFileError) as caught:
        ReleaseNews.from_dict({"new": [{"package": "numpy", "pre": "yes"}]}, "r/releases.json")
    assert str(caught.value) == 'r/releases.json: new[0].pre: expected true or false, got "yes"'


# -- harness releases -------------------------------------------------------------------------


def matrix(index: str, *combos: Combo) -> MatrixSpec:
    return MatrixSpec(Path("matrix.toml"), combos, combos[0].id, index_url=index)


def test_a_check_watches_the_matrix_packages_and_resolves_its_combos(
    pypi: DirIndex, db: sqlite3.Connection
) -> None:
    pypi.publish("numpy", up("numpy", "2.5.0", "2026-11-20T08:00:00Z"))
    pypi.publish("pandas", up("pandas", "2.2.3", "2024-09-20T00:00:00Z"))
    combo = Combo("latest", "3.11", (spec("numpy", "latest"), spec("pandas", "2.2.3")))
    news = check(matrix(pypi.index().url, combo), db)
    assert news == ReleaseNews(
        (NewRelease("numpy", "2.5.0", pre=False, uploaded="2026-11-20T08:00:00+00:00"),),
        (ResolvedRelease("latest", "numpy", "latest", "2.5.0"),),
    )
    assert check(matrix(pypi.index().url, combo), db).new == ()  # seen now


def test_a_package_the_index_lacks_is_a_usage_error(pypi: DirIndex, db: sqlite3.Connection) -> None:
    combo = Combo("latest", "3.11", (spec("numpy", "latest"),))
    with pytest.raises(UsageError, match=r"^harness: package index: .*no page for 'numpy'"):
        check(matrix(pypi.index().url, combo), db)
