"""What the generated contexts of the formats use, env-side: each context starts with
``from _harness_envside.formatlib import *``.

The functions here run in the check's process: the verdict, the comparisons, and the
test runners of the formats whose tests call what the solution defined (BigCodeBench's
``unittest`` suites, GitChameleon's pytest files, CIBench's sessions). Those run the
tests here and reach the solution's module across the boundary (``crossing``); a
trusted solution (a reference) is loaded into this process instead, as upstream grades
it. ``harness_run_cell`` is also handed to a driver that runs apart with the solution.
"""

from __future__ import annotations

import builtins as _builtins
import contextlib
import importlib
import os as _os
import sys as _sys
import types as _types
from typing import Any as _Any

from . import crossing as _crossing
from . import guard as _guard
from .crossing import RemoteError as _RemoteError
from .protocol import RUNS_SOLUTION as HARNESS_RUNS_SOLUTION

__all__ = [
    "HARNESS_GRADED",
    "HARNESS_PARTS",
    "HARNESS_RUNS_SOLUTION",
    "harness_compare_output",
    "harness_error_part",
    "harness_pytest",
    "harness_run_cell",
    "harness_session",
    "harness_unittest",
    "harness_verdict",
]

# A program starting with HARNESS_RUNS_SOLUTION runs apart, like a solution.
# The graded parts of this execution, read by the env-side runner when the check ends.
HARNESS_PARTS: list[dict[str, _Any]] = []
# Why an untrusted solution was graded in its own process, tests beside it, if it was.
HARNESS_GRADED: list[str] = []


def harness_run_cell(source: str, namespace: dict[str, _Any]) -> str:
    """Run ``source`` as a notebook cell: its stdout, then the value of its last line when
    that is an expression (``df.head()``) and does not end with ``;``.

    Self-contained (it imports what it uses): it runs in the solution's process, which
    holds none of the check's globals."""
    import ast
    import builtins
    import io
    import sys

    tree = ast.parse(source)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body[-1].value)
        tree.body.pop()
    buffer = io.StringIO()
    saved = sys.stdout
    sys.stdout = buffer
    try:
        builtins.exec(compile(tree, "<cell>", "exec"), namespace)
        value = None
        if last is not None:
            value = builtins.eval(compile(last, "<cell>", "eval"), namespace)
    finally:
        sys.stdout = saved
    output = buffer.getvalue()
    if value is not None:
        output += repr(value) + "\n"
    return output


def harness_error_part(name: str, exc: BaseException) -> dict[str, _Any]:
    return {
        "name": name,
        "status": "fail" if isinstance(exc, AssertionError) else "error",
        "type": type(exc).__name__,
        "message": str(exc)[:400],
    }


def harness_verdict(parts: object) -> None:
    """Record ``parts`` and end the way the worst of them did: the first error's own
    exception type (so drift analysis reads ``AttributeError: …``), else a failure."""
    if not isinstance(parts, list):
        raise TypeError("the driver did not report its parts")
    HARNESS_PARTS[:] = parts
    if not parts:
        raise AssertionError("nothing was graded")
    errors = [p for p in parts if p.get("status") == "error"]
    failures = [p for p in parts if p.get("status") == "fail"]
    if errors:
        first = errors[0]
        name, message = str(first.get("type", "")), str(first.get("message", ""))
        frames = str(first.get("traceback", ""))
        kind = getattr(_builtins, name, None)
        if frames or not (isinstance(kind, type) and issubclass(kind, Exception)):
            # under the name and with the frames it was raised with, where the driver
            # saw them: what drift analysis reads (``urllib.error.URLError``, a frame in
            # ``site-packages/pandas``), as for an exception of a guarded solution
            raise _RemoteError(name or "Exception", message, frames)
        raise kind(message)
    if failures:
        names = ", ".join(str(p.get("name")) for p in failures[:5])
        raise AssertionError(
            "%d of %d failed (%s): %s" % (len(failures), len(parts), names, failures[0]["message"])
        )


