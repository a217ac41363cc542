"""What the check may lend the solution, and what each kind of loan lets it do.

A test hands the answer objects that must stay its own: a mock it will question, an open
stream, a callback, an instance of a class it defined. Across the boundary these are
*lent*: the answer holds a handle, and each use of it is a callback that runs here, on
the check's object (``crossing_lending``). Lending is default-deny, by kind:

- a **mock** (``unittest.mock``): calls, and by name only its children and what the test
  configured on it (``_mock_reach``), never its machinery (``assert_*``, ``return_value``,
  ``side_effect``, ``call_args``, ``method_calls``, ``_spec_class``…: what unittest.mock's
  classes define and what a fresh mock holds on itself, computed); on a mock that wraps a
  real object (``Mock(wraps=obj)``: each child runs ``obj``'s attribute here) only the
  names ``obj``'s own kind of loan lends, nothing of an object not lent; the special
  methods its class has;
- a **stream** (``io``): its public attributes and methods, iteration, ``with``;
- an **instance** of a class the test defined: its public attributes and methods, the
  special methods its class has;

What the answer may *set*, on a mock or an instance and nothing else (``settable``): only
**inert data** (``inert``: None, bool, int, float, complex, str, bytes, and lists, tuples,
dicts, sets of those, bounded; NumPy arrays and scalars of a dtype without objects) — never
a value that carries attributes or code (a dict subclass with instance attributes, a
``partial``, a builtin function), nothing the check lent (a mock, an instance, a stand-in
of any loan) and none of the answer's own code; and only over a name whose present value is
absent or inert data: never a mock's child (one it holds, or the test configured), never a
name unittest.mock keeps or the class defines as behaviour (a method, a property), never an
attribute that holds a loan (``account.primary = account.backup``). So the code under test
sets data (``response.encoding = 'utf-8'``, ``account.balance = 70``) and nothing it sets
can answer for a mock (``client.send = {...}`` after the test's ``client.send`` was made,
refused; before, the test's ``client.send.assert_called_once_with`` then errs on data).
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
form (public or not) — on a mock, from where the name lives: a child, what the test
configured, or unittest.mock's own — never from a list of names that may not be reached.

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


# A fresh mock's instance ``__dict__`` keys, by the unittest.mock class it was built from.
_FRESH: Dict[type, FrozenSet[str]] = {}


def _mock_module() -> Any:
    return sys.modules.get("unittest.mock")


def _own_class(obj: Any, cls: type) -> bool:
    """Whether ``cls`` is the class unittest.mock made for this one mock: each mock is an
    instance of a subclass of its own (``NonCallableMock.__new__``, named as the class it
    was asked of), where the test configures it (``type(m).status = PropertyMock(…)``)."""
    bases = cls.__bases__
    return (
        cls is type(obj)
        and cls.__module__ == "unittest.mock"
        and not findable(cls)
        and bool(bases)
        and bases[-1].__name__ == cls.__name__
    )


def _library_classes(obj: Any) -> Tuple[type, ...]:
    """unittest.mock's own classes a mock is made of (``MagicMock``, ``Mock``,
    ``CallableMixin``, ``NonCallableMock``, ``Base``…), never the class it made for this
    one mock."""
    return tuple(
        cls
        for cls in type(obj).__mro__
        if cls.__module__ == "unittest.mock" and not _own_class(obj, cls)
    )


def _fresh_keys(cls: type) -> FrozenSet[str]:
    """Every name a mock freshly built from unittest.mock's ``cls`` holds in its instance
    ``__dict__`` (``method_calls``, ``_spec_class``, ``_mock_children``…: what ``__init__``
    sets on each mock), computed in this interpreter, once per class."""
    found = _FRESH.get(cls)
    if found is None:
        found = frozenset(vars(cls()))
        _FRESH[cls] = found
    return found


def mock_machinery(obj: Any) -> FrozenSet[str]:
    """A mock's own machinery, computed from unittest.mock's classes it is made of: every
    name they define (``assert_called_with``, ``return_value``, ``call_args_list``,
    ``reset_mock``, ``configure_mock``…) and every name a mock freshly built from each of
    them holds in its instance ``__dict__`` (``method_calls``, ``_spec_class``,
    ``_spec_signature``, ``_mock_children``…). The test's instruments, not the mocked API."""
    names: set[str] = set()
    mock = _mock_module()
    for cls in _library_classes(obj):
        names.update(vars(cls))
        if mock is not None and issubclass(cls, mock.NonCallableMock):
            names.update(_fresh_keys(cls))
    return frozenset(names)


