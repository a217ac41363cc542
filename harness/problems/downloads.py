"""Problem and answer files named by URL or by benchmark: downloaded once into a cache,
then read like paths.

``--problems ds1000`` (or ``bigcodebench``, …) names a published benchmark: its
declaration (``Benchmark.named``) pins where it is published and the sha256 of its bytes. A download goes to a
temporary file in the cache, is checked against its pin and only then renamed into
place, so the cache never holds a file that failed its check. A set whose checksum is
not known yet (``sha256=None``) is downloaded, kept and reported as unverified, with the
sha256 it had, until someone pins it. A set published where it cannot be fetched from here
(a Google Drive folder; CIBench's zip, read when passed by path) is listed, and refused
with a one-line error that says what to pass by path instead. Any other URL is downloaded
as it is. Archives (``.tar.gz``, ``.zip``) are unpacked once, their members kept inside.

A download is cached as ``<cache>/<12 hex of the URL's sha256>/<name>``, so that the file
keeps a clean name and its problems a clean set name (``ds1000/12``, not
``3f2a…-ds1000/12``). An archive (GitChameleon's ``.tar.gz``) is unpacked once, as
``<cache>/<12 hex of the archive's sha256>/<its name>/``, wherever it came from.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import zipfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.benchmarks import registry
from harness.benchmarks.base import NamedSet
from harness.core.cache import CHUNK, cache_dir, sha256_of
from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from collections.abc import Callable


__all__ = ["NamedSet", "cache_dir", "extract", "is_url", "named", "resolve", "sha256_of"]


def named(name: str) -> NamedSet | None:
    """The published set ``name`` stands for: each benchmark declares its own
    (``Benchmark.named``), read when first asked, so that a benchmark that cannot load
    is an error of the command, not of importing this module."""
    return next((s for s in registry.named_sets() if s.name == name), None)


def is_url(text: str) -> bool:
    return urllib.parse.urlsplit(text).scheme in ("http", "https", "file")


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def resolve(
    argument: str, cache: Path | None = None, notice: Callable[[str], None] = _stderr
) -> Path:
    """A local path for ``argument``: a path as given, or a cached download of a URL or
    of a named set (:func:`named`). ``notice`` hears of a download kept unverified."""
    published = named(argument)
    if published is not None:
        return _named(published, cache or cache_dir(), notice)
    if not is_url(argument):
        return Path(argument)
    name = Path(urllib.parse.urlsplit(argument).path).name or "download"
    target = _target(cache or cache_dir(), argument, name)
    if not target.is_file():
        _download(argument, target, argument)
    return target


def _target(cache: Path, url: str, name: str) -> Path:
    return cache / hashlib.sha256(url.encode()).hexdigest()[:12] / name


def _named(named: NamedSet, cache: Path, notice: Callable[[str], None]) -> Path:
    if named.refused:
        raise ProblemError(named.name, None, f"{named.refused} ({named.url})")
    if named.url.endswith(".tar.gz"):
        suffix = ".tar.gz"  # an archive keeps its suffix: it is read as one (GitChameleon)
    else:
        suffix = ".jsonl.gz" if named.url.endswith(".gz") else ".jsonl"
    target = _target(cache, named.url, named.name + suffix)
    if target.is_file() and named.sha256 in (None, sha256_of(target)):
        return target  # a file that no longer matches its pin is fetched again
    got = _download(named.url, target, f"{named.name}: {named.url}", named.sha256)
    if named.sha256 is None:
        notice(
            f"{named.name}: {named.url}: sha256 {got} is not pinned in its benchmark's "
            "NamedSet yet: kept unverified"
        )
    return target


def _download(url: str, target: Path, shown: str, expected: str | None = None) -> str:
    """Fetch ``url`` into ``target`` through a temporary file beside it; the sha256 of
    what came, which must be ``expected`` when one is given. Nothing is left on failure."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    os.close(handle)
    partial = Path(name)
    digest = hashlib.sha256()
    try:
        try:
            opened = urllib.request.urlopen(url, timeout=60)  # noqa: S310 - a user's or a pinned URL
            with opened as response, partial.open("wb") as out:
                for chunk in iter(lambda: response.read(CHUNK), b""):
                    digest.update(chunk)
                    out.write(chunk)
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            raise ProblemError(shown, None, f"download failed: {_reason(exc)}") from None
        got = digest.hexdigest()
        if expected is not None and got != expected:
            raise ProblemError(
                shown, None, f"checksum mismatch: expected sha256 {expected}, got {got}"
            )
        partial.replace(target)  # only a file that passed its check gets its name
    finally:
        partial.unlink(missing_ok=True)
        if not any(target.parent.iterdir()):
            target.parent.rmdir()
    return got


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        exc.close()  # the error holds the server's response open
        return f"HTTP {exc.code} {exc.reason}"
    return str(getattr(exc, "reason", exc))


