"""BigCodeBench's checks: its ``unittest`` module of tests, run in the check's process.

The tests run here, in a module ``__test__`` holding the task's prelude (its imports and
constants, from the prompt) and stand-ins for what the solution defined, which runs in its
own process (``crossing_*``); for a reference, the solution's own module, as upstream
grades it. Each test's part is what this process saw: ``pass`` only when it saw the test
run and succeed, its own code run to its end (``witness``). A BigCodeBench context imports
``harness_unittest`` from here.
"""

from __future__ import annotations

import builtins
import os
import sys
import unittest
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ...bridge import crossing_context, crossing_errors, crossing_patches, crossing_standins
from ...checks.formatlib import (
    active,
    decided,
    exception_part,
    harness_verdict,
    in_process,
    names_loaded,
)
from ...checks.witness import Witness
from . import driver

if TYPE_CHECKING:
    import types

__all__ = ["harness_unittest"]


def harness_unittest(solution: str, tests: str, prelude: str = "") -> None:
    """Grade ``solution`` with a BigCodeBench ``unittest`` module: the tests run in this
    process and each test's part is what this process saw (pass only when it saw the
    test run and succeed). A task whose tests share something that cannot cross is
    graded in the solution's process instead, by its driver (``driver.py``)."""
    import time

    os.environ["TZ"] = "UTC"  # upstream's clock, here and (with the environment) there
    time.tzset()
    crossing_context.remember_streams()
    crossing_patches.TRACKER.install()
    given = {"_HARNESS_SOLUTION": solution, "_HARNESS_TESTS": tests}
    reason = decided()
    if reason:
        harness_verdict(in_process(reason, driver.program(__package__), **given))
        return
    try:
        module = _bigcodebench_module(solution, prelude, tests)
    except BaseException as exc:
        harness_verdict(_solution_failed(exc))
        return
    exec(compile(tests, "<tests>", "exec"), module.__dict__)
    # A test that shares what cannot cross errs (CannotCrossError) and the task is not
    # graded beside this answer: only the run decides that, from the task's reference
    # (``decided``), since what the answer binds can make a test share such a thing.
    harness_verdict(_run_unittest(module))


def _bigcodebench_module(solution: str, prelude: str, tests: str) -> types.ModuleType:
    """The module BigCodeBench's tests run in, as ``__test__``: for a reference, the
    solution's own (one process, as upstream); for an untrusted solution, a module here
    holding the task's prelude (its imports and constants, from the prompt: the task's
    own code) and stand-ins for what the solution defined, which runs apart."""
    module = driver.test_module()
    apart = active()
    if apart is None:
        exec(compile(solution, "<solution>", "exec"), module.__dict__)
        return module
    names = apart.load_module("__test__", solution, after=_tests_top_level(tests))
    if prelude:
        exec(compile(prelude, "<prompt>", "exec"), module.__dict__)
    needed = names_loaded(tests)
    wanted = []
    for name, kind in names.items():
        if name in _BUILTINS or name in module.__dict__:
            # Python's own names stay Python's for the tests (an answer's ``all`` or
            # ``sorted`` would answer the tests' own checks), and the prompt's imports,
            # constants and helpers stay the task's: tests build expected values with them
            # (``Counter``, ``reduce``, a helper the prompt defines), and an answer's own
            # function by that name would compute the expectation it is judged by
            continue
        if isinstance(kind, crossing_standins.SolutionStandIn):
            module.__dict__[name] = kind  # the solution's own functions
        elif isinstance(kind, str) and kind.startswith("module:"):
            found = crossing_standins.installed_module(kind[len("module:") :])
            if found is not None:
                module.__dict__[name] = found
        elif name in needed:
            wanted.append(name)
    if wanted:
        module.__dict__.update(apart.fetch_many("__test__", wanted))
    return module


_BUILTINS = frozenset(vars(builtins))