def _mock_reach(obj: Any, name: str) -> str:
    """'' when ``name`` on the mock ``obj`` is one the answer may use, else why not.

    Allowed, and nothing else: a child mock (one the test made or attached, or the one the
    mock makes on first use of a name it has nothing by: what the code under test calls);
    an attribute the test set on the mock (or the answer did, through the loan), which a
    fresh mock does not have; what the test put on the class unittest.mock made for this
    mock (``type(m).status = PropertyMock(…)``); a method of a subclass of a mock the test
    chose (``class FakeResponse(MagicMock)``). Never the mock's own machinery
    (``mock_machinery``: what unittest.mock's classes define, what a fresh mock holds), a
    name unittest.mock keeps for itself (``_mock_…``), nor what a class that is not a
    mock's lends a subclass (its code would run in the checker on the answer's arguments)."""
    mock = _mock_module()
    try:
        machinery = mock_machinery(obj)
    except Exception as exc:  # a mock class that cannot be built bare: nothing is known
        return "a mock whose machinery cannot be told apart (%s): nothing of it lent" % (
            type(exc).__name__,
        )
    if name.startswith("_mock_") or name in machinery:
        return "a mock's own machinery (%s) belongs to the test" % name
    if name in vars(obj):
        return ""  # a child, or an attribute the test (or the answer) set
    wraps = _wrapped(obj)
    if wraps is not None and not _configured_child(obj, name):
        # each child of ``Mock(wraps=real)`` runs ``real``'s attribute here: the names
        # ``real``'s own kind of loan lends, nothing of an object that is not lent (a
        # wrapped sqlite3 connection's SQL, a wrapped socket's ``dup``)
        return _wrapped_reach(wraps, name)
    for cls in type(obj).__mro__:
        if name in vars(cls):
            if _own_class(obj, cls) or cls.__module__ == "builtins":
                return ""  # configured by the test on the mock's own class
            if mock is not None and issubclass(cls, mock.NonCallableMock):
                return ""  # a subclass of a mock (its every library name is machinery)
            return "%s is %s's, not the mocked API's: not lent" % (name, cls.__qualname__)
    # a name it has nothing by: the child the mock makes on first use (or its spec refuses)
    return ""


def _wrapped(obj: Any) -> Any:
    """What the mock ``obj`` wraps (``Mock(wraps=…)``), or None."""
    try:
        return vars(obj).get("_mock_wraps")
    except TypeError:
        return None


def _configured_child(obj: Any, name: str) -> bool:
    """Whether the test attached a mock of its own as ``name`` on ``obj`` (one that wraps
    nothing), rather than the mock making it from what it wraps."""
    children = vars(obj).get("_mock_children")
    child = children.get(name) if isinstance(children, dict) else None
    return is_mock(child) and _wrapped(child) is None


def _wrapped_reach(wraps: Any, name: str) -> str:
    """'' when a mock that wraps ``wraps`` may lend its child ``name`` (which runs
    ``wraps``'s attribute ``name`` here): what ``wraps``'s own kind of loan lends by name."""
    kind = kind_of(wraps)
    if "getattr" not in CAPABILITIES.get(kind, frozenset()):
        return "%s wraps %s, which lends nothing by name: %s not lent" % (
            "the mock",
            type(wraps).__name__,
            name,
        )
    why = reachable(wraps, kind, name)
    if not why and kind == INSTANCE:
        why = _inherited(type(wraps), name)
    return why


_SCALARS = frozenset([type(None), bool, int, float, complex, str, bytes])
_SEQUENCES = frozenset([list, tuple, set, frozenset])
_INERT_ITEMS = 100000  # how many items a value set on a loan may hold
_INERT_DEPTH = 100


