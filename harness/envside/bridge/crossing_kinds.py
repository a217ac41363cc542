"""What the check may lend the solution, and what each kind of loan lets it do.

A test hands the answer objects that must stay its own: a mock it will question, an open
stream, a callback, an instance of a class it defined. Across the boundary these are
*lent*: the answer holds a handle, and each use of it is a callback that runs here, on
the check's object (``crossing_lending``). Lending is default-deny, by kind:

- a **mock** (``unittest.mock``): calls, its public attributes (child mocks, the values
  the test configured) but never its machinery (``assert_*``, ``return_value``,
  ``side_effect``, ``call_args``…), attributes set on it, the special methods its class has;
- a **stream** (``io``): its public attributes and methods, iteration, ``with``;
- an **instance** of a class the test defined: its public attributes and methods, the
  special methods its class has, attributes set to data where its class defines no
  behaviour by that name;
- a **callable** (a function, lambda or class of the test's) and a **method** bound to
  something lent or to a container of the test's: calls only;
- an **iterator** (a generator, or what iterating a loan gave): its items, one by one;
- a **socket** (``socket.socket``: a connection the test opened to its own server or
  client): its data methods alone (``send``, ``recv``, ``close``… ``LIBRARY_METHODS``);
- a **cursor** (``sqlite3.Cursor``): its SQL methods, rows and iteration alone, never its
  ``connection``; the SQL on the connection behind it held, once it is lent, to what
  ``crossing_sql`` allows (``prepare``).

Whatever an operation gives back is sent by value, or lent as one of these kinds; what
is neither (a frame, code, a module, function globals, builtins, a dict of the
checker's that will not pickle, a library's object that will not pickle — a database
connection, whose public methods would load code into the checker) is refused, never
lent: there is no fallback that lends whatever will not pickle. A task whose honest
tests need such a loan fails across the boundary with its reference too, and the run then
grades it as upstream does, in the answer's process (``harness/execute/admission.py``). The decision is made from the object's kind and the name's
form (public or not), never from a list of names that may not be reached.

Both ends run in the combo's interpreter (standard library only).
"""

from __future__ import annotations

import io
import operator
import os
import sys
import types
from typing import Any, Callable, Dict, FrozenSet, Tuple

from . import crossing_sql

MOCK, STREAM, INSTANCE = "mock", "stream", "instance"
CALLABLE, METHOD, ITERATOR = "callable", "method", "iterator"
SOCKET, CURSOR = "socket", "cursor"
KINDS = (MOCK, STREAM, INSTANCE, CALLABLE, METHOD, ITERATOR, SOCKET, CURSOR)

# A library's objects a test hands the answer to use, not to copy, by kind: (module,
# class), and the only attributes an answer may ask of one. Each is what the test's use
# needs, data in and data out (or the object itself again: ``cursor.execute`` returns
# it); nothing that reaches further (a cursor's ``connection``, whose public methods
# would load code into the checker; a socket's ``sendmsg``, which passes descriptors).
LIBRARY_CLASSES: Dict[str, Tuple[str, str]] = {
    SOCKET: ("socket", "socket"),
    CURSOR: ("sqlite3", "Cursor"),
}
LIBRARY_METHODS: Dict[str, FrozenSet[str]] = {
    SOCKET: frozenset(
        [
            "send",
            "sendall",
            "sendto",
            "recv",
            "recvfrom",
            "close",
            "shutdown",
            "settimeout",
            "gettimeout",
            "setblocking",
            "getblocking",
            "getpeername",
            "getsockname",
        ]
    ),
    CURSOR: frozenset(
        [
            "execute",
            "executemany",
            "executescript",
            "fetchone",
            "fetchmany",
            "fetchall",
            "close",
            "rowcount",
            "lastrowid",
            "description",
            "arraysize",
        ]
    ),
}

# The modules a check's tests live in (their classes and functions cannot be found by name
# in the solution's process, where the same name is the solution's module).
TEST_MODULES = {"__main__", "__test__"}


class NotLendableError(TypeError):
    """What an operation gave back is neither data nor a kind the check lends."""


def findable(obj: Any) -> bool:
    """Whether pickle would find ``obj`` (a function or class) by name in a process that
    imported the same libraries: its module is a library's, and holds it under its name."""
    module_name = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module_name, str) or not isinstance(qualname, str):
        return False
    if module_name in TEST_MODULES or "<" in qualname:
        return False
    found: Any = sys.modules.get(module_name)
    if found is None:
        return False
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found is obj


