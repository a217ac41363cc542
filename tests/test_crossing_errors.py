"""Exceptions across the boundary (harness/envside/bridge/crossing_errors.py): the solution's
exceptions come back as data about a failure, never as an instruction to the test
framework. A class comes back as itself only when it is admitted (Python's ordinary
exceptions, or listed with ``raise`` in the allowlist); any other as a ``RemoteError`` made
for it, whose bases are the nearest admitted ancestors in the check's own MRO of it.

The module is standard library only; these tests run both sides in this process.
"""

from __future__ import annotations

import builtins
import json
import sys
import types
import unittest
import unittest.case
from typing import TYPE_CHECKING, Any

import _pytest.config.exceptions
import _pytest.fixtures
import _pytest.main
import _pytest.nodes
import _pytest.outcomes
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.envside.allowlist import Allowlist
from harness.envside.bridge import crossing_errors, guard
from harness.envside.bridge.admission import Usage

if TYPE_CHECKING:
    from collections.abc import Iterator

RemoteError = crossing_errors.RemoteError
# unittest's private control flow, which typeshed does not declare
SHOULD_STOP: type[Exception] = vars(unittest.case)["_ShouldStop"]
UNEXPECTED_SUCCESS: type[Exception] = vars(unittest.case)["_UnexpectedSuccess"]

# What a test framework reads as an instruction, never as a failure: unittest's (the same
# three classes in Python 3.8 to 3.13) and pytest's (6 to 9), and the interpreter's own.
CONTROL_FLOW: tuple[type[BaseException], ...] = (
    unittest.SkipTest,
    SHOULD_STOP,  # swallowed by _Outcome.testPartExecutor
    UNEXPECTED_SUCCESS,
    _pytest.outcomes.OutcomeException,
    _pytest.outcomes.Exit,
    _pytest.main.Interrupted,
    _pytest.main.Failed,
    StopIteration,
    StopAsyncIteration,
    KeyboardInterrupt,
    SystemExit,
    GeneratorExit,
)
CONTROL_FLOW_NAMES = [
    "unittest.case.SkipTest",
    "unittest.case._ShouldStop",
    "unittest.case._UnexpectedSuccess",
    # the same classes through modules that import them, and under other names
    "unittest.SkipTest",
    "unittest.suite.case._ShouldStop",
    "unittest.loader.case.SkipTest",
    "unittest.main.loader.case._ShouldStop",
    "_pytest.outcomes.OutcomeException",
    "_pytest.outcomes.Skipped",
    "_pytest.outcomes.Failed",
    "_pytest.outcomes.XFailed",
    "_pytest.outcomes.Exit",
    "_pytest.main.Interrupted",
    "_pytest.main.Failed",
    "_pytest.main.NoMatch",
    "_pytest.config.exceptions.UsageError",
    "_pytest.config.exceptions.PrintHelp",
    "_pytest.fixtures.FixtureLookupError",
    "_pytest.nodes.Collector.CollectError",
    "pytest.skip.Exception",
    "pytest.UsageError",
    "pytest.exit.Exception",
    "StopIteration",
    "StopAsyncIteration",
    "KeyboardInterrupt",
    "SystemExit",
    "GeneratorExit",
    "BaseException",
    "BaseExceptionGroup",
    "ExceptionGroup",
    "bdb.BdbQuit",
]


def rebuilt(qualified: str, args: Any = None, **kwargs: Any) -> BaseException:
    return crossing_errors.rebuild({"type": qualified, "message": "m"}, args, **kwargs)


def never_control_flow(exc: BaseException) -> None:
    assert isinstance(exc, Exception)
    assert not isinstance(exc, CONTROL_FLOW), type(exc).__mro__


def test_exceptions_come_back_as_their_class_with_their_arguments() -> None:
    report = {"type": "KeyError", "message": "'x'", "traceback": "<solution>:3 in f"}
    found = crossing_errors.rebuild(report, ("x",))
    assert type(found) is KeyError
    assert str(found) == "'x'"
    assert crossing_errors.remote_frames(found) == "<solution>:3 in f"
    # a class listed for it, whose constructor wants more than a message: rebuilt all the
    # same, so that ``assertRaises(json.JSONDecodeError)`` catches it
    listed = Allowlist.parse("json.decoder:JSONDecodeError raise\n")
    json_error = rebuilt("json.decoder.JSONDecodeError", allowlist=listed)
    assert type(json_error) is json.JSONDecodeError


@pytest.mark.parametrize("name", sorted(crossing_errors.BUILTIN_EXCEPTIONS))
def test_every_ordinary_builtin_comes_back_as_itself(name: str) -> None:
    cls = getattr(builtins, name, None)
    if cls is None:
        pytest.skip(f"{name} is not in Python {sys.version_info[:2]}")
    assert type(rebuilt(name)) is cls