def harness_compare_output(
    actual: str, expected: str, rtol: float = 1e-4, atol: float = 1e-8
) -> str:
    """'' when ``actual`` matches ``expected``, else why not.

    Whitespace is ignored (a frame's columns realign when a value's width changes);
    numbers match within ``rtol``/``atol``, nan matches nan; every other token exactly.
    Self-contained, like ``harness_run_cell``.
    """
    import math
    import re

    token = re.compile(
        r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)\b|\w+|[^\w\s]"
    )

    def number(text: str) -> float | None:
        try:
            return float(text)
        except ValueError:
            return None

    got, want = token.findall(actual), token.findall(expected)
    for index, (a, b) in enumerate(zip(got, want)):
        if a == b:
            continue
        x, y = number(a), number(b)
        if (
            x is not None
            and y is not None
            and (
                (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=rtol, abs_tol=atol)
            )
        ):
            continue
        return "output differs at token %d: got %r, expected %r" % (index + 1, a, b)
    if len(got) != len(want):
        return "output has %d tokens, expected %d" % (len(got), len(want))
    return ""


# -- tests that call what the solution defined -------------------------------------------


def _active() -> _Any:
    """The guard of this execution when its solution is untrusted; None for a reference."""
    return _guard.ACTIVE[0] if _guard.ACTIVE else None


def _names_loaded(source: str) -> set[str]:
    """The global names ``source`` reads and does not bind itself (the ones a test takes
    from the solution's module)."""
    import ast

    tree = ast.parse(source)
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded - bound - set(dir(_builtins))


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


def _solution_failed(exc: BaseException) -> list[dict[str, _Any]]:
    part = _exception_part("solution", exc)
    return [part]


def _exception_part(
    name: str, exc: BaseException, status: str = "", first_line: bool = False
) -> dict[str, _Any]:
    """A graded part for ``exc``: its type's full name, its message with what only this
    process can tell about it, and its frames here and (when the solution raised it) there."""
    import traceback

    part = harness_error_part(name, exc)
    if status:
        part["status"] = status
    kind = type(exc)
    if isinstance(exc, _RemoteError):
        part["type"] = exc.qualified
    elif isinstance(exc, (_guard.GuardRefusedError, _guard.GuardError)):
        # named as the execution's own outcome would name it: never drift
        part["type"] = "GuardRefused" if isinstance(exc, _guard.GuardRefusedError) else "GuardError"
    elif kind.__module__ != "builtins":
        part["type"] = "%s.%s" % (kind.__module__, kind.__qualname__)
    text = str(exc)
    if first_line:  # as pytest's short summary shows it
        lines = [line for line in text.splitlines() if line.strip()]
        text = lines[0] if lines else ""
    part["message"] = text[:400] + _inherited(exc) + _crossing.program_note(exc)
    notes = getattr(exc, "_harness_notes", "")
    if isinstance(notes, str):
        part["message"] += notes
    here = [
        "%s:%s in %s" % (f.filename, f.lineno, f.name)
        for f in traceback.extract_tb(exc.__traceback__)[-6:]
        if not f.filename.startswith(_crossing.HERE)
    ]
    remote = _crossing.remote_frames(exc)
    part["traceback"] = "\n".join(here + ([remote] if remote else []))
    return part


def _inherited(exc: BaseException) -> str:
    """ "'TestCases' object has no attribute 'x'" names the task's class: say which class it
    inherits that attribute's namespace from, by its public name (``unittest.TestCase``)."""
    owner = getattr(exc, "obj", None) if isinstance(exc, AttributeError) else None
    if owner is None:
        return ""
    cls = owner if isinstance(owner, type) else type(owner)
    if cls.__module__ != "__test__":
        return ""
    for base in cls.__mro__:
        if base.__module__ not in ("__test__", "builtins"):
            path = base.__module__.split(".")
            public = base.__module__
            for end in range(1, len(path) + 1):
                name = ".".join(path[:end])
                if getattr(_sys.modules.get(name), base.__qualname__, None) is base:
                    public = name
                    break
            return " [harness: %s derives from %s.%s]" % (
                cls.__qualname__,
                public,
                base.__qualname__,
            )
    return ""


