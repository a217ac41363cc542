"""Find a Python interpreter for a combo: on PATH, or among pyenv's installs.

uv can download interpreters, but from GitHub, which CI machines may not reach;
the matrix must work with the interpreters a machine already has.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

# The Pythons a combo may ask for: the env side's floor (3.8) to the newest it is tested on.
SUPPORTED_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")


@dataclass(frozen=True)
class Interpreter:
    path: Path
    version: str  # full version, e.g. "3.10.13"


class InterpreterNotFoundError(LookupError):
    """No interpreter for the requested version; the message lists where we looked."""


def _probe(path: Path) -> str | None:
    """The interpreter's full version, or None if it does not run (e.g. a pyenv shim)."""
    try:
        proc = subprocess.run(
            [str(path), "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def _pyenv_roots() -> list[Path]:
    roots = [Path(p) for p in (os.environ.get("PYENV_ROOT"),) if p]
    roots.append(Path.home() / ".pyenv")
    return [r / "versions" for r in dict.fromkeys(roots) if (r / "versions").is_dir()]


def _matches(found: str, wanted: str) -> bool:
    return found == wanted or found.startswith(wanted + ".")


def _sort_key(name: str) -> Version:
    try:
        return Version(name)
    except InvalidVersion:
        return Version("0")


def candidates(wanted: str) -> list[Path]:
    """Paths worth probing for ``wanted`` ("3.10" or "3.10.13"), best first."""
    major_minor = ".".join(wanted.split(".")[:2])
    out: list[Path] = []
    on_path = shutil.which(f"python{major_minor}")
    if on_path:
        out.append(Path(on_path))
    for root in _pyenv_roots():
        names = [d.name for d in root.iterdir() if _matches(d.name, wanted)]
        for name in sorted(names, key=_sort_key, reverse=True):
            exe = root / name / "bin" / f"python{major_minor}"
            if exe.exists():
                out.append(exe)
    for generic in ("python3", "python"):
        found = shutil.which(generic)
        if found:
            out.append(Path(found))
    return list(dict.fromkeys(out))


@functools.cache
def find(wanted: str) -> Interpreter:
    """The best interpreter for ``wanted``, or :class:`InterpreterNotFoundError`."""
    tried = []
    for path in candidates(wanted):
        version = _probe(path)
        tried.append(str(path))
        if version and _matches(version, wanted):
            return Interpreter(path, version)
    roots = ", ".join(str(r) for r in _pyenv_roots()) or "no pyenv root"
    raise InterpreterNotFoundError(
        f"no Python {wanted} found on PATH or under {roots}"
        + (f" (tried {', '.join(tried)})" if tried else "")
    )


def available(versions: tuple[str, ...] = SUPPORTED_PYTHONS) -> list[str]:
    """Those of ``versions`` this machine has an interpreter for."""
    found = []
    for version in versions:
        try:
            find(version)
        except InterpreterNotFoundError:
            continue
        found.append(version)
    return found
