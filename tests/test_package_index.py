from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from packaging.tags import platform_tags
from packaging.version import Version

from harness.matrix.package_index import Index, IndexUnavailableError, ProjectNotFoundError
from tests.indexserver import IndexServer, sdist, wheel

PLATFORM = next(iter(platform_tags()))


def cp(py: str) -> str:
    nodot = py.replace(".", "")
    return f"cp{nodot}-cp{nodot}-{PLATFORM}"


PROJECTS = {
    "fakenp": [
        sdist("fakenp", "1.0.0", "2020-01-01T00:00:00Z"),
        wheel("fakenp", "1.0.0", cp("3.8"), uploaded="2020-01-01T00:00:00Z"),
        wheel("fakenp", "1.1.0", cp("3.10"), uploaded="2021-06-01T00:00:00Z"),
        wheel("fakenp", "1.2.0", cp("3.10"), uploaded="2022-06-01T00:00:00Z", yanked=True),
        wheel("fakenp", "1.3.0", cp("3.10"), uploaded="2023-06-01T00:00:00Z"),
        wheel("fakenp", "1.3.0", cp("3.12"), uploaded="2023-06-02T00:00:00Z"),
        wheel("fakenp", "2.0.0rc1", cp("3.12"), uploaded="2024-01-01T00:00:00Z"),
        wheel("fakenp", "2.0.0", "cp312-cp312-win_amd64", uploaded="2024-02-01T00:00:00Z"),
    ],
    "purepy": [
        wheel("purepy", "0.9", "py3-none-any", requires_python=">=3.11"),
        wheel("purepy", "1.0", "py2.py3-none-any"),
    ],
}


@pytest.fixture(scope="module")
def index():  # type: ignore[no-untyped-def]
    with IndexServer(PROJECTS) as server:
        yield Index(server.url)


def test_releases_sorted_with_upload_times(index: Index) -> None:
    releases = index.releases("fakenp")
    assert [str(r.version) for r in releases] == [
        "1.0.0",
        "1.1.0",
        "1.2.0",
        "1.3.0",
        "2.0.0rc1",
        "2.0.0",
    ]
    assert releases[0].upload_time == dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    assert releases[2].yanked


def test_yanked_releases_only_when_asked(index: Index) -> None:
    assert index.versions_with_wheels("fakenp", "3.10", yanked=True) == [
        Version("1.1.0"),
        Version("1.2.0"),
        Version("1.3.0"),
    ]


def test_versions_with_wheels_for_a_python(index: Index) -> None:
    assert index.versions_with_wheels("fakenp", "3.10") == [Version("1.1.0"), Version("1.3.0")]
    assert index.versions_with_wheels("fakenp", "3.12") == [Version("1.3.0")]
    assert index.versions_with_wheels("fakenp", "3.12", pre=True) == [
        Version("1.3.0"),
        Version("2.0.0rc1"),
    ]
    assert index.versions_with_wheels("fakenp", "3.10", as_of=dt.date(2022, 12, 31)) == [
        Version("1.1.0")
    ]


def test_requires_python_and_pure_wheels(index: Index) -> None:
    assert index.versions_with_wheels("purepy", "3.10") == [Version("1.0")]
    assert index.versions_with_wheels("purepy", "3.11") == [Version("0.9"), Version("1.0")]


def test_oldest(index: Index) -> None:
    assert index.oldest("fakenp", "3.10") == Version("1.1.0")
    assert index.oldest("fakenp", "3.8") == Version("1.0.0")
    with pytest.raises(LookupError, match=r"no release of fakenp has a wheel for Python 3\.13"):
        index.oldest("fakenp", "3.13")


def test_answers_are_cached(index: Index) -> None:
    with IndexServer(PROJECTS) as server:
        fresh = Index(server.url)
        fresh.releases("purepy")
        fresh.releases("PurePy")
        assert server.requests == ["/simple/purepy/"]


def test_unknown_project_and_unreachable_index() -> None:
    with IndexServer(PROJECTS) as server:
        with pytest.raises(ProjectNotFoundError, match=r"/simple: no project 'nothing'$"):
            Index(server.url).releases("nothing")
        url = server.url
    with pytest.raises(IndexUnavailableError, match=r"unreachable") as caught:
        Index(url, timeout=2).releases("fakenp")
    assert not isinstance(caught.value, ProjectNotFoundError)  # it may well have it


def test_file_index_with_html_pages(tmp_path: Path) -> None:
    page = tmp_path / "simple" / "fakenp" / "index.html"
    page.parent.mkdir(parents=True)
    page.write_text(
        "<html><body>"
        f'<a href="../../f/fakenp-1.0.0-{cp("3.10")}.whl#sha256=00" data-requires-python="&gt;=3.8">fakenp-1.0.0-{cp("3.10")}.whl</a>'
        f'<a href="../../f/fakenp-1.1.0-{cp("3.10")}.whl" data-yanked="">fakenp-1.1.0-{cp("3.10")}.whl</a>'
        "</body></html>"
    )
    index = Index((tmp_path / "simple").as_uri())
    assert index.versions_with_wheels("fakenp", "3.10") == [Version("1.0.0")]
    with pytest.raises(ProjectNotFoundError, match=r"no page for 'other'"):
        index.releases("other")
