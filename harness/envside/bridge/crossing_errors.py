"""Exceptions across the boundary, and the notes that tell why a call failed.

An exception the solution raised in its own process crosses as a report
(``describe_exception``: its name, message and last frames; its arguments pickled on their
own) and is raised again in the check (``rebuild``) as data about a failure, never as an
instruction to a test framework. The class it names is looked up among the check's own
modules (the answer's claims about it are never read), and it comes back as that very
class only if the class is *admitted*: one of Python's ordinary exceptions
(``BUILTIN_EXCEPTIONS``), or listed for it in the guard's allowlist (``raise``), so that
``assertRaises(ValueError)`` or ``assertRaises(requests.HTTPError)`` works. Any other
class comes back as a ``RemoteError`` made for it, under its name, whose bases are the
nearest admitted ancestors of that class (an unlisted ``pandas.errors.ParserError`` is
still a ``ValueError``): what a framework reads as control flow (``unittest``'s
``_ShouldStop`` and ``SkipTest``, pytest's outcomes, an interrupt, an exit) can never be
raised in the check. ``StopIteration`` means "no more items" to whatever loop or ``map``
sees it: it comes back as itself only where that is what it says, the end of an iterator
of the answer's (``ends_iteration``). The notes (``program_note``, ``note_network``) say
what only the process that ran the code can tell: a program it started that this machine
lacks, a host it reached for.

Both sides of this module run in the combo's interpreter (standard library only).
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import os
import sys
import types
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Tuple

from ..allowlist import framework_module

if TYPE_CHECKING:
    from ..allowlist import Allowlist
    from ..protocol import Json
    from .admission import Usage

# The env side's own folder (this room's parent): its frames are left out of the frames a failure is told with.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# -- exceptions: raised in the solution's process, rebuilt in the check's ---------------------

# Python's own exception classes that come back as themselves: the ordinary failures a test
# may expect. Named one by one, never taken from ``builtins`` wholesale: a class a later
# Python adds is not admitted until it is named here (a name this Python lacks is skipped).
# Not among them: every BaseException that is not an Exception (an interrupt, a generator's
# close, an exit: instructions, not failures; SystemExit too: no BigCodeBench or
# GitChameleon test expects it, measured by their tests' assertRaises, pytest.raises and
# except clauses); StopIteration and StopAsyncIteration, the iteration protocol's (see
# ``rebuild``); ExceptionGroup, a carrier of other exceptions; and the private
# ``_IncompleteInputError``.
BUILTIN_EXCEPTIONS: FrozenSet[str] = frozenset((
    "ArithmeticError", "AssertionError", "AttributeError", "BlockingIOError",
    "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError",
    "ConnectionResetError", "DeprecationWarning", "EOFError", "EncodingWarning", "Exception",
    "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
    "ImportError", "ImportWarning", "IndentationError", "IndexError", "InterruptedError",
    "IsADirectoryError", "KeyError", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NameError", "NotADirectoryError", "NotImplementedError", "OSError", "OverflowError",
    "PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
    "PythonFinalizationError", "RecursionError", "ReferenceError", "ResourceWarning",
    "RuntimeError", "RuntimeWarning", "SyntaxError", "SyntaxWarning", "SystemError",
    "TabError", "TimeoutError", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
    "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning",
    "UserWarning", "ValueError", "Warning", "ZeroDivisionError",
))  # fmt: skip


class RemoteError(Exception):
    """An exception the solution raised in its own process, named as it was there: what
    the check knows of a class it does not admit (and of failures of the crossing itself,
    ``TransportError``)."""

    def __init__(self, qualified: str, message: str, remote_traceback: str = "") -> None:
        # BaseException's own initialiser, not the next class's: a class made for an
        # unadmitted exception may derive from one whose initialiser wants other arguments
        # (UnicodeDecodeError's five)
        Exception.__init__(self, message)
        self.qualified = qualified
        self.message = message
        self.remote_traceback = remote_traceback

    def __str__(self) -> str:
        # as the solution's process told it, whatever the admitted base would make of its
        # arguments (KeyError quotes them)
        return self.message


def admitted_builtin(name: str) -> Optional[type]:
    """Python's own exception class ``name`` when it comes back as itself (never
    StopIteration: see ``rebuild``)."""
    found = builtins.__dict__.get(name) if name in BUILTIN_EXCEPTIONS else None
    return found if isinstance(found, type) and issubclass(found, Exception) else None


def _name(cls: type) -> Tuple[str, str]:
    """``cls``'s own (module, qualname), read without running code a metaclass defines."""
    return (
        str(type.__getattribute__(cls, "__module__")),
        str(type.__getattribute__(cls, "__qualname__")),
    )


