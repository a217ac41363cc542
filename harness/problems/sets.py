"""Problem sets: our TOML problems and JSONL files of any format, loaded into Problems.

A run is given files and directories. A directory holds our TOML problems
(``<root>/<library>/<name>.toml``, ``harness.problems.formats.ours``) and JSONL files
(``.jsonl``, ``.jsonl.gz``) of any of the JSONL formats (``harness.problems.formats``). Each
problem belongs to a set, named after its directory or file (``problems``, ``ds1000``),
and its id is ``<set>/<id within the set>``: unique across everything loaded.
GitChameleon's problems are the set ``gitchameleon`` wherever its folder is; its
published archive (``.tar.gz``) is read too: unpacked once into the download cache.
CIBench's experiments as published (``<set>/<module>/<name>.md`` or ``.ipynb``) are read from
their archive (``.tar.gz``, the official ``.zip``), a folder holding them, or one file
(``harness.problems.formats.cibench_published``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypeVar

from harness.core.errors import ProblemError
from harness.core.jsonl import line_error, read_rows
from harness.core.libraries import canonical, lookup
from harness.problems import downloads, formats
from harness.problems.downloads import extract
from harness.problems.formats import cibench_published, gitchameleon
from harness.problems.formats.common import Row
from harness.problems.formats.ours import load_toml_problem

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from harness.core.problem import Problem
    from harness.problems.formats.common import Format


CONFIG_FILES = frozenset({"catalogue.toml"})  # TOML files in a problem set that are not problems
ARCHIVES = (".tar.gz", ".tgz", ".zip")

T = TypeVar("T")


def set_name_of(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name) or "problems"


def load_jsonl(path: Path, display: str | None = None) -> list[Problem]:
    """Problems from a JSONL file: DS-1000's rows, or another format's (``harness.problems.formats``),
    told apart by the keys of the first row."""
    shown = display or str(path)
    set_name = set_name_of(path)
    problems: list[Problem] = []
    seen: set[str] = set()
    fmt: Format | None = None
    for number, data in read_rows(path, shown):
        fmt = fmt or formats.find(data)
        if fmt.load_file is not None:
            return fmt.load_file(path, shown)
        for problem in fmt.load_row(Row(data, shown, number), set_name):
            if problem.native_id in seen:
                raise line_error(shown, number, f"duplicate problem_id {problem.native_id}")
            seen.add(problem.native_id)
            problems.append(problem)
    return problems


def set_root(path: Path, given: Path) -> Path:
    """The directory a problem's id is relative to: the one holding the library
    directories, so ``problems/pandas/x.toml`` is ``problems/pandas/x`` whether the
    run was given ``problems/`` or ``problems/pandas/``."""
    folder = path.parent
    while folder != folder.parent:
        library = lookup(folder.name)
        if library is not None and library.key == folder.name:
            return folder.parent
        if folder == given.parent:
            break
        folder = folder.parent
    return given


def load_directory(root: Path) -> list[Problem]:
    """Problems in ``root/**/*.toml`` (but ``catalogue.toml``), JSONL files and CIBench's
    experiments (``<set>/<module>/<name>.md``) below ``root``."""
    problems = []
    if cibench_published.experiments_in(root):
        problems.extend(cibench_published.load_folder(root))
    for path in sorted(p for p in root.rglob("*.toml") if p.name not in CONFIG_FILES):
        base = set_root(path.resolve(), root.resolve())
        problems.append(load_toml_problem(path, base, set_name_of(base)))
    for path in sorted([*root.rglob("*.jsonl"), *root.rglob("*.jsonl.gz")]):
        if not gitchameleon.is_companion(path):  # read with the dataset beside it
            problems.extend(load_jsonl(path))
    return problems


def load_archive(path: Path) -> list[Problem]:
    """The GitChameleon datasets in an archive (its ``dataset/`` folder, or a whole
    checkout of its repository), or CIBench's experiments (its ``.tar.gz`` or the official
    ``.zip``), unpacked once into the download cache."""
    folder = extract(path)
    if cibench_published.experiments_in(folder):
        return cibench_published.load_folder(folder)
    found = gitchameleon.datasets_in(folder)
    if not found:
        raise ProblemError(
            str(path),
            None,
            f"no GitChameleon dataset ({gitchameleon.DATASET} beside "
            f"{gitchameleon.HIDDEN_TESTS}/) or CIBench experiment in this archive; "
            "pass a problem file or folder instead",
        )
    return [problem for dataset in found for problem in load_jsonl(dataset)]


def load_problems(paths: Sequence[Path]) -> list[Problem]:
    """Problems from files and directories, in the order given; ids must be unique."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path in paths:
        if path.is_dir():
            batch = load_directory(path)
        elif path.suffix == ".toml":
            base = set_root(path.resolve(), path.parent.resolve())
            batch = [load_toml_problem(path, base, set_name_of(base))]
        elif path.name.endswith(ARCHIVES):
            batch = load_archive(path)
        elif path.suffix in cibench_published.SUFFIXES:
            batch = cibench_published.load_experiment(path)
        else:
            batch = load_jsonl(path)
        for problem in batch:
            if problem.id in seen:
                raise ProblemError(
                    problem.source_file,
                    problem.id,
                    f"duplicate problem id (also in {seen[problem.id]})",
                )
            seen[problem.id] = problem.source_file
            problems.append(problem)
    return problems


def shard(problems: Sequence[T], index: int, count: int) -> list[T]:
    """Shard ``index`` (1-based) of ``count``: every count-th problem, so that each shard
    gets a like mix of libraries; the same on every machine, for the same problems."""
    return [p for position, p in enumerate(problems) if position % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` → ``(2, 4)``; ``ValueError`` with the reason otherwise."""
    index_text, sep, count_text = text.partition("/")
    if not sep or not index_text.isdigit() or not count_text.isdigit():
        raise ValueError(f"{text!r} is not I/N, e.g. 2/4")
    index, count = int(index_text), int(count_text)
    if not 1 <= index <= count:
        raise ValueError(f"{text!r}: I must be between 1 and N")
    return index, count


def filter_problems(
    problems: Sequence[Problem],
    libraries: Sequence[str] = (),
    ids: Sequence[str] = (),
    limit: int | None = None,
) -> list[Problem]:
    """Problems of the given libraries and ids (full or native), at most ``limit`` of them."""
    wanted_libs = {canonical(lib) for lib in libraries}
    chosen = [p for p in problems if not wanted_libs or p.library in wanted_libs]
    if ids:
        wanted = set(ids)
        chosen = [p for p in chosen if p.id in wanted or p.native_id in wanted]
    return chosen[:limit] if limit is not None else chosen


DEFAULT_PROBLEMS = ("problems",)


def resolve(locations: Sequence[str]) -> list[Path]:
    """The local paths of ``locations`` (files, directories, URLs, named sets: downloaded
    once into the cache); default: our problems."""
    return [downloads.resolve(p) for p in (locations or DEFAULT_PROBLEMS)]


def load(locations: Sequence[str]) -> list[Problem]:
    """The problems at ``locations`` (files, directories, URLs, ``ds1000``; default problems/)."""
    return load_problems(resolve(locations))
