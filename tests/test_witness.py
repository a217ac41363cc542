"""A test passes only when the check saw its own code run to its end
(harness/envside/checks/witness.py), as BigCodeBench's runner (benchmarks/bigcodebench/envside/check) and
GitChameleon's pytest plugin (benchmarks/gitchameleon/envside/check) count parts.

The tests below cut a test short with exceptions the frameworks swallow, raised by the
test itself (as an answer's once could, rebuilt in the check): such a test is an error,
never a pass. What a test decides for itself stays as it was: expected failures, skips,
``assertRaises``, subtests that fail, an exception its own code catches.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
import types
import unittest
from pathlib import Path
from typing import Any

import pytest

from harness.envside.checks.witness import Witness
from tests.conftest import ROOT
from tests.envside import benchmark_side

formatlib_bigcodebench = benchmark_side("bigcodebench.check")
formatlib_gitchameleon = benchmark_side("gitchameleon.check")

NOT_SEEN = "the check never saw the test's code end"

TESTS = """
import unittest
from unittest.case import _ShouldStop


class Cut(unittest.TestCase):
    def test_method_stopped(self):
        raise _ShouldStop()

    def test_subtest_stopped(self):
        for n in range(3):
            with self.subTest(n=n):
                raise _ShouldStop()
        self.assertTrue(True)


class CutSetUp(unittest.TestCase):
    def setUp(self):
        raise _ShouldStop()

    def test_after(self):
        pass


class CutTearDown(unittest.TestCase):
    def tearDown(self):
        raise _ShouldStop()

    def test_before(self):
        pass


class Honest(unittest.TestCase):
    def test_pass(self):
        self.assertEqual(1, 1)

    def test_fail(self):
        self.assertEqual(1, 2)

    def test_error(self):
        {}["missing"]

    def test_raises(self):
        with self.assertRaises(ValueError):
            int("x")

    def test_subtests_pass(self):
        for n in range(3):
            with self.subTest(n=n):
                self.assertLess(n, 3)

    def test_subtest_fails(self):
        for n in range(3):
            with self.subTest(n=n):
                self.assertLess(n, 2)

    def test_catches_its_own(self):
        try:
            raise _ShouldStop()
        except _ShouldStop:
            pass

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(1, 2)

    @unittest.expectedFailure
    def test_unexpected_success(self):
        pass

    def test_skips_itself(self):
        self.skipTest("not here")

    @unittest.skipIf(True, "never")
    def test_skipped(self):
        pass


class Async(unittest.IsolatedAsyncioTestCase):
    async def test_awaited(self):
        self.assertEqual(1, 1)
"""


def bigcodebench_parts() -> dict[str, dict[str, Any]]:
    module = types.ModuleType("__test__")
    module.__dict__["__builtins__"] = __builtins__
    saved = sys.modules.get("__test__")
    sys.modules["__test__"] = module
    try:
        exec(compile(TESTS, "<tests>", "exec"), module.__dict__)
        parts = formatlib_bigcodebench._run_unittest(module)
    finally:
        if saved is None:
            del sys.modules["__test__"]
        else:
            sys.modules["__test__"] = saved
    return {str(p["name"]): p for p in parts}


HONEST = {
    "Honest.test_pass": "pass",
    "Honest.test_fail": "fail",
    "Honest.test_error": "error",
    "Honest.test_raises": "pass",
    "Honest.test_subtests_pass": "pass",
    "Honest.test_catches_its_own": "pass",
    "Honest.test_expected_failure": "pass",
    "Honest.test_unexpected_success": "fail",
    "Honest.test_skips_itself": "skipped",
    "Honest.test_skipped": "skipped",
    "Async.test_awaited": "pass",
}


def test_a_bigcodebench_test_cut_short_by_a_swallowed_exception_is_an_error() -> None:
    parts = bigcodebench_parts()
    for name, missing in (
        ("Cut.test_method_stopped", "test_method_stopped did not return"),
        ("Cut.test_subtest_stopped", "a subtest's body was cut short by _ShouldStop"),
        ("CutSetUp.test_after", "setUp did not return"),
        ("CutTearDown.test_before", "tearDown did not return"),
    ):
        part = parts[name]
        assert part["status"] == "error", part
        assert part["type"] == "harness.NotSeen"
        assert NOT_SEEN in part["message"]
        assert missing in part["message"]


def test_what_a_bigcodebench_test_decides_stays_as_it_was() -> None:
    parts = bigcodebench_parts()
    assert {name: parts[name]["status"] for name in HONEST} == HONEST
    # the failing subtest is the test's part
    assert parts["Honest.test_subtest_fails (n=2)"]["status"] == "fail"


class Item:
    """What ``_PytestParts`` reads of a pytest item: its node id and the function pytest
    calls (``obj``)."""

    def __init__(self, nodeid: str, obj: Any) -> None:
        self.nodeid = nodeid
        self.obj = obj


class Report:
    def __init__(self, nodeid: str, outcome: str, when: str = "call") -> None:
        self.nodeid = nodeid
        self.when = when
        self.passed = outcome == "passed"
        self.skipped = outcome == "skipped"
        self.failed = outcome == "failed"
        self.longrepr = None


def test_a_pytest_function_passes_only_once_its_call_was_seen_to_return() -> None:
    plugin = formatlib_gitchameleon._PytestParts("test_sample_1.py", pytest)
    session = types.SimpleNamespace(
        items=[Item("test_sample_1.py::test_seen", None), Item("test_sample_1.py::test_not", None)]
    )
    plugin.pytest_collection_finish(session)
    seen, unseen = session.items
    seen.obj = lambda: None
    unseen.obj = lambda: None
    plugin._watch(seen)
    plugin._watch(unseen)
    seen.obj()  # pytest called it, and it returned; the other was never called
    for item in session.items:
        plugin.pytest_runtest_logreport(Report(item.nodeid, "passed"))
    assert plugin.parts["test_sample_1.py::test_seen"] == {"name": "test_seen", "status": "pass"}
    part = plugin.parts["test_sample_1.py::test_not"]
    assert part["status"] == "error"
    assert NOT_SEEN in part["message"]


def test_a_pytest_test_never_reported_stays_an_error() -> None:
    # the session ended before it ran (an exit): collected, never seen to end
    plugin = formatlib_gitchameleon._PytestParts("test_sample_1.py", pytest)
    plugin.pytest_collection_finish(
        types.SimpleNamespace(items=[Item("test_sample_1.py::test_later", lambda: None)])
    )
    assert plugin.parts["test_sample_1.py::test_later"]["status"] == "error"
    assert plugin.parts["test_sample_1.py::test_later"]["type"] == "harness.NotRun"


GITCHAMELEON = """
import json, sys
from harness.envside.benchmarks.gitchameleon import check as formatlib_gitchameleon

