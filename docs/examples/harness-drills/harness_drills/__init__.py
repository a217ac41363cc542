"""NumPy drills: a benchmark that lives in a package of its own.

A row of ``drills.jsonl`` is one drill: a ``setup`` that makes the inputs, the reference
``answer`` (which assigns ``result``) and a ``check`` that sees ``result`` alone. This
module turns rows into problems (:func:`load_row`) and declares the benchmark
(``BENCHMARK``), which ``pyproject.toml`` registers under the entry-point group
``harness.benchmarks``. Nothing else is needed: ``harness run --problems drills`` finds
the named set, the registry offers every JSONL row to the format, and the env side runs
the context like any other.
"""

from __future__ import annotations

from pathlib import Path

from harness.benchmarks.base import Benchmark, Format, NamedSet, Row
from harness.core.problem import Problem, imported_modules

KEYS = ("drill", "setup", "answer", "check")

# The check program each problem's context holds: the env side calls
# ``test_execution(solution)`` with the code to grade (the reference or an answer).
CONTEXT = """\
_SETUP = {setup!r}
_CHECK = {check!r}


def test_execution(solution):
    namespace = {{}}
    exec(_SETUP, namespace)
    exec(solution, namespace)
    if "result" not in namespace:
        raise NameError("the solution did not assign `result`")
    exec(_CHECK, {{"result": namespace["result"]}})
"""


def matches(row: dict[str, object]) -> bool:
    """A row of this benchmark, told by its keys."""
    return all(key in row for key in KEYS)


def load_row(row: Row, set_name: str) -> list[Problem]:
    """One row, one problem; a missing or empty field is an error naming file, line, key."""
    drill, setup, answer, check = (row.text(key) for key in KEYS)
    return [
        Problem(
            id=f"{set_name}/{drill}",
            native_id=drill,
            set_name=set_name,
            library="numpy",
            prompt=row.text("prompt", ""),
            reference_code=answer,
            code_context=CONTEXT.format(setup=setup, check=check),
            metadata={"format": "drills"},
            source_file=row.shown,
            requires=imported_modules(setup, answer, check),
        )
    ]


DATA = Path(__file__).with_name("drills.jsonl")

BENCHMARK = Benchmark(
    name="drills",
    title="NumPy drills",
    formats=(Format("drills", matches, load_row, rank=5),),
    named=(
        NamedSet(
            name="drills",
            url=DATA.as_uri(),  # shipped in the package: a file URL
            sha256="35f60fd914d6addec76039dae3bd3e1817a7a326d515f6c8453fb94fe4f39279",
            format="drills",
            licence="CC0-1.0",
            homepage="https://example.org/harness-drills",
        ),
    ),
)
