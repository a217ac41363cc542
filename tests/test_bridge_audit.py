"""A generated audit of the bridge: everything an answer can ask of what a test lends it.

For every kind of object a test may lend (mocks of every flavour, ``mock_open``'s handle,
streams, a real open file, callbacks and closures, the test's classes and their instances,
a ``TestCase``, generators, bound methods, a connected socket, a database cursor, library
objects that will not pickle), the audit asks what the answer's process can ask through its handle — every operation a
stand-in forwards, every attribute name the object, its class or a list of the names
attacks use reach for, calls with a few arguments, iteration, ``with``, setting every
public name to the answer's code — and sends each result back as the checker would
(``crossing_lending.dumps_to_solution``). What comes back is lent again and walked in turn,
to a bounded depth.

It asserts that nothing is ever lent but the kinds ``crossing_kinds`` allows, each what
its kind says (never a frame, code, a module, function globals, builtins, a traceback or a
dict of the checker's), that everything else is data (it pickles by value) or refused,
and that no behaviour of the check's objects was replaced. ``harness/envside`` is standard
library only, so both ends run in this process.
"""

from __future__ import annotations

import functools
import io
import json
import os
import sys
import tempfile
import types
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from harness.envside.bridge import crossing_kinds, crossing_lending
from harness.envside.bridge.crossing_kinds import KINDS, OPERATIONS, NotLendableError, perform
from harness.envside.bridge.crossing_standins import SolutionStandIn

# What a test module looks like: the objects below are made in a module named as the
# checker names the tests' (``__test__``), so their classes and functions are the test's own.
TEST_MODULE = """
import csv, functools, io, sqlite3, sys, unittest
from unittest import mock

EXPECTED = {"answer": 42, "frame": None}


class Session:
    def __init__(self):
        self.headers = {"accept": "json"}
        self.hooks = [lambda response: response]
        self.cases = []

    def get(self, url, timeout=5):
        return Response(self)


class Response:
    status_code = 200

    def __init__(self, session=None):
        self.payload = {"value": 41}
        self.session = session
        self.module = sys  # an attribute a test would never lend on purpose
        self.expected = EXPECTED

    def json(self):
        return self.payload

    @property
    def ok(self):
        return True


class Case(unittest.TestCase):
    def test_it(self):
        self.assertEqual(EXPECTED["answer"], 42)


def helper(x=0, *args, **kwargs):
    return EXPECTED


def closure():
    secret = EXPECTED

    def inner(x=0, *args, **kwargs):
        return secret

    return inner


def generator():
    expected = EXPECTED
    frame = sys._getframe()
    yield 1
    yield expected
    yield frame


def side_effect(*args, **kwargs):
    return sys._getframe()
"""


def _test_module() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "__test__"}
    exec(compile(TEST_MODULE, "<tests>", "exec"), namespace)
    return namespace


def corpus(folder: Path) -> dict[str, Any]:
    """What a test may lend an answer, by name."""
    t = _test_module()
    session = t["Session"]()
    response = t["Response"](session)
    case = t["Case"]("test_it")
    session.cases.append(case)
    configured = mock.MagicMock()
    configured.get.return_value.json.return_value = {"value": 41}
    configured.module = sys
    configured.frame = sys._getframe()
    configured.fetch.side_effect = t["side_effect"]
    with_globals = mock.MagicMock(side_effect=t["helper"])
    stream = (folder / "real.txt").open("w+", encoding="utf-8")
    stream.write("line\n")
    stream.seek(0)
    ends = __import__("socket").socketpair()
    return {
        "MagicMock": mock.MagicMock(),
        "Mock": mock.Mock(),
        "NonCallableMagicMock": mock.NonCallableMagicMock(),
        "mock with spec": mock.Mock(spec=t["Response"]),
        "autospec of a function": mock.create_autospec(t["helper"]),
        "configured mock": configured,
        "mock with a side effect of the test's": with_globals,
        "mock_open handle": mock.mock_open(read_data="a\nb\n")(),
        "StringIO": io.StringIO("a\nb\n"),
        "BytesIO": io.BytesIO(b"a\nb\n"),
        "real file": stream,
        "test function": t["helper"],
        "closure": t["closure"](),
        "lambda": lambda x=0: t["EXPECTED"],
        "partial": functools.partial(t["helper"], 1),
        "test class": t["Response"],
        "test instance": response,
        "test instance holding others": session,
        "TestCase": case,
        "bound method": response.json,
        "container method": [1, 2].append,
        "generator": t["generator"](),
        "sqlite connection": __import__("sqlite3").connect(":memory:"),
        "sqlite cursor": __import__("sqlite3").connect(":memory:").cursor(),
        "connected socket": ends[0],
        "its other end": ends[1],
        "csv writer": __import__("csv").writer(io.StringIO()),
    }


