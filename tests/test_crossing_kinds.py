"""What the check may lend, and what each kind of loan lets the answer do
(harness/envside/bridge/crossing_kinds.py). The module is standard library only; these tests run
it in this process.

``tests/test_bridge_audit.py`` walks every loan a test may make, generated; these pin the
rules one by one.
"""

from __future__ import annotations

import collections
import functools
import io
import socket
import sqlite3
import unittest
from typing import Any
from unittest import mock

import numpy as np
import pytest

from harness.envside.bridge.crossing_kinds import (
    CALLABLE,
    CURSOR,
    INSTANCE,
    ITERATOR,
    METHOD,
    MOCK,
    SOCKET,
    STREAM,
    NotLendableError,
    kind_of,
    perform,
    prepare,
)


class Helper:
    """A class of the test's own (its module is not ``__main__`` here: pinned below)."""

    secret = "expected"

    def __init__(self) -> None:
        self.value = 3

    def method(self) -> int:
        return self.value

    @property
    def shown(self) -> int:
        return self.value


Helper.__module__ = "__test__"


def test_the_kinds_of_what_a_test_lends() -> None:
    def helper() -> int:
        return 1

    assert kind_of(mock.MagicMock()) == MOCK
    assert kind_of(mock.mock_open(read_data="x")()) == MOCK
    assert kind_of(io.StringIO()) == STREAM
    assert kind_of(helper) == CALLABLE  # a closure of a test: pickle cannot find it
    assert kind_of(lambda: 1) == CALLABLE
    assert kind_of(Helper) == CALLABLE  # the test's class: a constructor, nothing more
    assert kind_of(Helper()) == INSTANCE
    assert kind_of(Helper().method) == METHOD
    assert kind_of([].append) == METHOD  # bound to a container of the check's
    assert kind_of(x for x in [1]) == ITERATOR


def test_data_and_library_functions_and_classes_are_no_loan() -> None:
    for value in (1, "a", [1, 2], {"a": (1, 2.5)}, None, b"x", dict.fromkeys, len, io.StringIO):
        assert kind_of(value) == "", value


@pytest.mark.parametrize(
    "name",
    [
        "assert_called_with",
        "assert_not_called",
        "reset_mock",
        "return_value",
        "side_effect",
        "called",
        "call_count",
        "call_args_list",
        "mock_calls",
        "configure_mock",
        "_mock_children",
        "_mock_return_value",
        "__class__",
        "__dict__",
    ],
)
def test_a_mocks_machinery_is_out_of_reach(name: str) -> None:
    target = mock.MagicMock()
    for operation in ("getattr", "setattr"):
        with pytest.raises(AttributeError):
            perform(target, MOCK, operation, name, (0,), {})


def test_the_mocked_api_is_reachable() -> None:
    target = mock.MagicMock()
    # a private name of the mocked API is the API's (turtle reads Turtle._screen)
    assert isinstance(perform(target, MOCK, "getattr", "_screen", (), {}), mock.MagicMock)
    target.status_code = 200
    target.json.return_value = {"a": 1}
    assert perform(target, MOCK, "getattr", "status_code", (), {}) == 200
    json_method = perform(target, MOCK, "getattr", "json", (), {})
    assert perform(json_method, MOCK, "call", None, (), {}) == {"a": 1}
    json_method.assert_called_once_with()
    perform(target, MOCK, "setattr", "timeout", (5,), {})
    assert target.timeout == 5
    with pytest.raises(TypeError):
        perform(target, MOCK, "delete_everything", None, (), {})


# Every flavour of mock a test lends, and what a fresh one of each holds on itself.
MOCK_CLASSES = [
    mock.Mock,
    mock.MagicMock,
    mock.NonCallableMock,
    mock.NonCallableMagicMock,
    mock.AsyncMock,
    mock.PropertyMock,
]
# the records a test asserts on (red team F4: ``method_calls`` was reachable and settable)
RECORDS = ["method_calls", "mock_calls", "call_args", "call_args_list", "call_count", "called"]
MACHINERY = [
    pytest.param(cls, name, id=f"{cls.__name__}.{name}")
    for cls in MOCK_CLASSES
    for name in sorted({*vars(cls()), *RECORDS})
    if not name.startswith("__")
]


