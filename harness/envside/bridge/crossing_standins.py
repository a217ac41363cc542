"""The solution's objects as the check sees them: stand-ins, never data.

A name the check's tests take from the solution's module (``from sample_1 import f``,
``task_func``) is a stand-in here: calling it is a call in the solution's process
(``guard``'s peer sends the arguments there and waits for what comes back). What a call
returns that is not data comes back as one too: an iterator whose items are admitted one
by one, or an opaque object that equals only itself. A stand-in never answers a
comparison, a containment test or a method call of the solution's choosing: the check
decides those on data.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
import sysconfig
import types
from typing import Any, Iterator, Optional


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
    """The module ``name`` in the check's process: one it has imported already, else a
    public module of Python's standard library or of the environment's installed
    libraries, imported from where it is installed.

    Admitted by what it is: every part of its name public (a package's ``__main__`` is a
    program, not a library: ``numpy.f2py.__main__`` evaluates what it reads from the working
    directory as it is imported), and each package on the way found in the interpreter's
    standard library or site-packages, read-only in the sandbox: never a file the answer
    could have written. Imported with this process's working directory at the root of its
    view (``_away``): what a library reads from the working directory as it is imported
    (matplotlib's ``./matplotlibrc``) is then never a file the answer wrote there."""
    if not isinstance(name, str) or not all(part.isidentifier() for part in name.split(".")):
        return None
    found = sys.modules.get(name)
    if found is not None or any(part.startswith("_") for part in name.split(".")):
        return found if isinstance(found, types.ModuleType) else None
    parts = name.split(".")
    try:
        with _away():
            for end in range(1, len(parts) + 1):
                step = ".".join(parts[:end])
                if step not in sys.modules:
                    spec = importlib.util.find_spec(step)
                    if spec is None or not _installed(spec):
                        return None
                importlib.import_module(step)
    except Exception:
        return None
    found = sys.modules.get(name)
    return found if isinstance(found, types.ModuleType) else None


@contextlib.contextmanager
def _away() -> Iterator[None]:
    """This process's working directory at ``/`` for a while, then back where it was.
    (The whole process's: a thread of the test reading a relative path meanwhile would
    miss it. Tests hand the answer what they made before, so imports come between.)"""
    here = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.chdir("/")
        yield
    finally:
        os.fchdir(here)
        os.close(here)


def _installed(spec: Any) -> bool:
    """Whether the module ``spec`` finds lies in the standard library or site-packages."""
    if spec.origin in ("built-in", "frozen"):
        return True
    places = [spec.origin] if spec.has_location and spec.origin else []
    places += list(spec.submodule_search_locations or [])
    roots = _installed_roots()
    return bool(places) and all(
        any(os.path.realpath(p).startswith(root) for root in roots) for p in places
    )


def _installed_roots() -> list[str]:
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    found = {sysconfig.get_paths().get(n) for n in names}
    return [os.path.realpath(f) + os.sep for f in found if f]


def stand_in(kind: Any, number: int, peer: Any, name: str = "") -> SolutionStandIn:
    cls = {
        "function": SolutionFunction,
        "iterator": SolutionIterator,
        "generator": SolutionGenerator,
    }.get(kind, SolutionStandIn)
    return cls(number, peer, kind if cls is not SolutionStandIn else "object", name)