def _numpy_data(value: Any) -> bool:
    """Whether ``value`` is a NumPy array (exactly) or scalar of a dtype without objects."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return False
    cls = type(value)
    if cls is not numpy.ndarray and not (
        isinstance(value, numpy.generic) and cls.__module__ == "numpy"
    ):
        return False
    dtype = getattr(value, "dtype", None)
    return isinstance(dtype, numpy.dtype) and not dtype.hasobject


def inert(value: Any) -> bool:
    """Whether ``value`` is inert data: None, bool, int, float, complex, str, bytes, and
    lists, tuples, sets, frozensets and dicts of those (their exact types, bounded in
    items and depth), NumPy arrays and scalars of a dtype without objects. Never a value
    with attributes of its own or code: a subclass, a function, a mock, a stand-in."""
    stack = [(value, 0)]
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > _INERT_ITEMS or depth > _INERT_DEPTH:
            return False
        cls = type(item)
        if cls in _SCALARS:
            continue
        if cls in _SEQUENCES:
            stack.extend((each, depth + 1) for each in item)
            continue
        if cls is dict:
            for key, each in item.items():
                stack.append((key, depth + 1))
                stack.append((each, depth + 1))
            continue
        if _numpy_data(item):
            continue
        return False
    return True


_ABSENT = object()


def _present(obj: Any, kind: str, name: str) -> Any:
    """What ``name`` on the loan ``obj`` holds now, read without running anything of its
    (no property, no ``__getattr__``, no child made): a mock's child, an instance's or its
    class's attribute; ``_ABSENT`` for nothing."""
    try:
        namespace = vars(obj)
    except TypeError:
        namespace = {}
    if kind == MOCK:
        children = namespace.get("_mock_children")
        if isinstance(children, dict) and name in children:
            return children[name]
    if name in namespace:
        return namespace[name]
    for cls in type(obj).__mro__:
        if name in vars(cls):
            return vars(cls)[name]
    return _ABSENT


def _replaces_behaviour(obj: Any, name: str) -> bool:
    """Whether setting ``name`` on the mock ``obj`` would hide behaviour a class of it
    defines beside unittest.mock's (a method of the test's subclass, one the test put on
    the mock's own class); a ``PropertyMock`` takes the value as a call it records."""
    mock = _mock_module()
    for cls in type(obj).__mro__:
        if name in vars(cls):
            found = vars(cls)[name]
            if mock is not None and isinstance(found, mock.PropertyMock):
                return False
            return callable(found) or hasattr(type(found), "__get__")
    return False


def reachable(obj: Any, kind: str, name: Any) -> str:
    """'' when the solution may read or set ``name`` on the loan ``obj``, else why not:
    never a special name (``__globals__``, ``__dict__``); a public attribute only, but on a
    mock, whose names are the mocked API's, what ``_mock_reach`` allows."""
    if type(name) is not str or not name.isidentifier():
        return "not an attribute name"
    if name.startswith("__") and name.endswith("__"):
        return "special attributes of what the check lent are out of reach"
    if kind == MOCK:
        # a private name of the mocked API is the API's (turtle reads Turtle._screen): a
        # child mock, as every name of a mock that is neither its machinery nor another's
        return _mock_reach(obj, name)
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
    not. Only a mock or an instance takes attributes, only inert data (``inert``), and
    only over a name that holds nothing or inert data now: never a mock's child, never a
    loan held by the test's object (``account.primary = account.backup``), never where the
    class defines behaviour (``self.assertEqual = …`` on a test). ``foreign``: whether
    ``value`` is the solution's own (a stand-in: never inert)."""
    if kind not in (MOCK, INSTANCE):
        return "what the check lent as a %s takes no attributes" % kind
    if kind == MOCK:
        # never behaviour of a subclass of the test's (the test calls it to check)
        if _replaces_behaviour(obj, name):
            return "%s is behaviour of the check's object, not the answer's to replace" % name
    elif _behaviour(type(obj), name):
        return "%s is behaviour of the check's object, not the answer's to replace" % name
    if foreign(value) or not inert(value):
        # a mock of the test's hung on another (``client.get = client.post``), data
        # dressed as a mock (an ``OrderedDict`` carrying ``assert_called_once_with``), a
        # builtin, the answer's code: only data the test could not mistake for its own
        return (
            "an attribute of the check's object may be set to data alone (None, numbers, "
            "strings, bytes, and lists, tuples, sets, dicts of those), not a %s"
            % type(value).__name__
        )
    present = _present(obj, kind, name)
    if present is not _ABSENT and not inert(present) and not _property_mock(obj, name):
        # a mock's child (the test asks it what it was called with), a loan the test's
        # object holds: the test's own, never the answer's to replace
        return "%s holds the check's %s, not the answer's to replace" % (
            name,
            "mock" if is_mock(present) else type(present).__name__,
        )
    return ""


def _property_mock(obj: Any, name: str) -> bool:
    """Whether ``name`` is a ``PropertyMock`` the test put on the mock's own class: setting
    it is a call it records (the test asks it what was set)."""
    mock = _mock_module()
    for cls in type(obj).__mro__:
        if name in vars(cls):
            return mock is not None and isinstance(vars(cls)[name], mock.PropertyMock)
    return False


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
