"""Problem sets: our TOML problems and JSONL files of any format, loaded into Problems.

A run is given files and directories. A directory holds our TOML problems
(``<root>/<library>/<name>.toml``, ``harness.benchmarks.ours``) and JSONL files
(``.jsonl``, ``.jsonl.gz``) of any benchmark's JSONL formats (``harness.benchmarks``). Each
problem belongs to a set, named after its directory or file (``problems``, ``ds1000``),
and its id is ``<set>/<id within the set>``: unique across everything loaded.
GitChameleon's problems are the set ``gitchameleon`` wherever its folder is; its
published archive (``.tar.gz``) is read too: unpacked once into the download cache.
CIBench's experiments as published (``<set>/<module>/<name>.md`` or ``.ipynb``) are read from
their archive (``.tar.gz``, the official ``.zip``), a folder holding them, or one file
(``harness.benchmarks.cibench``). Which benchmark reads what is each one's declaration
(``Benchmark.formats``, ``Benchmark.layout``): nothing here names one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from harness.benchmarks import registry
from harness.benchmarks.base import Row, set_name_of
from harness.core import defaults
from harness.core.errors import ProblemError
from harness.core.jsonl import line_error, read_rows
from harness.core.libraries import canonical
from harness.problems import downloads
from harness.problems.downloads import extract

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from harness.benchmarks.base import Format, Layout
    from harness.core.problem import Problem


ARCHIVES = (".tar.gz", ".tgz", ".zip")

T = TypeVar("T")

__all__ = ["load", "load_problems", "set_name_of"]


def _layouts() -> list[Layout]:
    return [b.layout for b in registry.benchmarks() if b.layout is not None]


def load_jsonl(path: Path, display: str | None = None) -> list[Problem]:
    """Problems from a JSONL file: DS-1000's rows, or another format's (``registry.formats``),
    told apart by the keys of the first row."""
    shown = display or str(path)
    set_name = set_name_of(path)
    problems: list[Problem] = []
    seen: set[str] = set()
    fmt: Format | None = None
    for number, data in read_rows(path, shown):
        fmt = fmt or registry.format_of(data)
        if fmt.load_file is not None:
            return fmt.load_file(path, shown)
        for problem in fmt.load_row(Row(data, shown, number), set_name):
            if problem.native_id in seen:
                raise line_error(shown, number, f"duplicate problem_id {problem.native_id}")
            seen.add(problem.native_id)
            problems.append(problem)
    return problems


def load_directory(root: Path) -> list[Problem]:
    """The problems below ``root``: those each benchmark lays out its own way (our TOML
    files, CIBench's experiments), then its JSONL files."""
    problems = [p for layout in _layouts() for p in layout.folder(root)]
    for path in sorted([*root.rglob("*.jsonl"), *root.rglob("*.jsonl.gz")]):
        if not any(layout.companion(path) for layout in _layouts()):  # read with another
            problems.extend(load_jsonl(path))
    return problems


def load_archive(path: Path) -> list[Problem]:
    """The problems in an archive (GitChameleon's datasets, CIBench's experiments), as
    the first benchmark that knows it reads them, unpacked once into the download cache."""
    folder = extract(path)
    for layout in _layouts():
        found = layout.archive(folder) if layout.archive is not None else None
        if found is not None:
            return found
    holds = [layout.holds for layout in _layouts() if layout.archive is not None]
    raise ProblemError(
        str(path),
        None,
        f"no {' or '.join(holds)} in this archive; pass a problem file or folder instead",
    )


def load_problems(paths: Sequence[Path]) -> list[Problem]:
    """Problems from files and directories, in the order given; ids must be unique."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path in paths:
        own = next((lay for lay in _layouts() if path.suffix in lay.suffixes), None)
        if path.is_dir():
            batch = load_directory(path)
        elif own is not None and own.file is not None:
            batch = own.file(path)
        elif path.name.endswith(ARCHIVES):
            batch = load_archive(path)
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


def resolve(locations: Sequence[str]) -> list[Path]:
    """The local paths of ``locations`` (files, directories, URLs, named sets: downloaded
    once into the cache); default: our problems."""
    return [downloads.resolve(p) for p in (locations or defaults.problems())]


def load(locations: Sequence[str]) -> list[Problem]:
    """The problems at ``locations`` (files, directories, URLs, ``ds1000``; default: problems/ here, else the embedded one)."""
    return load_problems(resolve(locations))