# The names attacks reach for, besides every name the object and its class list.
PROBES = (
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "ag_frame", "f_globals", "f_locals",
    "f_builtins", "f_back", "f_code", "tb_frame", "tb_next", "co_consts", "__globals__",
    "__builtins__", "__code__", "__closure__", "__self__", "__func__", "__wrapped__",
    "__dict__", "__class__", "__module__", "__mro__", "__bases__", "__subclasses__",
    "__init__", "__reduce__", "__reduce_ex__", "__getattribute__", "__traceback__",
    "__context__", "__cause__", "__loader__", "__spec__", "_mock_children", "_mock_parent",
    "_mock_new_parent", "_mock_side_effect", "_mock_wraps", "_spec_class", "side_effect",
    "return_value", "method_calls", "mock_calls", "call_args", "_outcome", "_testMethodName",
    "_cleanups", "func", "args", "keywords", "module", "expected", "session", "cases",
    "hooks", "frame", "buffer", "raw", "connection", "cursor", "dialect",
)  # fmt: skip
CALL_ARGUMENTS: tuple[tuple[Any, ...], ...] = ((), ("x",), (0,))
MAX_DEPTH = 2
MAX_HANDLES = 40  # per object of the corpus (a mock's children are endless)


class _Foreign(SolutionStandIn):
    """What an answer would set: a stand-in for code of its own."""


def _kind_holds(obj: Any, kind: str) -> bool:
    """Whether ``obj`` is what a loan of ``kind`` says it is."""
    return crossing_kinds.kind_of(obj) == kind or (
        kind == crossing_kinds.METHOD
        and isinstance(obj, (types.MethodType, types.BuiltinMethodType))
    )


# What never may be lent, whatever the kind claimed: the checker's own machinery.
NEVER = (
    types.FrameType,
    types.CodeType,
    types.ModuleType,
    types.TracebackType,
    types.MappingProxyType,
    dict,
    type(sys.__dict__),
)


@dataclass
class Audit:
    handles: int = 0
    operations: int = 0
    refused: int = 0  # by the kind's capabilities or the name's form
    not_lendable: int = 0  # the result was neither data nor a kind
    lent: list[tuple[str, str]] = field(default_factory=list)  # (kind, type) of each loan
    wrong: list[str] = field(default_factory=list)


def _operations(target: Any) -> Iterator[tuple[str, Any, tuple[Any, ...]]]:
    names = set(PROBES)
    for source in (target, type(target)):
        try:
            names.update(n for n in dir(source) if isinstance(n, str))
        except Exception:
            continue
    for name in sorted(names):
        yield "getattr", name, ()
    for operation in OPERATIONS:
        if operation == "call":
            for arguments in CALL_ARGUMENTS:
                yield operation, None, arguments
        elif operation in ("getitem", "contains"):
            yield operation, None, (0,)
        elif operation == "next":  # the items one by one, past the data to what is not
            for _ in range(4):
                yield operation, None, ()
        elif operation != "setitem":
            yield operation, None, ()
    for name in sorted(n for n in names if not n.startswith("_")):
        yield "setattr", name, (_Foreign(0, None, "function"),)