@pytest.mark.parametrize(("cls", "name"), MACHINERY)
def test_what_a_fresh_mock_holds_on_itself_is_its_machinery(cls: type, name: str) -> None:
    # ``NonCallableMock.__init__`` puts these on the instance, not the class: computed
    # from a fresh mock, so whatever a Python version adds there is refused too
    target = cls()
    before = vars(target).get(name)
    for operation in ("getattr", "setattr"):
        with pytest.raises(AttributeError, match="a mock's own machinery"):
            perform(target, MOCK, operation, name, ([("get", ("http://x",), {})],), {})
    assert vars(target).get(name) is before


def test_a_forged_record_never_stands_for_a_call() -> None:
    class Secret:
        pass

    client = mock.Mock()
    forged = [("get", ("http://x",), {"timeout": 5})]
    for name in ("method_calls", "mock_calls"):
        with pytest.raises(AttributeError):
            perform(client, MOCK, "setattr", name, (forged,), {})
    get = perform(client, MOCK, "getattr", "get", (), {})
    for name, value in (("call_args", forged[0][1:]), ("call_count", 1), ("called", True)):
        with pytest.raises(AttributeError):
            perform(get, MOCK, "setattr", name, (value,), {})
    assert client.method_calls == [] and client.mock_calls == []
    assert not client.get.called and client.get.call_count == 0
    # nor is the test's class behind a spec handed over (as a callable of the test's)
    specced = mock.Mock(spec=Secret)
    for name in ("_spec_class", "_spec_signature", "_mock_methods"):
        with pytest.raises(AttributeError):
            perform(specced, MOCK, "getattr", name, (), {})


def test_an_honest_call_through_a_loan_is_recorded() -> None:
    client = mock.Mock()
    get = perform(client, MOCK, "getattr", "get", (), {})
    perform(get, MOCK, "call", None, ("http://x",), {"timeout": 5})
    close = perform(client, MOCK, "getattr", "close", (), {})
    perform(close, MOCK, "call", None, (), {})
    assert client.method_calls == [mock.call.get("http://x", timeout=5), mock.call.close()]
    assert client.mock_calls == client.method_calls
    client.get.assert_called_once_with("http://x", timeout=5)
    assert client.get.call_count == 1 and client.close.called


def test_a_mock_lends_what_the_test_configured() -> None:
    target = mock.MagicMock()
    target.status_code = 200  # data the test set
    target.configure_mock(reason="OK")
    type(target).encoding = mock.PropertyMock(return_value="utf-8")  # on the mock's class
    target.session = mock.Mock(name="session")  # a child the test attached
    assert perform(target, MOCK, "getattr", "status_code", (), {}) == 200
    assert perform(target, MOCK, "getattr", "reason", (), {}) == "OK"
    assert perform(target, MOCK, "getattr", "encoding", (), {}) == "utf-8"
    assert perform(target, MOCK, "getattr", "session", (), {}) is target.session
    perform(target, MOCK, "setattr", "encoding", ("latin-1",), {})  # recorded, as it would be
    vars(type(target))["encoding"].assert_called_with("latin-1")
    perform(target, MOCK, "setattr", "status_code", (404,), {})  # the code under test's data
    assert target.status_code == 404


def test_a_loan_cannot_hang_one_of_the_tests_mocks_on_another() -> None:
    # ``client.get = client.post`` after calling ``post``: the test's
    # ``client.get.assert_called_once_with`` would read ``post``'s record
    client = mock.MagicMock()
    post = perform(client, MOCK, "getattr", "post", (), {})
    perform(post, MOCK, "call", None, ("http://x",), {})
    for value in (post, mock.MagicMock(), client):
        with pytest.raises(AttributeError, match="may be set to data alone"):
            perform(client, MOCK, "setattr", "get", (value,), {})
    perform(client, MOCK, "setattr", "head", (5,), {})  # data: the test's assertion then errs
    assert client.head == 5
    client.get.assert_not_called()
    with pytest.raises(AttributeError, match="holds the check's mock"):
        perform(client, MOCK, "setattr", "get", (5,), {})  # a child now: the test's


