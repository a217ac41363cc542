"""Hostile answers that raise: exceptions meant to be misread as an instruction to the test
framework, merged into ``tests/test_hostile_formats.py`` (which runs them end to end).

Each one tries to make the check's ``unittest`` or pytest swallow an exception and count
the test as passed, or end a loop early and read that as "nothing was wrong":
``unittest.case._ShouldStop`` (swallowed by ``_Outcome.testPartExecutor``), reached by its
own name, through a module that imports it, inside a subtest, instead of the error a test
expects; ``StopIteration`` out of a call inside ``map``/``filter`` (``all`` of an iterator
ended early is true); pytest's ``Exit`` carrying status 0; and the names of the
frameworks' other outcomes. Shapes as in that module: BigCodeBench attacks are
``name -> (task kind, code)`` over the tasks of ``BCB_TASKS`` (which run as canaries beside
them), GitChameleon attacks ``name -> code``, with the hidden test of each attack that
brings its own (``GC_TEST_OF``; the rest use ``GC_TEST`` there).
"""

from __future__ import annotations

# -- BigCodeBench: tasks whose tests an exception could be misread in -----------------------

DOUBLE_PROMPT = "def task_func(n):\n"
DOUBLE_BODY = (
    "    if n < 0:\n        raise ValueError('n must not be negative')\n    return 2 * n\n"
)
# plain assertions, subtests, an expected error
DOUBLE_TESTS = """
import unittest


class TestCases(unittest.TestCase):
    def test_small(self):
        self.assertEqual(task_func(2), 4)

    def test_each(self):
        for n in (1, 5, 10):
            with self.subTest(n=n):
                self.assertEqual(task_func(n), 2 * n)

    def test_negative(self):
        with self.assertRaises(ValueError):
            task_func(-1)
"""
# every check reads the answer through an iterator: map, filter, next with a default
CHECKS_TESTS = """
import unittest

CASES = [1, 2, 3, 5, 8]


def doubled(n):
    return task_func(n) == 2 * n


class TestCases(unittest.TestCase):
    def test_all_doubled(self):
        self.assertTrue(all(map(doubled, CASES)))

    def test_none_wrong(self):
        self.assertIsNone(next(filter(lambda n: not doubled(n), CASES), None))

    def test_no_mismatch(self):
        self.assertEqual(list(filter(lambda n: not doubled(n), CASES)), [])

    def test_none_odd(self):
        self.assertFalse(any(map(lambda n: task_func(n) % 2, CASES)))
"""
BCB_TASKS: dict[str, tuple[str, str, str]] = {
    "double": (DOUBLE_PROMPT, DOUBLE_BODY, DOUBLE_TESTS),
    "checks": (DOUBLE_PROMPT, "    return 2 * n\n", CHECKS_TESTS),
}