def audit(name: str, obj: Any) -> Audit:
    found = Audit()
    lent = crossing_lending.Lent()
    try:
        crossing_lending.dumps_to_solution(((obj,), {}), lent)  # lent as a test's argument
    except NotLendableError:
        found.not_lendable += 1  # not even lent: a call with it errs in the checker
        return found
    depth = dict.fromkeys(lent.objects, 0)
    queue = list(lent.objects)
    behaviour = {n: getattr(type(lent.get(n)), "__dict__", {}).copy() for n in lent.objects}
    while queue and found.handles < MAX_HANDLES:
        number = queue.pop(0)
        target, kind = lent.get(number), lent.kind(number)
        found.handles += 1
        for operation, attribute, arguments in _operations(target):
            found.operations += 1
            try:
                result = perform(
                    target,
                    kind,
                    operation,
                    attribute,
                    arguments,
                    {},
                    foreign=lambda value: isinstance(value, SolutionStandIn),
                )
            except (AttributeError, TypeError) as exc:
                if "lent" in str(exc) or "machinery" in str(exc) or "behaviour" in str(exc):
                    found.refused += 1
                continue
            except BaseException:
                continue  # the object's own failure (a mock's side effect, a closed file)
            before = set(lent.objects)
            try:
                crossing_lending.dumps_to_solution(("reply", "value", result), lent)
            except NotLendableError:
                found.not_lendable += 1
                continue
            except Exception as exc:
                found.wrong.append(f"{name}: {operation} {attribute}: {type(exc).__name__}")
                continue
            for new in sorted(set(lent.objects) - before):
                depth[new] = depth[number] + 1
                behaviour[new] = getattr(type(lent.get(new)), "__dict__", {}).copy()
                if depth[new] <= MAX_DEPTH:
                    queue.append(new)
    for number, obj_lent in lent.objects.items():
        kind = lent.kind(number)
        found.lent.append((kind, type(obj_lent).__name__))
        if kind not in KINDS or not _kind_holds(obj_lent, kind):
            found.wrong.append(f"{name}: lent a {type(obj_lent).__name__} as {kind!r}")
        if isinstance(obj_lent, NEVER):
            found.wrong.append(f"{name}: lent the checker's {type(obj_lent).__name__}")
        if not crossing_kinds.is_mock(obj_lent) and not isinstance(obj_lent, type):
            # no attribute set through a loan hides behaviour of the object's class
            hidden = [
                attribute
                for attribute, value in getattr(obj_lent, "__dict__", {}).items()
                if isinstance(value, SolutionStandIn) and attribute in behaviour.get(number, {})
            ]
            if hidden:
                found.wrong.append(f"{name}: the answer replaced {hidden}")
    return found


def audit_apart(name: str, folder: Path) -> Audit:
    """``audit`` of one object of the corpus, in a forked child: what an answer may ask
    includes calling whatever public method the object has (a test case's ``run``, a
    stream's ``close``), and that must not touch the process running the tests."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            found = asdict(audit(name, corpus(folder)[name]))
        except BaseException as exc:
            found = asdict(Audit(wrong=[f"{name}: the audit failed: {exc!r}"]))
        os.write(write_fd, json.dumps(found).encode())
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    if not data:
        return Audit(wrong=[f"{name}: the audit's process ended without a word"])
    found = json.loads(data)
    return Audit(**{**found, "lent": [tuple(pair) for pair in found["lent"]]})


@pytest.fixture(scope="module")
def audited() -> Iterator[dict[str, Audit]]:
    with tempfile.TemporaryDirectory() as folder:
        objects = corpus(Path(folder))
        for name in ("real file", "connected socket", "its other end"):
            objects[name].close()  # (each audit makes its own, in its child)
        yield {name: audit_apart(name, Path(folder)) for name in objects}


def test_nothing_but_the_allowed_kinds_is_ever_lent(audited: dict[str, Audit]) -> None:
    wrong = [w for a in audited.values() for w in a.wrong]
    assert wrong == []


def test_the_audit_is_not_vacuous(audited: dict[str, Audit]) -> None:
    assert len(audited) >= 20
    assert sum(a.handles for a in audited.values()) >= 300
    assert sum(a.operations for a in audited.values()) >= 30_000
    # what attacks reach for was asked, and refused: by capability, or as no kind
    assert sum(a.refused for a in audited.values()) >= 10_000
    assert sum(a.not_lendable for a in audited.values()) >= 10
    kinds = {kind for a in audited.values() for kind, _ in a.lent}
    assert kinds == set(KINDS)


@pytest.mark.parametrize(
    "name",
    ["configured mock", "test instance", "generator", "mock with a side effect of the test's"],
)
def test_the_ways_in_attacks_used_are_closed(audited: dict[str, Audit], name: str) -> None:
    """A generator's frame, an instance's module, a mock's frame: asked, never lent."""
    lent_types = {t for _, t in audited[name].lent}
    assert not lent_types & {"frame", "module", "code", "dict", "traceback"}
    assert audited[name].not_lendable + audited[name].refused > 0


@pytest.mark.parametrize("name", ["sqlite connection", "csv writer"])
def test_a_library_object_that_will_not_pickle_is_never_lent(
    audited: dict[str, Audit], name: str
) -> None:
    """A connection's public methods would load code into the checker
    (``load_extension``): refused as an argument, not lent whole."""
    assert audited[name].lent == []
    assert audited[name].not_lendable == 1
