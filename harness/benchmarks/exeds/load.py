"""ExeDS-style notebook problems: the notebook so far, a target cell, its expected output.

A row: ``problem_id``, ``cells`` (the notebook's preceding code cells), ``prompt`` (the
target cell's task, usually its markdown), ``reference`` (the target cell's code),
``expected_output`` (what the target cell printed and displayed, as text), and optionally
``rtol`` / ``atol``. The context cells run as the check's own code; the solution runs as a
notebook cell (its stdout, then the value of its last line if that is an expression), and
its output must match the expected one: whitespace ignored, numbers within ``rtol``
(default 1e-4) or ``atol`` (1e-8), every other token exactly.

ExeDS itself publishes its test set as ``exeds_test.json`` (items with ``file``,
``output`` and ``context_dist1``…), whose expected outputs live in ``answers.csv`` and
whose cells live in the notebooks beside it: such an item is recognised and refused with
what to build instead, rather than reported as a DS-1000 row missing its keys.
"""

from __future__ import annotations

from typing import Any

from harness.benchmarks.base import Format, Row, check, context, main_library
from harness.core.problem import Problem, imported_modules

# Runs apart, with the solution: the cell, on a copy of the notebook's state.
DRIVER = """
_harness_output = _harness_run_cell(_HARNESS_SOLUTION, globals())
"""

CHECK = """
_CELLS = {cells!r}
_EXPECTED = {expected!r}
_DRIVER = {driver!r}
_RTOL, _ATOL = {rtol!r}, {atol!r}


def test_execution(solution):
    namespace = {{"__name__": "__main__"}}
    for number, cell in enumerate(_CELLS, start=1):
        exec(compile(cell, "<cell %d>" % number, "exec"), namespace)  # a code object: runs here
    namespace.update(_HARNESS_SOLUTION=solution, _harness_run_cell={run_cell})
    exec({runs_solution} + _DRIVER, namespace)
    output = namespace.get("_harness_output")
    if not isinstance(output, str):
        raise RuntimeError("the cell's output did not come back")
    reason = {compare_output}(output, _EXPECTED, _RTOL, _ATOL)
    assert not reason, reason + "\\n--- got ---\\n" + output[:1000]
"""


PUBLISHED_KEYS = ("file", "output", "context_dist1")
PUBLISHED = (
    "an item of ExeDS's exeds_test.json: its expected output is in answers.csv and its "
    "cells are in ExeDS_notebooks/<file>; build a row with problem_id, cells, reference "
    "and expected_output"
)


def is_published(row: dict[str, Any]) -> bool:
    return all(key in row for key in PUBLISHED_KEYS)


def matches(row: dict[str, Any]) -> bool:
    return ("cells" in row and "expected_output" in row) or is_published(row)


def load_row(row: Row, set_name: str) -> list[Problem]:
    data, shown = row.data, row.shown
    if is_published(data) and "cells" not in data:
        raise row.fail_line(PUBLISHED)
    native = str(data.get("problem_id", "")).strip()
    if not native:
        raise row.fail("problem_id", "missing")
    cells = row.texts("cells")
    reference = row.text("reference")
    expected = row.text("expected_output", empty=True)
    code = [*cells, reference]
    return [
        Problem(
            id=f"{set_name}/{native}",
            native_id=native,
            set_name=set_name,
            library=main_library(list(imported_modules(*code))),
            prompt=str(data.get("prompt", "")),
            reference_code=reference,
            code_context=context(
                check(
                    CHECK,
                    cells=cells,
                    expected=expected,
                    driver=DRIVER,
                    rtol=row.number_or("rtol", 1e-4),
                    atol=row.number_or("atol", 1e-8),
                )
            ),
            timeout=row.number_or("timeout", 120.0),
            metadata={"format": "exeds"},
            source_file=shown,
            requires=imported_modules(*code),
        )
    ]


FORMAT = Format("exeds", matches, load_row, rank=20)