def _bigcodebench_module(solution: str, prelude: str, tests: str) -> _types.ModuleType:
    """The module BigCodeBench's tests run in, as ``__test__``: for a reference, the
    solution's own (one process, as upstream); for an untrusted solution, a module here
    holding the task's prelude (its imports and constants, from the prompt: the task's
    own code) and stand-ins for what the solution defined, which runs apart."""
    module = _types.ModuleType("__test__")
    module.__dict__.update(
        {
            "__builtins__": _builtins,
            "__file__": "__test__.py",
            "__package__": None,
            "__doc__": None,
            "sys": _sys,
            "os": _os,
            "environ": _os.environ,
        }
    )
    _sys.modules["__test__"] = module
    apart = _active()
    if apart is None:
        exec(compile(solution, "<solution>", "exec"), module.__dict__)
        return module
    names = apart.load_module("__test__", solution, after=_tests_top_level(tests))
    if prelude:
        exec(compile(prelude, "<prompt>", "exec"), module.__dict__)
    needed = _names_loaded(tests)
    wanted = []
    for name, kind in names.items():
        if isinstance(kind, _crossing.SolutionStandIn):
            module.__dict__[name] = kind  # the solution's own functions, always its own
        elif name in module.__dict__:
            continue  # the prompt's imports and constants: the task's, not the answer's
        elif isinstance(kind, str) and kind.startswith("module:"):
            found = _crossing.installed_module(kind[len("module:") :])
            if found is not None:
                module.__dict__[name] = found
        elif name in needed:
            wanted.append(name)
    if wanted:
        module.__dict__.update(apart.fetch_many("__test__", wanted))
    return module


def harness_unittest(solution: str, tests: str, prelude: str = "", fallback: str = "") -> None:
    """Grade ``solution`` with a BigCodeBench ``unittest`` module: the tests run in this
    process and each test's part is what this process saw (pass only when it saw the
    test run and succeed). ``fallback``: the driver that grades the task in the
    solution's process, for a task whose tests share something that cannot cross."""
    import time

    _os.environ["TZ"] = "UTC"  # upstream's clock, here and (with the environment) there
    time.tzset()
    _crossing.remember_streams()
    _crossing.TRACKER.install()
    given = {"_HARNESS_SOLUTION": solution, "_HARNESS_TESTS": tests}
    decided = _decided()
    if decided and fallback:
        harness_verdict(_in_process(decided, fallback, **given))
        return
    try:
        module = _bigcodebench_module(solution, prelude, tests)
    except BaseException as exc:
        harness_verdict(_solution_failed(exc))
        return
    exec(compile(tests, "<tests>", "exec"), module.__dict__)
    # A test that shares what cannot cross errs (CannotCrossError) and the task is not
    # graded beside this answer: only the run decides that, from the task's reference
    # (``_decided``), since what the answer binds can make a test share such a thing.
    harness_verdict(_run_unittest(module))


def _decided() -> str:
    """Why this task is graded in the solution's process whatever the answer does, when
    the run decided so from its reference (``harness/execute/admission.py``); else ''."""
    apart = _active()
    return str(getattr(apart, "in_process", "") or "") if apart is not None else ""


def _in_process(reason: str, driver: str, **given: _Any) -> _Any:
    """Grade in the solution's process (the tests beside the solution, their parts sent
    back as data), and say so: what a task gets whose tests share something with the
    solution that cannot cross, or whose reference does not grade the same across."""
    apart = _active()
    HARNESS_GRADED[:] = [reason]
    apart.retire()
    namespace = {"_harness_error_part": harness_error_part, **given}
    apart.exec(HARNESS_RUNS_SOLUTION + driver + _ONLY_THE_REPORT, namespace)
    return namespace.get("_harness_report")


# What a fallback driver sends back: its report, not the figures and values the tests left
# (they are not what is graded, and a figure would have to be admitted for nothing).
_ONLY_THE_REPORT = """

def _harness_only_the_report():
    import sys
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
    for name in [n for n in list(globals()) if n != "_harness_report" and not n.startswith("__")]:
        del globals()[name]


_harness_only_the_report()
"""


