"""One environment per combo, built with uv and reused while its lock is unchanged.

Building a combo: find its interpreter (PATH, pyenv, or uv: :mod:`harness.envs.interpreters`)
→ resolve its requirements to a lock file (``uv pip compile``) → create and sync the
env (``uv pip sync --compile-bytecode``) → probe it. Envs live under
``<env-root>/<lock hash>/``, so two combos (or a bisection step and a combo) that
resolve to the same packages share one env, and a changed combo gets a new one. uv's
single cache hard-links files into every env.

A combo that cannot be built is not an exception: :func:`EnvBuilder.build` returns an
:class:`EnvInfo` with ``ok=False`` and the resolver's or installer's own message,
and the run records ``env_error`` for that combo while the others go on. An *extra*
with no wheel for the combo's Python (where building it is not allowed) is left out
instead, and ``EnvInfo.dropped`` says which and why: the problems that import it are
then skipped in that combo, and the rest run.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness.core.libraries import BY_KEY, LIBRARIES
from harness.envs import interpreters, sources
from harness.matrix.package_index import Index, IndexUnavailableError
from harness.matrix.spec import Combo, VersionKind

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

# the env side's launcher, run by each combo's interpreter (never imported here)
ENVSIDE = Path(__file__).resolve().parents[1] / "envside" / "__main__.py"
READY_MARKER = ".harness-ready"
# Never compile these from source: a sdist of numpy or torch on a CI runner means
# an hour of compiling or a failure; a missing wheel should be a clear env_error.
_BINARY_ONLY = tuple(name for lib in LIBRARIES for name in lib.distributions)
_LOCK_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
# How uv says a distribution has no wheel it may install: "flask-mail==0.9.1 has no
# usable wheels", "all versions of x have no usable wheels", "... has no wheels with a
# matching Python version tag"; and which of the request's packages led to it.
_NO_WHEEL = re.compile(
    r"(?:all versions of )?([A-Za-z0-9][A-Za-z0-9._-]*)(?:[=<>!~][^\s,]*)? "
    r"(?:has|have) no (?:usable wheels|wheels with a matching)"
)
_REQUIRED = re.compile(r"you require ([A-Za-z0-9][A-Za-z0-9._-]*)")


def uv_binary() -> str:
    """The uv executable (:func:`harness.envs.interpreters.uv_binary`)."""
    return interpreters.uv_binary()


@dataclass(frozen=True)
class EnvInfo:
    combo: str
    ok: bool
    stage: str = ""  # where a failure happened: interpreter, resolve, sync, probe
    error: str = ""
    python: str = ""  # full interpreter version, e.g. "3.10.13"
    path: str = ""  # the env's directory
    lock_hash: str = ""
    requirements: tuple[str, ...] = ()
    versions: Mapping[str, str] = field(default_factory=dict)  # every locked distribution
    reused: bool = False
    build_s: float = 0.0
    imports: Mapping[str, Any] = field(default_factory=dict)  # probe: per-module import report
    # why the env was not resolved afresh: "resumed" (the run's own lock), or the index
    # was unreachable and the last resolution of this combo was used
    note: str = ""
    # extras left out of the env, by name: the requests and why, e.g.
    # "scikit-image==0.18.0: no wheel for Python 3.10.13"
    dropped: Mapping[str, str] = field(default_factory=dict)
    as_of: str = ""  # the combo's date (ISO), when it is resolved as the index was that day
    # a nightly lane's kind ("pre-release", "nightly wheels", "lane"); "" for a combo
    lane: str = ""
    # packages that came from another index than the main one (the matrix's sources and
    # torch_backend): package → that index's URL, as the lock says
    indexes: Mapping[str, str] = field(default_factory=dict)

    @property
    def python_exe(self) -> Path:
        return Path(self.path) / "bin" / "python"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["requirements"] = list(self.requirements)
        data["versions"] = dict(self.versions)
        data["imports"] = dict(self.imports)
        data["dropped"] = dict(self.dropped)
        data["indexes"] = dict(self.indexes)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EnvInfo:
        values = dict(data)
        values["requirements"] = tuple(values.get("requirements", ()))
        return cls(**values)

    def library_versions(self, also: Iterable[str] = ()) -> dict[str, str]:
        """Versions of the seven libraries (by canonical key) in this env, and of the
        other distributions ``also`` names (a problem's library may be any: under the
        name it is given)."""
        out = {}
        for lib in LIBRARIES:
            found = next((self.versions[n] for n in lib.distributions if n in self.versions), None)
            if found:
                out[lib.key] = found
        for name in also:
            if name not in out and canonicalize_name(name) in self.versions:
                out[name] = self.versions[canonicalize_name(name)]
        return out


class _BuildError(Exception):
    def __init__(self, stage: str, message: str, unreachable: bool = False) -> None:
        super().__init__(message)
        self.stage = stage
        self.message = message
        self.unreachable = unreachable


# How uv says it could not reach the index (as opposed to: no solution exists).
_UNREACHABLE = re.compile(
    r"Failed to fetch|error sending request|dns error|Connection refused|"
    r"Network is unreachable|timed out|tcp connect error|failed to lookup address",
    re.IGNORECASE,
)


def lane_kind(combo: Combo) -> str:
    """What a nightly lane tries out: "nightly wheels", "pre-release" or just "lane"."""
    if not combo.lane:
        return ""
    if combo.extra_index:
        return "nightly wheels"
    if any(lib.kind is VersionKind.PRE for lib in combo.libraries):
        return "pre-release"
    return "lane"


def _host(url: str) -> str:
    """``https://host:port/path`` → ``host:port`` (what uv's messages name)."""
    return url.split("://", 1)[-1].split("/", 1)[0]


