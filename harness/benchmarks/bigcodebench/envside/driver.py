"""BigCodeBench's in-process fallback: a task graded as upstream's own grader runs it,
the tests beside the answer in the answer's process, for a task whose tests share with
the answer something that cannot cross (``check.harness_unittest`` sends it there).

One module named ``__test__`` holds the solution and then its tests, importable by that
name (tests patch ``__name__ + ".randint"``), with upstream's globals (``os``, ``sys``,
``environ``) and clock (UTC). Each test's exception is described where it was raised: its
type's full name, its message, its last frames, and two facts only this process can see
(the class an attribute was missing from, a program this machine lacks). Only these
strings go back.
"""

from __future__ import annotations

import builtins
import os
import sys
import time
import traceback
import types
import unittest
from typing import Any, Callable, Dict, Iterator, List, Sequence

from ...bridge.crossing_errors import inherited_note, note_network, program_note

Part = Dict[str, Any]
ErrorPart = Callable[[str, BaseException], Part]


def program(package: str) -> str:
    """The program the check runs in the answer's process (``formatlib.in_process`` gives
    it ``_HARNESS_SOLUTION``, ``_HARNESS_TESTS`` and ``_harness_error_part``)."""
    return (
        "from %s.driver import run as _harness_run\n\n"
        "_harness_report = _harness_run(_HARNESS_SOLUTION, _HARNESS_TESTS, _harness_error_part)\n"
        % package
    )


def run(solution: str, tests: str, error_part: ErrorPart) -> List[Part]:
    """The parts of the task's tests, run beside ``solution`` in this process."""
    os.environ["TZ"] = "UTC"
    time.tzset()
    module = test_module()
    try:
        builtins.exec(compile(solution, "<solution>", "exec"), module.__dict__)
    except BaseException as exc:
        return [_part(error_part, "solution", exc)]
    builtins.exec(compile(tests, "<tests>", "exec"), module.__dict__)
    cases = [
        value
        for value in list(module.__dict__.values())
        if isinstance(value, type)
        and issubclass(value, unittest.TestCase)
        and value.__module__ == "__test__"
    ]
    suite = unittest.TestSuite()
    for case in cases:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    parts: Dict[str, Part] = {}
    for test in flatten(suite):  # before running: a run empties the suite
        parts[test.id()] = {"name": _name(test), "status": "pass"}
    # what the test did on the network, seen by the interpreter's own audit events: a
    # solution that catches the error of a lookup this sandbox cannot make still needed it
    reached: List[str] = []
    sys.addaudithook(lambda event, args: note_network(event, args, reached))
    suite.run(_Result(parts, reached, error_part))
    return list(parts.values())


def test_module() -> types.ModuleType:
    """The module BigCodeBench's tests run in, as upstream makes it: ``__test__``,
    importable by that name, with upstream's globals (``os``, ``sys``, ``environ``)."""
    module = types.ModuleType("__test__")
    module.__dict__.update(
        {
            "__builtins__": builtins,
            "__file__": "__test__.py",
            "__package__": None,
            "__doc__": None,
            "sys": sys,
            "os": os,
            "environ": os.environ,
        }
    )
    sys.modules["__test__"] = module
    return module


class _Result(unittest.TestResult):
    def __init__(self, parts: Dict[str, Part], reached: List[str], error_part: ErrorPart) -> None:
        super().__init__()
        self.parts, self.reached, self.error_part = parts, reached, error_part

    def startTest(self, test: Any) -> None:
        del self.reached[:]
        super().startTest(test)

    def addError(self, test: Any, err: Any) -> None:
        super().addError(test, err)
        self.parts[test.id()] = _part(self.error_part, _name(test), err[1], self.reached)

    def addFailure(self, test: Any, err: Any) -> None:
        super().addFailure(test, err)
        self.parts[test.id()] = _part(self.error_part, _name(test), err[1], self.reached)

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.parts[test.id()] = _part(self.error_part, _name(subtest), err[1], self.reached)

    def addSkip(self, test: Any, reason: str) -> None:
        super().addSkip(test, reason)
        self.parts[test.id()] = {
            "name": _name(test),
            "status": "skipped",
            "message": str(reason)[:400],
        }


def _name(test: Any) -> str:
    return str(test.id()).replace("__test__.", "", 1)


def _part(
    error_part: ErrorPart, name: str, exc: BaseException, reached: Sequence[str] = ()
) -> Part:
    part = error_part(name, exc)
    kind = type(exc)
    if kind.__module__ != "builtins":
        part["type"] = "%s.%s" % (kind.__module__, kind.__qualname__)
    part["message"] = str(exc)[:400] + inherited_note(exc) + program_note(exc)
    if reached:
        part["message"] += " [harness: reached for the network: %s]" % reached[0]
    part["traceback"] = _frames(exc)
    return part


def _frames(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)[-6:]
    return "\n".join("%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames)


def flatten(suite: Any) -> Iterator[Any]:
    """The tests of a suite, its nested suites opened."""
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item
