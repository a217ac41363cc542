"""Calls across the boundary: a check that calls what the solution defined.

BigCodeBench's and GitChameleon's tests call the solution's functions; CIBench's steps run
in one session. The tests, their expected values and the verdict stay in the check's
process; the solution's module (or session) lives in the solution's process
(``solution.py``). A name the tests take from that module is a *stand-in* here: calling it
sends the arguments there and waits for what comes back.

What crosses, and how:

- **check → solution**: arguments, and the state the solution would have shared with its
  tests in one process (environment, working directory, global random states, the
  patches the test has active, redirected standard streams). Data travels by value
  (pickled); what is not data, or must stay the check's own object — a mock, a function
  of the test's, an open stream, an instance of a class the test defined — is *lent*: the
  solution gets a ``CheckerObject`` whose calls and attribute reads come back here as
  callbacks, and run on the check's object (so ``mock.assert_called_with`` sees them).
- **solution → check**: return values, exceptions, callback arguments. Each is admitted by
  ``transport`` (default-deny) before the check sees it. What is not data comes back as an
  inert stand-in: a function of the solution's (calling it is another call there), an
  iterator (its items are admitted one by one), or an opaque object that equals only
  itself. A stand-in never answers a comparison, a containment test or a method call of
  the solution's choosing: the check decides those on data.

Both sides of this module run in the combo's interpreter (standard library only).
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib
import importlib.util
import io
import marshal
import math
import operator
import os
import pickle
import random
import sys
import threading
import types
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Tuple

if TYPE_CHECKING:
    from .protocol import Json

# The first byte of a request of this module's (a plain pickle starts with PROTO, 0x80).
MARK = b"@"

# Bound once, before any test or solution runs: a test patches ``os.getcwd``, ``io.open``
# or ``random.getstate`` for the code it tests, and the harness's own calls on either side
# must not reach its mocks.
_getcwd, _chdir, _environ = os.getcwd, os.chdir, os.environ
_BytesIO = io.BytesIO
_getstate, _setstate = random.getstate, random.setstate
_pickle_dumps = pickle.dumps
_sha1 = hashlib.sha1

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


def _findable(obj: Any) -> bool:
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
        return not _findable(obj)
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
        if type(obj) in _PLAIN:
            return None
        if self.code and _as_code(obj):
            return None
        if self.lend_all or lends(obj):
            return ("checker", self.lent.lend(obj), _describe(obj))
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
    return type(obj) is types.FunctionType and obj.__closure__ is None and not _findable(obj)


# The module the functions of the test's that travel as code are bound to (the answer's).
CODE_GLOBALS: List[Dict[str, Any]] = []


def _annotations(function: types.FunctionType) -> Dict[str, Any]:
    """A function's annotations as they travel: names and classes pickle finds by name
    (``int``, ``"str"``); anything else would stop the call, and is left out."""
    return {
        key: value
        for key, value in getattr(function, "__annotations__", {}).items()
        if isinstance(value, str) or value is None or (isinstance(value, type) and _findable(value))
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
    if not _findable(cls):
        return RuntimeError, ("%s: %s" % (cls.__name__, exc),)
    # its plain attributes only (``code``, ``msg``): not the streams and closers an
    # exception may carry, which would be lent and outlive the call
    state = {k: v for k, v in list(getattr(exc, "__dict__", {}).items()) if _plain(v)}
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


_PLAIN = frozenset({type(None), bool, int, float, complex, str, bytes, tuple, list, dict})


# The special methods a lent object's stand-in has exactly when the object's class has them
# (``os.fspath`` of a stream that has no path must fail there as here).
PROTOCOL = (
    "__call__", "__enter__", "__exit__", "__iter__", "__next__", "__len__", "__getitem__",
    "__setitem__", "__contains__", "__bool__", "__int__", "__float__", "__index__", "__fspath__",
)  # fmt: skip


def _describe(obj: Any) -> Json:
    """What the solution's stand-in for a lent object may claim to be: the class a mock
    was specified with (so that ``isinstance`` holds there as here), the special methods
    its class has, and a function's name and signature (``inspect`` reads them)."""
    spec = getattr(obj, "_spec_class", None) if _is_mock(obj) else None
    claimed = None
    if isinstance(spec, type) and _findable(spec):
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
            plain = isinstance(p.default, _SCALARS)
            default = ["value", p.default] if plain else ["shown", repr(p.default)[:200]]
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


# -- the check's stand-ins for what the solution keeps --------------------------------------


