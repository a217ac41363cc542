"""Expected outputs derived where a benchmark does not publish them (CIBench's Markdown
experiments, whose executed notebooks are not in the public copy; ``Benchmark.derives``):
each session's references run once in the baseline combo, their outputs (text, and
figures as PNG) kept as the expected ones.

Runs go through the env side's ``capture`` command (the benchmark's ``envside/capture.py``: one forked,
sandboxed, seeded child per session). Results are cached by content: the digest of the
session's references and data files' names and of the baseline env's lock, in
``<cache>/cibench-expected/``, outside the repository; a second run reads them back. A
session whose references fail in the baseline (a missing file, a dataset that needs the
network) is ``skipped`` wherever it runs, with that reason. What was derived, and from
which env, is written into the run directory (``expected.json``).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.benchmarks import registry
from harness.benchmarks.base import DERIVED
from harness.envs.build import ENVSIDE, EnvInfo
from harness.problems import downloads, runtime_data

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.benchmarks.base import DerivedOutputs
    from harness.core.problem import Problem
    from harness.envs.build import EnvBuilder
    from harness.execute.progress import Reporter
    from harness.execute.rundir import RunDir
    from harness.matrix.spec import Combo, MatrixSpec

CAPTURE_TIMEOUT = 300.0


@dataclass(frozen=True)
class Derivation:
    """The problems with their expected outputs, and what became of each session."""

    problems: tuple[Problem, ...]
    derived: tuple[str, ...] = ()  # tasks whose references ran in the baseline
    skipped: tuple[tuple[str, str], ...] = ()  # (task, why its reference cannot run)
    cached: int = 0  # of the sessions, how many were read from the cache

    def to_dict(self, env: str) -> dict[str, Any]:
        return {
            "expected": DERIVED,
            "env": env,
            "derived": list(self.derived),
            "skipped": dict(self.skipped),
            "cached": self.cached,
        }


def cache_root() -> Path:
    return downloads.cache_dir().parent / "cibench-expected"


def _derives(problem: Problem) -> DerivedOutputs | None:
    benchmark = registry.of(problem)
    return benchmark.derives if benchmark is not None else None


def needs_derivation(problem: Problem) -> bool:
    derives = _derives(problem)
    return derives is not None and derives.needs(problem)


def _unavailable(problem: Problem, reason: str) -> Problem:
    derives = _derives(problem)
    assert derives is not None  # only asked of a problem that needs derivation
    return derives.unavailable(problem, reason)


def session_key(problem: Problem, lock_hash: str) -> str:
    """The cache key of a session's outputs: what its references are and read, and the
    environment they ran in."""
    derives = _derives(problem)
    assert derives is not None
    content = {**derives.content(problem), "env": lock_hash}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:24]


def _capture(
    info: EnvInfo, benchmark: str, sessions: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The env side's ``capture`` of ``benchmark`` over ``sessions``: each session's
    result by its key."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(sessions, fh)
        path = Path(fh.name)
    try:
        limit = CAPTURE_TIMEOUT * len(sessions) + 60
        done = subprocess.run(
            [str(info.python_exe), "-s", str(ENVSIDE), "capture", benchmark, str(path)],
            capture_output=True,
            text=True,
            timeout=limit,
            # the runtime datasets' caches, as a run's executions see them
            env={**os.environ, **runtime_data.environment(), **registry.environment()},
            check=False,
        )
    finally:
        path.unlink(missing_ok=True)
    results: dict[str, dict[str, Any]] = {}
    for line in done.stdout.splitlines():
        result = json.loads(line)
        results[str(result.pop("key"))] = result
    missing = {s["key"] for s in sessions} - set(results)
    for key in missing:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        results[key] = {"error": f"the capture ended early ({tail[0][:200]})"}
    return results


def derive(problems: Sequence[Problem], info: EnvInfo, cache: Path | None = None) -> Derivation:
    """``problems`` with expected outputs derived in ``info``'s env where they need them."""
    root = cache or cache_root()
    tasks: dict[str, str] = {}  # task → its cache key
    todo: dict[str, list[dict[str, Any]]] = {}  # benchmark → the sessions to capture
    for problem in problems:
        task = str(problem.metadata.get("task", problem.id))
        if not needs_derivation(problem) or task in tasks:
            continue
        key = tasks[task] = session_key(problem, info.lock_hash)
        if not (root / f"{key}.json").is_file():
            benchmark = registry.of(problem)
            assert benchmark is not None
            assert benchmark.derives is not None
            session = {"key": key, **benchmark.derives.session(problem)}
            todo.setdefault(benchmark.name, []).append(session)
    cached = len(tasks) - sum(len(sessions) for sessions in todo.values())
    for name, sessions in todo.items():
        root.mkdir(parents=True, exist_ok=True)
        for key, got in _capture(info, name, sessions).items():
            (root / f"{key}.json").write_text(json.dumps(got))
    results = {k: json.loads((root / f"{k}.json").read_text()) for k in set(tasks.values())}
    out: list[Problem] = []
    for problem in problems:
        task = str(problem.metadata.get("task", problem.id))
        result: dict[str, Any] | None = results.get(tasks.get(task, ""))
        if result is None:
            out.append(problem)
        elif "outputs" in result:
            derives = _derives(problem)
            assert derives is not None
            out.append(derives.filled(problem, result["outputs"], DERIVED))
        else:
            reason = f"its reference does not run in the baseline: {result.get('error', '')}"
            out.append(_unavailable(problem, reason))
    derived = tuple(t for t, k in tasks.items() if "outputs" in results[k])
    skipped = tuple(
        (t, str(results[k].get("error", "")))
        for t, k in tasks.items()
        if "outputs" not in results[k]
    )
    return Derivation(tuple(out), derived, skipped, cached)