def test_a_tests_own_mock_subclass_keeps_its_behaviour() -> None:
    class Recorder(mock.MagicMock):
        def verify(self) -> bool:
            return bool(self.seen)

    Recorder.__module__ = "__test__"
    recorder = Recorder()
    recorder.seen = []
    assert perform(recorder, MOCK, "getattr", "verify", (), {})() is False
    with pytest.raises(AttributeError, match="is behaviour of the check's object"):
        perform(recorder, MOCK, "setattr", "verify", (lambda: True,), {})
    with pytest.raises(AttributeError, match="a mock's own machinery"):
        perform(recorder, MOCK, "getattr", "method_calls", (), {})


def test_a_subclass_of_a_mock_lends_its_methods_and_unittest_mock_keeps_its_machinery() -> None:
    # a GitChameleon test's module is not the check's (``__test__``): a subclass of a
    # mock is whoever's wrote it, its methods in reach, unittest.mock's names never
    class FakeResponse(mock.MagicMock):
        def json(self) -> dict[str, int]:
            return {"value": 41}

    class Mixed(sqlite3.Connection, mock.NonCallableMagicMock):  # a library's class mixed in
        pass

    FakeResponse.__module__ = "test_sample_901"
    response = FakeResponse()
    assert perform(response, MOCK, "getattr", "json", (), {})() == {"value": 41}
    with pytest.raises(AttributeError, match="is behaviour"):
        perform(response, MOCK, "setattr", "json", ({"value": 1},), {})
    for name in ("method_calls", "_spec_class", "configure_mock"):
        with pytest.raises(AttributeError, match="a mock's own machinery"):
            perform(response, MOCK, "getattr", name, (), {})
    mixed = Mixed(":memory:")
    with pytest.raises(AttributeError, match="not the mocked API's"):
        perform(mixed, MOCK, "getattr", "execute", (), {})


@pytest.mark.parametrize("kind", [CALLABLE, METHOD])
def test_a_callable_is_called_and_nothing_else(kind: str) -> None:
    def helper(x: int = 1) -> int:
        return x + 1

    target = helper if kind == CALLABLE else Helper().method
    assert perform(target, kind, "call", None, (), {}) in (2, 3)
    for name in ("__globals__", "__code__", "__closure__", "__self__", "__func__", "__dict__"):
        with pytest.raises((AttributeError, TypeError)):
            perform(target, kind, "getattr", name, (), {})
    for public in ("value", "method", "anything"):
        with pytest.raises(TypeError, match="cannot be used for 'getattr'"):
            perform(target, kind, "getattr", public, (), {})
    with pytest.raises(TypeError, match="cannot be used for 'setattr'"):
        perform(target, kind, "setattr", "x", (1,), {})
    with pytest.raises(TypeError, match="cannot be used for 'iter'"):
        perform(target, kind, "iter", None, (), {})