def _run_unittest(module: _types.ModuleType) -> list[dict[str, _Any]]:
    import unittest

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

    def name_of(test: _Any) -> str:
        ident = str(test.id())
        return ident[len(prefix) :] if ident.startswith(prefix) else ident

    parts: dict[str, dict[str, _Any]] = {}
    for test in _flatten(suite):  # before running: a run empties the suite
        parts[test.id()] = {
            "name": name_of(test),
            "status": "error",
            "type": "harness.NotRun",
            "message": "the check never saw this test end",
        }
    reached: list[str] = []
    _watch_network(reached)

    class Result(unittest.TestResult):
        def startTest(self, test: _Any) -> None:
            del reached[:]
            del _crossing.REACHED[:]
            super().startTest(test)

        def _part(self, test: _Any, exc: BaseException, status: str = "") -> None:
            part = _exception_part(name_of(test), exc, status)
            seen = reached or _crossing.REACHED
            if seen:
                part["message"] += " [harness: reached for the network: %s]" % seen[0]
            parts[test.id()] = part

        def addSuccess(self, test: _Any) -> None:
            super().addSuccess(test)
            if parts.get(test.id(), {}).get("type") == "harness.NotRun":
                parts[test.id()] = {"name": name_of(test), "status": "pass"}

        def addError(self, test: _Any, err: _Any) -> None:
            super().addError(test, err)
            self._part(test, err[1])

        def addFailure(self, test: _Any, err: _Any) -> None:
            super().addFailure(test, err)
            self._part(test, err[1])

        def addSubTest(self, test: _Any, subtest: _Any, err: _Any) -> None:
            super().addSubTest(test, subtest, err)
            if err is not None:
                part = _exception_part(name_of(subtest), err[1])
                parts[test.id()] = part

        def addSkip(self, test: _Any, reason: str) -> None:
            super().addSkip(test, reason)
            parts[test.id()] = {
                "name": name_of(test),
                "status": "skipped",
                "message": str(reason)[:400],
            }

        def addExpectedFailure(self, test: _Any, err: _Any) -> None:
            super().addExpectedFailure(test, err)
            parts[test.id()] = {"name": name_of(test), "status": "pass"}

        def addUnexpectedSuccess(self, test: _Any) -> None:
            super().addUnexpectedSuccess(test)
            parts[test.id()] = {
                "name": name_of(test),
                "status": "fail",
                "message": "unexpected success",
            }

    result = Result()
    try:
        suite.run(result)
    except BaseException as exc:  # an interrupt: the tests not seen to end stay errors
        parts["<suite>"] = _exception_part("suite", exc)
    return list(parts.values())


def _flatten(suite: _Any) -> _Any:
    import unittest

    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _flatten(item)
        else:
            yield item


_NETWORK_WATCHED: list[list[str]] = []


def _watch_network(reached: list[str]) -> None:
    """What the test did on the network here, seen by the interpreter's audit events (a
    solution that catches the error of a lookup this sandbox cannot make still needed it;
    what the solution did there, its process reports with its result)."""
    if _NETWORK_WATCHED:
        _NETWORK_WATCHED[0] = reached
        return
    _NETWORK_WATCHED.append(reached)
    _sys.addaudithook(lambda event, args: _crossing.note_network(event, args, _NETWORK_WATCHED[0]))


# -- GitChameleon: pytest on a hidden test file ------------------------------------------


def harness_pytest(solution: str, module: str, tests: str, fallback: str = "") -> None:
    """Grade ``solution`` as upstream does, by pytest on the hidden test beside it as
    ``<module>.py``: pytest runs in this process, on a test file kept where the solution
    cannot read or write it (this process's own /tmp when sandboxed), with no conftest
    but its own; an untrusted solution's module is a stand-in whose names are fetched
    from its process as the test imports them."""
    import shutil
    import tempfile

    apart = _active()
    _crossing.remember_streams()
    _crossing.TRACKER.install()
    given = {"_HARNESS_SOLUTION": solution, "_HARNESS_TESTS": tests, "_HARNESS_MODULE": module}
    decided = _decided()
    if decided and fallback:
        harness_verdict(_in_process(decided, fallback, **given))
        return
    private = "/tmp" if apart is not None and apart.sandboxed else None
    folder = tempfile.mkdtemp(prefix="gitchameleon-", dir=private)
    try:
        parts = _graded_by_pytest(folder, solution, module, tests, apart)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    harness_verdict(parts)  # a test that shares what cannot cross errs (see harness_unittest)