def _tests_top_level(source: str) -> str:
    """What of the tests' module the solution's module also runs: upstream runs a task as
    one module, the solution then the tests, so the solution sees what they import (a
    canonical solution that uses ``pd`` the tests imported) and what they set up
    (Django's settings configured, matplotlib's backend chosen, ``sys.path`` extended).

    Only imports and statements that bind no name: the tests' values (an expected
    output kept as a constant, a helper that computes one) and their test cases stay in
    the check, where the verdict is made."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    binds = (
        ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr,
        ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
        ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.Global,
    )  # fmt: skip
    found = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level:
            continue  # a relative import has no package in the answer's module
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            pass
        elif not isinstance(node, (ast.If, ast.Expr, ast.Try)):
            continue
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring: it would become the module's ``__doc__``
        elif any(isinstance(n, binds) for n in ast.walk(node)):
            # a name bound here could hold the tests' values; a ``try`` of imports binds
            # by importing only, and is kept
            continue
        segment = ast.get_source_segment(source, node)
        if segment:
            found.append(segment)
    return "\n".join(found)


def _solution_failed(exc: BaseException) -> List[Dict[str, Any]]:
    return [exception_part("solution", exc)]


def _run_unittest(module: types.ModuleType) -> List[Dict[str, Any]]:
    """Run the test cases ``module`` defines; one part per test, as this process saw it:
    each test is watched before the run (``witness``), so that a pass is one whose own
    code the check saw end."""
    cases = [
        value
        for value in list(module.__dict__.values())
        if isinstance(value, type)
        and issubclass(value, unittest.TestCase)
        and value.__module__ == module.__name__
    ]
    suite = unittest.TestSuite()
    for case in cases:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    prefix = module.__name__ + "."
    parts: Dict[str, Dict[str, Any]] = {}
    witness = Witness()
    for test in driver.flatten(suite):  # before running: a run empties the suite
        parts[test.id()] = {
            "name": _name_of(test, prefix),
            "status": "error",
            "type": "harness.NotRun",
            "message": "the check never saw this test end",
        }
        witness.watch_case(test.id(), test)
    reached: List[str] = []
    _watch_network(reached)
    result = _SeenParts(parts, prefix, reached, witness)
    try:
        suite.run(result)
    except BaseException as exc:  # an interrupt: the tests not seen to end stay errors
        parts["<suite>"] = exception_part("suite", exc)
    return list(parts.values())


def _name_of(test: Any, prefix: str) -> str:
    ident = str(test.id())
    return ident[len(prefix) :] if ident.startswith(prefix) else ident


class _SeenParts(unittest.TestResult):
    """The parts of a run by test id, as this process sees each test end (a test it never
    sees end keeps the part it had: an error; a success whose own code the witness did not
    see end is one too); with what the test reached for on the network, here or in the
    solution's process."""

    def __init__(
        self,
        parts: Dict[str, Dict[str, Any]],
        prefix: str,
        reached: List[str],
        witness: Optional[Witness] = None,
    ) -> None:
        super().__init__()
        self.parts = parts
        self.prefix = prefix
        self.reached = reached
        self.witness = witness if witness is not None else Witness()

    def startTest(self, test: Any) -> None:
        del self.reached[:]
        del crossing_errors.REACHED[:]
        super().startTest(test)

    def _part(self, test: Any, exc: BaseException, status: str = "") -> None:
        part = exception_part(_name_of(test, self.prefix), exc, status)
        seen = self.reached or crossing_errors.REACHED
        if seen:
            part["message"] += " [harness: reached for the network: %s]" % seen[0]
        self.parts[test.id()] = part

    def addSuccess(self, test: Any) -> None:
        super().addSuccess(test)
        if self.parts.get(test.id(), {}).get("type") != "harness.NotRun":
            return
        unseen = self.witness.unseen(test.id())
        if unseen:
            # unittest counted a success the check never saw happen: something swallowed
            # an exception on the way (an answer's exception is never one it swallows)
            self.parts[test.id()] = {
                "name": _name_of(test, self.prefix),
                "status": "error",
                "type": "harness.NotSeen",
                "message": unseen,
            }
            return
        self.parts[test.id()] = {"name": _name_of(test, self.prefix), "status": "pass"}

    def addError(self, test: Any, err: Any) -> None:
        super().addError(test, err)
        self.witness.reported(test.id(), err[1])
        self._part(test, err[1])

    def addFailure(self, test: Any, err: Any) -> None:
        super().addFailure(test, err)
        self.witness.reported(test.id(), err[1])
        self._part(test, err[1])

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.witness.reported(test.id(), err[1])
            part = exception_part(_name_of(subtest, self.prefix), err[1])
            self.parts[test.id()] = part

    def addSkip(self, test: Any, reason: str) -> None:
        super().addSkip(test, reason)
        self.parts[test.id()] = {
            "name": _name_of(test, self.prefix),
            "status": "skipped",
            "message": str(reason)[:400],
        }

    def addExpectedFailure(self, test: Any, err: Any) -> None:
        super().addExpectedFailure(test, err)
        self.parts[test.id()] = {"name": _name_of(test, self.prefix), "status": "pass"}

    def addUnexpectedSuccess(self, test: Any) -> None:
        super().addUnexpectedSuccess(test)
        self.parts[test.id()] = {
            "name": _name_of(test, self.prefix),
            "status": "fail",
            "message": "unexpected success",
        }


_NETWORK_WATCHED: List[List[str]] = []


def _watch_network(reached: List[str]) -> None:
    """What the test did on the network here, seen by the interpreter's audit events (a
    solution that catches the error of a lookup this sandbox cannot make still needed it;
    what the solution did there, its process reports with its result)."""
    if _NETWORK_WATCHED:
        _NETWORK_WATCHED[0] = reached
        return
    _NETWORK_WATCHED.append(reached)
    sys.addaudithook(
        lambda event, args: crossing_errors.note_network(event, args, _NETWORK_WATCHED[0])
    )