def test_an_iterator_gives_its_items_and_nothing_else() -> None:
    def secrets() -> Any:
        expected = "the test's expected value"
        yield 1
        yield expected

    generator = secrets()
    for name in ("gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "send", "throw"):
        with pytest.raises(TypeError, match="cannot be used for 'getattr'"):
            perform(generator, ITERATOR, "getattr", name, (), {})
    assert perform(generator, ITERATOR, "next", None, (), {}) == 1
    with pytest.raises(TypeError, match="cannot be used for 'call'"):
        perform(generator, ITERATOR, "call", None, (), {})


def test_a_stream_is_read_and_written_never_changed() -> None:
    stream = io.StringIO("a\nb\n")
    read = perform(stream, STREAM, "getattr", "read", (), {})
    assert read() == "a\nb\n"
    assert perform(stream, STREAM, "getattr", "closed", (), {}) is False
    for name in ("_CHUNK_SIZE", "__dict__", "__class__"):
        with pytest.raises(AttributeError):
            perform(stream, STREAM, "getattr", name, (), {})
    with pytest.raises(TypeError, match="cannot be used for 'setattr'"):
        perform(stream, STREAM, "setattr", "newlines", ("x",), {})


def test_an_instance_shows_its_public_attributes_and_keeps_its_behaviour() -> None:
    kind = INSTANCE
    helper = Helper()
    assert perform(helper, kind, "getattr", "value", (), {}) == 3
    assert perform(helper, kind, "getattr", "secret", (), {}) == "expected"
    with pytest.raises(AttributeError, match="only the public attributes"):
        perform(helper, kind, "getattr", "_private", (), {})
    perform(helper, kind, "setattr", "value", (4,), {})  # data, where no behaviour is
    assert helper.value == 4
    for behaviour in ("method", "shown"):
        with pytest.raises(AttributeError, match="is behaviour of the check's object"):
            perform(helper, kind, "setattr", behaviour, (None,), {})
    with pytest.raises(AttributeError, match="may be set to data alone"):
        perform(helper, kind, "setattr", "value", ("code",), {}, foreign=lambda _v: True)


def test_a_tests_assertions_cannot_be_rebound_through_a_loan() -> None:
    class Case(unittest.TestCase):
        def test_it(self) -> None:
            self.assertIsNone(None)  # noqa: PT009 - a unittest case, as BigCodeBench's are

    case = Case("test_it")
    for name in ("assertEqual", "assertTrue", "fail", "run", "setUp"):
        with pytest.raises(AttributeError, match="is behaviour"):
            perform(case, INSTANCE, "setattr", name, (None,), {})
    with pytest.raises(AttributeError, match="only the public attributes"):
        perform(case, INSTANCE, "setattr", "_outcome", (None,), {})
    assert Case.assertEqual is unittest.TestCase.assertEqual


def test_a_lent_context_manager_is_entered_and_left_as_the_with_statement_does() -> None:
    # mock_open's handle leaves through a side effect of three arguments (Python 3.13 gives
    # it one): called as ``with`` calls it, never with the handle itself in front
    handle = mock.mock_open(read_data="x")()
    handle.__exit__.side_effect = lambda exctype, excinst, exctb: exctb is None
    assert perform(handle, MOCK, "enter", None, (), {}) is handle
    assert perform(handle, MOCK, "exit", None, (), {}) is True

    class Managed:
        def __enter__(self) -> str:
            return "entered"

        def __exit__(self, *exc: object) -> bool:
            return exc == (None, None, None)

    managed = Managed()
    assert perform(managed, INSTANCE, "enter", None, (), {}) == "entered"
    assert perform(managed, INSTANCE, "exit", None, (), {}) is True


def test_an_operation_no_kind_offers_is_refused() -> None:
    with pytest.raises(TypeError):
        perform(mock.MagicMock(), "", "call", None, (), {})
    with pytest.raises(TypeError):
        perform(mock.MagicMock(), MOCK, "delete_everything", None, (), {})


def test_a_method_a_tests_class_inherits_from_a_library_is_not_lent() -> None:
    class Connection(sqlite3.Connection):
        def rows(self) -> int:
            return 1

    Connection.__module__ = "__test__"
    connection = Connection(":memory:")
    assert perform(connection, INSTANCE, "getattr", "rows", (), {})() == 1  # the test's own
    for name in ("execute", "backup", "create_function", "set_authorizer"):
        with pytest.raises(AttributeError, match="which the test's class inherits"):
            perform(connection, INSTANCE, "getattr", name, (), {})
    assert perform(connection, INSTANCE, "getattr", "in_transaction", (), {}) is False  # data
    connection.close()

    class Table(dict):  # type: ignore[type-arg]
        pass

    Table.__module__ = "__test__"
    assert perform(Table(a=1), INSTANCE, "getattr", "keys", (), {})() == {"a": 1}.keys()


def test_a_socket_is_lent_by_its_data_methods_alone() -> None:
    mine, theirs = socket.socketpair()
    try:
        assert kind_of(mine) == SOCKET
        send = perform(mine, SOCKET, "getattr", "send", (), {})
        assert kind_of(send, lambda owner: SOCKET if owner is mine else "") == METHOD
        assert send(b"hello") == 5
        assert theirs.recv(16) == b"hello"
        # never what would pass a descriptor, duplicate the socket or reach its internals
        for name in ("sendmsg", "recvmsg", "dup", "detach", "makefile", "fileno", "_sock"):
            with pytest.raises(AttributeError):
                perform(mine, SOCKET, "getattr", name, (), {})
        for operation in ("call", "setattr", "iter", "getitem"):
            with pytest.raises(TypeError):
                perform(mine, SOCKET, operation, "x", (1,), {})
    finally:
        mine.close()
        theirs.close()


def test_a_cursor_runs_sql_on_its_own_databases_alone(tmp_path: Any) -> None:
    connection = sqlite3.connect(":memory:")
    cursor = connection.cursor()
    cursor.execute("CREATE TABLE t (x INTEGER)")
    assert kind_of(cursor) == CURSOR
    prepare(cursor, CURSOR)
    execute = perform(cursor, CURSOR, "getattr", "execute", (), {})
    assert execute("INSERT INTO t VALUES (1)") is cursor
    assert perform(cursor, CURSOR, "iter", None, (), {}) is cursor
    execute("SELECT x FROM t")
    assert perform(cursor, CURSOR, "getattr", "fetchall", (), {})() == [(1,)]
    execute("PRAGMA table_info(t)")  # asking about the schema
    # its connection (whose methods load code) is out of reach
    for name in ("connection", "row_factory", "setinputsizes"):
        with pytest.raises(AttributeError):
            perform(cursor, CURSOR, "getattr", name, (), {})
    # and its SQL is held to its connection's own (tests/test_crossing_sql.py)
    with pytest.raises(sqlite3.Error):
        execute(f"ATTACH DATABASE '{tmp_path / 'copy.db'}' AS other")
    assert not (tmp_path / "copy.db").exists()
    connection.close()
    # a cursor whose connection is closed cannot be limited: it is not lent
    with pytest.raises(NotLendableError):
        prepare(cursor, CURSOR)


# -- what the answer may set on a loan: inert data alone (red team 2, F1-F3) --------------


def _imitation() -> Any:
    """Data dressed as a mock: an OrderedDict carrying a mock's questions (red team 2 F1)."""
    fake: Any = collections.OrderedDict()
    fake.assert_called_once_with = hash
    fake.called = True
    fake.call_count = 1
    return fake


@pytest.mark.parametrize(
    "value",
    [
        _imitation(),
        functools.partial(hash),
        hash,
        dict,
        slice,
        collections.defaultdict(list),
        [1, _imitation()],
        {"a": (1, {"b": hash})},
        np.array([1, object()], dtype=object),
        Helper(),
        mock.Mock(),
    ],
)
def test_only_inert_data_is_set_on_a_loan(value: Any) -> None:
    client, helper = mock.MagicMock(), Helper()
    for target, kind in ((client, MOCK), (helper, INSTANCE)):
        with pytest.raises(AttributeError, match="may be set to data alone"):
            perform(target, kind, "setattr", "send", (value,), {})
    assert "send" not in vars(helper)


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        3,
        2.5,
        1j,
        "utf-8",
        b"x",
        [1, "a"],
        (1, (2,)),
        {1, 2},
        frozenset([3]),
        {"k": [1, {"n": None}]},
        np.arange(3),
        np.float64(1.5),
        np.int8(2),
    ],
)
def test_the_code_under_test_sets_data_where_nothing_of_the_tests_is(value: Any) -> None:
    response, helper = mock.MagicMock(), Helper()
    perform(response, MOCK, "setattr", "encoding", (value,), {})  # response.encoding = ...
    perform(response, MOCK, "setattr", "encoding", (value,), {})  # and again: data now
    perform(helper, INSTANCE, "setattr", "value", (value,), {})  # over data
    perform(helper, INSTANCE, "setattr", "fresh", (value,), {})  # where nothing was
    assert perform(helper, INSTANCE, "getattr", "fresh", (), {}) is value