def extract(archive: Path, cache: Path | None = None) -> Path:
    """The folder ``archive`` (a ``.tar.gz``) is unpacked in: once, in the cache, under
    the sha256 of its bytes. Only its folders and regular files are unpacked, each
    inside that folder; a member that is a link or leads out of it is refused."""
    shown = str(archive)
    try:
        digest = sha256_of(archive)
    except FileNotFoundError:
        raise ProblemError(shown, None, "file not found") from None
    except OSError as exc:
        raise ProblemError(shown, None, f"cannot read: {exc.strerror}") from None
    name = archive.name.removesuffix(".gz").removesuffix(".tar").removesuffix(".tgz")
    name = name.removesuffix(".zip")
    target = (cache or cache_dir()) / digest[:12] / (name or "archive")
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part"))
    try:
        try:
            if archive.suffix == ".zip":
                _unzip(archive, partial, shown)
            else:
                with tarfile.open(archive, "r:*") as tar:
                    for member in tar:
                        _unpack(tar, member, partial, shown)
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
            raise ProblemError(shown, None, f"cannot unpack: {exc}") from None
        try:
            partial.rename(target)  # only a whole unpacking gets the name
        except OSError as exc:
            if not target.is_dir():  # else another run unpacked it meanwhile: the same bytes
                raise ProblemError(shown, None, f"cannot unpack into {target}: {exc}") from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def _unpack(tar: tarfile.TarFile, member: tarfile.TarInfo, root: Path, shown: str) -> None:
    parts = Path(member.name).parts
    if not parts or Path(member.name).is_absolute() or ".." in parts:
        raise ProblemError(shown, member.name, "leads out of the archive's folder: refused")
    path = root.joinpath(*parts)
    if member.isdir():
        path.mkdir(parents=True, exist_ok=True)
    elif member.isfile():
        source = tar.extractfile(member)
        if source is None:  # pragma: no cover - a regular file always has its bytes
            raise ProblemError(shown, member.name, "cannot be read")
        path.parent.mkdir(parents=True, exist_ok=True)
        with source, path.open("wb") as out:
            shutil.copyfileobj(source, out, CHUNK)
    else:  # a link could point anywhere: a dataset is folders and files
        raise ProblemError(shown, member.name, "is not a folder or a regular file: refused")


def _unzip(archive: Path, root: Path, shown: str) -> None:
    """A zip's folders and files (CIBench's official release), each inside ``root``."""
    with zipfile.ZipFile(archive) as bundle:
        for info in bundle.infolist():
            parts = Path(info.filename).parts
            if not parts or Path(info.filename).is_absolute() or ".." in parts:
                raise ProblemError(
                    shown, info.filename, "leads out of the archive's folder: refused"
                )
            path = root.joinpath(*parts)
            if info.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(info) as source, path.open("wb") as out:
                shutil.copyfileobj(source, out, CHUNK)