def _mro(cls: type) -> Tuple[type, ...]:
    return tuple(type.__getattribute__(cls, "__mro__"))


def may_be_listed(cls: type) -> bool:
    """Whether an allowlist line may admit ``cls`` (guards the list, as ``NEVER`` does its
    events): an Exception neither of the iteration protocol nor of a test framework's, nor
    deriving from one of theirs."""
    try:
        mro = _mro(cls)
        return Exception in mro and not any(
            base is StopIteration or base is StopAsyncIteration or framework_module(_name(base)[0])
            for base in mro
        )
    except Exception:
        return False


def find_class(qualified: str) -> Optional[type]:
    """The exception class ``qualified`` (``module.Qual.Name``) names among what this
    process has imported, found under that very name. Each step is read from a module's
    or a class's own namespace, never by ``getattr`` (which could run code: a module's
    ``__getattr__``, a stand-in that fetches from the solution's process), and nothing is
    imported: the name is the solution's to choose."""
    module_name, _, qualname = qualified.rpartition(".")
    module_name = module_name or "builtins"
    while True:
        found = _in_module(sys.modules.get(module_name), module_name, qualname)
        if found is not None or "." not in module_name:
            return found
        module_name, _, outer = module_name.rpartition(".")  # ``a.b.C.D``: a nested class
        qualname = outer + "." + qualname


def _in_module(module: Any, module_name: str, qualname: str) -> Optional[type]:
    if not isinstance(module, types.ModuleType):
        return None
    try:
        found: Any = object.__getattribute__(module, "__dict__").get(qualname.partition(".")[0])
        for part in qualname.split(".")[1:]:
            if not isinstance(found, type):
                return None
            found = type.__getattribute__(found, "__dict__").get(part)
        if not isinstance(found, type) or BaseException not in _mro(found):
            return None
        own = _name(found)
    except Exception:
        return None
    return found if own == (module_name, qualname) else None


def _listed_class(qualified: str, allowlist: Optional[Allowlist]) -> Optional[type]:
    """The class ``qualified`` names when the allowlist lists it with ``raise``: its module
    imported if it must be (listed, so it is library code, as ``admission.resolve``)."""
    if allowlist is None or not allowlist.raised:
        return None
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        key = (".".join(parts[:cut]), ".".join(parts[cut:]))
        if key in allowlist.raised:
            with contextlib.suppress(Exception):
                importlib.import_module(key[0])
            found = find_class(qualified)
            return found if found is not None and may_be_listed(found) else None
    return None


def _admitted(cls: type, allowlist: Optional[Allowlist], ends_iteration: bool) -> bool:
    """Whether ``cls`` comes back as itself."""
    if cls is StopIteration:
        return ends_iteration
    try:
        module, qualname = _name(cls)
    except Exception:
        return False
    if module == "builtins":
        return admitted_builtin(qualname) is cls
    return allowlist is not None and (module, qualname) in allowlist.raised and may_be_listed(cls)


# The classes made for unadmitted exceptions, by their bases: one class per set of bases.
_MADE: Dict[Tuple[type, ...], type] = {}