class SolutionStandIn:
    """Something the solution keeps in its process, as the check sees it: never data.

    It equals only itself and hashes by identity; it answers no comparison, containment or
    truth test of the solution's choosing (those are decided here, on data)."""

    __slots__ = ("_kind", "_name", "_number", "_peer")

    def __init__(self, number: int, peer: Any, kind: str, name: str = "") -> None:
        object.__setattr__(self, "_number", number)
        object.__setattr__(self, "_peer", peer)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_name", name)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return self is not other

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        name = object.__getattribute__(self, "_name")
        return "<the solution's %s%s>" % (
            object.__getattribute__(self, "_kind"),
            " " + name if name else "",
        )

    def __setattr__(self, name: str, value: Any) -> None:
        kind = object.__getattribute__(self, "_kind")
        raise AttributeError("the solution's %s cannot be changed from the check" % kind)


class SolutionFunction(SolutionStandIn):
    """A function (or class) of the solution's: calling it is a call in its process."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        peer = object.__getattribute__(self, "_peer")
        return peer.call(("object", object.__getattribute__(self, "_number")), args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name in ("__name__", "__qualname__"):
            return object.__getattribute__(self, "_name") or "<solution>"
        raise AttributeError(name)


class SolutionIterator(SolutionStandIn):
    """An iterator (a generator) of the solution's: each item is admitted as it comes."""

    __slots__ = ()

    def __iter__(self) -> SolutionIterator:
        return self

    def __next__(self) -> Any:
        peer = object.__getattribute__(self, "_peer")
        return peer.operate(object.__getattribute__(self, "_number"), "next", ())


class SolutionGenerator(SolutionIterator):
    """A generator of the solution's: a test may ask whether it is one (and it is)."""

    __slots__ = ()

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return types.GeneratorType


class SolutionModule(types.ModuleType):
    """The solution's module as the check's tests import it (``from sample_1 import f``):
    each name is fetched from the solution's process when first asked for."""

    def __init__(self, name: str, peer: Any) -> None:
        super().__init__(name)
        self.__dict__["_harness_peer"] = peer

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        peer = self.__dict__["_harness_peer"]
        value = peer.fetch(self.__name__, name)
        self.__dict__[name] = value
        return value


def installed_module(name: str) -> Optional[types.ModuleType]:
    """The module ``name`` in the check's process: one it has imported, or one installed
    in the environment (its import runs the library's code, never a file the solution
    could have written: the working directory is not on the check's path)."""
    if not isinstance(name, str) or not all(part.isidentifier() for part in name.split(".")):
        return None
    found = sys.modules.get(name)
    if found is not None:
        return found
    try:
        spec = importlib.util.find_spec(name)
        origin = os.path.realpath(spec.origin) if spec is not None and spec.origin else ""
        if spec is None or origin.startswith(os.path.realpath(_getcwd()) + os.sep):
            return None
        return importlib.import_module(name)
    except Exception:
        return None


def stand_in(kind: Any, number: int, peer: Any, name: str = "") -> SolutionStandIn:
    cls = {
        "function": SolutionFunction,
        "iterator": SolutionIterator,
        "generator": SolutionGenerator,
    }.get(kind, SolutionStandIn)
    return cls(number, peer, kind if cls is not SolutionStandIn else "object", name)


# -- callbacks: what the solution may do with what the check lent it ------------------------


