"""Problem and answer files named by URL: fetched once into a cache, then plain paths."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from harness.downloads import DS1000_URL, cache_dir, is_url, resolve
from harness.errors import ProblemError


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ("https://github.com/xlang-ai/DS-1000/raw/main/data/ds1000.jsonl.gz", True),
        ("http://127.0.0.1:8000/a.jsonl", True),
        ("file:///data/a.jsonl", True),
        ("ftp://example.org/a.jsonl", False),
        ("problems/", False),
        ("/abs/path/a.jsonl", False),
        ("C:/windows/path.jsonl", False),
        ("ds1000", False),  # an alias, not a URL itself
        ("", False),
    ],
)
def test_is_url(text: str, url: bool) -> None:
    assert is_url(text) is url


def cached_name(url: str, name: str) -> str:
    return f"{hashlib.sha256(url.encode()).hexdigest()[:12]}-{name}"


@pytest.mark.parametrize("path", ["problems", "answers/m-answers.jsonl", "/abs/a.jsonl", "ds1000x"])
def test_a_path_is_returned_as_given(tmp_path: Path, path: str) -> None:
    assert resolve(path, tmp_path) == Path(path)
    assert list(tmp_path.iterdir()) == []


def test_a_url_is_downloaded_once(tmp_path: Path) -> None:
    source = tmp_path / "served" / "set.jsonl"
    source.parent.mkdir()
    source.write_text('{"id": 1}\n')
    url = source.as_uri()
    cache = tmp_path / "cache"
    got = resolve(url, cache)
    assert got == cache / cached_name(url, "set.jsonl")
    assert got.read_text() == '{"id": 1}\n'
    source.unlink()  # from now on, only the cache can answer
    assert resolve(url, cache) == got
    assert sorted(p.name for p in cache.iterdir()) == [got.name]  # no partial file left


def test_two_urls_with_one_file_name_do_not_collide(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "answers.jsonl").write_text(folder)
    first = resolve((tmp_path / "a" / "answers.jsonl").as_uri(), tmp_path / "cache")
    second = resolve((tmp_path / "b" / "answers.jsonl").as_uri(), tmp_path / "cache")
    assert first != second
    assert (first.read_text(), second.read_text()) == ("a", "b")


def test_ds1000_is_short_for_the_official_file(tmp_path: Path) -> None:
    cached = tmp_path / cached_name(DS1000_URL, "ds1000.jsonl.gz")
    cached.write_bytes(b"already here")  # so that nothing is downloaded
    assert resolve("ds1000", tmp_path) == cached


def test_a_failed_download_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "set.jsonl"
    url = missing.as_uri()
    with pytest.raises(ProblemError) as caught:
        resolve(url, tmp_path / "cache")
    assert str(caught.value) == (
        f"{url}: download failed: [Errno 2] No such file or directory: '{missing}'"
    )
    assert list((tmp_path / "cache").iterdir()) == []


@pytest.mark.parametrize(
    ("xdg", "expected"),
    [
        ("/xdg", Path("/xdg/ds-matrix-harness/downloads")),
        ("", Path.home() / ".cache" / "ds-matrix-harness" / "downloads"),
        (None, Path.home() / ".cache" / "ds-matrix-harness" / "downloads"),
    ],
)
def test_cache_dir(monkeypatch: pytest.MonkeyPatch, xdg: str | None, expected: Path) -> None:
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert cache_dir() == expected
