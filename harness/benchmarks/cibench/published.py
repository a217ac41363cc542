"""CIBench as published: every experiment of a task set read from its own files (the
archive, its folder, or one experiment), two problems each, graded step by step as
upstream's ``CIBenchEvaluator`` grades (``envside/cibench_scores.py``).

An experiment ``<set>/<module>/<name>.md`` (or ``.ipynb``, the official zip's executed
notebooks) is ``<set>/<module>/<name>`` end to end and ``…/oracle`` with a failed step
replaced by its reference, as the JSONL format (``cibench``) does. Its session runs in a
working directory holding the data files it names, copied from the experiment's folder as
upstream's notebooks find them. The files are staged in the download cache first, by
content: a problem folder given to a run is hidden from its executions (it holds the
references), the cache is not.

Expected outputs come from the notebooks where published; from Markdown they are derived
by running the references once (``cibench_expected``) and until then a scored step is
``skipped``. A session naming a data file that the published copy lacks is ``skipped``.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.benchmarks.base import DERIVED, DerivedOutputs, check, context, main_library
from harness.benchmarks.cibench import load as cibench
from harness.benchmarks.cibench.notebooks import Experiment, read
from harness.core import cache as downloads  # the download cache the data files stage in
from harness.core.errors import ProblemError
from harness.core.problem import Problem, imported_modules

SETS = ("cibench_generation", "cibench_template")  # the task sets' folders
SUFFIXES = (".md", ".ipynb")
TIMEOUT = 300.0
STAGED = "cibench-data"  # the data files' folder in the download cache
_CODE_PATH = re.compile(r"""['"]((?:\./)?data/[^'"\n]+)['"]""")

CHECK = """
_SPEC = {spec!r}
_DATA = {data!r}
_UNAVAILABLE = {unavailable!r}
_ORACLE = {oracle!r}
_MARKER = {marker!r}
_EXPECTED = {expected!r}


def test_execution(solution):
    harness_cibench_experiment(
        solution, _SPEC, _DATA, _UNAVAILABLE, _ORACLE, _MARKER, expected=_EXPECTED
    )
"""


def environment() -> dict[str, str]:
    """The variable naming the staged data files' folder (it may be made only when the
    problems load): the sandbox binds it back where it lives under /tmp
    (``envside/sandbox.py``, DATA_VARIABLES)."""
    return {"HARNESS_CIBENCH_DATA": str(downloads.cache_dir() / STAGED)}


def is_experiment(path: Path) -> bool:
    return path.suffix in SUFFIXES and path.parent.parent.name in SETS


def experiments_in(root: Path) -> list[Path]:
    """The experiment files below ``root``, in a task set's folder (``<set>/<module>/``)."""
    return sorted(p for p in root.rglob("*") if p.is_file() and is_experiment(p))


def _data_paths(experiment: Experiment) -> list[str]:
    """The data files a session reads: its ``File Path`` lines and the ``data/…`` paths
    its references name (some read a file their prose does not mention)."""
    named = list(experiment.data_files)
    for step in experiment.steps:
        named += _CODE_PATH.findall(step.reference)
    # a pattern (``data/board*``) names files the session globs for itself
    paths = (p.removeprefix("./").rstrip("/") for p in named if "*" not in p)
    return list(dict.fromkeys(paths))


def _staged(source: Path, cache: Path) -> Path:
    """``source`` (a file or folder) copied once into the cache, under a digest of its
    contents, so that executions can read it wherever it came from."""
    digest = hashlib.sha256()
    files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [source]
    for path in files:
        digest.update(str(path.relative_to(source) if source.is_dir() else "").encode())
        digest.update(downloads.sha256_of(path).encode())
    target = cache / STAGED / digest.hexdigest()[:16] / source.name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=target.parent)) / source.name
        if source.is_dir():
            shutil.copytree(source, partial)
        else:
            shutil.copyfile(source, partial)
        partial.rename(target)
        shutil.rmtree(partial.parent, ignore_errors=True)
    return target


def data_of(experiment: Experiment, folder: Path, cache: Path) -> tuple[list[list[str]], str]:
    """``[[relative path, staged path]]`` of the files the session reads, and why it
    cannot run ('' when it can)."""
    staged, missing = [], []
    for relative in _data_paths(experiment):
        source = folder / relative
        if source.exists():
            staged.append([relative, str(_staged(source, cache))])
        else:
            missing.append(relative)
    if missing:
        return staged, f"needs {', '.join(missing)}, which the published copy does not hold"
    return staged, ""