def for_run(
    problems: Sequence[Problem],
    spec: MatrixSpec,
    combos: Sequence[Combo],
    builder: EnvBuilder,
    run_dir: RunDir,
    reporter: Reporter,
) -> Sequence[Problem]:
    """A run's problems with the expected outputs they lack derived in the matrix's
    baseline (the run's first combo where the baseline is not in the matrix), and what
    was derived written into the run directory."""
    if not any(needs_derivation(p) for p in problems):
        return problems
    baseline = next((c for c in spec.combos if c.id == spec.baseline), combos[0])
    reporter.log(f"deriving CIBench's expected outputs in {baseline.id} (not published)")
    info, _ = builder.build(baseline)
    if not info.ok:
        reason = f"no expected outputs: the baseline env {baseline.id} failed ({info.error})"
        chosen = [_unavailable(p, reason) if needs_derivation(p) else p for p in problems]
        run_dir.expected().write_text(json.dumps({"expected": DERIVED, "error": reason}) + "\n")
        return chosen
    derivation = derive(problems, info)
    reporter.log(
        f"{baseline.id}: {len(derivation.derived)} session(s) derived "
        f"({derivation.cached} from the cache), {len(derivation.skipped)} whose reference "
        "does not run there: skipped"
    )
    record = {**derivation.to_dict(baseline.id), "env_info": info.to_dict()}
    run_dir.expected().write_text(json.dumps(record, indent=1) + "\n")
    return derivation.problems


def as_recorded(problems: Sequence[Problem], run_dir: RunDir) -> Sequence[Problem]:
    """``problems`` with the expected outputs a finished run derived for them, for what
    re-runs its executions (bisection): read back from the cache under the baseline env
    the run recorded, or derived there again where the cache lost them."""
    if not any(needs_derivation(p) for p in problems):
        return problems
    try:
        data = json.loads(run_dir.expected().read_text(encoding="utf-8"))
        info = EnvInfo.from_dict(data["env_info"])
    except (OSError, ValueError, KeyError, TypeError):
        return problems  # the run derived nothing: its sessions were graded without
    return derive(problems, info).problems


def described(path: Path) -> str:
    """What a run's ``expected.json`` says, in a sentence for its reports ('' without one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    if not isinstance(data, dict):
        return ""
    if data.get("error"):
        return f"CIBench: {data['error']}"
    derived, skipped = data.get("derived") or [], data.get("skipped") or {}
    return (
        f"CIBench: the expected outputs of {len(derived)} session(s) are {DERIVED} "
        f"(their references run once in `{data.get('env', '?')}`); {len(skipped)} session(s) "
        "whose reference does not run there are skipped."
    )
