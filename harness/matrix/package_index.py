"""What the package index offers: releases, their wheels, and when they appeared.

Used to resolve ``oldest`` (the oldest release with a wheel for the combo's Python),
to list the releases bisection walks through, and to watch for new releases.
Speaks the Simple Repository API in JSON (PEP 691, with PEP 700 upload times) and
falls back to the HTML form (PEP 503), over HTTP(S) or from a ``file://`` directory.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, platform_tags
from packaging.utils import (
    InvalidWheelFilename,
    canonicalize_name,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

DEFAULT_INDEX = "https://pypi.org/simple"
_JSON = "application/vnd.pypi.simple.v1+json"


class IndexUnavailableError(OSError):
    """The index could not be asked; the message says which URL and why."""


class ProjectNotFoundError(IndexUnavailableError):
    """The index answered, and has no such project."""


@dataclass(frozen=True)
class DistFile:
    filename: str
    requires_python: str | None
    upload_time: dt.datetime | None
    yanked: bool

    def wheel_tags(self) -> frozenset[Tag] | None:
        if not self.filename.endswith(".whl"):
            return None
        try:
            return parse_wheel_filename(self.filename)[3]
        except InvalidWheelFilename:
            return None

    def supports_python(self, python: Version) -> bool:
        if not self.requires_python:
            return True
        try:
            return SpecifierSet(self.requires_python).contains(python, prereleases=True)
        except InvalidSpecifier:
            return True  # a malformed marker should not hide a release


@dataclass(frozen=True)
class Release:
    version: Version
    files: tuple[DistFile, ...]

    @property
    def upload_time(self) -> dt.datetime | None:
        times = [f.upload_time for f in self.files if f.upload_time]
        return min(times) if times else None

    @property
    def yanked(self) -> bool:
        return bool(self.files) and all(f.yanked for f in self.files)

    def has_wheel_for(self, python: str, yanked: bool = False) -> bool:
        """True when a wheel installs on ``python`` on this platform (a yanked one too, if asked)."""
        wanted = _target_tags(python)
        py = Version(python)
        for f in self.files:
            tags = f.wheel_tags()
            if tags and (yanked or not f.yanked) and f.supports_python(py) and tags & wanted:
                return True
        return False


@functools.cache
def _target_tags(python: str) -> frozenset[Tag]:
    major, minor = (int(p) for p in python.split(".")[:2])
    platforms = list(platform_tags())
    return frozenset(
        [
            *cpython_tags((major, minor), platforms=platforms),
            *compatible_tags((major, minor), interpreter=f"cp{major}{minor}", platforms=platforms),
        ]
    )


class _AnchorParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.files: list[DistFile] = []
        self._attrs: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._attrs = dict(attrs)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._attrs is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._attrs is not None:
            href = self._attrs.get("href") or ""
            name = (
                "".join(self._text).strip() or urllib.parse.urlsplit(href).path.rsplit("/", 1)[-1]
            )
            self.files.append(
                DistFile(
                    name,
                    self._attrs.get("data-requires-python"),
                    None,
                    "data-yanked" in self._attrs,
                )
            )
            self._attrs = None


def _version_of(filename: str, project: str) -> Version | None:
    if filename.endswith(".whl"):
        try:
            return parse_wheel_filename(filename)[1]
        except InvalidWheelFilename:
            return None
    for suffix in (".tar.gz", ".zip", ".tar.bz2"):
        if filename.endswith(suffix):
            stem = filename[: -len(suffix)]
            prefix_len = len(project)
            if canonicalize_name(stem[:prefix_len]) == canonicalize_name(project):
                try:
                    return Version(stem[prefix_len + 1 :])
                except InvalidVersion:
                    return None
    return None


def _parse_time(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


class Index:
    """A package index, asked lazily and remembered for the life of the object."""

    def __init__(self, url: str | None = None, timeout: float = 30.0) -> None:
        self.url = (url or os.environ.get("UV_INDEX_URL") or DEFAULT_INDEX).rstrip("/")
        self.timeout = timeout
        self._cache: dict[str, tuple[Release, ...]] = {}

    def _fetch(self, project: str) -> tuple[str, bytes]:
        name = canonicalize_name(project)
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme == "file":
            base = Path(urllib.request.url2pathname(parsed.path)) / name
            for candidate, kind in (
                (base / "index.json", _JSON),
                (base / "index.html", "text/html"),
            ):
                if candidate.is_file():
                    return kind, candidate.read_bytes()
            raise ProjectNotFoundError(f"{self.url}: no page for {name!r} in {base}")
        request = urllib.request.Request(  # noqa: S310 - the index URL is configuration
            f"{self.url}/{name}/",
            headers={"Accept": f"{_JSON}, text/html;q=0.1", "User-Agent": "ds-matrix-harness"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return response.headers.get_content_type(), response.read()
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise ProjectNotFoundError(f"{self.url}: no project {name!r}") from None
            raise IndexUnavailableError(f"{self.url}: HTTP {exc.code} for {name!r}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise IndexUnavailableError(f"{self.url}: unreachable ({reason})") from None

    def releases(self, project: str) -> tuple[Release, ...]:
        """Every release of ``project``, oldest first."""
        key = canonicalize_name(project)
        if key not in self._cache:
            kind, body = self._fetch(project)
            files = self._parse(kind, body)
            by_version: dict[Version, list[DistFile]] = {}
            for f in files:
                version = _version_of(f.filename, project)
                if version is not None:
                    by_version.setdefault(version, []).append(f)
            self._cache[key] = tuple(Release(v, tuple(fs)) for v, fs in sorted(by_version.items()))
        return self._cache[key]

    def _parse(self, kind: str, body: bytes) -> list[DistFile]:
        if kind == _JSON or body.lstrip().startswith(b"{"):
            try:
                data = json.loads(body)
            except ValueError as exc:
                raise IndexUnavailableError(f"{self.url}: malformed JSON ({exc})") from None
            return [
                DistFile(
                    str(f.get("filename", "")),
                    f.get("requires-python"),
                    _parse_time(f.get("upload-time")),
                    bool(f.get("yanked")),
                )
                for f in data.get("files", [])
                if isinstance(f, dict)
            ]
        parser = _AnchorParser()
        parser.feed(body.decode("utf-8", "replace"))
        return parser.files

    def versions_with_wheels(
        self,
        project: str,
        python: str,
        *,
        pre: bool = False,
        as_of: dt.date | None = None,
        yanked: bool = False,
    ) -> list[Version]:
        """Releases that install from a wheel on ``python`` here, oldest first.

        Yanked releases are left out unless asked for: a resolver skips them, but an
        exact pin still installs them, and bisection must see every release users had.
        """
        out = []
        for release in self.releases(project):
            if release.version.is_prerelease and not pre:
                continue
            if as_of and release.upload_time and release.upload_time.date() > as_of:
                continue
            if release.has_wheel_for(python, yanked=yanked):
                out.append(release.version)
        return out

    def oldest(self, project: str, python: str, as_of: dt.date | None = None) -> Version:
        found = self.versions_with_wheels(project, python, as_of=as_of)
        if not found:
            raise LookupError(f"no release of {project} has a wheel for Python {python}")
        return found[0]
