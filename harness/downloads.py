"""Problem and answer files named by URL: downloaded once into a cache, then read like paths.

``ds1000`` is short for the official DS-1000 data file, so a user can run the real
benchmark with ``--problems ds1000`` without fetching it by hand.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from harness.errors import ProblemError

DS1000_URL = "https://github.com/xlang-ai/DS-1000/raw/main/data/ds1000.jsonl.gz"
ALIASES = {"ds1000": DS1000_URL}


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ds-matrix-harness" / "downloads"


def is_url(text: str) -> bool:
    return urllib.parse.urlsplit(text).scheme in ("http", "https", "file")


def resolve(argument: str, cache: Path | None = None) -> Path:
    """A local path for ``argument``: a path as given, or a cached download of a URL."""
    url = ALIASES.get(argument, argument)
    if not is_url(url):
        return Path(argument)
    parsed = urllib.parse.urlsplit(url)
    name = Path(parsed.path).name or "download"
    target = (cache or cache_dir()) / f"{hashlib.sha256(url.encode()).hexdigest()[:12]}-{name}"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=60) as response, partial.open("wb") as out:  # noqa: S310 - user-given URL
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        partial.unlink(missing_ok=True)
        reason = getattr(exc, "reason", exc)
        raise ProblemError(url, None, f"download failed: {reason}") from None
    partial.replace(target)
    return target