def is_mock(obj: Any) -> bool:
    mock = sys.modules.get("unittest.mock")
    return mock is not None and isinstance(obj, mock.NonCallableMock)


def kind_of(obj: Any, owner_kind: Callable[[Any], str] = lambda _owner: "") -> str:
    """The kind ``obj`` is lent as ('' when it is sent by value: data, or a library's
    function or class, which pickle sends by name). ``owner_kind`` tells the kind of an
    object lent already (a method bound to it is lent too)."""
    if is_mock(obj):
        return MOCK
    if isinstance(obj, io.IOBase):
        return STREAM
    if isinstance(obj, types.GeneratorType):
        return ITERATOR
    if isinstance(obj, (types.MethodType, types.BuiltinMethodType)):
        # a method goes as its object goes: lent with a lent object or a container of the
        # test's (``results.append`` handed over fills the test's own list); a library's
        # function, or a class's (``dict.fromkeys``), by name
        owner = getattr(obj, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return ""
        if isinstance(owner, type):
            lent = isinstance(obj, types.MethodType) and kind_of(owner, owner_kind)
            return METHOD if lent else ""
        if isinstance(owner, (list, dict, set, bytearray)):
            return METHOD
        return METHOD if owner_kind(owner) or kind_of(owner, owner_kind) else ""
    if isinstance(obj, (type, types.FunctionType, staticmethod, classmethod)):
        return "" if findable(obj) else CALLABLE
    if type(obj).__module__ in TEST_MODULES:
        return INSTANCE  # an instance of a class the test defined
    return library_kind(obj)


def library_kind(obj: Any) -> str:
    """The kind of a library's object lent by its methods alone ('' for none): looked
    up among the modules already imported (a test that opened a socket imported
    ``socket``)."""
    for kind, (module, name) in LIBRARY_CLASSES.items():
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(obj, cls):
            return kind
    return ""


def prepare(obj: Any, kind: str) -> None:
    """Before ``obj`` is first lent as ``kind``: take from what stands behind it the
    capabilities its methods would otherwise hand the answer beyond the object itself.
    A cursor's SQL runs on its connection: from now on that connection's SQL does only
    what ``crossing_sql`` allows. Where that cannot be done, nothing is lent."""
    if kind != CURSOR:
        return
    sqlite3 = sys.modules["sqlite3"]
    try:
        crossing_sql.limit(obj.connection)
    except sqlite3.Error as exc:
        raise NotLendableError("a cursor whose connection cannot be limited: %s" % exc) from None


# -- what the solution may do with a loan -------------------------------------------------


def _call(obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj(*args, **kwargs)


def _special(obj: Any, name: str) -> Any:
    """``obj``'s special method as the ``with`` statement finds it: on its type, bound
    only where the type's attribute is a descriptor (a mock's ``__exit__`` is a mock, called
    as it is: ``mock_open``'s takes the three exception arguments alone)."""
    attribute = getattr(type(obj), name)
    bind = getattr(type(attribute), "__get__", None)
    return bind(attribute, obj, type(obj)) if bind is not None else attribute


def _enter(obj: Any) -> Any:
    return _special(obj, "__enter__")()


def _exit(obj: Any) -> Any:
    return _special(obj, "__exit__")(None, None, None)


# Operations on a loan, by name: each is what the solution's stand-in does when its code
# uses the object that way. The arguments are admitted data.
OPERATIONS: Dict[str, Callable[..., Any]] = {
    "call": _call,
    "enter": _enter,
    "exit": _exit,
    "iter": iter,
    "next": next,
    "len": len,
    "getitem": operator.getitem,
    "setitem": operator.setitem,
    "contains": operator.contains,
    "bool": bool,
    "str": str,
    "repr": repr,
    "int": int,
    "float": float,
    "index": operator.index,
    "fspath": os.fspath,
}
_SHOWN = frozenset({"str", "repr", "bool"})
_SPECIAL = frozenset(OPERATIONS) - {"call"}
# What each kind of loan lets the solution do.
CAPABILITIES: Dict[str, FrozenSet[str]] = {
    MOCK: _SPECIAL | {"call", "getattr", "setattr"},
    STREAM: _SPECIAL | {"getattr"},
    INSTANCE: _SPECIAL | {"call", "getattr", "setattr"},
    CALLABLE: _SHOWN | {"call"},
    METHOD: _SHOWN | {"call"},
    ITERATOR: _SHOWN | {"iter", "next"},
    SOCKET: _SHOWN | {"getattr", "enter", "exit"},
    CURSOR: _SHOWN | {"getattr", "iter", "next"},
}


def mock_machinery(obj: Any) -> FrozenSet[str]:
    """The names a mock's own classes define (``assert_called_with``, ``return_value``,
    ``call_args_list``, ``reset_mock``…): the test's instruments, not the mocked API."""
    names: set[str] = set()
    for cls in type(obj).__mro__:
        if cls.__module__ == "unittest.mock":
            names.update(vars(cls))
    return frozenset(names)


def reachable(obj: Any, kind: str, name: Any) -> str:
    """'' when the solution may read or set ``name`` on the loan ``obj``, else why not:
    never a special name (``__globals__``, ``__dict__``); a public attribute only, but on a
    mock, whose every other name is the mocked API's, none of the mock's own machinery."""
    if type(name) is not str or not name.isidentifier():
        return "not an attribute name"
    if name.startswith("__") and name.endswith("__"):
        return "special attributes of what the check lent are out of reach"
    if kind == MOCK:
        # a private name of the mocked API is the API's (turtle reads Turtle._screen): a
        # child mock, as every name of a mock but its own machinery
        if name.startswith("_mock_") or name in mock_machinery(obj):
            return "a mock's own machinery (%s) belongs to the test" % name
        return ""
    if name.startswith("_"):
        return "only the public attributes of what the check lent are in reach (not %s)" % name
    if kind in LIBRARY_METHODS and name not in LIBRARY_METHODS[kind]:
        return "a %s the check lent lends %s only (not %s)" % (
            kind,
            ", ".join(sorted(LIBRARY_METHODS[kind])),
            name,
        )
    return ""


def _behaviour(cls: type, name: str) -> bool:
    """Whether ``cls`` defines ``name`` as behaviour: a method, a property, any
    descriptor or callable (what an attribute set on an instance would hide)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            found = vars(klass)[name]
            return callable(found) or hasattr(type(found), "__get__")
    return False


def _inherited(cls: type, name: str) -> str:
    """'' unless ``name`` is a method a test's class inherits from a library's class (one
    the test did not write, whose code would run in the checker on the answer's
    arguments: a connection's ``load_extension``); the test's own methods and those of
    Python's own types (a ``dict`` subclass's ``keys``) are in reach."""
    for klass in cls.__mro__:
        if name in vars(klass):
            if not callable(vars(klass)[name]):
                return ""
            if klass.__module__ in TEST_MODULES or klass.__module__ == "builtins":
                return ""
            return "%s is %s's method, which the test's class inherits: not lent" % (
                name,
                klass.__qualname__,
            )
    return ""


def settable(obj: Any, kind: str, name: str, value: Any, foreign: Callable[[Any], bool]) -> str:
    """'' when the solution may set ``name`` on the loan ``obj`` to ``value``, else why
    not. A mock takes public attributes (the code under test configures what it was
    given); an instance only data or something the check lent, and never where its class
    defines behaviour (``self.assertEqual = …`` on a test); nothing else takes any.
    ``foreign``: whether ``value`` is the solution's own (a stand-in)."""
    if kind == MOCK:
        return ""
    if kind == INSTANCE:
        if _behaviour(type(obj), name):
            return "%s is behaviour of the check's object, not the answer's to replace" % name
        if foreign(value):
            return "an attribute of the check's object may hold data, not the answer's code"
        return ""
    return "what the check lent as a %s takes no attributes" % kind


def perform(
    obj: Any,
    kind: str,
    operation: str,
    name: Any,
    args: Any,
    kwargs: Any,
    foreign: Callable[[Any], bool] = lambda _value: False,
) -> Any:
    """Do what the solution asked with the loan ``obj`` of ``kind`` (its arguments
    admitted as data), if that kind of loan lets it."""
    if operation not in CAPABILITIES.get(kind, frozenset()):
        raise TypeError("what the check lent as a %s cannot be used for %r" % (kind, operation))
    if operation in ("getattr", "setattr"):
        why = reachable(obj, kind, name)
        if not why and operation == "setattr":
            why = settable(obj, kind, name, args[0] if args else None, foreign)
        if not why and operation == "getattr" and kind == INSTANCE:
            why = _inherited(type(obj), name)
        if why:
            raise AttributeError(why)
        if operation == "getattr":
            return getattr(obj, name)
        setattr(obj, name, args[0] if args else None)
        return None
    return OPERATIONS[operation](obj, *args, **kwargs)
