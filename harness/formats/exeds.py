"""ExeDS-style notebook problems: the notebook so far, a target cell, its expected output.

A row: ``problem_id``, ``cells`` (the notebook's preceding code cells), ``prompt`` (the
target cell's task, usually its markdown), ``reference`` (the target cell's code),
``expected_output`` (what the target cell printed and displayed, as text), and optionally
``rtol`` / ``atol``. The context cells run as the check's own code; the solution runs as a
notebook cell (its stdout, then the value of its last line if that is an expression), and
its output must match the expected one: whitespace ignored, numbers within ``rtol``
(default 1e-4) or ``atol`` (1e-8), every other token exactly.
"""

from __future__ import annotations

from typing import Any

from harness.formats.common import Format, Row, context, main_library
from harness.problem import Problem, imported_modules

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
    namespace.update(_HARNESS_SOLUTION=solution, _harness_run_cell=harness_run_cell)
    exec(HARNESS_RUNS_SOLUTION + _DRIVER, namespace)
    output = namespace.get("_harness_output")
    if not isinstance(output, str):
        raise RuntimeError("the cell's output did not come back")
    reason = harness_compare_output(output, _EXPECTED, _RTOL, _ATOL)
    assert not reason, reason + "\\n--- got ---\\n" + output[:1000]
"""


def matches(row: dict[str, Any]) -> bool:
    return "cells" in row and "expected_output" in row


def load_row(row: Row, set_name: str) -> list[Problem]:
    data, shown = row.data, row.shown
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
                CHECK.format(
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


FORMAT = Format("exeds", matches, load_row)
