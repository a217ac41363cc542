"""The one place execution options are built.

Every job that runs executions gets its :class:`RunOptions` here: ``harness run`` from its
request (:func:`for_request`), and every trial that re-runs executions of a recorded run —
bisection, repair verification, a resumed run — by replaying what that run recorded
(:func:`replay`): its timeout, memory cap, isolation, sandbox (and whether model answers
could run without it) and guard, and the paths it hid from its executions, with the trials'
own results hidden too. Jobs with no recorded run behind them (``harness reach``,
``validate-problems``) start from :func:`for_problems`.

Whatever builds them, no execution may read the problem files (their references and
tests) or any results directory, and every execution finds the datasets problems load at
run time where ``harness fetch-data`` put them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.benchmarks import registry
from harness.core.errors import UsageError
from harness.core.text import split
from harness.execute.runner import DEFAULT_MEMORY_MB, RunOptions
from harness.problems import runtime_data

if TYPE_CHECKING:
    from collections.abc import Iterable

    from harness.execute.rundir import RunManifest, RunRequest


def hidden(*paths: Path | str) -> tuple[str, ...]:
    """``paths`` as the sandbox hides them: absolute, each once, in the order given."""
    return tuple(dict.fromkeys(str(Path(p).absolute()) for p in paths))


def _data_environment() -> tuple[tuple[str, str], ...]:
    # what each benchmark's executions read (CIBench's data files, staged in the cache)
    staged = registry.environment()
    return tuple(sorted({**runtime_data.environment(), **staged}.items()))


def read_allowlist(path: str | None) -> str:
    """The text of ``--guard-allowlist PATH`` ('' when none is given)."""
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--guard-allowlist {path}: {exc.strerror}") from None


def for_request(
    request: RunRequest,
    *,
    jobs: int,
    burst_jobs: int | None = None,
    default_timeout: float,
    problem_paths: Iterable[Path],
    results: Path,
) -> RunOptions:
    """The options ``harness run`` runs ``request`` with: its limits and isolation, the
    matrix's timeout where it gives none, the problem files and the results hidden."""
    if jobs < 1 or request.repeat < 1:
        raise UsageError("--jobs and --repeat must be at least 1")
    if burst_jobs is not None and burst_jobs < jobs:
        raise UsageError(f"--burst-jobs {burst_jobs}: must be at least --jobs ({jobs})")
    return RunOptions(
        jobs=jobs,
        burst_jobs=burst_jobs,
        timeout=request.timeout or default_timeout,
        memory_mb=request.memory_mb or None,
        isolation=request.isolation,
        fresh_for=tuple(split(request.fresh_for)),
        repeat=request.repeat,
        env=_data_environment(),
        hide=hidden(*problem_paths, results),
        sandbox=request.sandbox,
        unsandboxed_answers=request.allow_unsandboxed_answers,
        guard=request.guard,
        allowlist_extra=read_allowlist(request.guard_allowlist),
        record_transport=request.guard_record,
        measured_admission=request.measured_admission,
    )


def for_problems(
    *, jobs: int, timeout: float, problem_paths: Iterable[Path] = (), results: Iterable[Path] = ()
) -> RunOptions:
    """Options for a job with no recorded run behind it: the defaults of ``harness run``,
    ``timeout`` per execution, the problem files and every results directory hidden."""
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    return RunOptions(
        jobs=jobs,
        timeout=timeout,
        memory_mb=DEFAULT_MEMORY_MB,
        env=_data_environment(),
        hide=hidden(*problem_paths, *results),
    )


def replay(
    manifest: RunManifest,
    *,
    jobs: int | None = None,
    problem_paths: Iterable[Path] = (),
    trials: Path | None = None,
) -> RunOptions:
    """Options for trials of the recorded run ``manifest``: its own limits, isolation,
    sandbox and guard, and the paths it hid, with ``problem_paths`` and the trials' results
    root (``trials``) hidden too; ``jobs`` executions at once (default: as many as the run).
    A manifest that recorded no options (written by hand or by an old version) is replayed
    with ``harness run``'s defaults."""
    recorded = manifest.options
    if jobs is None:
        jobs = recorded.jobs if recorded else 1
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    extra = [*problem_paths, *([trials] if trials else [])]
    if recorded is None:
        return for_problems(jobs=jobs, timeout=RunOptions().timeout, problem_paths=extra)
    return RunOptions(
        jobs=jobs,
        timeout=recorded.timeout if recorded.timeout is not None else RunOptions().timeout,
        memory_mb=recorded.memory_mb,
        isolation=recorded.isolation,
        fresh_for=recorded.fresh_for,
        env=_data_environment(),
        hide=hidden(*recorded.hide, *extra),
        sandbox=recorded.sandbox,
        unsandboxed_answers=recorded.unsandboxed_answers,
        guard=recorded.guard,
        allowlist_extra=recorded.allowlist_extra,
        measured_admission=recorded.measured_admission,
    )