def test_the_admitted_builtins_are_the_ordinary_exceptions() -> None:
    ordinary = {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, Exception) and value.__name__ == name
    }
    left_out = {"StopIteration", "StopAsyncIteration", "ExceptionGroup", "_IncompleteInputError"}
    assert ordinary - left_out == crossing_errors.BUILTIN_EXCEPTIONS & ordinary
    # and nothing that is not an Exception is ever among them
    for name in crossing_errors.BUILTIN_EXCEPTIONS:
        value = getattr(builtins, name, None)
        assert value is None or issubclass(value, Exception)


@pytest.mark.parametrize("qualified", CONTROL_FLOW_NAMES)
def test_no_control_flow_is_ever_rebuilt_as_itself(qualified: str) -> None:
    for kwargs in ({}, {"usage": Usage()}, {"allowlist": Allowlist.parse("")}):
        found = rebuilt(qualified, ("m",), **kwargs)
        never_control_flow(found)
        assert isinstance(found, RemoteError)
        assert found.qualified == qualified  # named as the answer named it
        assert str(found) == "m"


def test_measuring_never_notes_a_framework_class_and_notes_a_library_one() -> None:
    usage = Usage()
    never_control_flow(rebuilt("unittest.case._ShouldStop", usage=usage))
    never_control_flow(rebuilt("_pytest.outcomes.Exit", ("x", 0), usage=usage))
    assert usage.entries == {}
    # an exception class a line could list comes back as itself while measuring, and noted
    assert type(rebuilt("json.decoder.JSONDecodeError", usage=usage)) is json.JSONDecodeError
    assert usage.entries == {("json.decoder", "JSONDecodeError"): {"ref", "raise"}}


def test_a_list_can_never_admit_control_flow() -> None:
    # the iteration protocol's and Python's own outcomes, listed by mistake: still not admitted
    listed = Allowlist.parse("builtins:StopIteration raise\nbuiltins:KeyboardInterrupt raise\n")
    never_control_flow(rebuilt("StopIteration", allowlist=listed))
    never_control_flow(rebuilt("KeyboardInterrupt", allowlist=listed))
    with pytest.raises(ValueError, match="test framework's"):
        Allowlist.parse("unittest.case:_ShouldStop raise\n")
    with pytest.raises(ValueError, match="test framework's"):
        Allowlist.parse("_pytest.outcomes:Exit call raise\n")


@pytest.fixture
def library() -> Iterator[types.ModuleType]:
    """A library of the check's, as the answer's report may name its classes."""
    module = types.ModuleType("harness_test_library")

    class ParserError(ValueError):
        pass

    class NotFoundError(LookupError, AttributeError):
        pass

    class DeeperError(ParserError):
        pass

    stopping_error = type("StoppingError", (SHOULD_STOP, ValueError), {})

    class SkippingError(unittest.SkipTest):
        pass

    class EndingError(StopIteration):
        pass

    class Outer:
        class InnerError(KeyError):
            pass

    for cls in (
        ParserError,
        NotFoundError,
        DeeperError,
        stopping_error,
        SkippingError,
        EndingError,
        Outer,
        Outer.InnerError,
    ):
        cls.__module__ = module.__name__
        cls.__qualname__ = cls.__qualname__.replace("library.<locals>.", "")
        setattr(module, cls.__name__, cls)
    module.Alias = SHOULD_STOP  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def test_an_unlisted_class_is_caught_as_its_nearest_admitted_ancestors(
    library: types.ModuleType,
) -> None:
    parser = rebuilt("harness_test_library.ParserError", ("bad line", 3))
    assert isinstance(parser, RemoteError)
    assert isinstance(parser, ValueError)  # assertRaises(ValueError) catches it
    assert not isinstance(parser, library.ParserError)  # it is not the library's class
    assert parser.qualified == "harness_test_library.ParserError"
    assert parser.args == ("bad line", 3)  # its arguments, as the test would read them
    assert str(parser) == "m"  # as the solution's process told it
    both = rebuilt("harness_test_library.NotFoundError")
    assert isinstance(both, LookupError)
    assert isinstance(both, AttributeError)
    assert isinstance(rebuilt("harness_test_library.DeeperError"), ValueError)
    assert isinstance(rebuilt("harness_test_library.Outer.InnerError"), KeyError)
    # the one class made per set of bases
    assert type(rebuilt("harness_test_library.DeeperError")) is type(parser)


def test_a_listed_ancestor_is_a_base_and_a_listed_class_is_itself(
    library: types.ModuleType,
) -> None:
    listed = Allowlist.parse("harness_test_library:ParserError raise\n")
    assert type(rebuilt("harness_test_library.ParserError", allowlist=listed)) is (
        library.ParserError
    )
    deeper = rebuilt("harness_test_library.DeeperError", allowlist=listed)
    assert isinstance(deeper, RemoteError)
    assert isinstance(deeper, library.ParserError)