def _call(obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj(*args, **kwargs)


def _enter(obj: Any) -> Any:
    return type(obj).__enter__(obj)


def _exit(obj: Any) -> Any:
    return type(obj).__exit__(obj, None, None, None)


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


# -- exceptions the solution raised, rebuilt here ----------------------------------------


class RemoteError(Exception):
    """An exception the solution raised in its own process, named as it was there."""

    def __init__(self, qualified: str, message: str, remote_traceback: str = "") -> None:
        super().__init__(message)
        self.qualified = qualified
        self.remote_traceback = remote_traceback


def _exception_class(qualified: str) -> Optional[type]:
    """The class an exception of the solution's was raised as, found among what the check
    has imported; only ordinary exceptions (and ``SystemExit``): never one a test
    framework reads as an instruction (a skip, an interrupt)."""
    module_name, _, qualname = qualified.rpartition(".")
    if not module_name:
        found: Any = getattr(builtins, qualname, None)
    else:
        found = sys.modules.get(module_name)
        while found is None and "." in module_name:
            # ``a.b.C.D``: a class nested in a class
            module_name, _, outer = module_name.rpartition(".")
            qualname = outer + "." + qualname
            found = sys.modules.get(module_name)
        for part in qualname.split("."):
            found = getattr(found, part, None)
    if not isinstance(found, type) or not issubclass(found, BaseException):
        return None
    if not issubclass(found, Exception) and found is not SystemExit:
        return None  # KeyboardInterrupt, GeneratorExit, pytest's outcomes
    unittest = sys.modules.get("unittest")
    if unittest is not None and issubclass(found, unittest.SkipTest):
        return None
    return found


def rebuild(report: Json, args: Any) -> BaseException:
    """The exception the solution raised, as the check may catch it: its own class where
    the check knows that class, with the arguments it was raised with where they were
    admitted as data; else a ``RemoteError`` under its name."""
    qualified = str(report.get("type", "Exception"))[:300]
    message = str(report.get("message", ""))
    frames = str(report.get("traceback", ""))
    cls = _exception_class(qualified)
    exc: Optional[BaseException] = None
    if cls is not None:
        if not isinstance(args, tuple):
            args = (message,)
        with contextlib.suppress(Exception):
            exc = cls(*args)
        if exc is None:
            with contextlib.suppress(Exception):
                exc = cls.__new__(cls)  # type: ignore[call-overload]
                exc.args = args
        if exc is not None and isinstance(exc, OSError):
            attrs = report.get("attrs")
            if isinstance(attrs, dict):
                for key in ("filename", "filename2"):
                    if isinstance(attrs.get(key), str):
                        with contextlib.suppress(Exception):
                            setattr(exc, key, attrs[key])
    if exc is None:
        exc = RemoteError(qualified, message, frames)
    with contextlib.suppress(Exception):
        exc._harness_remote_traceback = frames  # type: ignore[attr-defined]  # noqa: SLF001
    notes = report.get("notes")
    if isinstance(notes, str) and notes:
        with contextlib.suppress(Exception):
            exc._harness_notes = notes[:300]  # type: ignore[attr-defined]  # noqa: SLF001
    return exc


def remote_frames(exc: BaseException) -> str:
    """The frames an exception rebuilt here was raised through in the solution's process."""
    frames = getattr(exc, "_harness_remote_traceback", "")
    return frames if isinstance(frames, str) else ""


def describe_exception(exc: BaseException) -> Tuple[Json, Tuple[Any, ...]]:
    """The solution's side: an exception as it crosses (its name, message, last frames;
    its arguments, to be pickled on their own)."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)[-6:]
    kind = type(exc)
    header: Json = {
        "kind": "raised",
        "type": kind.__qualname__
        if kind.__module__ == "builtins"
        else "%s.%s" % (kind.__module__, kind.__qualname__),
        "message": str(exc)[:2000],
        "traceback": "\n".join(
            "%s:%s in %s" % (f.filename, f.lineno, f.name)
            for f in frames
            if not f.filename.startswith(_HERE)
        ),
    }
    notes = program_note(exc)
    if notes:
        header["notes"] = notes
    if isinstance(exc, OSError):
        header["attrs"] = {
            k: getattr(exc, k)
            for k in ("filename", "filename2")
            if isinstance(getattr(exc, k, None), str)
        }
    return header, tuple(exc.args)


HERE = _HERE = os.path.dirname(os.path.abspath(__file__))


def program_note(exc: Optional[BaseException]) -> str:
    """A program started by the code (or a library under it) that is not on this machine:
    FileNotFoundError from subprocess starting it, anywhere in the exception's chain."""
    import traceback

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, FileNotFoundError) and exc.__traceback__ is not None:
            last = traceback.extract_tb(exc.__traceback__)[-1]
            if last.name == "_execute_child" and last.filename.endswith("subprocess.py"):
                program = exc.filename if isinstance(exc.filename, str) else ""
                return " [harness: no program %r on this machine]" % program.rsplit("/", 1)[-1]
        exc = exc.__cause__ or exc.__context__
    return ""


# Network use the solution's process reported with its last result (only its first).
REACHED: List[str] = []


def note_network(event: str, args: Tuple[Any, ...], reached: List[str]) -> None:
    """An audit hook's body: note the first lookup of or connection to a host other than
    this machine (it must never raise, or the event it watches fails)."""
    try:
        if reached or not event.startswith("socket."):
            return
        if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"):
            host = args[0]
        elif event in ("socket.connect", "socket.sendto"):
            host = args[1][0] if isinstance(args[1], tuple) else None  # not a Unix socket's path
        else:
            return
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        if (
            isinstance(host, str)
            and host not in ("", "localhost", "::1", "0.0.0.0")
            and not host.startswith("127.")
        ):
            reached.append("%s(%r)" % (event, host))
    except Exception:
        pass


# -- the state a test shares with the solution in one process -------------------------------