def parse_lock(text: str) -> dict[str, str]:
    """``name==version`` pins of a lock file, by normalized name."""
    pins = {}
    for line in text.splitlines():
        match = _LOCK_LINE.match(line.strip())
        if match:
            pins[re.sub(r"[-_.]+", "-", match.group(1)).lower()] = match.group(2)
    return pins


def lock_hash(lock_text: str, python_version: str) -> str:
    """Identity of an env: its pins, its interpreter and the platform; not the comments,
    but for the index each package came from where the lock names one (a sourced combo's)."""
    pins = sorted(f"{k}=={v}" for k, v in parse_lock(lock_text).items())
    origins = sorted(f"{k} from {url}" for k, url in sources.indexes_of(lock_text, "").items())
    material = "\n".join([python_version, platform.machine(), platform.system(), *pins, *origins])
    return hashlib.sha256(material.encode()).hexdigest()


class EnvBuilder:
    def __init__(
        self,
        root: Path,
        index: Index | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.root = root
        self.index = index or Index()
        self.log = log or (lambda _msg: None)
        self.uv = uv_binary()

    def _newest_or_pre(self, package: str, fallback: str, python: str, combo: Combo) -> str:
        """``package>=V``, V its newest release or pre-release with a wheel here (as of the
        combo's date). uv takes pre-releases of a package only when a requirement names
        one; a bound below every release (``>=0.0.0a0``) no longer counts as naming one."""
        try:
            found = self.index.versions_with_wheels(package, python, pre=True, as_of=combo.as_of)
        except IndexUnavailableError:
            return fallback  # resolved without the index's view: uv says what it can
        return f"{package}>={found[-1]}" if found else fallback

    def _uv(self, *args: str, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
        env.pop("VIRTUAL_ENV", None)
        return subprocess.run(
            [self.uv, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
        )

    def requirements(self, combo: Combo, python: str) -> list[str]:
        reqs = []
        for lib in combo.libraries:
            if lib.kind is VersionKind.OLDEST:
                try:
                    version = self.index.oldest(lib.package, python, combo.as_of)
                except (IndexUnavailableError, LookupError) as exc:
                    raise _BuildError("resolve", f"{lib.library} = 'oldest': {exc}") from None
                reqs.append(f"{lib.package}=={version}")
            elif lib.kind is VersionKind.PRE:
                reqs.append(self._newest_or_pre(lib.package, lib.requirement(), python, combo))
            else:
                reqs.append(lib.requirement())
        reqs.extend(combo.extras)
        return reqs

    def _lock_files(self, combo: Combo, interpreter: Path, requirements: list[str]) -> Path:
        """Where the resolution of exactly this request is written (``.txt``)."""
        # Named by content too: two runs resolving one combo id differently must not
        # overwrite each other's files between writing and reading them.
        key = hashlib.sha256(repr((requirements, str(interpreter), combo)).encode()).hexdigest()[
            :12
        ]
        return self.root / "locks" / f"{combo.id}-{key}"

    def last_resolution(self, combo: Combo, interpreter: Path, requirements: list[str]) -> str:
        """The lock of the last successful resolution of this very request ('' if none)."""
        last = self._lock_files(combo, interpreter, requirements).with_suffix(".last")
        return last.read_text(encoding="utf-8") if last.is_file() else ""

    def index_args(self, combo: Combo) -> list[str]:
        """uv's options naming the indexes ``combo`` resolves from, and installs from: a
        lock names no index, and what came from another index is found nowhere else."""
        args = []
        if combo.extra_index:
            # Development wheels of numpy, pandas, scipy, ... live on their own index;
            # uv must weigh both indexes' versions to pick them.
            args += [
                "--extra-index-url",
                combo.extra_index,
                "--index-strategy",
                "unsafe-best-match",
            ]
        if self.index.url != "https://pypi.org/simple" or os.environ.get("UV_INDEX_URL"):
            args += ["--index-url", self.index.url]
        return args

    def resolve(self, combo: Combo, interpreter: Path, requirements: list[str]) -> str:
        """The lock file text for ``requirements`` on ``interpreter``."""
        stem = self._lock_files(combo, interpreter, requirements)
        stem.parent.mkdir(parents=True, exist_ok=True)
        source = stem.with_suffix(".in")
        target = stem.with_suffix(".txt")
        source.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        if combo.sourcing.sources:  # only a project file sends a package to an index
            source = stem / "pyproject.toml"
            source.parent.mkdir(exist_ok=True)
            source.write_text(sources.project(combo, requirements), encoding="utf-8")
        args = [
            "pip",
            "compile",
            str(source),
            "-o",
            str(target),
            "--python",
            str(interpreter),
            "--no-header",
            "--prerelease",
            "allow" if combo.extra_index else "if-necessary-or-explicit",
            # uv prefers the versions of an existing output file; "latest" must mean latest
            "--upgrade",
            "--quiet",
        ]
        if combo.resolution != "highest":
            args += ["--resolution", combo.resolution]
        args += binary_args(combo)
        args += sources.compile_options(combo)
        if combo.as_of:
            cutoff = dt.datetime.combine(
                combo.as_of + dt.timedelta(days=1), dt.time(), dt.timezone.utc
            )
            args += ["--exclude-newer", cutoff.strftime("%Y-%m-%dT%H:%M:%SZ")]
        proc = self._uv(*args, *self.index_args(combo))
        if proc.returncode != 0:
            message = _uv_message(proc)
            if _UNREACHABLE.search(message):
                others = [combo.extra_index, *(s.url for s in combo.sourcing.sources)]
                url = next((u for u in others if u and _host(u) in message), self.index.url)
                message = f"package index unreachable ({url}): {message}"
                raise _BuildError("resolve", message, unreachable=True)
            raise _BuildError("resolve", message)
        lock = target.read_text(encoding="utf-8")
        stem.with_suffix(".last").write_text(lock, encoding="utf-8")
        return lock

    def resolved_versions(self, combo: Combo) -> tuple[str, dict[str, str]]:
        """``combo``'s full Python version and locked versions, without building it.

        Raises ``LookupError`` with the resolver's message when it cannot be resolved.
        """
        try:
            interp = interpreters.find(combo.python)
            lock = self.resolve(combo, interp.path, self.requirements(combo, interp.version))
        except (interpreters.InterpreterNotFoundError, _BuildError) as exc:
            raise LookupError(f"combo {combo.id!r}: {exc}") from None
        return interp.version, parse_lock(lock)

    def build(self, combo: Combo, lock: str = "") -> tuple[EnvInfo, str]:
        """Build or reuse ``combo``'s env; returns its info and lock text (may be empty).

        With ``lock`` (a resumed run's own), that is what gets installed, unresolved.
        When the index cannot be reached, the last resolution of the same request is
        used if its env is still here: the combo runs, with a note saying so.
        """
        info, lock = self._build(combo, lock)
        return replace(info, lane=lane_kind(combo)), lock

    def _build(self, combo: Combo, lock: str = "") -> tuple[EnvInfo, str]:
        start = time.monotonic()
        as_of = combo.as_of.isoformat() if combo.as_of else ""
        try:
            interp = interpreters.find(combo.python)
        except interpreters.InterpreterNotFoundError as exc:
            info = EnvInfo(combo.id, ok=False, stage="interpreter", error=str(exc), as_of=as_of)
            return info, ""
        reqs: list[str] = []
        dropped: dict[str, str] = {}
        note = "resumed with the run's own lock" if lock else ""
        try:
            reqs = self.requirements(combo, interp.version)
            if not lock:
                self.log(f"{combo.id}: resolving {len(reqs)} requirements")
                lock, note = self._resolve_dropping(combo, interp, reqs, dropped)
            digest = lock_hash(lock, interp.version)
            env_dir = self.root / digest[:16]
            reused = self._ensure(env_dir, interp.path, lock, digest, combo)
            imports = self._probe(env_dir, combo)
        except _BuildError as exc:
            info = EnvInfo(
                combo.id,
                ok=False,
                stage=exc.stage,
                error=exc.message,
                python=interp.version,
                requirements=tuple(reqs),
                dropped=dropped,
                as_of=as_of,
            )
            return info, lock
        info = EnvInfo(
            combo.id,
            ok=True,
            python=interp.version,
            path=str(env_dir),
            lock_hash=digest,
            requirements=tuple(reqs),
            versions=parse_lock(lock),
            indexes=sources.indexes_of(lock, self.index.url),
            reused=reused,
            build_s=round(time.monotonic() - start, 2),
            imports=imports,
            note=note,
            dropped=dropped,
            as_of=as_of,
        )
        return info, lock

    def _resolve_dropping(
        self,
        combo: Combo,
        interp: interpreters.Interpreter,
        reqs: list[str],
        dropped: dict[str, str],
    ) -> tuple[str, str]:
        """Resolve ``reqs``; an extra that has (or needs) no wheel for this Python is taken
        out of ``reqs`` into ``dropped`` with the reason, and the rest resolved again."""
        while True:
            try:
                return self._resolve_or_fall_back(combo, interp.path, interp.version, reqs)
            except _BuildError as exc:
                extras = [r for r in reqs if r in combo.extras]
                found = unwheeled_extra(exc.message, extras)
                if exc.unreachable or found is None:
                    raise
                name, missing = found
                # every request of it goes: ``faker`` and ``faker==20.1.0`` alike
                left_out = [r for r in extras if _name(r) == name]
                reason = f"no wheel for Python {interp.version}"
                reason += f" of {missing}, which it needs" if missing != name else ""
                dropped[name] = f"{', '.join(left_out)}: {reason}"
                reqs[:] = [r for r in reqs if r not in left_out]
                self.log(f"{combo.id}: leaving out {dropped[name]}")

    def _resolve_or_fall_back(
        self, combo: Combo, interpreter: Path, version: str, reqs: list[str]
    ) -> tuple[str, str]:
        try:
            return self.resolve(combo, interpreter, reqs), ""
        except _BuildError as exc:
            last = self.last_resolution(combo, interpreter, reqs) if exc.unreachable else ""
            env_dir = self.root / lock_hash(last, version)[:16]
            if not last or not (env_dir / READY_MARKER).is_file():
                raise
            note = "package index unreachable: using this combo's last resolution"
            self.log(f"{combo.id}: {note} (environment {env_dir.name})")
            return last, note

    def _ensure(
        self, env_dir: Path, interpreter: Path, lock: str, digest: str, combo: Combo
    ) -> bool:
        """Create and sync ``env_dir`` unless it is already built; True when reused."""
        label = combo.id
        env_dir.parent.mkdir(parents=True, exist_ok=True)
        with (env_dir.parent / f"{env_dir.name}.lock").open("w") as guard:
            # Two runs building the same env wait for each other instead of colliding.
            fcntl.flock(guard, fcntl.LOCK_EX)
            marker = env_dir / READY_MARKER
            if marker.is_file() and marker.read_text().strip() == digest:
                return True
            if env_dir.exists():
                shutil.rmtree(env_dir)
            self.log(f"{label}: creating environment {env_dir.name}")
            proc = self._uv("venv", str(env_dir), "--python", str(interpreter), "--quiet")
            if proc.returncode != 0:
                raise _BuildError("sync", _uv_message(proc))
            installed = env_dir / "harness.lock.txt"
            installed.write_text(lock, encoding="utf-8")
            if combo.sourcing.sources:  # the lock's pins, each from its index
                installed = env_dir / "harness-sources" / "pyproject.toml"
                installed.parent.mkdir()
                pins = sources.pinned_project(combo, parse_lock(lock))
                installed.write_text(pins, encoding="utf-8")
            self.log(f"{label}: installing {len(parse_lock(lock))} packages")
            proc = self._uv(
                "pip",
                "sync",
                str(installed),
                "--python",
                str(env_dir / "bin" / "python"),
                "--compile-bytecode",
                "--quiet",
                # what the resolution could not compile, the install may not either
                *binary_args(combo),
                *sources.uv_options(combo),
                *self.index_args(combo),
            )
            if proc.returncode != 0:
                shutil.rmtree(env_dir, ignore_errors=True)
                raise _BuildError("sync", _uv_message(proc))
            marker.write_text(digest + "\n")
            return False

    def _probe(self, env_dir: Path, combo: Combo) -> dict[str, Any]:
        """Import each library once: a broken env shows here, and font caches get built.

        The report is kept in the env: an env's packages never change once built.
        """
        modules = [BY_KEY[k].module for k in combo.library_keys]
        if "matplotlib" in modules:
            modules.append("matplotlib.pyplot")
        if not modules:
            return {}
        cached = (
            env_dir
            / f"harness-probe-{hashlib.sha256(' '.join(modules).encode()).hexdigest()[:12]}.json"
        )
        if cached.is_file():
            kept: dict[str, Any] = json.loads(cached.read_text(encoding="utf-8"))
            return kept
        proc = subprocess.run(
            [str(env_dir / "bin" / "python"), "-s", str(ENVSIDE), "probe", *modules],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
            env={**os.environ, "MPLBACKEND": "Agg", "TF_CPP_MIN_LOG_LEVEL": "2"},
        )
        try:
            report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            raise _BuildError("probe", f"env probe failed: {proc.stderr.strip()[-2000:]}") from None
        modules_report: dict[str, Any] = report.get("modules", {})
        cached.write_text(json.dumps(modules_report), encoding="utf-8")
        return modules_report


def binary_args(combo: Combo) -> list[str]:
    """uv's options saying what must come as a wheel: the seven libraries, or with
    ``wheels_only`` every package but the source-only ones the matrix allows."""
    if not combo.wheels_only:
        return [arg for package in _BINARY_ONLY for arg in ("--only-binary", package)]
    args = ["--only-binary", ":all:"]
    for package in combo.build_from_source:
        args += ["--no-binary", package]
    return args


def unwheeled_extra(message: str, extras: Sequence[str]) -> tuple[str, str] | None:
    """For uv's "has no usable wheels" failure: the (normalized) name of the requested
    extra to leave out, and of the package without a wheel — the extra itself, or what
    it depends on. None for any other failure, or when no extra leads to it (the seven
    libraries are what a combo is about: without them it is an ``env_error``)."""
    missing = _NO_WHEEL.search(message)
    if missing is None:
        return None
    names = {_name(e) for e in extras}
    culprit = canonicalize_name(missing.group(1))
    if culprit in names:
        return culprit, culprit
    for required in _REQUIRED.findall(message):
        name = canonicalize_name(required.rstrip(",."))
        if name in names:
            return name, culprit
    return None


def _name(requirement: str) -> str:
    return canonicalize_name(Requirement(requirement).name)


def _uv_message(proc: subprocess.CompletedProcess[str]) -> str:
    """uv's own explanation as one paragraph, without its decoration and prefixes."""
    text = (proc.stderr or proc.stdout or f"uv exited with status {proc.returncode}").strip()
    parts = interpreters.uv_lines(text)
    if not parts:
        return f"uv exited with status {proc.returncode}"
    head, *rest = parts
    if rest and not head.endswith((".", ":")):
        head += ":"
    return " ".join([head, *rest])[-4000:]
