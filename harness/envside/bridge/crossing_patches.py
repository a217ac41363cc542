"""The patches a test has active, carried to the solution's process for each call.

In one process the solution would see what its test patched (``unittest.mock.patch`` as a
decorator, a context manager or started; ``patch.dict``). The check's ``PatchTracker``
follows the patches as they are entered and left; each call carries them (``patches``)
as ``[where, attribute, value]`` and the solution's process sets them while the call runs
(``apply``), undoing them after. A patch of an object only the check's process can name
cannot cross: the test errs (``CannotCrossError``).
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

from .crossing_lending import findable

# Bound once, before any test runs: a test may patch ``os.environ`` itself.
_environ = os.environ

# -- the check's side -------------------------------------------------------------------------


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
    if isinstance(target, type) and findable(target):
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


# -- the solution's side: set while the call runs ---------------------------------------------


def apply(
    carried: Any, modules: Dict[str, types.ModuleType], undo: List[Callable[[], None]]
) -> None:
    """Set the patches a call carries (``patches``), each one's undoing appended to
    ``undo`` as it is set (what was set is undone even if a later one fails);
    ``modules``: the solution's modules by name."""
    for where, attribute, value in carried:
        target = _patch_target(where, modules)
        if attribute.startswith("<dict>"):
            undo.append(_patch_dict(getattr(target, attribute[6:]), value))
        else:
            undo.append(set_attribute(target, attribute, value))


def _patch_target(where: List[str], modules: Dict[str, types.ModuleType]) -> Any:
    if where[0] == "solution":
        return modules[where[1]]
    found: Any = importlib.import_module(where[1])
    if where[0] == "class":
        for part in where[2].split("."):
            found = getattr(found, part)
    return found


_MISSING = object()


def set_attribute(target: Any, attribute: str, value: Any) -> Callable[[], None]:
    """Set ``attribute`` of ``target``; returned: what undoes it."""
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