given = json.loads(sys.stdin.read())
parts = formatlib_gitchameleon._graded_by_pytest(
    given["folder"], given["solution"], "sample_1", given["tests"], None
)
print(json.dumps({p["name"]: [p["status"], p.get("type"), p.get("message", "")] for p in parts}))
"""


def gitchameleon_parts(tmp_path: Path, tests: str) -> dict[str, list[str]]:
    """The pytest plugin's parts, pytest run in a fresh interpreter of this venv (its
    pytest must not share this session's state); the solution trusted, in process."""
    folder = tmp_path / "tests"
    folder.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", GITCHAMELEON],
        input=json.dumps(
            {
                "folder": str(folder),
                "solution": "def double(x):\n    return 2 * x\n",
                "tests": textwrap.dedent(tests),
            }
        ),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    found: dict[str, list[str]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


def test_gitchameleon_unittest_tests_cut_short_are_errors_and_the_rest_as_before(
    tmp_path: Path,
) -> None:
    found = gitchameleon_parts(
        tmp_path,
        TESTS
        + """
import pytest
from sample_1 import double


def test_plain():
    assert double(2) == 4


def test_plain_fails():
    assert double(2) == 5


@pytest.mark.skipif(True, reason="never")
def test_plain_skipped():
    pass


@pytest.mark.xfail(reason="known")
def test_plain_xfail():
    assert double(1) == 3
""",
    )
    for name in (
        "Cut::test_method_stopped",
        "Cut::test_subtest_stopped",
        "CutSetUp::test_after",
        "CutTearDown::test_before",
    ):
        status, kind, message = found[name]
        assert (status, kind) == ("error", "harness.NotSeen"), found[name]
        assert NOT_SEEN in message
    statuses = {name: found[name.replace(".", "::")][0] for name in HONEST}
    # pytest reads unittest's expected failure as an xfail: skipped, as before
    assert statuses == {**HONEST, "Honest.test_expected_failure": "skipped"}
    assert found["test_plain"][0] == "pass"
    assert found["test_plain_fails"][0] == "fail"
    assert found["test_plain_skipped"][0] == "skipped"
    assert found["test_plain_xfail"][0] == "skipped"


def test_a_subtest_swallowed_but_reported_is_not_held_against_the_test() -> None:
    witness = Witness()

    class Case(unittest.TestCase):
        def test_it(self) -> None:
            pass

        def subTest(self, msg: Any = None, **params: Any) -> Any:  # noqa: N802 - unittest's name
            return contextlib.suppress(ValueError)  # it swallows, as unittest's does

    case = Case("test_it")
    witness.watch_case("t", case)
    case.setUp()
    failure = ValueError("reported")

    def cut() -> None:
        raise failure

    with case.subTest(n=1):
        cut()
    case.test_it()
    case.tearDown()
    assert "cut short by ValueError" in witness.unseen("t")
    witness.reported("t", failure)
    assert witness.unseen("t") == ""
