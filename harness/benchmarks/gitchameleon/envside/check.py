"""GitChameleon's checks: pytest on a hidden test file, run in the check's process.

As upstream grades an answer, by pytest on the hidden test beside it as ``<module>.py``:
pytest runs here, on a test file kept where the solution cannot read or write it (this
process's own /tmp when sandboxed), with no conftest but its own. An untrusted
solution's module is a stand-in whose names are fetched from its process as the test
imports them (``crossing_standins.SolutionModule``). A test's part is ``pass`` only when
pytest reports it passed and the check saw its own code run to its end (``witness``). A
GitChameleon context imports ``harness_pytest`` from here.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import unittest
from typing import Any, Dict, List

from ...bridge import crossing_context, crossing_patches, crossing_standins
from ...checks.formatlib import active, decided, exception_part, harness_verdict, in_process
from ...checks.witness import Witness
from . import driver
from .driver import report_part, run_pytest

__all__ = ["harness_pytest"]


def harness_pytest(solution: str, module: str, tests: str) -> None:
    """Grade ``solution`` as upstream does, by pytest on the hidden test beside it as
    ``<module>.py``: pytest runs in this process, on a test file kept where the solution
    cannot read or write it (this process's own /tmp when sandboxed), with no conftest
    but its own; an untrusted solution's module is a stand-in whose names are fetched
    from its process as the test imports them. A problem whose test shares something
    that cannot cross is graded in the solution's process instead (``driver.py``)."""
    import shutil
    import tempfile

    apart = active()
    crossing_context.remember_streams()
    crossing_patches.TRACKER.install()
    given = {"_HARNESS_SOLUTION": solution, "_HARNESS_TESTS": tests, "_HARNESS_MODULE": module}
    reason = decided()
    if reason:
        harness_verdict(in_process(reason, driver.program(__package__), **given))
        return
    private = "/tmp" if apart is not None and apart.sandboxed else None
    folder = tempfile.mkdtemp(prefix="gitchameleon-", dir=private)
    try:
        parts = _graded_by_pytest(folder, solution, module, tests, apart)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    harness_verdict(parts)  # a test that shares what cannot cross errs (see harness_unittest)


def _graded_by_pytest(
    folder: str, solution: str, module: str, tests: str, apart: Any
) -> List[Dict[str, Any]]:

    path = os.path.join(folder, "test_" + module + ".py")
    ini = os.path.join(folder, "pytest.ini")  # this run's whole configuration: none
    files = [(path, tests), (ini, "[pytest]\n")]
    if apart is None:
        files.append((os.path.join(folder, module + ".py"), solution))
    for name, text in files:
        with open(name, "w", encoding="utf-8") as handle:
            handle.write(text)
    sys.path.insert(0, folder)
    try:
        if apart is None:
            __import__(module)
        else:
            names = apart.load_module(module, solution, module + ".py")
            stand_in = crossing_standins.SolutionModule(module, apart)
            for key, value in names.items():
                if isinstance(value, crossing_standins.SolutionStandIn):
                    stand_in.__dict__[key] = value
            sys.modules[module] = stand_in
    except BaseException as exc:
        return [exception_part("solution", exc, "error", first_line=True)]
    try:
        # the problem's env brings its own pytest (GitChameleon's envs pin it)
        pytest = importlib.import_module("pytest")
    except BaseException as exc:
        return [exception_part("pytest", exc, "error", first_line=True)]
    # options from the machine's environment would make this run differ from upstream's
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
        os.environ.pop(name, None)
    # (for an untrusted answer, the hidden test leaves the disk once collected)
    plugin = _PytestParts(os.path.basename(path), pytest, path if apart is not None else "")
    args = [
        path, "-q", "--tb=short", "-c", ini, "--rootdir", folder, "--noconftest",
        # no cache to write; and warnings left to the harness, which records the
        # deprecations (pytest's plugin would swallow them)
        "-p", "no:cacheprovider", "-p", "no:warnings",
    ]  # fmt: skip
    return run_pytest(
        pytest, args, plugin, lambda exc: exception_part("pytest", exc, "error", first_line=True)
    )


# The parts a test has until the check sees it end: errors, but not yet its outcome.
_NOT_RUN = "harness.NotRun"  # collected, never seen to end
_NOT_SEEN = "harness.NotSeen"  # reported passed, its own code not seen to end (yet)


class _PytestParts:
    """A pytest plugin keeping one part per test: its first failure, with the exception
    as it was raised (pytest hands it to ``pytest_exception_interact``, for collection
    errors too), else its outcome. Every test collected is an error until the check sees
    it end, and a pass is one whose own code the check saw run to its end: each test's
    function (and a ``unittest.TestCase``'s ``setUp``, ``tearDown`` and subtests) is
    watched as pytest is about to call it (``witness``)."""

    def __init__(self, test_file: str, pytest: Any, path: str = "") -> None:
        self.path = path  # the hidden test's file
        self.prefix = test_file + "::"
        self.parts: Dict[str, Dict[str, Any]] = {}
        self.witness = Witness()

        def pytest_runtest_call(item: Any) -> None:
            self._watch(item)

        # first of the implementations of this hook (pytest's own calls the test), in
        # every pytest GitChameleon's envs pin (6.2.5 to 8) and after: a function of its
        # own, since pytest reads a hook's options from attributes a method cannot take
        self.pytest_runtest_call = pytest.hookimpl(tryfirst=True)(pytest_runtest_call)

    def _name(self, nodeid: str) -> str:
        return nodeid[len(self.prefix) :] if nodeid.startswith(self.prefix) else nodeid

    def _watch(self, item: Any) -> None:
        """Wrap the test pytest is about to call: its function (``item.obj``, which
        pytest calls, and sets on a ``unittest.TestCase`` before running it), and a test
        case's other parts on the instance."""
        testcase = getattr(item, "_testcase", None)  # pytest 6 and 7's attribute, 8's alias
        if isinstance(testcase, unittest.TestCase):
            item.obj = self.witness.watch_case(item.nodeid, testcase, item.obj)
        elif getattr(item, "obj", None) is not None:
            item.obj = self.witness.watch_function(item.nodeid, item.obj, "the test function")

    def pytest_collection_finish(self, session: Any) -> None:
        # The hidden test is in memory now: off the disk before any test runs, so that
        # not even a test's own spy on ``open`` (``wraps=open``, lent to the answer) opens
        # it for the answer.
        if self.path:
            with contextlib.suppress(OSError):
                os.remove(self.path)
        for item in session.items:
            self.parts.setdefault(
                item.nodeid,
                {
                    "name": self._name(item.nodeid),
                    "status": "error",
                    "type": _NOT_RUN,
                    "message": "the check never saw this test end",
                },
            )

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and report.nodeid not in self.parts:
            self.parts[report.nodeid] = report_part(self._name(report.nodeid), report)

    def pytest_runtest_logreport(self, report: Any) -> None:
        known = self.parts.get(report.nodeid)
        if known is not None and _settled(known):
            return  # a test's first failure is its part (not its teardown's after it)
        name = self._name(report.nodeid)
        if report.passed:
            if report.when == "call":
                # a subtest's report passes before its test ends: only the test's own
                # report, once the check saw its code end, makes the part a pass
                unseen = self.witness.unseen(report.nodeid)
                self.parts[report.nodeid] = (
                    {"name": name, "status": "error", "type": _NOT_SEEN, "message": unseen}
                    if unseen
                    else {"name": name, "status": "pass"}
                )
        else:
            self.parts[report.nodeid] = report_part(name, report)

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        # after a test's report; before a collector's (pytest_collectreport comes next)
        pytest = sys.modules["pytest"]

        part = self.parts.get(report.nodeid)
        if call.excinfo is None:
            return
        self.witness.reported(report.nodeid, call.excinfo.value)
        if part is not None and part.get("type", _NOT_RUN) not in (_NOT_RUN, _NOT_SEEN):
            return
        exc = call.excinfo.value
        if type(exc).__name__ == "CollectError":
            # pytest wraps what importing the test raised: that is the error
            exc = exc.__cause__ or exc.__context__ or exc
        status = part["status"] if part is not None else "error"
        if status == "fail" and not isinstance(exc, (AssertionError, pytest.fail.Exception)):
            status = "error"  # the test raised, it did not assert
        self.parts[report.nodeid] = exception_part(
            self._name(report.nodeid), exc, status, first_line=True
        )


def _settled(part: Dict[str, Any]) -> bool:
    """Whether ``part`` is a test's outcome for good: a failure pytest reported."""
    return part["status"] in ("fail", "error") and part.get("type") not in (_NOT_RUN, _NOT_SEEN)