def _graded_by_pytest(
    folder: str, solution: str, module: str, tests: str, apart: _Any
) -> list[dict[str, _Any]]:
    import io

    path = _os.path.join(folder, "test_" + module + ".py")
    ini = _os.path.join(folder, "pytest.ini")  # this run's whole configuration: none
    files = [(path, tests), (ini, "[pytest]\n")]
    if apart is None:
        files.append((_os.path.join(folder, module + ".py"), solution))
    for name, text in files:
        with open(name, "w", encoding="utf-8") as handle:
            handle.write(text)
    _sys.path.insert(0, folder)
    try:
        if apart is None:
            __import__(module)
        else:
            names = apart.load_module(module, solution, module + ".py")
            stand_in = _crossing.SolutionModule(module, apart)
            for key, value in names.items():
                if isinstance(value, _crossing.SolutionStandIn):
                    stand_in.__dict__[key] = value
            _sys.modules[module] = stand_in
    except BaseException as exc:
        return [_exception_part("solution", exc, "error", first_line=True)]
    try:
        # the problem's env brings its own pytest (GitChameleon's envs pin it)
        pytest = importlib.import_module("pytest")
    except BaseException as exc:
        return [_exception_part("pytest", exc, "error", first_line=True)]
    # options from the machine's environment would make this run differ from upstream's
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
        _os.environ.pop(name, None)
    plugin = _PytestParts(_os.path.basename(path))
    args = [
        path, "-q", "--tb=short", "-c", ini, "--rootdir", folder, "--noconftest",
        # no cache to write; and warnings left to the harness, which records the
        # deprecations (pytest's plugin would swallow them)
        "-p", "no:cacheprovider", "-p", "no:warnings",
    ]  # fmt: skip
    shown, saved = io.StringIO(), _sys.stdout
    _sys.stdout = shown
    try:
        status = int(pytest.main(args, plugins=[plugin]))
    except BaseException as exc:
        return [*plugin.parts.values(), _exception_part("pytest", exc, "error", first_line=True)]
    finally:
        _sys.stdout = saved
        saved.write(shown.getvalue())  # still the execution's output, as pytest printed it
    parts = list(plugin.parts.values())
    if status != 0 and not [p for p in parts if p["status"] in ("fail", "error")]:
        lines = [line for line in shown.getvalue().splitlines() if line.strip()]
        parts.append(
            {
                "name": "pytest",
                "status": "error",
                "type": "pytest.ExitCode",
                "message": "exit status %d%s" % (status, ": " + lines[-1][:300] if lines else ""),
            }
        )
    return parts


class _PytestParts:
    """A pytest plugin keeping one part per test: its first failure, with the exception
    as it was raised (pytest hands it to ``pytest_exception_interact``, for collection
    errors too), else its outcome."""

    def __init__(self, test_file: str) -> None:
        self.prefix = test_file + "::"
        self.parts: dict[str, dict[str, _Any]] = {}

    def _name(self, nodeid: str) -> str:
        return nodeid[len(self.prefix) :] if nodeid.startswith(self.prefix) else nodeid

    def pytest_collectreport(self, report: _Any) -> None:
        if report.failed and report.nodeid not in self.parts:
            self.parts[report.nodeid] = _report_part(self._name(report.nodeid), report)

    def pytest_runtest_logreport(self, report: _Any) -> None:
        known = self.parts.get(report.nodeid)
        if known is not None and known["status"] in ("fail", "error"):
            return  # a test's first failure is its part (not its teardown's after it)
        name = self._name(report.nodeid)
        if report.passed:
            if report.when == "call":
                self.parts[report.nodeid] = {"name": name, "status": "pass"}
        elif report.skipped:
            reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else ""
            if hasattr(report, "wasxfail"):
                reason = "xfail: %s" % report.wasxfail
            self.parts[report.nodeid] = {
                "name": name,
                "status": "skipped",
                "message": str(reason)[:400],
            }
        else:
            self.parts[report.nodeid] = _report_part(name, report)

    def pytest_exception_interact(self, node: _Any, call: _Any, report: _Any) -> None:
        # after a test's report; before a collector's (pytest_collectreport comes next)
        pytest = _sys.modules["pytest"]

        part = self.parts.get(report.nodeid)
        if call.excinfo is None or (part is not None and "type" in part):
            return
        exc = call.excinfo.value
        if type(exc).__name__ == "CollectError":
            # pytest wraps what importing the test raised: that is the error
            exc = exc.__cause__ or exc.__context__ or exc
        status = part["status"] if part is not None else "error"
        if status == "fail" and not isinstance(exc, (AssertionError, pytest.fail.Exception)):
            status = "error"  # the test raised, it did not assert
        self.parts[report.nodeid] = _exception_part(
            self._name(report.nodeid), exc, status, first_line=True
        )