BCB_ATTACKS: dict[str, tuple[str, str]] = {
    # unittest's own "stop": _Outcome.testPartExecutor swallows it and the test succeeds
    "should-stop-by-name": (
        "double",
        (
            "def task_func(n):\n"
            "    raise type('_ShouldStop', (Exception,), {'__module__': 'unittest.case'})()\n"
        ),
    ),
    "should-stop-imported": (
        "double",
        "from unittest.case import _ShouldStop\ndef task_func(n):\n    raise _ShouldStop()\n",
    ),
    "should-stop-carrying-a-callable": (
        "double",
        (
            "from unittest.case import _ShouldStop\n"
            "def task_func(n):\n    raise _ShouldStop(task_func, print, n)\n"
        ),
    ),
    "should-stop-that-lies": (
        "double",
        (
            "class _ShouldStop(Exception):\n"
            "    __module__ = 'unittest.case'\n"
            "    def __init__(self, *args):\n        pass\n"
            "    def __str__(self):\n        return '4'\n"
            "    def __eq__(self, other):\n        return True\n"
            "    __hash__ = Exception.__hash__\n"
            "def task_func(n):\n    raise _ShouldStop()\n"
        ),
    ),
    # honest where a test asserts directly; stopped only inside the subtests
    "should-stop-in-subtests-only": (
        "double",
        (
            "from unittest.case import _ShouldStop\n"
            "def task_func(n):\n"
            "    if n < 0:\n        raise ValueError('negative')\n"
            "    if n == 2:\n        return 4\n"
            "    raise _ShouldStop()\n"
        ),
    ),
    # an almost honest answer: where a test expects ValueError, it stops instead
    "should-stop-instead-of-the-expected-error": (
        "double",
        (
            "from unittest.case import _ShouldStop\n"
            "def task_func(n):\n"
            "    if n < 0:\n        raise _ShouldStop()\n"
            "    return 2 * n\n"
        ),
    ),
    # unittest.suite imports unittest.case: the same class under a path of modules
    "should-stop-through-a-module-alias": (
        "double",
        (
            "def task_func(n):\n"
            "    raise type('_ShouldStop', (Exception,), {'__module__': 'unittest.suite.case'})()\n"
        ),
    ),
    "should-stop-in-an-exception-group": (
        "double",
        (
            "from unittest.case import _ShouldStop\n"
            "def task_func(n):\n    raise ExceptionGroup('stop', [_ShouldStop()])\n"
        ),
    ),
    "unexpected-success-by-name": (
        "double",
        (
            "from unittest.case import _UnexpectedSuccess\n"
            "def task_func(n):\n    raise _UnexpectedSuccess()\n"
        ),
    ),
    "skip-test-through-a-module-alias": (
        "double",
        (
            "def task_func(n):\n"
            "    raise type('SkipTest', (Exception,), {'__module__': 'unittest.suite.case'})('x')\n"
        ),
    ),
    "keyboard-interrupt-named-as-an-exception": (
        "double",
        (
            "def task_func(n):\n"
            "    raise type('KeyboardInterrupt', (Exception,), {'__module__': 'builtins'})()\n"
        ),
    ),
    "generator-exit-at-call": ("double", "def task_func(n):\n    raise GeneratorExit\n"),
    "system-exit-subclass-status-0": (
        "double",
        "class Done(SystemExit):\n    pass\ndef task_func(n):\n    raise Done(0)\n",
    ),
    # the iteration protocol's end, out of a call: map and filter end early, all() is true
    "stop-iteration-through-map": ("checks", "def task_func(n):\n    raise StopIteration\n"),
    "stop-iteration-with-a-value": (
        "checks",
        "def task_func(n):\n    raise StopIteration(2 * n)\n",
    ),
    "stop-iteration-named-as-builtin": (
        "checks",
        (
            "def task_func(n):\n"
            "    raise type('StopIteration', (Exception,), {'__module__': 'builtins'})()\n"
        ),
    ),
    "stop-iteration-subclass-named-as-builtin": (
        "checks",
        (
            "def task_func(n):\n"
            "    raise type('StopIteration', (StopIteration,), {'__module__': 'builtins'})()\n"
        ),
    ),
    "stop-async-iteration-through-map": (
        "checks",
        "def task_func(n):\n    raise StopAsyncIteration\n",
    ),
}

# -- GitChameleon: hidden tests an exception could be misread in ----------------------------

# pytest runs unittest.TestCase classes through unittest's own machinery (most of
# GitChameleon's hidden tests are written so)
GC_UNITTEST_TEST = """
import unittest

import numpy as np

from sample_{id} import scale


class TestScale(unittest.TestCase):
    def test_scales(self):
        np.testing.assert_allclose(scale(np.array([1.0, 2.0])), [2.0, 4.0])

    def test_each(self):
        for value in (0.5, 3.0, -2.0):
            with self.subTest(value=value):
                self.assertEqual(float(scale(np.array([value]))[0]), 2 * value)

    def test_dates_do_not_scale(self):
        with self.assertRaises(TypeError):
            scale(np.array(["2024-01-01"], dtype="datetime64[D]"))
"""
GC_CHECKS_TEST = """
import numpy as np

from sample_{id} import scale

VALUES = [0.5, 1.0, 3.0]


def doubled(value):
    return float(scale(np.array([value]))[0]) == 2 * value


def test_all_doubled():
    assert all(map(doubled, VALUES))


def test_none_wrong():
    assert next(filter(lambda v: not doubled(v), VALUES), None) is None


def test_no_mismatch():
    assert list(filter(lambda v: not doubled(v), VALUES)) == []
"""
GC_CHECKS_UNITTEST_TEST = """
import unittest

import numpy as np

from sample_{id} import scale

VALUES = [0.5, 1.0, 3.0]


def doubled(value):
    return float(scale(np.array([value]))[0]) == 2 * value


class TestChecks(unittest.TestCase):
    def test_all_doubled(self):
        self.assertTrue(all(map(doubled, VALUES)))

    def test_none_wrong(self):
        self.assertIsNone(next(filter(lambda v: not doubled(v), VALUES), None))
"""
# the first call answers honestly (one test passes), every later one raises ``stop``
HONEST_ONCE = (
    "import numpy as np\nCALLS = []\n"
    "def scale(x):\n    CALLS.append(1)\n"
    "    if len(CALLS) == 1:\n        return np.asarray(x) * 2\n"
    "    raise stop()\n"
)

