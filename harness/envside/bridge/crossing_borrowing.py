"""Calls across the boundary, the solution's end, in its own process: what the check lent
it, what it reads and what it sends back.

What the check lent arrives as a ``CheckerObject``: everything done with it is a callback
to the check over the ``Channel``, on the check's own object. ``FromChecker`` reads what
the check sends; ``ToChecker`` writes what goes back, keeping here what is the answer's
own and not data (a generator, a function or class it defined, an instance of such a
class, an open stream) and naming it by a number: the check sees a stand-in for it
(``crossing_standins``).
"""

from __future__ import annotations

import importlib
import io
import math
import os
import pickle
import threading
import types
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Optional

from .crossing_handed import RECEIVED, unchanged_number, which_nan_constant
from .crossing_lending import PLAIN, Lent

if TYPE_CHECKING:
    from ..protocol import Json

# Bound once, before any call: a test's patches are carried here while a call runs
# (``crossing_patches``), and the harness's own pickling must not reach them.
_BytesIO = io.BytesIO

# -- what the check lent ---------------------------------------------------------------------


class CheckerObject:
    """In the solution's process: something the check lent it. Everything done with it is
    a callback to the check, on the check's own object. Its special methods are those of
    the lent object's class (``checker_object`` makes the class that has just those)."""

    __slots__ = ("_harness_claimed", "_harness_face", "_harness_number")

    def __init__(self, number: int, description: Any) -> None:
        description = description if isinstance(description, dict) else {}
        face = description.get("face")
        object.__setattr__(self, "_harness_number", number)
        object.__setattr__(self, "_harness_claimed", _claimed_class(description.get("class")))
        object.__setattr__(self, "_harness_face", face if isinstance(face, dict) else None)

    def _harness(self, operation: str, *args: Any, **kwargs: Any) -> Any:
        number = object.__getattribute__(self, "_harness_number")
        return CHANNEL.callback(number, operation, "", args, kwargs)

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        claimed = object.__getattribute__(self, "_harness_claimed")
        return claimed if claimed is not None else type(self)

    def __getattr__(self, name: str) -> Any:
        face = object.__getattribute__(self, "_harness_face")
        if face is not None and name in ("__name__", "__qualname__"):
            return face.get(name) or "<function>"
        if face is not None and name == "__signature__":
            return _signature(face)
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        number = object.__getattribute__(self, "_harness_number")
        return CHANNEL.callback(number, "getattr", name, (), {})

    def __setattr__(self, name: str, value: Any) -> None:
        number = object.__getattribute__(self, "_harness_number")
        CHANNEL.callback(number, "setattr", name, (value,), {})

    def __str__(self) -> str:
        return str(self._harness("str"))

    def __repr__(self) -> str:
        return str(self._harness("repr"))

    def __reduce__(self) -> Any:
        raise TypeError("what the check lent goes back to it by reference only")


def _forward(operation: str, result: Optional[type] = None) -> Callable[..., Any]:
    def special(self: CheckerObject, *args: Any, **kwargs: Any) -> Any:
        value = self._harness(operation, *args, **kwargs)
        return result(value) if result is not None else value

    return special


# name of the special method → what it does on the check's object
_SPECIAL: Dict[str, Callable[..., Any]] = {
    "__call__": _forward("call"),
    "__enter__": _forward("enter"),
    "__exit__": lambda self, *_info: self._harness("exit"),
    "__iter__": _forward("iter"),
    "__next__": _forward("next"),
    "__len__": _forward("len", int),
    "__getitem__": _forward("getitem"),
    "__setitem__": _forward("setitem"),
    "__contains__": _forward("contains", bool),
    "__bool__": _forward("bool", bool),
    "__int__": _forward("int", int),
    "__float__": _forward("float", float),
    "__index__": _forward("index", int),
    "__fspath__": _forward("fspath"),
}
_CLASSES: Dict[FrozenSet[str], type] = {}


def checker_object(number: int, description: Any) -> CheckerObject:
    """The stand-in for what the check lent, with the special methods its class has."""
    has = description.get("has") if isinstance(description, dict) else None
    wanted = (
        frozenset(n for n in has if n in _SPECIAL) if isinstance(has, list) else frozenset(_SPECIAL)
    )
    cls = _CLASSES.get(wanted)
    if cls is None:
        namespace: Dict[str, Any] = {name: _SPECIAL[name] for name in wanted}
        namespace["__slots__"] = ()
        cls = _CLASSES[wanted] = type("CheckerObject", (CheckerObject,), namespace)
    return cls(number, description)  # type: ignore[no-any-return]


