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
import pickle
import types
from typing import TYPE_CHECKING, Any, Dict, List, Tuple

from .crossing_kinds import (
    KINDS,
    TEST_MODULES,
    NotLendableError,
    findable,
    is_mock,
    kind_of,
    prepare,
)
from .crossing_standins import SolutionStandIn

__all__ = ["TEST_MODULES", "Lent", "NotLendableError", "findable", "lends"]

if TYPE_CHECKING:
    from ..protocol import Json

# The first byte of a request of the calls across (a plain pickle starts with PROTO, 0x80).
MARK = b"@"

# Bound once, before any test runs: a test patches ``io.BytesIO`` or ``pickle.dumps`` for
# the code it tests, and the harness's own calls, made while its patches are active, must
# not reach its mocks.
_BytesIO = io.BytesIO
_pickle_dumps = pickle.dumps

# -- lending objects ---------------------------------------------------------------------


class Lent:
    """The objects one side has lent the other, by number, each with its kind
    (``crossing_kinds``). Only numbers handed out here mean anything: the other side names
    an object only by a number it was given."""

    def __init__(self) -> None:
        self.objects: Dict[int, Any] = {}
        self.kinds: Dict[int, str] = {}
        self.numbers: Dict[int, int] = {}  # id(object) → its number, to lend it once

    def lend(self, obj: Any, kind: str = "") -> int:
        number = self.numbers.get(id(obj))
        if number is None or self.objects.get(number) is not obj:
            prepare(obj, kind)
            number = len(self.objects) + 1
            self.objects[number] = obj
            self.numbers[id(obj)] = number
        if kind:
            self.kinds[number] = kind
        return number

    def get(self, number: Any) -> Any:
        if type(number) is not int or number not in self.objects:
            raise KeyError("no object %r was lent" % (number,))
        return self.objects[number]

    def forget(self, numbers: set[int]) -> None:
        """Take back what was lent under ``numbers`` (never handed over)."""
        for number in numbers:
            obj = self.objects.pop(number)
            self.kinds.pop(number, None)
            if self.numbers.get(id(obj)) == number:
                del self.numbers[id(obj)]

    def kind(self, number: Any) -> str:
        """The kind ``number`` was lent as ('' for one lent by another way)."""
        self.get(number)
        return self.kinds.get(number, "")

    def kind_of(self, obj: Any) -> str:
        """The kind ``obj`` was lent as, if it was lent ('' otherwise)."""
        number = self.numbers.get(id(obj))
        if number is None or self.objects.get(number) is not obj:
            return ""
        return self.kinds.get(number, "")


def lends(obj: Any) -> bool:
    """Whether the check lends ``obj`` rather than sending a copy (``crossing_kinds``)."""
    return bool(kind_of(obj))


class ToSolution(pickle.Pickler):
    """The check's pickler for what it sends the solution: copies of data, handles for
    what it lends (``crossing_kinds``), the solution's own stand-ins by their number
    there. With ``code``, a function of the test's without a closure (one it hands the
    answer as an argument: ``task_func([f, g])``) goes as its code, to run there as the
    answer's own code would see it (its name and signature, bound to the answer's module)."""

    def __init__(self, file: Any, lent: Lent, code: bool = False) -> None:
        super().__init__(file, protocol=4)
        self.lent = lent
        self.code = code

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, SolutionStandIn):
            return ("solution", object.__getattribute__(obj, "_number"))
        if type(obj) in PLAIN:
            return None
        if self.code and _as_code(obj):
            return None
        kind = self.lent.kind_of(obj) or kind_of(obj, self.lent.kind_of)
        if kind:
            return ("checker", self.lent.lend(obj, kind), describe(obj))
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
    spec = getattr(obj, "_spec_class", None) if is_mock(obj) else None
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
    """``value`` for the solution: data by value, the rest lent by its kind. What is
    neither (a frame, a module, an object that will not pickle) is refused
    (``NotLendableError``): nothing is lent whole because it would not pickle."""
    buffer = _BytesIO()
    before = set(lent.objects)
    try:
        ToSolution(buffer, lent, code=code).dump(value)
    except Exception as exc:
        lent.forget(set(lent.objects) - before)  # lent for a value that never went
        if isinstance(exc, NotLendableError):
            raise
        raise NotLendableError(
            "the check sends only data and lends only %s: %s" % (", ".join(KINDS), exc)
        ) from None
    return buffer.getvalue()
