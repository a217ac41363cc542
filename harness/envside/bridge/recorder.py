"""The deprecation warnings a program raises, and whose code raised them.

``WarningRecorder`` is installed in the execution's process (the checker) and in the
solution's process alike, so a warning is recorded where it was raised; ``probe`` uses
``tracked`` for the warnings a library's import raises.
"""

from __future__ import annotations

import sys
import warnings
from typing import TYPE_CHECKING, Set, TextIO

from ..protocol import HERE, MAX_MESSAGE, MAX_WARNINGS, qualified
from . import crossing_context

if TYPE_CHECKING:
    from types import FrameType


_TRACKED = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


class WarningRecorder:
    """Records each distinct deprecation-type warning the program raises.

    Warnings raised while a module is being imported are left out: they belong to
    the environment (a library's import), not to the program, and are reported once
    per environment by ``probe``. Leaving them out also makes the record the same
    whether the libraries were imported by this process or inherited.
    """

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []
        self._seen: set[tuple[str, str, str, str]] = set()
        self._previous = warnings.showwarning

    def install(self) -> None:
        for category in _TRACKED:
            warnings.filterwarnings("always", category=category)
        warnings.showwarning = self.show

    def show(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if crossing_context.REEMITTING:
            return  # a solution's warning, raised again for the test: recorded there
        if not tracked(category):
            self._previous(message, category, filename, lineno, file, line)
            return
        issuer = origin = None
        frame: FrameType | None = sys._getframe(1)  # noqa: SLF001 - the only way to see the issuer
        while frame is not None:
            code_file = frame.f_code.co_filename
            if code_file.startswith("<frozen importlib"):
                return  # raised by a module's import: environment, not program
            name = frame.f_globals.get("__name__", "") or ""
            if issuer is None and not code_file.startswith(HERE):
                top = name.split(".")[0]
                if top in _WRAPPERS:
                    if top != "warnings":
                        issuer = _wrapped_module(frame)
                else:
                    issuer = _module_label(name, code_file)
            if origin is None and code_file == filename and frame.f_lineno == lineno:
                origin = _origin_label(name, code_file)  # the frame the warning points at
            frame = frame.f_back
        if str(message).startswith("invalid escape sequence"):
            # the compiler's, about source text, whoever compiled it
            issuer = origin = "<python>"
        self.add(
            {
                "category": qualified(category),
                "message": str(message)[:MAX_MESSAGE],
                "module": issuer or "<unknown>",
                # not on the stack: a warning given a place of its own (warn_explicit)
                "origin": origin or _origin_label("", filename),
            }
        )

    def add(self, record: dict[str, str]) -> None:
        """Keep ``record`` unless an equal one is kept already (or the list is full)."""
        key = (record["category"], record["message"], record["module"], record.get("origin", ""))
        if key not in self._seen and len(self.items) < MAX_WARNINGS:
            self._seen.add(key)
            self.items.append(record)


def tracked(category: type[Warning]) -> bool:
    """Deprecation-type warnings, also those outside the hierarchy (numpy's
    ``VisibleDeprecationWarning`` is a ``UserWarning``)."""
    return issubclass(category, _TRACKED) or category.__name__.endswith("DeprecationWarning")


def _module_label(name: str, code_file: str) -> str:
    if code_file == "<string>":
        return "<solution>"
    if code_file == "<program>":
        return "<context>"
    if code_file in ("<setup>", "<check>"):
        return code_file
    return name or code_file


def _origin_label(name: str, code_file: str) -> str:
    """Who wrote the code a warning points at: ``<solution>`` for the solution's own
    code (the string a check executes, a notebook's cell, the solution's module),
    ``<context>`` for the problem's, else the module (a library's code)."""
    if code_file == "<string>":
        # a library's generated code (dataclasses, namedtuple) runs in its module's globals
        library = name and name != "__main__" and name not in _solution_modules()
        return name if library else "<solution>"
    if code_file in ("<solution>", "<cell>") or name in _solution_modules() - {"__main__"}:
        return "<solution>"
    return _module_label(name, code_file)


def _solution_modules() -> Set[str]:
    """The solution's modules in the solution's process (GitChameleon's ``sample_N``)."""
    borrowing = sys.modules.get(__name__.rpartition(".")[0] + ".crossing_borrowing")
    found = getattr(borrowing, "SOLUTION_MODULES", None)
    return set(found) if isinstance(found, set) else set()


# Modules whose frames only pass a warning on for someone else: a deprecation decorator
# (``typing_extensions.deprecated``) calls warnings.warn before the decorated function.
_WRAPPERS = (
    "warnings",
    "typing_extensions",
    "functools",
    "contextlib",
    "deprecated",
    "deprecation",
)


def _wrapped_module(frame: FrameType) -> str | None:
    """The module of the function a wrapper frame stands for, read from its locals."""
    for value in list(frame.f_locals.values()):
        module = getattr(value, "__module__", None)
        if callable(value) and isinstance(module, str) and module.split(".")[0] not in _WRAPPERS:
            return module
    return None