class _Default:
    """A default the check's function has, shown as it is there (only that it has one
    crosses, when it is not a plain value)."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


def _signature(face: Dict[str, Any]) -> Any:
    import inspect

    parameters = face.get("parameters")
    if not isinstance(parameters, list):
        raise AttributeError("__signature__")  # noqa: TRY004 - what getattr() must raise
    made = []
    for name, kind, default in parameters:
        value: Any = inspect.Parameter.empty
        if isinstance(default, list) and len(default) == 2:
            value = default[1] if default[0] == "value" else _Default(str(default[1]))
        made.append(inspect.Parameter(name, inspect._ParameterKind(kind), default=value))  # noqa: SLF001
    return inspect.Signature(made)


def _claimed_class(claimed: Any) -> Optional[type]:
    if not isinstance(claimed, list) or len(claimed) != 2:
        return None
    module_name, qualname = claimed
    try:
        found: Any = importlib.import_module(str(module_name))
        for part in str(qualname).split("."):
            found = getattr(found, part)
    except Exception:
        return None
    return found if isinstance(found, type) else None


class FromChecker(pickle.Unpickler):
    """The solution's reader of what the check sends: lent objects become
    ``CheckerObject``s, its own objects come back as themselves."""

    def __init__(self, file: Any, kept: Lent) -> None:
        super().__init__(file)
        self.kept = kept

    def persistent_load(self, pid: Any) -> Any:
        kind = pid[0]
        if kind == "checker":
            return checker_object(pid[1], pid[2] if len(pid) > 2 else None)
        if kind == "solution":
            return self.kept.get(pid[1])
        raise pickle.UnpicklingError("unknown persistent id %r" % (kind,))


def loads_from_checker(data: bytes, kept: Lent) -> Any:
    return FromChecker(_BytesIO(data), kept).load()


# -- what goes back --------------------------------------------------------------------------


def _kind(obj: Any, top: bool = False) -> Optional[str]:
    """How the solution's process keeps ``obj`` rather than sending it: None to send it.

    Only what is the answer's own is kept: a generator, a function or class it defined,
    an instance of such a class, an open stream; and a returned iterator (``top``).
    What a library holds inside its objects (a cycle of colours, a formatter's lambda)
    travels as pickle sends it, or not at all."""
    if type(obj) in PLAIN or isinstance(obj, CheckerObject):
        return None
    if isinstance(obj, types.GeneratorType):
        return "generator"  # consumed where it is, item by item, as the test asks
    if top and hasattr(type(obj), "__next__"):
        return "iterator"
    if isinstance(obj, (types.FunctionType, types.MethodType, type)) and (
        getattr(obj, "__module__", None) in SOLUTION_MODULES
    ):
        return "function"  # the solution's own: calling it is a call there
    if isinstance(obj, io.IOBase) or type(obj).__module__ in SOLUTION_MODULES:
        return "object"  # an open stream, an instance of a class the solution defined
    return None


# The solution's modules in its own process (their classes cannot be named by the check).
SOLUTION_MODULES = {"__main__"}


class ToChecker(pickle.Pickler):
    """The solution's pickler for what it sends back: lent objects by their number, what
    is not data (a generator, a function of its own) kept here and named by a number."""

    def __init__(self, file: Any, kept: Lent, top: Any = None) -> None:
        super().__init__(file, protocol=4)
        self.kept = kept
        self.top = top  # the returned value itself: an iterator of any kind stays here

    def persistent_id(self, obj: Any) -> Any:
        if RECEIVED and id(obj) in RECEIVED:
            number = unchanged_number(obj)
            if number is not None:
                return ("sent", number)  # the check's own object, as it sent it
        if type(obj) is float and math.isnan(obj):
            which = which_nan_constant(obj)
            return None if which is None else ("nan", which)
        if type(obj) in PLAIN:
            return None
        if isinstance(obj, CheckerObject):
            return ("checker", object.__getattribute__(obj, "_harness_number"))
        kind = _kind(obj, top=obj is self.top and self.top is not None)
        if kind is None:
            return None
        return (kind, self.kept.lend(obj))


def dumps_to_checker(value: Any, kept: Lent, top: Any = None) -> bytes:
    buffer = _BytesIO()
    ToChecker(buffer, kept, top).dump(value)
    return buffer.getvalue()


class Channel:
    """The solution's way back to the check while a request runs: a callback is a report
    of its own on the request's pipe, answered by a reply on the request socket (and the
    check may, while it works out the answer, send requests of its own first)."""

    def __init__(self) -> None:
        self.requests: Any = None
        self.report_fds: List[int] = []  # the pipes of the requests being served, innermost last
        self.serve: Optional[Callable[[bytes, int], Any]] = None  # serves a nested request
        self.send: Optional[Callable[[int, Json, List[bytes]], bool]] = None
        self.receive: Optional[Callable[[Any], Any]] = None
        self.kept = Lent()
        self.lock = threading.RLock()

    def callback(self, number: int, operation: str, name: str, args: Any, kwargs: Any) -> Any:
        if not self.report_fds or self.send is None or self.receive is None:
            raise RuntimeError("what the check lent can only be used while the check waits")
        try:
            blob = dumps_to_checker((tuple(args), dict(kwargs)), self.kept)
        except Exception as exc:
            raise TypeError(
                "the arguments cannot be sent to the check: %s: %s" % (type(exc).__name__, exc)
            ) from None
        header = {"kind": "callback", "number": number, "op": operation, "name": name, "blobs": 1}
        # one callback at a time: the answer's threads (each calling a mock) take turns
        with self.lock:
            if not self.send(self.report_fds[-1], header, [blob]):
                os._exit(70)  # the check is gone
            while True:
                received = self.receive(self.requests)
                if received is None:
                    os._exit(70)
                request, fd = received
                if fd < 0:
                    outcome, value = loads_from_checker(request, self.kept)[1:3]
                    if outcome == "raise":
                        raise value
                    return value
                assert self.serve is not None
                self.serve(request, fd)


CHANNEL = Channel()