def problems_of(
    experiment: Experiment,
    set_name: str,
    shown: str,
    data: list[list[str]],
    unavailable: str,
) -> list[Problem]:
    """An experiment's two problems: end to end and with the oracle."""
    spec = [step.to_dict() for step in experiment.steps]
    codes = [step.reference for step in experiment.steps]
    modules = [m for step in experiment.steps for m in step.modules]
    expected = "published" if experiment.published else DERIVED
    problems = []
    for oracle in (False, True):
        native = experiment.name + (cibench.ORACLE_SUFFIX if oracle else "")
        code = check(
            CHECK,
            spec=spec,
            data=data,
            unavailable=unavailable,
            oracle=oracle,
            marker=cibench.MARKER,
            expected=expected,
        )
        problems.append(
            Problem(
                id=f"{set_name}/{native}",
                native_id=native,
                set_name=set_name,
                library=main_library([experiment.module, *modules, *imported_modules(*codes)]),
                prompt="\n\n".join(
                    f"Step {n}: {s.prompt}" for n, s in enumerate(experiment.steps, start=1)
                ),
                reference_code=cibench.script(codes),
                code_context=context(code, checks="cibench"),
                timeout=TIMEOUT,
                metadata={
                    "format": "cibench",
                    "task": f"{set_name}/{experiment.name}",
                    "oracle": oracle,
                    "expected": expected,
                    "module": experiment.module,
                    "step_types": [s.kind for s in experiment.steps],
                    "unavailable": unavailable,
                    "note": experiment.note,
                    "cibench": {"spec": spec, "data": data},
                },
                source_file=shown,
                requires=(*imported_modules(*codes), *_readers(data)),
            )
        )
    return problems


# The packages pandas reads a data file's format with: imported by pandas, never by the
# session, and an env (a bisection's trial env too) must hold them for it to run.
_READERS = {".xlsx": "openpyxl", ".xlsm": "openpyxl"}


def _readers(data: list[list[str]]) -> tuple[str, ...]:
    found = (_READERS.get(Path(name).suffix.lower()) for entry in data for name in entry)
    return tuple(sorted({r for r in found if r}))


def load_experiment(path: Path, cache: Path | None = None) -> list[Problem]:
    """One experiment file, in its task set's folder (``<set>/<module>/<name>.md``)."""
    set_name = path.parent.parent.name if path.parent.parent.name in SETS else "cibench"
    name = f"{path.parent.name}/{path.stem}"
    experiment = read(path, name)
    data, unavailable = data_of(experiment, path.parent, cache or downloads.cache_dir())
    return problems_of(experiment, set_name, str(path), data, unavailable)


def load_folder(root: Path, cache: Path | None = None) -> list[Problem]:
    """Every experiment below ``root`` (an unpacked archive or a task set's folder)."""
    found = experiments_in(root)
    if not found:
        raise ProblemError(
            str(root), None, "no CIBench experiment (<set>/<module>/<name>.md) below it"
        )
    return [p for path in found for p in load_experiment(path, cache)]


def _rebuilt(problem: Problem, spec: list[dict[str, Any]], unavailable: str, how: str) -> Problem:
    saved = problem.metadata["cibench"]
    code = check(
        CHECK,
        spec=spec,
        data=saved["data"],
        unavailable=unavailable,
        oracle=bool(problem.metadata["oracle"]),
        marker=cibench.MARKER,
        expected=how,
    )
    metadata = {
        **problem.metadata,
        "expected": how,
        "unavailable": unavailable,
        "cibench": {**saved, "spec": spec},
    }
    return replace(problem, code_context=context(code, checks="cibench"), metadata=metadata)


def with_expected(problem: Problem, outputs: list[dict[str, Any]], how: str) -> Problem:
    """``problem`` with the expected outputs its steps lack filled in (``how`` they came)."""
    spec = []
    for step, out in zip(problem.metadata["cibench"]["spec"], outputs, strict=True):
        filled = dict(step)
        for key in ("text", "figure"):
            if filled[key] is None:
                filled[key] = out.get(key)
        spec.append(filled)
    return _rebuilt(problem, spec, problem.metadata.get("unavailable", ""), how)


def unavailable(problem: Problem, reason: str) -> Problem:
    """``problem`` skipped wherever it runs, for ``reason``."""
    saved = problem.metadata["cibench"]
    return _rebuilt(problem, saved["spec"], reason, str(problem.metadata.get("expected", "")))


def needs_derivation(problem: Problem) -> bool:
    meta = problem.metadata
    return "cibench" in meta and meta.get("expected") == DERIVED and not meta.get("unavailable")


def session(problem: Problem) -> dict[str, Any]:
    saved = problem.metadata["cibench"]
    return {"spec": saved["spec"], "data": saved["data"]}


def content(problem: Problem) -> dict[str, Any]:
    """What a session's outputs depend on, besides the env: its references and what they
    read."""
    saved = problem.metadata["cibench"]
    return {
        "references": [step["reference"] for step in saved["spec"]],
        "data": [relative for relative, _ in saved["data"]],
        "staged": [Path(staged).parent.name for _, staged in saved["data"]],
    }


DERIVES = DerivedOutputs(needs_derivation, session, content, with_expected, unavailable)