class PatchTracker:
    """The patches a test has active (``unittest.mock.patch`` as a decorator, a context
    manager or started; ``patch.dict``), so that each call of the solution can carry
    them: in one process the solution would see them."""

    def __init__(self) -> None:
        self.active: List[Any] = []
        self.dicts: List[Tuple[Any, Optional[str]]] = []
        self.installed = False

    def install(self) -> None:
        mock = sys.modules.get("unittest.mock") or importlib.import_module("unittest.mock")
        if self.installed:
            return
        self.installed = True
        tracker = self
        # mock's patchers are private classes; every patch (decorator, context manager,
        # start/stop, patch.multiple) enters and leaves through them
        patch_cls = mock._patch  # noqa: SLF001
        enter, leave = patch_cls.__enter__, patch_cls.__exit__

        def entered(patcher: Any) -> Any:
            result = enter(patcher)
            tracker.active.append(patcher)
            return result

        def left(patcher: Any, *info: object) -> Any:
            for index in range(len(tracker.active) - 1, -1, -1):
                if tracker.active[index] is patcher:
                    del tracker.active[index]
                    break
            return leave(patcher, *info)

        patch_cls.__enter__ = entered
        patch_cls.__exit__ = left
        dict_cls = mock._patch_dict  # noqa: SLF001
        apply, undo = dict_cls._patch_dict, dict_cls._unpatch_dict  # noqa: SLF001

        def _patch_dict(patcher: Any) -> Any:
            named = patcher.in_dict if isinstance(patcher.in_dict, str) else None
            result = apply(patcher)
            tracker.dicts.append((patcher, named))
            return result

        def _unpatch_dict(patcher: Any) -> Any:
            for index in range(len(tracker.dicts) - 1, -1, -1):
                if tracker.dicts[index][0] is patcher:
                    del tracker.dicts[index]
                    break
            return undo(patcher)

        dict_cls._patch_dict = _patch_dict  # noqa: SLF001
        dict_cls._unpatch_dict = _unpatch_dict  # noqa: SLF001


TRACKER = PatchTracker()


class CannotCrossError(Exception):
    """The test shares something with the solution that cannot be carried to its process
    (a patch of an object only this process can name). The test errs. When the task's
    reference does so too, the run grades the task's answers in one process, as upstream
    does, and their outcomes say so (``harness/execute/admission.py``); an answer never
    chooses that by what it binds."""


def _location(target: Any, solution_modules: Dict[str, str]) -> Optional[List[str]]:
    """Where the solution's process finds ``target`` (the object a patch changes)."""
    if isinstance(target, types.ModuleType):
        name = target.__name__
        if name in solution_modules:
            return ["solution", solution_modules[name]]
        return ["module", name]
    if isinstance(target, type) and _findable(target):
        return ["class", target.__module__, target.__qualname__]
    return None


def patches(solution_modules: Dict[str, str]) -> List[List[Any]]:
    """The active patches as ``[where, attribute, value]``: what the solution's process
    sets while the call runs. ``solution_modules`` maps the check's stand-in modules to the
    solution's modules they stand for."""
    found: List[List[Any]] = []
    for patcher in TRACKER.active:
        target = getattr(patcher, "target", None)
        attribute = getattr(patcher, "attribute", None)
        if not isinstance(attribute, str):
            continue
        where = _location(target, solution_modules)
        if where is None:
            raise CannotCrossError(
                "the test patches %s of a %s, which only the check's process can name"
                % (attribute, type(target).__name__)
            )
        found.append([where, attribute, getattr(target, attribute, None)])
    for patcher, named in TRACKER.dicts:
        if patcher.in_dict is _environ:
            continue  # the environment travels whole with every call
        if named is None:
            raise CannotCrossError(
                "the test patches a dictionary only the check's process can name"
            )
        module_name, _, attribute = named.rpartition(".")
        where = (
            ["solution", solution_modules[module_name]]
            if module_name in solution_modules
            else ["module", module_name]
        )
        found.append([where, "<dict>" + attribute, dict(patcher.in_dict)])
    return found


def random_states() -> Json:
    """The global random generators' states in this process."""
    states: Json = {"random": _getstate()}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            states["numpy"] = numpy.random.get_state()
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            states["torch"] = torch.get_rng_state()
    return states


def set_random_states(states: Any) -> None:
    """Take the other side's random states (what a call drew there is drawn here too)."""
    if not isinstance(states, dict):
        return
    with contextlib.suppress(Exception):
        if "random" in states:
            _setstate(states["random"])
    numpy = sys.modules.get("numpy")
    if numpy is not None and "numpy" in states:
        with contextlib.suppress(Exception):
            numpy.random.set_state(states["numpy"])
    torch = sys.modules.get("torch")
    if torch is not None and "torch" in states:
        with contextlib.suppress(Exception):
            torch.set_rng_state(states["torch"])


# The check's standard streams as the execution started with them: a test that redirects
# them (``redirect_stdout``) lends its own to the solution's calls.
STREAMS: Dict[str, Any] = {}


def remember_streams() -> None:
    STREAMS.update(stdout=sys.stdout, stderr=sys.stderr)


