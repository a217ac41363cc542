"""BigCodeBench-style tasks: a function to complete, graded by a ``unittest`` module.

A row: ``task_id``, ``complete_prompt`` / ``instruct_prompt``, ``code_prompt`` (the
imports and the signature), ``canonical_solution`` (the body), ``test`` (a module defining
``TestCases``), ``entry_point``, ``libs``. The reference is ``code_prompt`` followed by
the body; a model's answer is its whole program (``solution``).

The tests run in the check's process (``envside/check.harness_unittest``). For a reference
they share one module with it, as in BigCodeBench; an untrusted answer's module lives in
its own process, and the tests' module holds the prompt's imports and constants (the
task's own code, the *prelude*) and stand-ins for what the answer defined: calling one
is a call in the answer's process (``envside/crossing_*.py``). A task whose tests share
with the answer something that cannot cross is graded as upstream does, tests beside the
answer in its process (``envside/driver.py``), and its outcome says so.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.benchmarks.base import (
    Format,
    Row,
    check,
    context,
    library_list,
    main_library,
)
from harness.core.problem import Problem, imported_modules

KEYS = ("task_id", "code_prompt", "canonical_solution", "test")
DEFAULT_TIMEOUT = 240.0  # BigCodeBench's own limit per task

CHECK = """
_TESTS = {tests!r}
_PRELUDE = {prelude!r}


def test_execution(solution):
    {unittest}(solution, _TESTS, prelude=_PRELUDE)
"""


def prelude(code_prompt: str, entry_point: str) -> str:
    """The task's own code around the function to write: ``code_prompt``'s top-level
    statements (imports, constants, helpers) but the entry point's definition."""
    source = code_prompt.rstrip() + "\n"
    try:
        tree = ast.parse(source + "    pass\n")
    except SyntaxError:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return ""
    kept = [
        node
        for node in tree.body
        if not (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point
        )
    ]
    return "".join(ast.unparse(node) + "\n" for node in kept)


def context_of(tests: str, code_prompt: str, entry_point: str) -> str:
    """A task's context: its ``test`` module, checked with its prompt's own code."""
    return context(
        check(CHECK, tests=tests, prelude=prelude(code_prompt, entry_point)),
        checks="bigcodebench",
    )


def split_solution(code_prompt: str, reference: str) -> tuple[str, str] | None:
    """A reference (a task's ``code_prompt`` and ``canonical_solution``, joined) split
    again after the line that ends ``code_prompt`` (its ``def``), when that line is in it
    once: the two fields; None otherwise. The prompt's last line may have been rewritten
    (a default of the signature): then the line is found by the function's name."""
    last = next((line for line in reversed(code_prompt.splitlines()) if line.strip()), "")
    lines = reference.splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.rstrip("\n") == last]
    if not at and last.lstrip().startswith("def "):
        head = last[: last.index("(") + 1] if "(" in last else last
        at = [i for i, line in enumerate(lines) if line.startswith(head)]
    if not last or len(at) != 1:
        return None
    return "".join(lines[: at[0] + 1]), "".join(lines[at[0] + 1 :])


def tests_of(context_code: str) -> str | None:
    """The ``test`` field a task's context was built from (:func:`context_of`), None when
    ``context_code`` is no such context."""
    try:
        tree = ast.parse(context_code)
    except SyntaxError:
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["_TESTS"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None


def matches(row: dict[str, Any]) -> bool:
    return all(key in row for key in KEYS)


def load_row(row: Row, set_name: str) -> list[Problem]:
    data, shown = row.data, row.shown
    task_id = row.text("task_id")
    code_prompt = row.text("code_prompt")
    tests = row.text("test")
    reference = code_prompt.rstrip("\n") + "\n" + row.text("canonical_solution")
    libs = library_list(data.get("libs"))
    return [
        Problem(
            id=f"{set_name}/{task_id}",
            native_id=task_id,
            set_name=set_name,
            library=main_library([*libs, *imported_modules(code_prompt)]),
            prompt=str(data.get("instruct_prompt") or data.get("complete_prompt") or ""),
            reference_code=reference,
            code_context=context_of(
                tests, code_prompt, str(data.get("entry_point") or "task_func")
            ),
            timeout=row.number_or("timeout", DEFAULT_TIMEOUT),
            metadata={
                "format": "bigcodebench",
                "entry_point": data.get("entry_point", ""),
                # what upstream's evaluator puts before a sample's ``completion`` (and,
                # for a calibrated sample, its ``solution``): harness.problems.shapes
                "complete_prompt": str(data.get("complete_prompt") or ""),
                "code_prompt": code_prompt,
            },
            source_file=shown,
            requires=imported_modules(code_prompt, tests),
        )
    ]


FORMAT = Format("bigcodebench", matches, load_row, rank=10)
