"""The one download cache, outside the repository, and the digest files are kept by."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

CHUNK = 1 << 16


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ds-matrix-harness" / "downloads"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()