def call_context(solution_modules: Dict[str, str], figures: Optional[Dict[int, List[int]]]) -> Json:
    """What a call of the solution carries besides its arguments. ``figures``: the
    solution's numbers of the figures it sent that the check still has open, with what
    their axes hold here (``drawn``)."""
    context: Json = {
        "environ": dict(_environ),
        "cwd": _getcwd(),
        "random": random_states(),
        "patches": patches(solution_modules),
        "streams": {},
    }
    for name in ("stdout", "stderr"):
        current = getattr(sys, name)
        if STREAMS and current is not STREAMS.get(name):
            context["streams"][name] = current
    context["figures"] = figures
    context["rc"] = style()
    context["warnings"] = [f for f in warnings.filters if _findable(f[2])]
    return context


def warning_class(qualified: Any) -> type:
    """The category a warning of the solution's was raised with, among the classes the
    check knows; ``UserWarning`` for any other."""
    found: Any = None
    if isinstance(qualified, str):
        module_name, _, qualname = qualified.rpartition(".")
        found = sys.modules.get(module_name) if module_name else builtins
        for part in qualname.split("."):
            found = getattr(found, part, None)
    return found if isinstance(found, type) and issubclass(found, Warning) else UserWarning


REEMITTING: List[bool] = []  # set while the check re-emits the solution's warnings


def reemit(forwarded: Any) -> None:
    """The warnings a call raised in the solution's process, raised again here under the
    check's filters: a test's ``catch_warnings`` or ``assertWarns`` sees them as in one
    process."""
    if not isinstance(forwarded, list):
        return
    REEMITTING.append(True)
    try:
        for item in forwarded[:100]:
            if not (isinstance(item, list) and len(item) == 4):
                continue
            category, message, filename, lineno = item
            with contextlib.suppress(Exception):
                warnings.warn_explicit(
                    str(message), warning_class(category), str(filename), int(lineno)
                )
    finally:
        REEMITTING.pop()


def after_call(state: Any) -> None:
    """Take what a call changed of the state the two processes share."""
    if not isinstance(state, dict):
        return
    set_random_states(state.get("random"))
    cwd = state.get("cwd")
    if isinstance(cwd, str) and cwd != _getcwd():
        with contextlib.suppress(OSError):
            _chdir(cwd)
    set_style(state.get("rc"))


# -- what the test handed over, and what the answer did with it -----------------------------

_SCALARS = (type(None), bool, int, float, complex, str, bytes)


def handed(args: Tuple[Any, ...], kwargs: Dict[str, Any], sent: Lent) -> List[List[Any]]:
    """Where in a call's arguments each object the check sends by value sits, with the
    number it is known by: ``[number, "a", 0]``, ``[number, "k", "df"]``, one level into
    lists, tuples and dicts (``[number, "a", 0, 2]``). An object the answer sends back
    unchanged comes back as the check's own (a mock sees the very arrays it was called
    with, as in one process)."""
    paths: List[List[Any]] = []
    places: List[Tuple[str, Any, Any]] = [("a", i, v) for i, v in enumerate(args)]
    places += [("k", k, v) for k, v in kwargs.items()]
    for where, key, value in places:
        if not _by_value(value):
            continue
        paths.append([sent.lend(value), where, key])
        if isinstance(value, (list, tuple)):
            inner: List[Tuple[Any, Any]] = list(enumerate(value[:100]))
        elif isinstance(value, dict):
            inner = [(k, v) for k, v in list(value.items())[:100] if isinstance(k, (str, int))]
        else:
            continue
        for index, item in inner:
            if _by_value(item):
                paths.append([sent.lend(item), where, key, index])
    return paths


def _by_value(value: Any) -> bool:
    return (
        not isinstance(value, _SCALARS)
        and not isinstance(value, SolutionStandIn)
        and not lends(value)
    )


def configured(obj: Any) -> bool:
    """Whether the answer's changes to ``obj`` reach the check's own object by its state:
    an object a task configures (a figure's axes, a model it fits). Data has its own way
    back (``refilled``); an array or a frame stays as the check made it."""
    cls = type(obj)
    return (
        hasattr(obj, "__dict__")
        and not isinstance(obj, (type, types.ModuleType, types.FunctionType))
        and not hasattr(cls, "__len__")
        and not hasattr(cls, "__iter__")
        and cls.__module__ not in TEST_MODULES
    )


# The containers a test hands over and reads again (``task_func(my_list)`` then
# ``assertIn(12, my_list)``): the answer's changes to them are refilled into the test's own.
_REFILLED = (list, dict, set, bytearray)


def refilled(obj: Any) -> bool:
    return type(obj) in _REFILLED


def write_back(original: Any, changed: Any) -> bool:
    """Give the check's ``original`` the state the answer left its copy in (admitted as
    data): what one process would have shown the test."""
    if type(changed) is not type(original):
        return False
    if refilled(original):
        if isinstance(original, (dict, set)):
            original.clear()
            original.update(changed)
        else:
            original[:] = changed
        return True
    if not configured(original):
        return False
    state = vars(original)
    state.clear()
    state.update(vars(changed))
    return True


