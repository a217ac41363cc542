"""Which benchmarks there are: the folders shipped in ``harness/benchmarks/`` and those
other packages register under the entry-point group ``harness.benchmarks``.

A shipped benchmark is a sub-package whose ``__init__`` defines ``BENCHMARK``; another
package declares one in its metadata::

    [project.entry-points."harness.benchmarks"]
    arith = "harness_arith:BENCHMARK"

Nothing here names a benchmark: the stages ask the registry for the part they need
(the formats, the named sets, a problem's benchmark), in one order everywhere (shipped
first, by name; then the entry points, by name). A benchmark that cannot load, or a name
taken twice, is a one-line error naming the entry point and what is wrong.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Benchmark
from harness.core.errors import HarnessError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from harness.benchmarks.base import Audit, Format, NamedSet, Shape
    from harness.core.problem import Problem

GROUP = "harness.benchmarks"
_HERE = Path(__file__).resolve().parent


def _declared(where: str, value: object) -> Benchmark:
    if not isinstance(value, Benchmark):
        raise HarnessError(where, None, "is not a harness.benchmarks.base.Benchmark")
    return value


def _where(entry: metadata.EntryPoint) -> str:
    """``harness-drills: entry point drills = harness_drills:BENCHMARK``."""
    package = entry.dist.name if entry.dist is not None else GROUP
    return f"{package}: entry point {entry.name} = {entry.value}"


def _shipped() -> Iterator[Benchmark]:
    for module in sorted(pkgutil.iter_modules([str(_HERE)]), key=lambda m: m.name):
        if module.ispkg:
            package = importlib.import_module(f"{__package__}.{module.name}")
            yield _declared(f"{package.__name__}.BENCHMARK", getattr(package, "BENCHMARK", None))


def _registered() -> Iterator[Benchmark]:
    for entry in sorted(metadata.entry_points(group=GROUP), key=lambda e: e.name):
        if entry.value.startswith(f"{__package__}."):
            continue  # a shipped one, declared in our own metadata too
        try:
            value = entry.load()
        except Exception as exc:  # a third party's import error is its own: say which
            why = f"cannot be loaded ({type(exc).__name__}: {exc})"
            raise HarnessError(_where(entry), None, why) from None
        yield _declared(_where(entry), value)


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """Every benchmark, shipped first; their names are unique."""
    found: dict[str, Benchmark] = {}
    for benchmark in (*_shipped(), *_registered()):
        if benchmark.name in found:
            raise HarnessError(GROUP, None, f"benchmark {benchmark.name!r} is declared twice")
        found[benchmark.name] = benchmark
    return tuple(found.values())


def named(name: str) -> Benchmark | None:
    return next((b for b in benchmarks() if b.name == name), None)


def of(problem: Problem) -> Benchmark | None:
    """The benchmark a problem was loaded by: its ``format`` metadata names it; a problem
    without one was read from a file of a benchmark's layout (by its suffix), else by the
    fallback format (DS-1000's rows carry their own metadata, untouched)."""
    fmt = problem.metadata.get("format")
    if fmt is None:
        suffix = Path(problem.source_file).suffix
        laid_out = [b for b in benchmarks() if b.layout and suffix in b.layout.suffixes]
        fallback = [b for b in benchmarks() if any(f.fallback for f in b.formats)]
        return next(iter(laid_out or fallback), None)
    return next((b for b in benchmarks() if fmt in {b.name, *(f.name for f in b.formats)}), None)


def audit_of(problem: Problem) -> Audit | None:
    """What ``harness audit`` asks of the problem's benchmark, or None: not audited."""
    benchmark = of(problem)
    return benchmark.audit if benchmark is not None else None


def formats() -> tuple[Format, ...]:
    """Every JSONL format, in the order a row is offered to them."""
    found = [fmt for b in benchmarks() for fmt in b.formats]
    return tuple(sorted(found, key=lambda fmt: (fmt.fallback, fmt.rank)))


def format_of(row: dict[str, Any]) -> Format:
    """The format of a JSONL row: the first that claims it by its keys, else the
    fallback's (DS-1000's, which then names the keys the row lacks)."""
    found = formats()
    return next((f for f in found if f.matches(row)), next(f for f in found if f.fallback))


def detect(row: dict[str, Any]) -> str:
    """The name of a JSONL row's format."""
    return format_of(row).name


def environment() -> dict[str, str]:
    """What every benchmark's executions need in their environment (CIBench's data
    files, staged in the cache), as one mapping."""
    return {k: v for b in benchmarks() for k, v in b.environment().items()}


def named_sets() -> tuple[NamedSet, ...]:
    return tuple(s for b in benchmarks() for s in b.named)


def shapes() -> tuple[Shape, ...]:
    """Every answers-file shape, in the order a line is offered to them."""
    found = [shape for b in benchmarks() for shape in b.shapes]
    return tuple(sorted(found, key=lambda shape: shape.rank))
