"""Problem and answer files named by URL or by benchmark: fetched once into a cache, then
plain paths. Named sets are checked against their pinned sha256; the downloads here come
from a loopback HTTP server, never from the network."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import os
import re
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from harness.benchmarks import registry
from harness.benchmarks.ds1000 import URL as DS1000_URL
from harness.core.errors import ProblemError
from harness.problems import downloads
from harness.problems import sets as problemsets
from harness.problems.downloads import (
    NamedSet,
    cache_dir,
    is_url,
    resolve,
    sha256_of,
)
from tests.conftest import DS1000_FILE, ROOT, needs_ds1000

FORMATS = ROOT / "tests" / "data" / "formats"
RELEASE = FORMATS / "bigcodebench-release.jsonl"


def published(name: str) -> NamedSet:
    """The named set ``name``, as the shipped benchmarks declare it (not as a test's
    table stands in for it)."""
    return next(s for s in registry.named_sets() if s.name == name)


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
        ("ds1000", False),  # a named set, not a URL itself
        ("", False),
    ],
)
def test_is_url(text: str, url: bool) -> None:
    assert is_url(text) is url


def cached(cache: Path, url: str, name: str) -> Path:
    return cache / hashlib.sha256(url.encode()).hexdigest()[:12] / name


def files_in(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*")) if cache.exists() else []


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
    assert got == cached(cache, url, "set.jsonl")
    assert got.read_text() == '{"id": 1}\n'
    source.unlink()  # from now on, only the cache can answer
    assert resolve(url, cache) == got
    assert files_in(cache) == [got.parent.name, f"{got.parent.name}/set.jsonl"]  # no partial file


def test_two_urls_with_one_file_name_do_not_collide(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "answers.jsonl").write_text(folder)
    first = resolve((tmp_path / "a" / "answers.jsonl").as_uri(), tmp_path / "cache")
    second = resolve((tmp_path / "b" / "answers.jsonl").as_uri(), tmp_path / "cache")
    assert first != second
    assert first.name == second.name == "answers.jsonl"  # the set keeps its own name
    assert (first.read_text(), second.read_text()) == ("a", "b")


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


# -- the table of named sets ---------------------------------------------------------------


def test_the_named_sets() -> None:
    # each benchmark declares its own, in the registry's order
    assert [s.name for s in registry.named_sets()] == [
        "bigcodebench",
        "bigcodebench-hard",
        "cibench",
        "ds1000",
        "exeds",
        "gitchameleon",
    ]
    assert published("ds1000").url == DS1000_URL
    assert "/main/" not in DS1000_URL  # pinned bytes need a pinned revision


@pytest.mark.parametrize("named", registry.named_sets(), ids=lambda s: s.name)
def test_every_named_set_is_pinned_or_honestly_not(named: NamedSet) -> None:
    assert named.url.startswith("https://")
    assert named.licence and named.homepage.startswith("https://")
    assert named.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", named.sha256)
    if named.refused:
        assert "pass that file by path" in named.refused
    else:  # one file this harness reads, in the format the loaders know
        assert named.url.endswith((".jsonl", ".jsonl.gz", ".tar.gz"))
        assert named.format in {"ds1000", "bigcodebench", "exeds", "cibench", "gitchameleon"}


@needs_ds1000()
def test_the_ds1000_pin_is_the_published_file() -> None:
    assert published("ds1000").sha256 == sha256_of(DS1000_FILE)


@needs_ds1000()
def test_ds1000_is_short_for_the_official_file(tmp_path: Path) -> None:
    target = cached(tmp_path, DS1000_URL, "ds1000.jsonl.gz")
    target.parent.mkdir()
    shutil.copyfile(DS1000_FILE, target)  # the pinned bytes: nothing is downloaded
    assert resolve("ds1000", tmp_path) == target
    first = problemsets.load_problems([target])[0]
    assert first.id == "ds1000/0"  # the set is named after the benchmark, not the cache


@pytest.mark.parametrize("name", ["exeds", "cibench"])
def test_a_set_published_in_another_shape_is_refused(tmp_path: Path, name: str) -> None:
    named = published(name)
    with pytest.raises(ProblemError) as caught:
        resolve(name, tmp_path)
    assert str(caught.value) == f"{name}: {named.refused} ({named.url})"
    assert "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


# -- downloads from a loopback server --------------------------------------------------------


@dataclass
class Server:
    """Files served on 127.0.0.1: path → (status, body); every request's path is logged."""

    base: str
    files: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)

    def serve(self, path: str, body: bytes, status: int = 200) -> str:
        self.files[path] = (status, body)
        return self.base + path