def as_originals(value: Any, originals: Dict[int, Any]) -> Any:
    """A returned value with the copies of the test's objects that were written back
    replaced by the test's objects themselves (``assertIs(result, input_dict)``): at the
    top, or one level into a returned tuple or list."""
    if not originals:
        return value
    if id(value) in originals:
        return originals[id(value)]
    if type(value) in (tuple, list) and any(id(v) in originals for v in value):
        return type(value)(originals.get(id(v), v) for v in value)
    return value


# Matplotlib's style (rcParams): what a style file may set, shared as one process shares
# it (``plt.style.use`` in the answer is seen by the test). Not the backend and the rest
# matplotlib itself keeps out of styles.
def style() -> Optional[Dict[str, Any]]:
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None:
        return None
    core = sys.modules.get("matplotlib.style.core")
    kept_out = set(getattr(core, "STYLE_BLACKLIST", ())) | {"backend", "backend_fallback"}
    return {
        k: v
        for k, v in dict.items(matplotlib.rcParams)
        if k not in kept_out and not k.startswith(("webagg.", "backend")) and _plain(v)
    }


def _plain(value: Any, depth: int = 0) -> bool:
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, (list, tuple)) and depth < 2:
        return all(_plain(v, depth + 1) for v in value)
    return False


def set_style(values: Any) -> None:
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None or not isinstance(values, dict):
        return
    allowed = style() or {}
    for key, value in values.items():
        if key in allowed and allowed[key] != value and _plain(value):
            with contextlib.suppress(Exception):
                matplotlib.rcParams[key] = value


# -- the solution's side ------------------------------------------------------------------


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


def _kind(obj: Any, top: bool = False) -> Optional[str]:
    """How the solution's process keeps ``obj`` rather than sending it: None to send it.

    Only what is the answer's own is kept: a generator, a function or class it defined,
    an instance of such a class, an open stream; and a returned iterator (``top``).
    What a library holds inside its objects (a cycle of colours, a formatter's lambda)
    travels as pickle sends it, or not at all."""
    if type(obj) in _PLAIN or isinstance(obj, CheckerObject):
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


# The objects the check sent by value in the call being served: id → (number, object,
# digest of its pickle on arrival).
RECEIVED: Dict[int, Tuple[int, Any, bytes]] = {}


def _digest(obj: Any) -> bytes:
    try:
        return _sha1(_pickle_dumps(obj, protocol=4)).digest()
    except Exception:
        return b""  # cannot tell: never "unchanged"


def receive(args: Tuple[Any, ...], kwargs: Dict[str, Any], paths: Any) -> None:
    """Note the objects the check sent by value (``handed``), as they arrived."""
    RECEIVED.clear()
    for path in paths if isinstance(paths, list) else []:
        try:
            number, where, key = path[0], path[1], path[2]
            obj = args[key] if where == "a" else kwargs[key]
            if len(path) > 3:
                obj = obj[path[3]]
        except Exception:
            continue
        RECEIVED[id(obj)] = (number, obj, _digest(obj))


def arrived_figures() -> None:
    """Note the figures the check sent (or that hold what it sent, an axes')."""
    del ARRIVED[:]
    figure_module = sys.modules.get("matplotlib.figure")
    if figure_module is None:
        return
    for _, obj, _ in RECEIVED.values():
        figure = obj if isinstance(obj, figure_module.Figure) else getattr(obj, "figure", None)
        if isinstance(figure, figure_module.Figure) and not any(figure is f for f in ARRIVED):
            ARRIVED.append(figure)


def changed_received() -> List[Tuple[int, Any]]:
    """The configured objects the check sent that the call changed, to be written back."""
    found = []
    for number, obj, digest in list(RECEIVED.values()):
        if (configured(obj) or refilled(obj)) and _digest(obj) != digest:
            found.append((number, obj))
    return found


def _unchanged(obj: Any) -> Optional[int]:
    entry = RECEIVED.get(id(obj))
    if entry is None or entry[1] is not obj or not entry[2] or _digest(obj) != entry[2]:
        return None
    return entry[0]


class ToChecker(pickle.Pickler):
    """The solution's pickler for what it sends back: lent objects by their number, what
    is not data (a generator, a function of its own) kept here and named by a number."""

    def __init__(self, file: Any, kept: Lent, top: Any = None) -> None:
        super().__init__(file, protocol=4)
        self.kept = kept
        self.top = top  # the returned value itself: an iterator of any kind stays here

    def persistent_id(self, obj: Any) -> Any:
        if RECEIVED and id(obj) in RECEIVED:
            number = _unchanged(obj)
            if number is not None:
                return ("sent", number)  # the check's own object, as it sent it
        if type(obj) is float and math.isnan(obj):
            which = _nan_constant(obj)
            return None if which is None else ("nan", which)
        if type(obj) in _PLAIN:
            return None
        if isinstance(obj, CheckerObject):
            return ("checker", object.__getattribute__(obj, "_harness_number"))
        kind = _kind(obj, top=obj is self.top and self.top is not None)
        if kind is None:
            return None
        number = self.kept.lend(obj)
        KINDS[number] = kind
        return (kind, number)


