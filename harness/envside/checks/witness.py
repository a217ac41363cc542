"""What the check saw of a test's own code: that it ran to its end.

A test framework decides a test passed when nothing it did not swallow reached it:
``unittest``'s ``_Outcome.testPartExecutor`` swallows ``_ShouldStop`` (and a subtest's body
cut short by one still reports success), and pytest runs ``unittest.TestCase`` classes
through that same machinery. So a test's part is ``pass`` only when the framework
reports success *and* the check saw the test's own code end: its ``setUp``, its method and
its ``tearDown`` each returned, and every subtest body that an exception cut short, which
the framework then swallowed, was reported (a subtest that failed). The formats' runners
wrap each test before it runs (``watch_case``, ``watch_function``), tell the witness what
the framework reported (``reported``), and ask it before they count a pass (``unseen``).

What the test itself decides stays as it was: an exception its own code catches, a skip,
an expected failure, a subtest that fails. Standard library only; Python 3.8-3.13.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any, Callable, Dict, Iterator, List, Set

# the parts of a unittest.TestCase the check watches return, besides the test method
_PARTS = ("setUp", "tearDown")


class _Seen:
    """One test as the check saw it."""

    def __init__(self) -> None:
        self.waiting: Set[str] = set()  # what was wrapped and has not returned yet
        self.swallowed: List[BaseException] = []  # what cut a subtest body short, swallowed
        self.reported: List[BaseException] = []  # what the framework reported


class Witness:
    """The tests of one run, by the key their runner names them with (a test id, a
    node id), each as the check saw it."""

    def __init__(self) -> None:
        self.tests: Dict[str, _Seen] = {}

    def watch_case(self, key: str, test: Any, method: Any = None) -> Any:
        """Watch a ``unittest.TestCase`` instance before it runs: its test method
        (``method``, as its runner will call it: by default the instance's own), ``setUp``,
        ``tearDown`` and ``subTest``, each wrapped on the instance itself. Returns the
        wrapped method (pytest sets it on the instance again as it runs the test)."""
        name = str(getattr(test, "_testMethodName", ""))
        wrapped = self.watch_function(key, method or getattr(test, name), name)
        setattr(test, name, wrapped)
        for part in _PARTS:
            setattr(test, part, self.watch_function(key, getattr(test, part), part))
        test.subTest = self._subtests(key, test.subTest)
        return wrapped

    def watch_function(self, key: str, function: Callable[..., Any], part: str = "") -> Any:
        """``function`` (a test's method or function, as its runner will call it), noting
        that it returned; of the same kind (a coroutine function stays one, so a runner
        that awaits it still does), with its attributes (``__unittest_skip__``,
        ``__unittest_expecting_failure__``, pytest's marks)."""
        seen = self.tests.setdefault(key, _Seen())
        part = part or getattr(function, "__name__", "test")
        seen.waiting.add(part)
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def awaited(*args: Any, **kwargs: Any) -> Any:
                result = await function(*args, **kwargs)
                seen.waiting.discard(part)
                return result

            return awaited

        @functools.wraps(function)
        def called(*args: Any, **kwargs: Any) -> Any:
            result = function(*args, **kwargs)
            seen.waiting.discard(part)
            return result

        return called

    def _subtests(self, key: str, original: Callable[..., Any]) -> Callable[..., Any]:
        """``TestCase.subTest`` noting each body an exception cut short that the framework
        then swallowed (one that propagates is seen, or not, by whatever it reaches: the
        method's wrapper, or the test's own ``except``)."""
        seen = self.tests.setdefault(key, _Seen())

        @contextlib.contextmanager
        def sub_test(*args: Any, **kwargs: Any) -> Iterator[None]:
            cut = None
            with original(*args, **kwargs):
                try:
                    yield
                except BaseException as exc:
                    cut = exc
                    raise
            if cut is not None:
                seen.swallowed.append(cut)

        return sub_test

    def reported(self, key: str, exc: Any) -> None:
        """The framework reported ``exc`` for the test (a subtest's failure, an error)."""
        if isinstance(exc, BaseException):
            self.tests.setdefault(key, _Seen()).reported.append(exc)

    def unseen(self, key: str) -> str:
        """Why the check cannot confirm that the test's own code ran to its end; '' when
        it saw it end."""
        seen = self.tests.get(key)
        if seen is None:
            return "the check never saw the test's code run"
        if seen.waiting:
            return "the check never saw the test's code end (%s did not return)" % ", ".join(
                sorted(seen.waiting)
            )
        for exc in seen.swallowed:
            if not any(exc is done for done in seen.reported) and not _skipped(exc):
                return (
                    "the check never saw the test's code end (a subtest's body was cut short "
                    "by %s, which nothing reported)" % type(exc).__name__
                )
        return ""


def _skipped(exc: BaseException) -> bool:
    """A skip the test decided (``self.skipTest`` in a subtest, reported by its reason
    alone): only the check's own code raises one, since no exception of the solution's
    ever comes back as a skip (``crossing_errors``)."""
    import unittest

    return isinstance(exc, unittest.SkipTest)
