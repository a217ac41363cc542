"""BigCodeBench-style tasks: a function to complete, graded by a ``unittest`` module.

A row: ``task_id``, ``complete_prompt`` / ``instruct_prompt``, ``code_prompt`` (the
imports and the signature), ``canonical_solution`` (the body), ``test`` (a module defining
``TestCases``), ``entry_point``, ``libs``. The reference is ``code_prompt`` followed by
the body; a model's answer is its whole program (``solution``). As in BigCodeBench, the
solution and its tests share one module: the tests call its function, so they run apart
from the check together with the solution, and only their results come back.
"""

from __future__ import annotations

from typing import Any

from harness.formats.common import Format, Row, context, library_list, main_library
from harness.problem import Problem, imported_modules

KEYS = ("task_id", "code_prompt", "canonical_solution", "test")
DEFAULT_TIMEOUT = 240.0  # BigCodeBench's own limit per task

# Runs apart, with the solution: one module holds the solution and then its tests.
DRIVER = """
def _harness_tests():
    import builtins, types, unittest
    module = types.ModuleType("__test__")
    module.__dict__["__builtins__"] = builtins
    try:
        builtins.exec(compile(_HARNESS_SOLUTION, "<solution>", "exec"), module.__dict__)
    except BaseException as exc:
        return [_harness_error_part("solution", exc)]
    builtins.exec(compile(_HARNESS_TESTS, "<tests>", "exec"), module.__dict__)
    cases = [
        value for value in list(module.__dict__.values())
        if isinstance(value, type) and issubclass(value, unittest.TestCase)
        and value.__module__ == "__test__"
    ]
    suite = unittest.TestSuite()
    for case in cases:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    parts = {}
    for test in _harness_flatten(suite):  # before running: a run empties the suite
        parts[test.id()] = {"name": test.id().replace("__test__.", "", 1), "status": "pass"}
    result = unittest.TestResult()
    suite.run(result)
    for status, found in (("error", result.errors), ("fail", result.failures)):
        for test, text in found:
            kind, message = _harness_exception(text)
            parts[test.id()] = {
                "name": test.id().replace("__test__.", "", 1),
                "status": status,
                "type": kind.rsplit(".", 1)[-1],
                "message": message[:400],
            }
    for test, reason in result.skipped:
        parts[test.id()]["status"] = "skipped"
        parts[test.id()]["message"] = str(reason)[:400]
    return list(parts.values())


def _harness_exception(text):
    # a formatted traceback's exception: its type's name and its whole message
    lines = text.rstrip().splitlines()
    frames = [i for i, line in enumerate(lines) if line.startswith("  File ")]
    rest = lines[frames[-1] + 1:] if frames else lines
    while rest and rest[0].startswith("    "):  # the frame's code line and its markers
        rest = rest[1:]
    kind, _, message = "\\n".join(rest).partition(": ")
    return kind.rsplit(".", 1)[-1].strip(), message.strip()


def _harness_flatten(suite):
    import unittest
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _harness_flatten(item)
        else:
            yield item


_harness_report = _harness_tests()
"""

CHECK = """
_TESTS = {tests!r}
_DRIVER = {driver!r}


def test_execution(solution):
    namespace = {{
        "_HARNESS_SOLUTION": solution,
        "_HARNESS_TESTS": _TESTS,
        "_harness_error_part": harness_error_part,
    }}
    exec(HARNESS_RUNS_SOLUTION + _DRIVER, namespace)
    harness_verdict(namespace.get("_harness_report"))
"""


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
            code_context=context(CHECK.format(tests=tests, driver=DRIVER)),
            timeout=row.number_or("timeout", DEFAULT_TIMEOUT),
            metadata={"format": "bigcodebench", "entry_point": data.get("entry_point", "")},
            source_file=shown,
            requires=imported_modules(code_prompt, tests),
        )
    ]


FORMAT = Format("bigcodebench", matches, load_row)