def test_a_class_deriving_from_control_flow_keeps_only_its_ordinary_bases(
    library: types.ModuleType,
) -> None:
    stopping = rebuilt("harness_test_library.StoppingError")
    assert isinstance(stopping, ValueError)
    never_control_flow(stopping)
    never_control_flow(rebuilt("harness_test_library.SkippingError"))
    # listing it changes nothing: the list may hold no class deriving from a framework's
    listed = Allowlist.parse("harness_test_library:StoppingError raise\n")
    never_control_flow(rebuilt("harness_test_library.StoppingError", allowlist=listed))
    # a class reached by another name than its own is not found by it
    never_control_flow(rebuilt("harness_test_library.Alias"))
    assert crossing_errors.find_class("harness_test_library.Alias") is None
    assert crossing_errors.find_class("json.JSONDecodeError") is None  # json.decoder's own
    assert crossing_errors.find_class("json.decoder.JSONDecodeError") is json.JSONDecodeError


def test_stop_iteration_is_the_end_of_an_iterator_only(library: types.ModuleType) -> None:
    # from a call it is a failure: ``all(map(check, cases))`` must not read it as the end
    def check(case: int) -> bool:
        raise rebuilt("StopIteration", (case,))

    with pytest.raises(RemoteError):
        all(map(check, [1, 2]))
    with pytest.raises(RemoteError):
        next(filter(check, [1, 2]), None)
    # from ``next`` of the answer's iterator, it is the protocol's own end, with its value
    end = rebuilt("StopIteration", (7,), ends_iteration=True)
    assert type(end) is StopIteration
    assert end.value == 7
    ending = rebuilt("harness_test_library.EndingError", ends_iteration=True)
    assert isinstance(ending, StopIteration)
    never_control_flow(rebuilt("harness_test_library.EndingError"))
    never_control_flow(rebuilt("StopAsyncIteration", ends_iteration=True))


def test_looking_a_class_up_runs_no_code_of_the_check() -> None:
    called: list[str] = []

    class Meta(type):
        def __getattribute__(cls, name: str) -> Any:
            called.append(name)
            return super().__getattribute__(name)

    class Holder(metaclass=Meta):
        class BoomError(ValueError):
            pass

    module = types.ModuleType("harness_test_lazy")
    module.__getattr__ = called.append  # type: ignore[method-assign]
    module.Holder = Holder  # type: ignore[attr-defined]
    Holder.__module__ = module.__name__
    Holder.BoomError.__module__ = module.__name__
    type.__setattr__(Holder.BoomError, "__qualname__", "Holder.BoomError")
    type.__setattr__(Holder, "__qualname__", "Holder")
    boom = Holder.BoomError
    sys.modules[module.__name__] = module
    try:
        called.clear()
        assert crossing_errors.find_class("harness_test_lazy.Missing") is None
        assert crossing_errors.find_class("harness_test_lazy.Holder.BoomError") is boom
        assert isinstance(rebuilt("harness_test_lazy.Holder.BoomError"), ValueError)
        assert called == []
    finally:
        del sys.modules[module.__name__]


def test_an_answers_own_class_is_a_remote_error() -> None:
    # the tests' module holds a stand-in for the answer's class, not the class
    module = types.ModuleType("__harness_test__")
    module.Lying = object()  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        found = rebuilt("__harness_test__.Lying", (print, module))
    finally:
        del sys.modules[module.__name__]
    assert type(found) is RemoteError
    assert found.args == (print, module)  # whatever was admitted, carried as data


@given(
    module=st.sampled_from(["", "builtins", "unittest", "unittest.case", "_pytest.outcomes"]),
    name=st.one_of(
        st.sampled_from(
            sorted(set(dir(builtins)) | set(dir(unittest.case)) | set(dir(_pytest.outcomes)))
        ),
        st.text(min_size=1, max_size=20),
    ),
    ends_iteration=st.booleans(),
)
@settings(max_examples=300, deadline=None)
def test_whatever_the_answer_names_never_comes_back_as_control_flow(
    module: str, name: str, ends_iteration: bool
) -> None:
    qualified = f"{module}.{name}" if module else name
    found = rebuilt(qualified, ends_iteration=ends_iteration)
    assert isinstance(found, Exception)
    if isinstance(found, StopIteration):
        # the one protocol end: only as ``next``'s
        assert ends_iteration
        return
    never_control_flow(found)
    assert isinstance(found, RemoteError) or type(found).__name__ in (
        crossing_errors.BUILTIN_EXCEPTIONS
    )


@pytest.mark.parametrize(
    "qualified", ["StopIteration", "KeyboardInterrupt", "SystemExit", "GeneratorExit"]
)
def test_what_an_exec_of_the_answer_raised_is_never_control_flow(qualified: str) -> None:
    # DS-1000 and the notebooks run the answer with ``exec``: the same rule
    with pytest.raises(RemoteError) as caught:
        guard._reraise({"type": qualified, "message": "m"})
    assert caught.value.qualified == qualified
    with pytest.raises(ValueError, match=r"^m$"):
        guard._reraise({"type": "ValueError", "message": "m"})


def test_an_os_error_keeps_its_file_names() -> None:
    report = {"type": "FileNotFoundError", "message": "m", "attrs": {"filename": "a.csv"}}
    found = crossing_errors.rebuild(report, (2, "No such file or directory"))
    assert isinstance(found, FileNotFoundError)
    assert found.filename == "a.csv"
    assert found.errno == 2
