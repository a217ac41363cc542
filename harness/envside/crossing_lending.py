"""Calls across the boundary, the check's end: what it sends the solution, what it lends.

BigCodeBench's and GitChameleon's tests call the solution's functions; CIBench's steps run
in one session. The tests, their expected values and the verdict stay in the check's
process; the solution's module (or session) lives in the solution's process
(``solution.py``). The modules ``crossing_*`` carry the calls between them:

- **check → solution** (here): arguments, and the state the solution would have shared
  with its tests in one process (``crossing_context``, ``crossing_patches``,
  ``crossing_pyplot``). Data travels by value (pickled); what is not data, or must stay
  the check's own object — a mock, a function of the test's, an open stream, an instance
  of a class the test defined — is *lent*: the solution gets a ``CheckerObject``
  (``crossing_borrowing``) whose calls and attribute reads come back here as callbacks,
  and run on the check's object (``perform``: so ``mock.assert_called_with`` sees them).
- **solution → check**: return values, exceptions (``crossing_errors``), callback
  arguments. Each is admitted by ``transport`` (default-deny) before the check sees it.
  What is not data comes back as an inert stand-in (``crossing_standins``); what the test
  handed over comes back as the test's own (``crossing_handed``).

Both ends run in the combo's interpreter (standard library only).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import marshal
import operator
import os
import pickle
import sys
import types
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Tuple

from .crossing_standins import SolutionStandIn

if TYPE_CHECKING:
    from .protocol import Json

# The first byte of a request of the calls across (a plain pickle starts with PROTO, 0x80).
MARK = b"@"

# Bound once, before any test runs: a test patches ``io.BytesIO`` or ``pickle.dumps`` for
# the code it tests, and the harness's own calls, made while its patches are active, must
# not reach its mocks.
_BytesIO = io.BytesIO
_pickle_dumps = pickle.dumps

# -- lending objects ---------------------------------------------------------------------


class Lent:
    """The objects one side has lent the other, by number. Only numbers handed out here
    mean anything: the other side names an object only by a number it was given."""

    def __init__(self) -> None:
        self.objects: Dict[int, Any] = {}
        self.numbers: Dict[int, int] = {}  # id(object) → its number, to lend it once

    def lend(self, obj: Any) -> int:
        number = self.numbers.get(id(obj))
        if number is None or self.objects.get(number) is not obj:
            number = len(self.objects) + 1
            self.objects[number] = obj
            self.numbers[id(obj)] = number
        return number

    def get(self, number: Any) -> Any:
        if type(number) is not int or number not in self.objects:
            raise KeyError("no object %r was lent" % (number,))
        return self.objects[number]


# The modules a check's tests live in (their classes and functions cannot be found by name
# in the solution's process, where the same name is the solution's module).
TEST_MODULES = {"__main__", "__test__"}


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


def _is_mock(obj: Any) -> bool:
    mock = sys.modules.get("unittest.mock")
    return mock is not None and isinstance(obj, mock.NonCallableMock)


_LENT_ALWAYS = (io.IOBase, types.GeneratorType)


def lends(obj: Any) -> bool:
    """Whether the check lends ``obj`` rather than sending a copy: a mock, an open stream,
    a generator, a function or class of the test's own (pickle could not find it by name
    there), a method bound to an object of the check's, an instance of a class the test
    defined. Library functions and classes travel by name, as pickle sends them."""
    if _is_mock(obj) or isinstance(obj, _LENT_ALWAYS):
        return True
    if isinstance(obj, (types.MethodType, types.BuiltinMethodType)):
        # a method goes as its object goes: lent with a lent object or a container of the
        # test's (``results.append`` handed over fills the test's own list), by value with
        # an object sent by value (a figure's callbacks, pickled with the figure); a
        # library's function, or a class's (``dict.fromkeys``), by name
        owner = getattr(obj, "__self__", None)
        if owner is None or isinstance(owner, types.ModuleType):
            return False
        if isinstance(owner, type):
            return isinstance(obj, types.MethodType) and lends(owner)
        return isinstance(owner, (list, dict, set, bytearray)) or lends(owner)
    if isinstance(obj, (type, types.FunctionType, staticmethod, classmethod)):
        return not findable(obj)
    return type(obj).__module__ in TEST_MODULES  # an instance of a class the test defined


class ToSolution(pickle.Pickler):
    """The check's pickler for what it sends the solution: copies of data, handles for
    what it lends (``lends``), the solution's own stand-ins by their number there. With
    ``code``, a function of the test's without a closure (one it hands the answer as an
    argument: ``task_func([f, g])``) goes as its code, to run there as the answer's own
    code would see it (its name and signature, bound to the answer's module)."""

    def __init__(self, file: Any, lent: Lent, lend_all: bool = False, code: bool = False) -> None:
        super().__init__(file, protocol=4)
        self.lent = lent
        self.lend_all = lend_all
        self.code = code

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, SolutionStandIn):
            return ("solution", object.__getattribute__(obj, "_number"))
        if type(obj) in PLAIN:
            return None
        if self.code and _as_code(obj):
            return None
        if self.lend_all or lends(obj):
            return ("checker", self.lent.lend(obj), describe(obj))
        return None

    def reducer_override(self, obj: Any) -> Any:
        if self.code and _as_code(obj):
            return _function, (
                marshal.dumps(obj.__code__),
                obj.__name__,
                obj.__qualname__,
                obj.__defaults__,
                obj.__kwdefaults__,
                obj.__doc__,
                _annotations(obj),
            )
        if isinstance(obj, BaseException):
            return _exception_state(obj)
        return NotImplemented