def test_a_mocks_child_is_never_replaced_through_a_loan() -> None:
    # F1: the test's ``client.send.assert_called_once_with`` would ask the data
    client = mock.Mock()
    client.send  # noqa: B018 - made by the test (or by the answer reading it)
    with pytest.raises(AttributeError, match="may be set to data alone"):
        perform(client, MOCK, "setattr", "send", (_imitation(),), {})
    for value in (1, None, {"called": True}):
        with pytest.raises(AttributeError, match="holds the check's mock"):
            perform(client, MOCK, "setattr", "send", (value,), {})
    patched = mock.MagicMock()  # @patch('smtplib.SMTP'): mock_smtp.return_value.starttls
    server = patched.return_value
    server.starttls()
    with pytest.raises(AttributeError, match="holds the check's mock"):
        perform(server, MOCK, "setattr", "starttls", (None,), {})
    handle = mock.mock_open()()  # mock_open: m().write.assert_called_once_with('data')
    with pytest.raises(AttributeError, match="holds the check's mock"):
        perform(handle, MOCK, "setattr", "write", (0,), {})
    server.starttls.assert_called_once_with()


def test_a_tests_instance_keeps_the_loans_it_holds() -> None:
    # F2: ``account.primary, account.backup = account.backup, account.primary`` after
    # calling the wrong one; ``account.client`` replaced by data imitating a mock
    account: Any = Helper()
    account.primary, account.backup, account.client = mock.Mock(), mock.Mock(), mock.Mock()
    account.owner = Helper()
    for name in ("primary", "backup", "client", "owner"):
        for value in (account.backup, account.primary, {"charge": {"called": True}}, 0):
            with pytest.raises(AttributeError):
                perform(account, INSTANCE, "setattr", name, (value,), {})
    assert isinstance(account.owner, Helper)
    assert account.primary is not account.backup


