"""Shared fixtures: where the real DS-1000 data is, and a writer of small files."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_harness(
    *args: str,
    cwd: Path,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    timeout: float = 1800,
) -> subprocess.CompletedProcess[str]:
    """``python -m harness ARGS`` in ``cwd``; with ``check``, it must succeed.

    ``env`` adds to (or overrides) this process's environment; it never replaces it,
    so the child still finds the venv and the user's caches.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env} if env is not None else None,
        check=False,
        timeout=timeout,
    )
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


DS1000_DIR = Path(os.environ.get("DS1000_DIR", ROOT.parent / "shared" / "data" / "ds1000"))
DS1000_FILE = DS1000_DIR / "ds1000.jsonl.gz"


Writer = Callable[[str, str], Path]


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    """write("name.toml", text) → path, with the text dedented."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write


def needs_ds1000() -> pytest.MarkDecorator:
    return pytest.mark.skipif(
        not DS1000_FILE.is_file(),
        reason=f"DS-1000 data not found at {DS1000_DIR} (set DS1000_DIR to its directory)",
    )
