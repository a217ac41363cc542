"""Find a Python interpreter for a combo: on PATH, among pyenv's installs, or from uv.

The interpreters a machine already has come first (PATH, then pyenv). When none
matches, uv is asked for one it manages (``uv python find``) and, where downloads are
allowed, to download one (``uv python install``). uv downloads from GitHub (or
``UV_PYTHON_INSTALL_MIRROR``), which CI machines may not reach: ``never`` keeps the
matrix to what the machine has. When nothing works, the error says in one line what
was tried and how to provide the interpreter.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from harness.envside.protocol import SUPPORTED_PYTHONS

if TYPE_CHECKING:
    from collections.abc import Mapping


# Whether uv may download an interpreter: uv's own setting, UV_PYTHON_DOWNLOADS.
DOWNLOADS = ("automatic", "never")
DOWNLOADS_ENV = "UV_PYTHON_DOWNLOADS"
_INSTALL_TIMEOUT_S = 900.0
_FIND_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Interpreter:
    path: Path
    version: str  # full version, e.g. "3.10.13"
    source: str = "PATH"  # where it was found: PATH, pyenv, uv (managed or installed now)


class InterpreterNotFoundError(LookupError):
    """No interpreter for the requested version; the message lists where we looked."""


@dataclass(frozen=True)
class UvAnswer:
    """What one ``uv python find|install`` said: the interpreter's path, or why not."""

    path: Path | None
    reason: str = ""  # one line, when path is None


def downloads_setting(environ: Mapping[str, str] | None = None) -> str:
    """``automatic`` or ``never`` as ``UV_PYTHON_DOWNLOADS`` says (uv's ``manual``: never,
    as the harness installing an interpreter is not the user asking for it)."""
    value = (os.environ if environ is None else environ).get(DOWNLOADS_ENV, "").strip().lower()
    return "never" if value in ("never", "manual") else "automatic"


def uv_binary() -> str:
    """The uv executable: the ``uv`` package's, else the one on PATH."""
    try:
        from uv import find_uv_bin  # noqa: PLC0415 - optional: fall back to PATH
    except ImportError:
        found = shutil.which("uv")
        if not found:
            raise FileNotFoundError("uv not found: pip install uv") from None
        return found
    return find_uv_bin()


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


def pyenv_roots() -> list[Path]:
    """The ``versions`` directories of pyenv that exist ($PYENV_ROOT, ~/.pyenv)."""
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


def _minor(wanted: str) -> str:
    return ".".join(wanted.split(".")[:2])


def sourced_candidates(wanted: str) -> list[tuple[Path, str]]:
    """Paths worth probing for ``wanted`` ("3.10" or "3.10.13"), best first, with where
    each was found (PATH or pyenv)."""
    major_minor = _minor(wanted)
    out: list[tuple[Path, str]] = []
    on_path = shutil.which(f"python{major_minor}")
    if on_path:
        out.append((Path(on_path), "PATH"))
    for root in pyenv_roots():
        names = [d.name for d in root.iterdir() if _matches(d.name, wanted)]
        for name in sorted(names, key=_sort_key, reverse=True):
            exe = root / name / "bin" / f"python{major_minor}"
            if exe.exists():
                out.append((exe, "pyenv"))
    for generic in ("python3", "python"):
        found = shutil.which(generic)
        if found:
            out.append((Path(found), "PATH"))
    return list({path: (path, source) for path, source in reversed(out)}.values())[::-1]


def candidates(wanted: str) -> list[Path]:
    """Paths worth probing for ``wanted`` ("3.10" or "3.10.13"), best first."""
    return [path for path, _ in sourced_candidates(wanted)]


def local(wanted: str) -> Interpreter | None:
    """The best interpreter for ``wanted`` on PATH or under pyenv, or None."""
    for path, source in sourced_candidates(wanted):
        version = _probe(path)
        if version and _matches(version, wanted):
            return Interpreter(path, version, source)
    return None


def uv_lines(text: str) -> list[str]:
    """uv's message, line by line, without its tree drawing and its ``error:``/``hint:``
    prefixes; blank lines dropped."""
    lines = []
    for raw in text.splitlines():
        line = re.sub(r"^[\s×├╰─▶│]+", "", raw).strip()
        line = re.sub(r"^(error|cause|caused by|hint|warning):\s*", "", line, flags=re.IGNORECASE)
        if line:
            lines.append(line)
    return lines