class _Store:
    """A test's object a spy wraps (``Mock(wraps=store)``)."""

    def __init__(self) -> None:
        self.items: list[int] = []

    def add(self, item: int) -> int:
        self.items.append(item)
        return len(self.items)

    def _hidden(self) -> str:
        return "the test's"


_Store.__module__ = "__test__"


def test_a_spy_lends_what_its_wrapped_object_lends() -> None:
    # F3: each child of ``Mock(wraps=real)`` runs ``real``'s attribute in the checker
    connection = sqlite3.connect(":memory:")
    spy = mock.Mock(wraps=connection)
    for name in ("execute", "backup", "iterdump", "create_function", "cursor"):
        with pytest.raises(AttributeError, match="lends nothing by name"):
            perform(spy, MOCK, "getattr", name, (), {})
    sock = socket.socket()
    try:
        spied = mock.Mock(wraps=sock)
        for name in ("dup", "detach", "fileno", "sendmsg"):
            with pytest.raises(AttributeError, match="lends"):
                perform(spied, MOCK, "getattr", name, (), {})
        assert perform(spied, MOCK, "getattr", "gettimeout", (), {})() is None
    finally:
        sock.close()
    # a spy on the test's own object or function keeps working
    store = _Store()
    spy = mock.Mock(wraps=store)
    add = perform(spy, MOCK, "getattr", "add", (), {})
    assert perform(add, MOCK, "call", None, (4,), {}) == 1
    spy.add.assert_called_once_with(4)
    assert store.items == [4]
    with pytest.raises(AttributeError, match="only the public attributes"):
        perform(spy, MOCK, "getattr", "_hidden", (), {})
    spy.attached = mock.Mock(return_value=2)  # a child the test attached: its own
    assert perform(spy, MOCK, "getattr", "attached", (), {}) is spy.attached

    def double(x: int) -> int:
        return 2 * x

    function_spy = mock.Mock(wraps=double)
    assert perform(function_spy, MOCK, "call", None, (3,), {}) == 6
    function_spy.assert_called_once_with(3)
