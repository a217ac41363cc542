"""What one process would share, carried with each call of the solution and back.

In one process the solution shares with its tests the environment, the working directory,
the global random states (``random``, NumPy, torch), the redirected standard streams, the
warning filters, the patches the test has active (``crossing_patches``) and Matplotlib's
style and figures (``crossing_pyplot``). Each call carries them (``call_context``), the
solution's process takes them while the call runs (``applied``) and sends back what the
call changed (``state_after``), which the check takes (``after_call``); the warnings the
call raised there are raised again here, under the test's filters (``reemit``).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import random
import sys
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional

from . import crossing_patches, crossing_pyplot
from .crossing_lending import findable

if TYPE_CHECKING:
    import types

    from ..protocol import Json

# Bound once, before any test or solution runs: a test patches ``os.getcwd`` or
# ``random.getstate`` for the code it tests, and the harness's own calls on either side
# must not reach its mocks.
_getcwd, _chdir, _environ = os.getcwd, os.chdir, os.environ
_getstate, _setstate = random.getstate, random.setstate

# -- the global random states, on either side ------------------------------------------------


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


# -- the check's side -------------------------------------------------------------------------

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
        "patches": crossing_patches.patches(solution_modules),
        "streams": {},
    }
    for name in ("stdout", "stderr"):
        current = getattr(sys, name)
        if STREAMS and current is not STREAMS.get(name):
            context["streams"][name] = current
    context["figures"] = figures
    context["rc"] = crossing_pyplot.style()
    context["warnings"] = [f for f in warnings.filters if findable(f[2])]
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
    crossing_pyplot.set_style(state.get("rc"))


# -- the solution's side ----------------------------------------------------------------------


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
    crossing_pyplot.take_style(context.get("rc"))
    crossing_pyplot.follow_the_tests_figures(context.get("figures"))
    if context.get("patches"):
        crossing_pyplot.start_backend()
    undo: List[Callable[[], None]] = []
    try:
        crossing_patches.apply(context.get("patches") or [], modules, undo)
        for name, stream in (context.get("streams") or {}).items():
            if name in ("stdout", "stderr"):
                undo.append(crossing_patches.set_attribute(sys, name, stream))
        undo.append(_forward_warnings(context.get("warnings")))
        yield
    finally:
        for step in reversed(undo):
            with contextlib.suppress(Exception):
                step()


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


def state_after() -> Json:
    """What a call changed of the state the two processes share, for the check."""
    rc = crossing_pyplot.style_changed()
    return {"random": random_states(), "cwd": _getcwd(), "rc": rc}
