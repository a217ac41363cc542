"""Matplotlib across the boundary: the style one process shares, and the figures.

The style (``rcParams``) travels with each call and back, as one process shares it
(``plt.style.use`` in the answer is seen by the test). The figures a call made or changed
go back with its result (``figures_to_ship``), not the ones the check sent it
(``arrived_figures``: what the call changed of those is written back instead); a figure
the test closed or cleared is closed or cleared in the solution's process too
(``follow_the_tests_figures``). pyplot's open figures are read from its registry, never
through pyplot's functions, which a test may have patched.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Dict, List, Optional

from .crossing_handed import RECEIVED
from .crossing_lending import plain

# -- the style (both sides) -------------------------------------------------------------------


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
        if k not in kept_out and not k.startswith(("webagg.", "backend")) and plain(v)
    }


def set_style(values: Any) -> None:
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is None or not isinstance(values, dict):
        return
    allowed = style() or {}
    for key, value in values.items():
        if key in allowed and allowed[key] != value and plain(value):
            with contextlib.suppress(Exception):
                matplotlib.rcParams[key] = value


# The style as the call found it (after taking the check's): what it changed goes back.
STYLE_BEFORE: Dict[str, Any] = {}


def take_style(values: Any) -> None:
    """The solution's side, as a call starts: the check's style, remembered as found."""
    set_style(values)
    STYLE_BEFORE.clear()
    STYLE_BEFORE.update(style() or {})


def style_changed() -> Dict[str, Any]:
    """The solution's side, as a call ends: what it changed of the style, for the check."""
    now = style() or {}
    changed = {k: v for k, v in now.items() if STYLE_BEFORE.get(k, v) != v or k not in STYLE_BEFORE}
    return changed if STYLE_BEFORE else {}


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


# -- the figures ------------------------------------------------------------------------------

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


def follow_the_tests_figures(figures: Any) -> None:
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