def _report_part(name: str, report: _Any) -> dict[str, _Any]:
    """A failure pytest describes without its exception (a strict xpass), until
    ``pytest_exception_interact`` hands the exception over."""
    status = "fail" if report.when == "call" else "error"
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    lines = [line for line in text.splitlines() if line.strip()]
    return {"name": name, "status": status, "message": lines[0][:400] if lines else ""}


# -- CIBench: a session of steps, like a notebook's cells --------------------------------


class _Session:
    """A notebook's kernel: in this process for a reference, in the solution's process
    for an untrusted solution (its state stays there; what a step printed, and the
    values a check names, come back as data)."""

    NAME = "__session__"

    def __init__(self, apart: _Any) -> None:
        self.apart = apart
        self.namespace: dict[str, _Any] = {"__name__": "__main__"}

    def cell(self, code: str) -> str:
        if self.apart is None:
            return harness_run_cell(code, self.namespace)
        return str(self.apart.cell(self.NAME, code))

    def check(self, code: str, number: int) -> None:
        compiled = compile(code, "<check %d>" % number, "exec")
        if self.apart is None:
            exec(compiled, self.namespace)
            return
        names = sorted(_names_loaded(code))
        namespace: dict[str, _Any] = {"__name__": "__main__"}
        namespace.update(self.apart.fetch_many(self.NAME, names) if names else {})
        refused = [n for n in names if n in self.apart.refused_names and n not in namespace]
        if refused:
            raise _guard.GuardRefusedError(
                "the session's %s could not be checked: refused as data" % ", ".join(refused)
            )
        exec(compiled, namespace)


def harness_session(
    solution: str,
    setup: str,
    spec: list[dict[str, _Any]],
    oracle: bool,
    marker: str,
    fallback: str = "",
) -> None:
    """Grade a session step by step: each step's code runs in the session; its output is
    compared with the expected one and its check run here, on data. In oracle mode a
    failed step is replaced by its reference, so that each later step is judged alone."""
    import re

    pieces = re.split(marker, solution, flags=re.MULTILINE)
    steps: dict[int, str] = {}
    for number, code in zip(pieces[1::2], pieces[2::2]):
        steps[int(number)] = steps.get(int(number), "") + code
    if pieces[0].strip():
        steps[1] = pieces[0] + steps.get(1, "")
    apart = _active()
    decided = _decided()
    if decided and fallback:
        given = {
            "__name__": "__main__",
            "_HARNESS_SETUP": setup,
            "_HARNESS_SPEC": spec,
            "_HARNESS_ORACLE": oracle,
            "_HARNESS_STEPS": steps,
            "_harness_run_cell": harness_run_cell,
            "_harness_compare_output": harness_compare_output,
        }
        harness_verdict(_in_process(decided, fallback, **given))
        return
    if apart is not None:
        apart.engaged = True
    session = _Session(apart)
    if setup:
        session.cell(setup)
    parts = []
    for number, step in enumerate(spec, start=1):
        name = "step %d" % number
        try:
            _grade_step(session, steps.get(number), number, step)
            parts.append({"name": name, "status": "pass"})
        except Exception as exc:
            part = _exception_part(name, exc)
            if not part["message"] and step.get("check") and isinstance(exc, AssertionError):
                part["message"] = "check failed: " + step["check"].strip().splitlines()[0][:200]
            parts.append(part)
            if oracle:
                with contextlib.suppress(Exception):
                    session.cell(step["reference"])
    harness_verdict(parts)


def _grade_step(session: _Session, code: str | None, number: int, step: dict[str, _Any]) -> None:
    """Run one step of the solution's and judge it: its output, then its check."""
    if code is None:
        raise LookupError("the solution has no code for step %d" % number)
    output = session.cell(code)
    if step.get("expected_output") is not None:
        reason = harness_compare_output(output, step["expected_output"])
        assert not reason, reason
    if step.get("check"):
        session.check(step["check"], number)