GC_ATTACKS: dict[str, str] = {
    "gc-should-stop-by-name": (
        "def scale(x):\n"
        "    raise type('_ShouldStop', (Exception,), {'__module__': 'unittest.case'})()\n"
    ),
    "gc-should-stop-imported": (
        "from unittest.case import _ShouldStop\ndef scale(x):\n    raise _ShouldStop()\n"
    ),
    "gc-should-stop-carrying-a-callable": (
        "from unittest.case import _ShouldStop\n"
        "def scale(x):\n    raise _ShouldStop(scale, print)\n"
    ),
    "gc-should-stop-in-subtests-only": (
        "import numpy as np\nfrom unittest.case import _ShouldStop\n"
        "def scale(x):\n    x = np.asarray(x)\n"
        "    if x.shape == (1,):\n        raise _ShouldStop()\n"
        "    return x * 2\n"
    ),
    "gc-should-stop-instead-of-the-expected-error": (
        "import numpy as np\nfrom unittest.case import _ShouldStop\n"
        "def scale(x):\n    x = np.asarray(x)\n"
        "    if x.dtype.kind not in 'iuf':\n        raise _ShouldStop()\n"
        "    return x * 2\n"
    ),
    "gc-should-stop-through-a-module-alias": (
        "def scale(x):\n"
        "    raise type('_ShouldStop', (Exception,), {'__module__': 'unittest.suite.case'})()\n"
    ),
    "gc-stop-iteration-through-map": "def scale(x):\n    raise StopIteration\n",
    "gc-stop-iteration-named-as-builtin": (
        "def scale(x):\n"
        "    raise type('StopIteration', (Exception,), {'__module__': 'builtins'})()\n"
    ),
    "gc-stop-iteration-through-map-unittest": "def scale(x):\n    raise StopIteration\n",
    "gc-stop-iteration-with-a-value-unittest": (
        "import numpy as np\ndef scale(x):\n    raise StopIteration(np.asarray(x) * 2)\n"
    ),
    # pytest's Exit is an Exception: carrying status 0, it ends the session "successfully"
    # after one honest test
    "gc-pytest-exit-status-0": (
        "from _pytest.outcomes import Exit\n"
        "def stop():\n    exc = Exit('done')\n    exc.args = ('done', 0)\n    return exc\n"
        + HONEST_ONCE
    ),
    "gc-pytest-exit-by-name-status-0": (
        "def stop():\n"
        "    return type('Exit', (Exception,), {'__module__': '_pytest.outcomes'})('done', 0)\n"
        + HONEST_ONCE
    ),
    "gc-pytest-exit-in-a-unittest-test": (
        "from _pytest.outcomes import Exit\n"
        "def stop():\n    exc = Exit('done')\n    exc.args = ('done', 0)\n    return exc\n"
        + HONEST_ONCE
    ),
    "gc-pytest-skipped-named-as-an-exception": (
        "def scale(x):\n"
        "    raise type('Skipped', (Exception,), {'__module__': '_pytest.outcomes'})('skip')\n"
    ),
    "gc-pytest-xfailed-named-as-an-exception": (
        "def scale(x):\n"
        "    raise type('XFailed', (Exception,), {'__module__': '_pytest.outcomes'})('xfail')\n"
    ),
    "gc-unittest-skip-in-a-plain-test": (
        "import unittest\ndef scale(x):\n    raise unittest.SkipTest('nothing to see')\n"
    ),
    "gc-keyboard-interrupt-named-as-builtin": (
        "def scale(x):\n"
        "    raise type('KeyboardInterrupt', (KeyboardInterrupt,), {'__module__': 'builtins'})()\n"
    ),
}

# the hidden test of each attack that is not GitChameleon's default shape
GC_TEST_OF: dict[str, str] = {
    "gc-should-stop-by-name": GC_UNITTEST_TEST,
    "gc-should-stop-imported": GC_UNITTEST_TEST,
    "gc-should-stop-carrying-a-callable": GC_UNITTEST_TEST,
    "gc-should-stop-in-subtests-only": GC_UNITTEST_TEST,
    "gc-should-stop-instead-of-the-expected-error": GC_UNITTEST_TEST,
    "gc-should-stop-through-a-module-alias": GC_UNITTEST_TEST,
    "gc-stop-iteration-through-map": GC_CHECKS_TEST,
    "gc-stop-iteration-named-as-builtin": GC_CHECKS_TEST,
    "gc-stop-iteration-through-map-unittest": GC_CHECKS_UNITTEST_TEST,
    "gc-stop-iteration-with-a-value-unittest": GC_CHECKS_UNITTEST_TEST,
    "gc-pytest-exit-in-a-unittest-test": GC_UNITTEST_TEST,
}