def one_line(text: str, limit: int = 300) -> str:
    """uv's message as one line: its first line and its last cause, without decoration."""
    lines = uv_lines(text)
    if not lines:
        return ""
    joined = lines[0] if len(lines) == 1 else f"{lines[0].rstrip('.:')}: {lines[-1]}"
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def _run_uv(args: list[str], uv: str, timeout: float) -> subprocess.CompletedProcess[str] | str:
    """uv's completed process, or (a string) why it could not run."""
    env = {**os.environ, "UV_NO_PROGRESS": "1"}
    env.pop("VIRTUAL_ENV", None)
    try:
        return subprocess.run(
            [uv, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:.0f} s"
    except OSError as exc:
        return f"{uv}: {exc.strerror or exc}"


def uv_find(wanted: str, uv: str) -> UvAnswer:
    """The interpreter ``uv python find`` gives for ``wanted`` (managed ones too), no download."""
    proc = _run_uv(
        ["python", "find", "--system", "--no-project", "--no-python-downloads", wanted],
        uv,
        _FIND_TIMEOUT_S,
    )
    if isinstance(proc, str):
        return UvAnswer(None, proc)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode == 0 and lines:
        return UvAnswer(Path(lines[-1].strip()))
    return UvAnswer(None, one_line(proc.stderr) or f"uv exited with status {proc.returncode}")


def uv_install(wanted: str, uv: str) -> UvAnswer:
    """Download ``wanted`` with ``uv python install``; the path is then uv's to find."""
    proc = _run_uv(["python", "install", wanted], uv, _INSTALL_TIMEOUT_S)
    if isinstance(proc, str):
        return UvAnswer(None, proc)
    if proc.returncode != 0:
        return UvAnswer(None, one_line(proc.stderr) or f"uv exited with status {proc.returncode}")
    return uv_find(wanted, uv)


def uv_downloadable(wanted: str, uv: str) -> str | None:
    """The download uv knows for ``wanted`` (e.g. ``cpython-3.10.22-linux-x86_64-gnu``), or None.

    uv's list of downloads is built in: this asks no server.
    """
    proc = _run_uv(["python", "list", wanted, "--only-downloads"], uv, _FIND_TIMEOUT_S)
    if isinstance(proc, str) or proc.returncode != 0:
        return None
    keys = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("cpython-")]
    return keys[0] if keys else None


def how_to_provide(wanted: str) -> str:
    minor = _minor(wanted)
    return f"run `uv python install {wanted}` or put python{minor} on PATH"


def from_uv(wanted: str, answer: UvAnswer, source: str) -> tuple[Interpreter | None, str]:
    if answer.path is None:
        return None, answer.reason
    version = _probe(answer.path)
    if version and _matches(version, wanted):
        return Interpreter(answer.path, version, source), ""
    return None, f"{answer.path} is Python {version or '(does not run)'}"


def find(wanted: str, downloads: str | None = None) -> Interpreter:
    """The best interpreter for ``wanted``, or :class:`InterpreterNotFoundError`.

    ``downloads`` (``automatic``/``never``) defaults to ``UV_PYTHON_DOWNLOADS``.
    """
    return _find(wanted, downloads or downloads_setting())


@functools.cache
def _find(wanted: str, downloads: str) -> Interpreter:
    found = local(wanted)
    if found:
        return found
    roots = ", ".join(str(r) for r in pyenv_roots()) or "no pyenv root"
    tried = [f"not on PATH (python{_minor(wanted)}, python3, python)", f"not under pyenv ({roots})"]
    try:
        uv = uv_binary()
    except FileNotFoundError as exc:
        tried.append(str(exc))
    else:
        interp, why = from_uv(wanted, uv_find(wanted, uv), "uv")
        if interp:
            return interp
        tried.append(f"uv python find {wanted}: {why}")
        if downloads == "never":
            tried.append(f"uv python install not tried ({DOWNLOADS_ENV}=never)")
        else:
            interp, why = from_uv(wanted, uv_install(wanted, uv), "uv install")
            if interp:
                return interp
            tried.append(f"uv python install {wanted}: {why}")
    raise InterpreterNotFoundError(
        f"no Python {wanted}: {'; '.join(tried)}; to provide it, {how_to_provide(wanted)}"
    )


def clear_cache() -> None:
    """Forget earlier lookups (after PATH, PYENV_ROOT or uv's installs changed)."""
    _find.cache_clear()


def set_downloads(value: str) -> None:
    """Make ``value`` (``--python-downloads``) this process's setting, as uv reads it too."""
    if value not in DOWNLOADS:
        raise ValueError(f"--python-downloads: {value!r} is not one of {', '.join(DOWNLOADS)}")
    if value != downloads_setting():
        os.environ[DOWNLOADS_ENV] = value


def available(versions: tuple[str, ...] = SUPPORTED_PYTHONS) -> list[str]:
    """Those of ``versions`` this machine has an interpreter for (never downloading one)."""
    found = []
    for version in versions:
        try:
            find(version, "never")
        except InterpreterNotFoundError:
            continue
        found.append(version)
    return found