def _as_code(obj: Any) -> bool:
    return type(obj) is types.FunctionType and obj.__closure__ is None and not findable(obj)


# The module the functions of the test's that travel as code are bound to (the answer's).
CODE_GLOBALS: List[Dict[str, Any]] = []


def _annotations(function: types.FunctionType) -> Dict[str, Any]:
    """A function's annotations as they travel: names and classes pickle finds by name
    (``int``, ``"str"``); anything else would stop the call, and is left out."""
    return {
        key: value
        for key, value in getattr(function, "__annotations__", {}).items()
        if isinstance(value, str) or value is None or (isinstance(value, type) and findable(value))
    }


def _function(
    code: bytes,
    name: str,
    qualname: str,
    defaults: Any,
    kwdefaults: Any,
    doc: Any,
    annotations: Any = None,
) -> types.FunctionType:
    namespace = CODE_GLOBALS[-1] if CODE_GLOBALS else {"__builtins__": builtins}
    function = types.FunctionType(marshal.loads(code), namespace, name, defaults)
    function.__kwdefaults__ = kwdefaults
    function.__qualname__ = qualname
    function.__doc__ = doc
    function.__annotations__ = dict(annotations or {})  # ``inspect.signature`` reads them
    return function


def _exception_state(exc: BaseException) -> Any:
    """An exception as the other side can raise it: its class by name, its arguments and
    what of its attributes pickles (``HTTPError`` will not pickle whole); a class only
    this side can name becomes a ``RuntimeError`` with its message."""
    cls = type(exc)
    if not findable(cls):
        return RuntimeError, ("%s: %s" % (cls.__name__, exc),)
    # its plain attributes only (``code``, ``msg``): not the streams and closers an
    # exception may carry, which would be lent and outlive the call
    state = {k: v for k, v in list(getattr(exc, "__dict__", {}).items()) if plain(v)}
    args = []
    for argument in exc.args:
        try:
            _pickle_dumps(argument, protocol=4)
            args.append(argument)
        except Exception:
            args.append(repr(argument))
    return _rebuilt_exception, (cls, tuple(args), state)


def _rebuilt_exception(cls: type, args: Tuple[Any, ...], state: Dict[str, Any]) -> BaseException:
    exc: BaseException = cls.__new__(cls)  # type: ignore[call-overload]  # args as data
    exc.args = args
    with contextlib.suppress(Exception):
        exc.__dict__.update(state)
    return exc


# What pickles as data on both sides, without a class of its own to find.
PLAIN = frozenset({type(None), bool, int, float, complex, str, bytes, tuple, list, dict})
SCALARS = (type(None), bool, int, float, complex, str, bytes)


def plain(value: Any, depth: int = 0) -> bool:
    """A scalar, or a list or tuple of them (two levels deep): a value both sides read alike."""
    if isinstance(value, SCALARS):
        return True
    if isinstance(value, (list, tuple)) and depth < 2:
        return all(plain(v, depth + 1) for v in value)
    return False