KINDS: Dict[int, str] = {}  # number of a kept object → how the check sees it


# ``np.nan`` and ``math.nan`` are one object each in a process, and containers compare
# their items by identity first: ``[np.nan] == [np.nan]`` holds where ``nan == nan`` does
# not. The answer's constant comes back as the check's own (a test's ``assertEqual(result,
# [np.nan, np.nan])``); any other NaN is a NaN.
def _nan_constant(value: float) -> Optional[int]:
    numpy = sys.modules.get("numpy")
    if numpy is not None and value is getattr(numpy, "nan", None):
        return 0
    if value is math.nan:  # noqa: PLW0177 - the very object, not its value
        return 1
    return None


def nan_constant(which: int) -> float:
    numpy = sys.modules.get("numpy")
    if which == 0 and numpy is not None and type(getattr(numpy, "nan", None)) is float:
        return numpy.nan  # type: ignore[no-any-return]
    return math.nan if which == 1 else float("nan")


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


@contextlib.contextmanager
def applied(context: Any, modules: Dict[str, types.ModuleType]) -> Iterator[None]:
    """While a call runs in the solution's process: the state its test shares with it."""
    if not isinstance(context, dict):
        yield
        return
    environ = context.get("environ")
    if isinstance(environ, dict) and environ != dict(_environ):
        _environ.clear()
        _environ.update({str(k): str(v) for k, v in environ.items()})
    cwd = context.get("cwd")
    if isinstance(cwd, str) and cwd != _getcwd():
        with contextlib.suppress(OSError):
            _chdir(cwd)
    set_random_states(context.get("random"))
    set_style(context.get("rc"))
    STYLE_BEFORE.clear()
    STYLE_BEFORE.update(style() or {})
    _follow_the_tests_figures(context.get("figures"))
    if context.get("patches"):
        start_backend()
    undo: List[Callable[[], None]] = []
    try:
        for where, attribute, value in context.get("patches") or []:
            target = _patch_target(where, modules)
            if attribute.startswith("<dict>"):
                undo.append(_patch_dict(getattr(target, attribute[6:]), value))
            else:
                undo.append(_set(target, attribute, value))
        for name, stream in (context.get("streams") or {}).items():
            if name in ("stdout", "stderr"):
                undo.append(_set(sys, name, stream))
        undo.append(_forward_warnings(context.get("warnings")))
        yield
    finally:
        for step in reversed(undo):
            with contextlib.suppress(Exception):
                step()


