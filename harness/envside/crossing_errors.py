"""Exceptions across the boundary, and the notes that tell why a call failed.

An exception the solution raised in its own process crosses as a report
(``describe_exception``: its name, message and last frames; its arguments pickled on their
own) and is raised again in the check (``rebuild``): as its own class where the check
knows that class, so that ``assertRaises(ValueError)`` works, never as one a test
framework reads as an instruction (a skip, an interrupt); else as a ``RemoteError`` under
its name. The notes (``program_note``, ``note_network``) say what only the process that
ran the code can tell: a program it started that this machine lacks, a host it reached for.

Both sides of this module run in the combo's interpreter (standard library only).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

if TYPE_CHECKING:
    from .protocol import Json

# The env side's own folder: its frames are left out of the frames a failure is told with.
HERE = os.path.dirname(os.path.abspath(__file__))

# -- exceptions: raised in the solution's process, rebuilt in the check's ---------------------


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