def _made_for(found: Optional[type], allowlist: Optional[Allowlist], ends_iteration: bool) -> type:
    """A ``RemoteError`` class for an exception of the unadmitted class ``found`` (None
    when this process does not know the name): its bases are the nearest admitted
    ancestors of ``found`` in this process's own MRO of it, so the check still catches it
    as what it is (``assertRaises(ValueError)`` an unlisted ``ParserError``), and nothing
    else: no class a framework reads as control flow is ever among them."""
    nearest: List[type] = []
    for base in _mro(found)[1:] if found is not None else ():
        if base in RemoteError.__mro__ or not _admitted(base, allowlist, ends_iteration):
            continue  # Exception, BaseException, object: a RemoteError is one already
        if not any(base in _mro(chosen) for chosen in nearest):
            nearest.append(base)
    bases = tuple(nearest)
    if not bases:
        return RemoteError
    made = _MADE.get(bases)
    if made is None:
        try:
            made = type("RemoteError", (RemoteError, *bases), {"__module__": __name__})
        except TypeError:  # bases whose layouts cannot be joined: named, not caught as them
            made = RemoteError
        _MADE[bases] = made
    return made


def rebuild(
    report: Json,
    args: Any,
    allowlist: Optional[Allowlist] = None,
    usage: Optional[Usage] = None,
    ends_iteration: bool = False,
) -> BaseException:
    """The exception the solution raised, as the check may catch it: its own class where
    that class is admitted, with the arguments it was raised with where they were admitted
    as data; else a ``RemoteError`` made for it (``_made_for``). ``ends_iteration``: the
    report answers ``next`` of an iterator of the solution's, where StopIteration is the
    protocol's own end (from any other call it is a failure: ``all(map(check, cases))``
    must not read it as "no more cases"). ``usage``: measuring the allowlist, where every
    class a line could list comes back as itself, and is noted."""
    qualified = str(report.get("type", "Exception"))[:300]
    message = str(report.get("message", ""))
    frames = str(report.get("traceback", ""))
    cls = admitted_builtin(qualified) or _listed_class(qualified, allowlist)
    found = cls or find_class(qualified)
    if cls is None and found is not None and _admitted(found, allowlist, ends_iteration):
        cls = found
    if cls is None and found is not None and usage is not None and may_be_listed(found):
        usage.use(_name(found), "raise")
        cls = found
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
    if exc is None:
        exc = _made_for(found, allowlist, ends_iteration)(qualified, message, frames)
        if isinstance(args, tuple):
            with contextlib.suppress(Exception):
                exc.args = args  # as the test would read them in one process
    rebuilt: BaseException = exc
    if isinstance(rebuilt, OSError):
        attrs = report.get("attrs")
        if isinstance(attrs, dict):
            for key in ("filename", "filename2"):
                if isinstance(attrs.get(key), str):
                    with contextlib.suppress(Exception):
                        setattr(rebuilt, key, attrs[key])
    with contextlib.suppress(Exception):
        rebuilt._harness_remote_traceback = frames  # type: ignore[attr-defined]  # noqa: SLF001
    notes = report.get("notes")
    if isinstance(notes, str) and notes:
        with contextlib.suppress(Exception):
            rebuilt._harness_notes = notes[:300]  # type: ignore[attr-defined]  # noqa: SLF001
    return rebuilt


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
            if not f.filename.startswith(HERE)
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


# -- notes: what only the process that ran the code can tell ----------------------------------


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


def inherited_note(exc: BaseException) -> str:
    """ "'TestCases' object has no attribute 'x'" names the task's class: say which class it
    inherits that attribute's namespace from, by its public name (``unittest.TestCase``)."""
    owner = getattr(exc, "obj", None) if isinstance(exc, AttributeError) else None
    if owner is None:
        return ""
    cls = owner if isinstance(owner, type) else type(owner)
    if cls.__module__ != "__test__":
        return ""
    for base in cls.__mro__:
        if base.__module__ not in ("__test__", "builtins"):
            path = base.__module__.split(".")
            public = base.__module__
            for end in range(1, len(path) + 1):
                name = ".".join(path[:end])
                if getattr(sys.modules.get(name), base.__qualname__, None) is base:
                    public = name
                    break
            return " [harness: %s derives from %s.%s]" % (
                cls.__qualname__,
                public,
                base.__qualname__,
            )
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


# The solution's side: network use during the request being served.
SOLUTION_REACHED: List[str] = []
_WATCHING: List[bool] = []


def watch_network() -> None:
    del SOLUTION_REACHED[:]
    if not _WATCHING:
        _WATCHING.append(True)
        sys.addaudithook(lambda event, args: note_network(event, args, SOLUTION_REACHED))
