"""What the check's side keeps of its calls across the boundary (``crossing_*``): the objects
it lent the solution and those its calls sent by value, the handles the solution's values
carry, the test's objects a call wrote to, and the figures both processes hold.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from typing import Any

from . import crossing_handed, crossing_lending, crossing_pyplot, crossing_standins
from .admission import RefusedError


class CallState:
    """The check's side of the state its calls share with the solution's process."""

    def __init__(self) -> None:
        self.lent = crossing_lending.Lent()  # what this side lent the solution, by number
        self.sent = (
            crossing_lending.Lent()
        )  # what calls sent by value, by number (crossing_handed.handed)
        # the check's stand-in modules → the solution's modules they stand for
        self.modules: dict[str, str] = {}
        self.figures: dict[int, Any] = {}  # the figures the solution sent, by its number

    def handle(self, kind: str, number: int, peer: Any) -> Any:
        """What a persistent id ``(kind, number)`` in the solution's value stands for: an
        object the check lent or sent it, or a stand-in for one the solution keeps, whose
        uses go to ``peer`` (the guard)."""
        if kind == "checker":
            try:
                return self.lent.get(number)
            except KeyError:
                raise RefusedError("checker object %d" % number, "was never lent") from None
        if kind == "sent":
            try:
                return self.sent.get(number)  # the test's own object, back unchanged
            except KeyError:
                raise RefusedError("object %d" % number, "was never sent") from None
        if kind in ("function", "iterator", "generator", "object"):
            return crossing_standins.stand_in(kind, number, peer)
        if kind == "nan":
            return crossing_handed.nan_constant(number)  # the check's own np.nan (math.nan)
        raise RefusedError("a handle of kind %r" % kind, "is not one the solution keeps")

    def keep_figures(self, numbers: Any, figures: Any) -> None:
        """The figures a call sent back, by the solution's numbers for them."""
        if isinstance(figures, list) and isinstance(numbers, list) and len(numbers) == len(figures):
            for number, figure in zip(numbers, figures):
                if type(number) is int:
                    self.figures[number] = figure

    def write_back(self, written: Any, figures: Any, open_before: set[int]) -> dict[int, Any]:
        """What the call changed of the objects the test handed it (an axes it drew on,
        a model it fitted, a list it appended to) becomes the state of the test's own
        objects; returned: which copy now stands for which of the test's objects. A
        figure that registered itself with pyplot only because it came back inside one
        of them is the test's figure, not a new one: closed here."""
        originals: dict[int, Any] = {}
        if not isinstance(written, list):
            return originals
        for item in written:
            if isinstance(item, tuple) and len(item) == 2:
                with contextlib.suppress(KeyError):
                    original = self.sent.get(item[0])
                    if crossing_handed.write_back(original, item[1]):
                        originals[id(item[1])] = original
        if not written:
            return originals
        shipped = {id(f) for f in figures} if isinstance(figures, list) else set()
        for number, manager in crossing_pyplot.figure_managers().items():
            if number not in open_before and id(manager.canvas.figure) not in shipped:
                crossing_pyplot.close_figure(manager)
        return originals

    def open_figures(self) -> dict[int, list[int]] | None:
        """The solution's numbers of the figures it sent that the check still has open,
        with what their axes hold here (a test that closes or clears them does so there
        too)."""
        if "matplotlib.pyplot" not in sys.modules:
            return None
        here = {
            id(m.canvas.figure): m.canvas.figure for m in crossing_pyplot.figure_managers().values()
        }
        return {
            number: crossing_pyplot.drawn(figure)
            for number, figure in self.figures.items()
            if id(figure) in here
        }

    def make_room(self, numbers: Any, pyplot_there: bool = False) -> None:
        """Before a call's figures are admitted (each registers itself with pyplot, last
        the current one): pyplot imported and its backend started where the solution's
        process has them (a figure being admitted would import them, which admission
        refuses), and the check's copies of the figures being replaced closed."""
        if pyplot_there and "matplotlib.pyplot" not in sys.modules:
            with contextlib.suppress(Exception):
                importlib.import_module("matplotlib.pyplot")
        crossing_pyplot.start_backend()
        if "matplotlib.pyplot" not in sys.modules or not isinstance(numbers, list) or not numbers:
            return
        copies = {id(self.figures[n]) for n in numbers if type(n) is int and n in self.figures}
        for manager in crossing_pyplot.figure_managers().values():
            if id(manager.canvas.figure) in copies:
                crossing_pyplot.close_figure(manager)


def kinds(names: Any, peer: Any) -> dict[str, Any]:
    """The check's view of the names a module of the solution's defines: a stand-in for
    each function or class of its own (its uses go to ``peer``), ``"module:numpy"`` for
    a module, ``"value"`` for the rest. What the report says otherwise is left out."""
    found: dict[str, Any] = {}
    if not isinstance(names, dict):
        return found
    for key, kind in names.items():
        if not isinstance(key, str) or not key.isidentifier() or not isinstance(kind, list):
            continue
        if kind[:1] == ["function"] and len(kind) == 2 and type(kind[1]) is int:
            found[key] = crossing_standins.stand_in("function", kind[1], peer, key)
        elif kind[:1] == ["module"] and len(kind) == 2 and isinstance(kind[1], str):
            found[key] = "module:" + kind[1]
        elif kind == ["value"]:
            found[key] = "value"
    return found