@pytest.fixture
def server() -> Iterator[Server]:
    state = Server("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.requests.append(self.path)
            status, body = state.files.get(self.path, (404, b"not here"))
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def release_bytes() -> bytes:
    return gzip.compress(RELEASE.read_bytes(), mtime=0)


def named(url: str, sha256: str | None, name: str = "bigcodebench") -> NamedSet:
    return replace(published("bigcodebench"), name=name, url=url, sha256=sha256)


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> dict[str, NamedSet]:
    """The named sets resolve() consults, for a test to point at its server."""
    sets: dict[str, NamedSet] = {}
    monkeypatch.setattr(downloads, "named", sets.get)
    return sets


def test_a_named_set_is_verified_cached_and_reused(
    tmp_path: Path, server: Server, table: dict[str, NamedSet]
) -> None:
    body = release_bytes()
    url = server.serve("/v0.1.5/BigCodeBench.jsonl.gz", body)
    table["bigcodebench"] = named(url, hashlib.sha256(body).hexdigest())
    heard: list[str] = []
    got = resolve("bigcodebench", tmp_path, heard.append)
    assert got == cached(tmp_path, url, "bigcodebench.jsonl.gz")
    assert got.read_bytes() == body
    assert resolve("bigcodebench", tmp_path, heard.append) == got
    assert server.requests == ["/v0.1.5/BigCodeBench.jsonl.gz"]  # the second made none
    assert heard == []  # a verified download says nothing
    assert files_in(tmp_path) == [got.parent.name, f"{got.parent.name}/bigcodebench.jsonl.gz"]
    ids = [p.id for p in problemsets.load_problems([got])]
    assert ids == ["bigcodebench/BigCodeBench/2001", "bigcodebench/BigCodeBench/2002"]


def test_a_checksum_mismatch_is_one_line_and_leaves_nothing(
    tmp_path: Path, server: Server, table: dict[str, NamedSet]
) -> None:
    body = release_bytes()
    url = server.serve("/BigCodeBench.jsonl.gz", body)
    table["bigcodebench"] = named(url, "0" * 64)
    with pytest.raises(ProblemError) as caught:
        resolve("bigcodebench", tmp_path)
    assert str(caught.value) == (
        f"bigcodebench: {url}: checksum mismatch: expected sha256 {'0' * 64}, "
        f"got {hashlib.sha256(body).hexdigest()}"
    )
    assert files_in(tmp_path) == []


def test_a_cached_file_that_no_longer_matches_its_pin_is_fetched_again(
    tmp_path: Path, server: Server, table: dict[str, NamedSet]
) -> None:
    body = release_bytes()
    url = server.serve("/BigCodeBench.jsonl.gz", body)
    table["bigcodebench"] = named(url, hashlib.sha256(body).hexdigest())
    stale = cached(tmp_path, url, "bigcodebench.jsonl.gz")
    stale.parent.mkdir()
    stale.write_bytes(b"a truncated or older file")
    assert resolve("bigcodebench", tmp_path).read_bytes() == body
    assert server.requests == ["/BigCodeBench.jsonl.gz"]


@pytest.mark.parametrize(
    ("status", "reason"), [(500, "Internal Server Error"), (404, "Not Found"), (403, "Forbidden")]
)
def test_a_server_error_is_one_line_and_leaves_nothing(
    tmp_path: Path, server: Server, table: dict[str, NamedSet], status: int, reason: str
) -> None:
    url = server.serve("/BigCodeBench.jsonl.gz", b"oops", status)
    table["bigcodebench"] = named(url, "0" * 64)
    with pytest.raises(ProblemError) as caught:
        resolve("bigcodebench", tmp_path)
    assert str(caught.value) == f"bigcodebench: {url}: download failed: HTTP {status} {reason}"
    assert files_in(tmp_path) == []


def test_an_unreachable_server_is_one_line_and_leaves_nothing(
    tmp_path: Path, table: dict[str, NamedSet]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/BigCodeBench.jsonl.gz"
    table["bigcodebench"] = named(url, "0" * 64)
    with pytest.raises(ProblemError) as caught:
        resolve("bigcodebench", tmp_path)
    assert re.fullmatch(
        rf"bigcodebench: {re.escape(url)}: download failed: \[Errno \d+\] Connection refused",
        str(caught.value),
    )
    assert files_in(tmp_path) == []


def test_a_set_not_pinned_yet_is_kept_and_said_to_be_unverified(
    tmp_path: Path, server: Server, table: dict[str, NamedSet]
) -> None:
    body = release_bytes()
    url = server.serve("/BigCodeBench-Hard.jsonl.gz", body)
    table["bigcodebench-hard"] = named(url, None, "bigcodebench-hard")
    heard: list[str] = []
    got = resolve("bigcodebench-hard", tmp_path, heard.append)
    digest = hashlib.sha256(body).hexdigest()
    note = f"sha256 {digest} is not pinned in its benchmark's NamedSet yet: kept unverified"
    assert heard == [f"bigcodebench-hard: {url}: {note}"]
    assert got.read_bytes() == body
    assert resolve("bigcodebench-hard", tmp_path, heard.append) == got
    assert len(heard) == 1 and server.requests == ["/BigCodeBench-Hard.jsonl.gz"]
    assert problemsets.load_problems([got])[0].id == "bigcodebench-hard/BigCodeBench/2001"


def test_the_download_goes_through_a_temporary_file_in_the_cache(
    tmp_path: Path, server: Server, table: dict[str, NamedSet], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While bytes arrive, only a hidden ``.part`` file beside the target exists."""
    body = release_bytes()
    url = server.serve("/BigCodeBench.jsonl.gz", body)
    table["bigcodebench"] = named(url, hashlib.sha256(body).hexdigest())
    seen: list[list[str]] = []
    real_replace = Path.replace

    def spying_replace(self: Path, target: str | os.PathLike[str]) -> Path:
        seen.append(files_in(tmp_path))
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", spying_replace)
    got = resolve("bigcodebench", tmp_path)
    [before] = seen
    assert len(before) == 2 and before[1].startswith(f"{got.parent.name}/.bigcodebench.jsonl.gz.")
    assert before[1].endswith(".part")