# The special methods a lent object's stand-in has exactly when the object's class has them
# (``os.fspath`` of a stream that has no path must fail there as here).
PROTOCOL = (
    "__call__", "__enter__", "__exit__", "__iter__", "__next__", "__len__", "__getitem__",
    "__setitem__", "__contains__", "__bool__", "__int__", "__float__", "__index__", "__fspath__",
)  # fmt: skip


def describe(obj: Any) -> Json:
    """What the solution's stand-in for a lent object may claim to be: the class a mock
    was specified with (so that ``isinstance`` holds there as here), the special methods
    its class has, and a function's name and signature (``inspect`` reads them)."""
    spec = getattr(obj, "_spec_class", None) if _is_mock(obj) else None
    claimed = None
    if isinstance(spec, type) and findable(spec):
        claimed = [spec.__module__, spec.__qualname__]
    cls = type(obj)
    described: Json = {
        "class": claimed,
        # (every class has a __call__, its metaclass's: what counts is whether obj has one)
        "has": [
            name
            for name in PROTOCOL
            if (callable(obj) if name == "__call__" else getattr(cls, name, None) is not None)
        ],
    }
    if isinstance(obj, (types.FunctionType, types.MethodType)):
        described["face"] = _face(obj)
    return described


def _face(function: Any) -> Json:
    """A function's name and parameters, as data."""
    import inspect

    face: Json = {k: getattr(function, k, None) for k in ("__name__", "__qualname__", "__doc__")}
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return face
    parameters = []
    for p in signature.parameters.values():
        default: Any = None
        if p.default is not inspect.Parameter.empty:
            # a plain value as it is; anything else only shown (that there is one crosses)
            scalar = isinstance(p.default, SCALARS)
            default = ["value", p.default] if scalar else ["shown", repr(p.default)[:200]]
        parameters.append([p.name, int(p.kind), default])
    face["parameters"] = parameters
    return face


def dumps_to_solution(value: Any, lent: Lent, code: bool = False) -> bytes:
    """``value`` for the solution: data by value, the rest lent. A value that will not
    pickle at all is lent whole."""
    buffer = _BytesIO()
    try:
        ToSolution(buffer, lent, code=code).dump(value)
    except Exception:
        buffer = _BytesIO()
        ToSolution(buffer, lent, lend_all=True).dump(value)
    return buffer.getvalue()


# -- callbacks: what the solution may do with what the check lent it ------------------------


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


# Operations on a lent object, by name: each is what the solution's stand-in does when its
# code uses the object that way. The arguments are admitted data.
_OPERATIONS: Dict[str, Callable[..., Any]] = {
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


def _mock_machinery(obj: Any) -> frozenset[str]:
    """The names a mock's own classes define (``assert_called_with``, ``return_value``,
    ``call_args_list``, ``reset_mock``…): the test's instruments, not the mocked API."""
    names: set[str] = set()
    for cls in type(obj).__mro__:
        if cls.__module__ == "unittest.mock":
            names.update(vars(cls))
    return frozenset(names)


def _reachable(obj: Any, name: Any) -> str:
    """'' when the solution may read or set ``name`` on the lent ``obj``, else why not:
    never a special name (``__globals__``, ``__self__``, ``__dict__``), and on a mock, none
    of the mock's own machinery."""
    if type(name) is not str or not name.isidentifier():
        return "not an attribute name"
    if name.startswith("__") and name.endswith("__"):
        return "special attributes of what the check lent are out of reach"
    if _is_mock(obj) and (name.startswith("_mock_") or name in _mock_machinery(obj)):
        return "a mock's own machinery (%s) belongs to the test" % name
    return ""


def perform(obj: Any, operation: str, name: Any, args: Any, kwargs: Any) -> Any:
    """Do what the solution asked with the lent ``obj`` (its arguments admitted)."""
    if operation in ("getattr", "setattr"):
        why = _reachable(obj, name)
        if why:
            raise AttributeError(why)
        if operation == "getattr":
            return getattr(obj, name)
        setattr(obj, name, args[0] if args else None)
        return None
    function = _OPERATIONS.get(operation)
    if function is None:
        raise TypeError("the check does not %r what it lent" % operation)
    return function(obj, *args, **kwargs)