def start_backend() -> None:
    """pyplot's backend started, where pyplot is imported. In the solution's process,
    before the test's patches are applied: starting it sets ``__signature__`` on
    ``pyplot.show``, which, patched, is a mock the check lent (a lent object's special
    attributes are out of the answer's reach). In the check's, before figures are admitted
    (starting it imports modules, which admission refuses)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        with contextlib.suppress(Exception):
            getattr(pyplot, "_get_backend_mod", lambda: None)()


# The warnings a call raised, for the check: [category, message, filename, line].
FORWARDED: List[List[Any]] = []


def _forward_warnings(filters: Any) -> Callable[[], None]:
    """While a call runs: the check's warning filters, and every warning they let through
    kept for the check (and shown as before: the recorder of deprecations sees it too)."""
    del FORWARDED[:]
    installed: Any = warnings.filters  # a list (typeshed says a Sequence)
    saved_filters, saved_show = list(installed), warnings.showwarning
    if isinstance(filters, list):
        installed[:] = [f for f in filters if isinstance(f, tuple) and len(f) == 5]
        getattr(warnings, "_filters_mutated", lambda: None)()

    def show(message: Any, category: Any, filename: Any, lineno: Any, *more: Any) -> None:
        if len(FORWARDED) < 100:
            kind = category if isinstance(category, type) else UserWarning
            name = (
                kind.__qualname__
                if kind.__module__ == "builtins"
                else "%s.%s" % (kind.__module__, kind.__qualname__)
            )
            FORWARDED.append([name, str(message)[:2000], str(filename), int(lineno or 0)])
        saved_show(message, category, filename, lineno, *more)

    warnings.showwarning = show  # type: ignore[assignment]

    def undo() -> None:
        installed[:] = saved_filters
        getattr(warnings, "_filters_mutated", lambda: None)()
        warnings.showwarning = saved_show

    return undo


def _patch_target(where: List[str], modules: Dict[str, types.ModuleType]) -> Any:
    if where[0] == "solution":
        return modules[where[1]]
    found: Any = importlib.import_module(where[1])
    if where[0] == "class":
        for part in where[2].split("."):
            found = getattr(found, part)
    return found


_MISSING = object()


def _set(target: Any, attribute: str, value: Any) -> Callable[[], None]:
    namespace = vars(target) if isinstance(target, (type, types.ModuleType)) else {}
    original = namespace.get(attribute, _MISSING)
    setattr(target, attribute, value)

    def undo() -> None:
        if original is _MISSING:
            delattr(target, attribute)
        else:
            setattr(target, attribute, original)

    return undo


def _patch_dict(target: Any, values: Any) -> Callable[[], None]:
    original = dict(target)
    target.clear()
    target.update(values)

    def undo() -> None:
        target.clear()
        target.update(original)

    return undo


# The figures the solution's process sent the check, by number, as they were then.
SHIPPED: Dict[int, Any] = {}


# Figures the check sent with a call's arguments: the check's own, never shipped back as
# new ones (what the call changed of them is written back instead).
ARRIVED: List[Any] = []


def figures_to_ship() -> List[Any]:
    """The figures a call made or changed (pyplot's, the current one last)."""
    managers = figure_managers()
    if not managers:
        return []
    active = sys.modules["matplotlib._pylab_helpers"].Gcf.get_active()
    current = active.num if active is not None else None
    chosen = []
    for number in sorted(managers, key=lambda n: n == current):
        figure = managers[number].canvas.figure
        if any(figure is arrived for arrived in ARRIVED):
            continue
        if SHIPPED.get(number) is not figure or getattr(figure, "stale", True):
            chosen.append(figure)
    return chosen


def figure_managers() -> Dict[int, Any]:
    """pyplot's open figures, number → manager, read from its registry: never through
    pyplot's functions, which a test may have patched (``plt.figure``, ``plt.close``)."""
    helpers = sys.modules.get("matplotlib._pylab_helpers")
    if helpers is None:
        return {}
    return {m.num: m for m in helpers.Gcf.get_all_fig_managers()}


def close_figure(manager: Any) -> None:
    with contextlib.suppress(Exception):
        sys.modules["matplotlib._pylab_helpers"].Gcf.destroy(manager)


def drawn(figure: Any) -> List[int]:
    """What each axes of ``figure`` holds (lines, collections, patches, images, texts):
    what tells a figure the test cleared from one it left as it was."""
    counts = []
    for axes in getattr(figure, "axes", []):
        count = 0
        for kind in ("lines", "collections", "patches", "images", "texts"):
            with contextlib.suppress(Exception):
                count += len(getattr(axes, kind))
        counts.append(count)
    return counts


def _follow_the_tests_figures(figures: Any) -> None:
    """The figures the solution sent that the test closed or cleared are closed or cleared
    here too (``figures``: the solution's number of each one the test still has open, with
    what its axes hold there)."""
    if not isinstance(figures, dict):
        return
    for number, manager in figure_managers().items():
        if number not in SHIPPED:
            continue
        if number not in figures:
            close_figure(manager)  # the test closed its copy
            SHIPPED.pop(number, None)
            continue
        figure, counts = manager.canvas.figure, figures[number]
        with contextlib.suppress(Exception):
            if not counts and figure.axes:
                figure.clf()  # plt.clf() in the test
            else:
                for axes, count in zip(figure.axes, counts):
                    if count == 0 and sum(drawn_axes(axes)) > 0:
                        axes.cla()  # plt.cla() in the test


def drawn_axes(axes: Any) -> List[int]:
    return [
        len(getattr(axes, kind, ()))
        for kind in ("lines", "collections", "patches", "images", "texts")
    ]


def shipped(figures: List[Any]) -> None:
    for figure in figures:
        SHIPPED[figure.number] = figure
        with contextlib.suppress(Exception):
            figure.stale = False


# The style as the call found it (after taking the check's): what it changed goes back.
STYLE_BEFORE: Dict[str, Any] = {}


def state_after() -> Json:
    """What a call changed of the state the two processes share, for the check."""
    now = style() or {}
    changed = {k: v for k, v in now.items() if STYLE_BEFORE.get(k, v) != v or k not in STYLE_BEFORE}
    return {"random": random_states(), "cwd": _getcwd(), "rc": changed if STYLE_BEFORE else {}}


# The solution's side: network use during the request being served.
SOLUTION_REACHED: List[str] = []
_WATCHING: List[bool] = []


def watch_network() -> None:
    del SOLUTION_REACHED[:]
    if not _WATCHING:
        _WATCHING.append(True)
        sys.addaudithook(lambda event, args: note_network(event, args, SOLUTION_REACHED))
