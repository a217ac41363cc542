"""``harness doctor``: what this machine offers the harness, one line per check.

Each check is a function returning a frozen :class:`Check`; :func:`diagnose` runs them
for a matrix's combos and :func:`render` draws the table. A check is ``missing`` when a
run of the matrix would not work without the fix it names (:attr:`Check.blocking`), a
``warning`` when the run works but less well than it could.

The sandbox check asks the env side itself what a run would record (``ask_sandbox``: its
``run`` command on a batch of no executions, built by the one builder, with the host's
interpreter). Where it cannot enter its namespaces, a run with model answers stops before
any of them runs (unless ``--allow-unsandboxed-answers``), so that is ``missing``, with the
kernel's switch that refuses them and the command that lifts it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.envs import interpreters
from harness.envs.build import ENVSIDE
from harness.execute.runner import ask_sandbox
from harness.matrix.package_index import Index

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.matrix.spec import Combo, MatrixSpec

OK, MISSING, WARNING = "ok", "missing", "warning"
# what ``harness doctor --check`` may name: each a kind of check (python: one per Python)
KINDS = ("python", "uv", "disk", "sandbox", "index")

# Disk one env takes, in MiB, per library it installs: `du -sm` of each library's
# directory in site-packages of this machine's envs (2026-11-30); torch counts its
# nvidia-* CUDA wheels (3055 MiB) too. BASE_ENV_MB is the interpreter's venv and the
# extras. uv hard-links files from its cache, so envs sharing wheels share their disk:
# the estimate is an upper bound.
LIBRARY_MB: dict[str, int] = {
    "numpy": 46,
    "pandas": 84,
    "scipy": 113,
    "scikit-learn": 48,
    "matplotlib": 30,
    "torch": 1183 + 3055,
    "tensorflow": 1290,
}
BASE_ENV_MB = 150
INDEX_TIMEOUT_S = 5.0
_MIB = 1024 * 1024


@dataclass(frozen=True)
class Check:
    name: str  # e.g. "python 3.10", "uv", "disk"
    status: str  # ok, missing, warning
    detail: str  # what was found
    fix: str = ""  # what to do when it is not ok

    @property
    def blocking(self) -> bool:
        """A run of the matrix would not work until this is fixed."""
        return self.status == MISSING

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_python(wanted: str, downloads: str, uv: str | None) -> Check:
    """Where an interpreter for ``wanted`` comes from: PATH, pyenv, uv-managed, a uv download."""
    name = f"python {wanted}"
    found = interpreters.local(wanted)
    if found:
        return Check(name, OK, f"{found.version} at {found.path} ({found.source})")
    roots = ", ".join(str(r) for r in interpreters.pyenv_roots()) or "no pyenv root"
    tried = f"not on PATH, not under pyenv ({roots})"
    fix = interpreters.how_to_provide(wanted)
    if uv is None:
        return Check(name, MISSING, f"{tried}; no uv to ask", fix)
    managed, why = interpreters.from_uv(wanted, interpreters.uv_find(wanted, uv), "uv")
    if managed:
        return Check(name, OK, f"{managed.version} at {managed.path} (uv-managed)")
    tried += f"; uv python find: {why}"
    if downloads == "never":
        return Check(
            name, MISSING, f"{tried}; uv downloads off ({interpreters.DOWNLOADS_ENV}=never)", fix
        )
    key = interpreters.uv_downloadable(wanted, uv)
    if key is None:
        return Check(name, MISSING, f"{tried}; uv knows no download of it", fix)
    return Check(
        name,
        WARNING,
        f"not installed; a run downloads {key} with uv (from GitHub or $UV_PYTHON_INSTALL_MIRROR)",
        f"to download it once beforehand, {fix}",
    )


def _free_mb(path: Path) -> int:
    """Free MiB on the filesystem that holds ``path`` (or would, once created)."""
    probe = path.absolute()
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free // _MIB


def check_uv() -> tuple[Check, str | None]:
    """uv's version and its binary; with the binary (None when there is none)."""
    try:
        uv = interpreters.uv_binary()
        proc = subprocess.run(
            [uv, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (FileNotFoundError, OSError, subprocess.TimeoutExpired) as exc:
        return Check("uv", MISSING, f"uv does not run: {exc}", "pip install uv"), None
    if proc.returncode != 0:
        detail = interpreters.one_line(proc.stderr) or f"exit status {proc.returncode}"
        return Check("uv", MISSING, f"{uv}: {detail}", "pip install uv"), None
    return Check("uv", OK, f"{proc.stdout.strip()} at {uv}"), uv


def check_uv_cache(uv: str, need_mb: int) -> Check:
    """uv's cache directory (where every env's files come from) and its free space."""
    proc = subprocess.run(
        [uv, "cache", "dir"], capture_output=True, text=True, timeout=30, check=False
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        detail = interpreters.one_line(proc.stderr) or "uv cache dir printed nothing"
        return Check("uv cache", WARNING, detail, "set UV_CACHE_DIR to a writable directory")
    cache = Path(proc.stdout.strip())
    free = _free_mb(cache)
    detail = f"{cache}: {free} MiB free"
    if free < need_mb:
        return Check(
            "uv cache",
            WARNING,
            f"{detail}, the matrix needs up to {need_mb} MiB",
            "free disk or set UV_CACHE_DIR",
        )
    return Check("uv cache", OK, detail)


def estimate_mb(combos: Sequence[Combo]) -> int:
    """Disk the combos' envs take at most (:data:`LIBRARY_MB` per library, plus a base)."""
    return sum(
        BASE_ENV_MB + sum(LIBRARY_MB.get(key, 0) for key in combo.library_keys) for combo in combos
    )


def check_disk(env_dir: Path, combos: Sequence[Combo]) -> Check:
    """Free disk where the envs go, against the matrix's estimated need."""
    need = estimate_mb(combos)
    largest = max((estimate_mb([c]) for c in combos), default=0)
    free = _free_mb(env_dir)
    detail = (
        f"{env_dir}: {free} MiB free, {len(combos)} combos need up to {need} MiB "
        "(per-library sizes in harness/app/doctor.py)"
    )
    if free < largest:
        return Check(
            "disk", MISSING, detail, f"free at least {largest - free} MiB or use --env-dir"
        )
    if free < need:
        return Check("disk", WARNING, detail, "free disk or use --env-dir (envs share uv's files)")
    return Check("disk", OK, detail)


def check_sandbox(python: str = sys.executable, timeout: float = 60.0) -> Check:
    """Whether the env side can enter its namespaces and make cgroups, as it reports on a
    run's done line (what the run keeps in ``envs/<combo>.executor.json``)."""
    state = ask_sandbox(python, timeout=timeout)
    if state.error:
        detail = f"the env side did not answer: {state.error}"
        return Check("sandbox", WARNING, detail, f"check that {python} can run {ENVSIDE}")
    if state.refused:
        detail = (
            f"refused ({state.sandbox}): a run with model answers stops before they run "
            "(--allow-unsandboxed-answers runs them unsandboxed)"
        )
        return Check("sandbox", MISSING, detail, state.fix)
    if state.task_cap != "cgroup":
        detail = f"namespaces on; no cgroup, tasks capped by {state.task_cap}"
        return Check("sandbox", WARNING, detail, "run where a cgroup v2 subtree is writable")
    return Check("sandbox", OK, "namespaces on, tasks capped by a cgroup")


def check_index(url: str, timeout: float = INDEX_TIMEOUT_S) -> Check:
    """Whether the package index answers (HEAD of its root, ``timeout`` seconds)."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme == "file":
        root = Path(urllib.request.url2pathname(parsed.path))
        if root.is_dir():
            return Check("package index", OK, f"{url}: a local directory")
        return Check("package index", MISSING, f"{url}: no such directory", "check the index URL")
    request = urllib.request.Request(url.rstrip("/") + "/", method="HEAD")  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        return Check(
            "package index",
            MISSING,
            f"{url} unreachable: {reason}",
            "check the network or proxy, or set matrix.index_url / UV_INDEX_URL to a mirror",
        )
    if status >= 400:
        return Check("package index", MISSING, f"{url}: HTTP {status}", "check the index URL")
    return Check("package index", OK, f"{url}: HTTP {status}")


def diagnose(
    combos: Sequence[Combo],
    env_dir: Path,
    matrix: MatrixSpec,
    downloads: str,
    only: Sequence[str] = (),
) -> list[Check]:
    """Every check (or those of the kinds ``only`` names), for the Pythons and libraries
    of ``combos`` of ``matrix``."""
    wanted = set(only or KINDS)
    checks = []
    if wanted & {"python", "uv"}:
        uv_check, uv = check_uv()
        if "python" in wanted:
            pythons = sorted(
                {c.python for c in combos}, key=lambda v: tuple(map(int, v.split(".")))
            )
            checks += [check_python(v, downloads, uv) for v in pythons]
        if "uv" in wanted:
            checks += [uv_check, *([check_uv_cache(uv, estimate_mb(combos))] if uv else [])]
    if "disk" in wanted:
        checks.append(check_disk(env_dir, combos))
    if "sandbox" in wanted:
        checks.append(check_sandbox())
    if "index" in wanted:
        checks.append(check_index(Index(matrix.index_url).url))
    return checks


def ok(checks: Sequence[Check]) -> bool:
    """A run of the matrix would work: nothing blocking."""
    return not any(c.blocking for c in checks)


def render(checks: Sequence[Check]) -> str:
    """One table: check, status, detail, what to do."""
    rows = [("check", "status", "detail", "to do")]
    rows += [(c.name, c.status, c.detail, c.fix) for c in checks]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(r[:3], widths, strict=True))
        + (f"  {r[3]}" if r[3] else "")
        for r in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


def to_json(checks: Sequence[Check]) -> str:
    return json.dumps({"ok": ok(checks), "checks": [c.to_dict() for c in checks]}, indent=2)
