"""What a solution's process sends back to its check: each value the solution assigned, and
each open Matplotlib figure, pickled on its own (one that cannot be pickled loses only
itself). The checker reads none of it as it is: it admits each pickle through
``admission`` (default-deny), under the ``allowlist``.
"""

from __future__ import annotations

import importlib
import pickle
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

if TYPE_CHECKING:
    from ..protocol import Json


# Bound at import, before any solution runs: a solution that patches pickle in its own
# process must not garble the values it sends back by accident. (On purpose, it can:
# everything it sends is read as untrusted.)
_pickle_dumps = pickle.dumps
SKIPPED_TYPES = ("module", "function", "type", "builtin_function_or_method")


def _dumps(value: object) -> bytes:
    return _pickle_dumps(value, protocol=4)


def snapshot(env: Dict[str, Any]) -> Dict[str, Tuple[int, bytes]]:
    """Before the solution runs: the pickles of the values the check handed it, so that
    the ones it leaves untouched need not travel back (the checker still has them)."""
    taken = {}
    for name, value in list(env.items()):
        if name.startswith("__") or type(value).__name__ in SKIPPED_TYPES:
            continue
        try:
            taken[name] = (id(value), _dumps(value))
        except Exception:
            continue
    return taken


def outputs(env: Dict[str, Any], before: Dict[str, Tuple[int, bytes]]) -> Tuple[Json, List[bytes]]:
    """What the solution assigned, pickled value by value; the open figures too.

    Values that hold a figure (``fig``, ``ax``, a seaborn grid) travel in one pickle with
    the open figures — the *bundle* — so that a figure is sent, and admitted, once, and
    ``fig`` is the very figure pyplot holds, as it was in the solution's process.

    Returns the report's header and the pickles it announces: values first, then the
    bundle (if any), then figures that could only be sent on their own."""
    names: List[str] = []
    blobs: List[bytes] = []
    unchanged: List[str] = []
    skipped: Dict[str, str] = {}
    drawn: Dict[str, Any] = {}  # values that hold figures, for the bundle
    pyplot = sys.modules.get("matplotlib.pyplot")
    for name, value in list(env.items()):
        if name.startswith("__") or type(value).__name__ in SKIPPED_TYPES:
            continue
        if pyplot is not None and name not in before and holds_artists(value):
            drawn[name] = value
            continue
        try:
            blob = _dumps(value)
        except Exception as exc:
            skipped[name] = "%s: %s" % (type(exc).__name__, str(exc)[:200])
            continue
        earlier = before.get(name)
        if earlier is not None and earlier[0] == id(value) and earlier[1] == blob:
            unchanged.append(name)
        else:
            names.append(name)
            blobs.append(blob)
    header: Json = {"kind": "ok", "values": names, "unchanged": unchanged, "skipped": skipped}
    # bundle: the names of the values in the bundle, or None when no bundle is sent
    header.update(bundle=None, figures=0, current=None)
    if pyplot is None:
        return header, blobs
    numbers = pyplot.get_fignums()
    if numbers:
        header["current"] = pyplot.gcf().number
    figures = [pyplot.figure(number) for number in numbers]
    if figures or drawn:
        bundle = _bundle(figures, drawn)
        if bundle is not None:
            header.update(bundle=list(drawn), figures=len(figures))
            blobs.append(bundle)
            return header, blobs
        # something in it cannot be pickled: each value and figure on its own
        for name, value in drawn.items():
            try:
                blobs.append(_dumps(value))
                names.append(name)
            except Exception as exc:
                skipped[name] = "%s: %s" % (type(exc).__name__, str(exc)[:200])
        for number, figure in zip(numbers, figures):
            try:
                blobs.append(_dumps(figure))
            except Exception as exc:
                try:
                    freeze_ticks(figure)
                    blobs.append(_dumps(figure))
                except Exception:
                    skipped["<figure %d>" % number] = "%s: %s" % (
                        type(exc).__name__,
                        str(exc)[:200],
                    )
                    continue
            header["figures"] += 1
    return header, blobs


def _bundle(figures: List[Any], drawn: Dict[str, Any]) -> Optional[bytes]:
    try:
        return _dumps((figures, drawn))
    except Exception:
        pass
    try:  # a tick formatter around a lambda: fix the ticks as drawn, then try again
        for figure in figures:
            freeze_ticks(figure)
        return _dumps((figures, drawn))
    except Exception:
        return None


# the packages whose objects are a figure's parts (what ``holds_artists`` looks for here,
# and what the checker's digest leaves out wherever admitting a value named them)
ARTIST_TOPS = ("matplotlib", "mpl_toolkits", "seaborn")


def holds_artists(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is (or directly holds) a Matplotlib or seaborn object: an axes, a
    figure, a list of lines, an array of axes, a seaborn grid. Never raises: a value
    whose attributes do (a pandas Series of strings has an object dtype and no ``flat``)
    holds none."""
    try:
        module = getattr(type(value), "__module__", "") or ""
        if module.split(".")[0] in ARTIST_TOPS:
            return True
        if depth >= 2:
            return False
        if isinstance(value, (list, tuple)):
            return any(holds_artists(v, depth + 1) for v in value[:16])
        if isinstance(value, dict):
            return any(holds_artists(v, depth + 1) for v in list(value.values())[:16])
        flat = getattr(value, "flat", None) if type(value).__name__ == "ndarray" else None
        if flat is not None and getattr(value.dtype, "kind", "") == "O":  # plt.subplots' axes
            return any(holds_artists(v, depth + 1) for v in value.flat[:16])
    except Exception:
        return False
    return False


def freeze_ticks(figure: Any) -> None:
    """Replace tick formatters and locators that cannot be pickled (a ``FuncFormatter``
    around a lambda) by fixed ones showing the same ticks and labels, as drawn."""
    ticker = importlib.import_module("matplotlib.ticker")  # loaded: pyplot made the figure
    figure.canvas.draw()
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            for major in (True, False):
                formatter = axis.get_major_formatter() if major else axis.get_minor_formatter()
                locator = axis.get_major_locator() if major else axis.get_minor_locator()
                try:
                    _dumps((formatter, locator))
                    continue
                except Exception:
                    pass
                ticks = axis.get_major_ticks() if major else axis.get_minor_ticks()
                locations = axis.get_majorticklocs() if major else axis.get_minorticklocs()
                labels = [t.label1.get_text() for t in ticks][: len(locations)]
                fixed_locator = ticker.FixedLocator(locations)
                fixed_formatter = ticker.FixedFormatter(labels)
                if major:
                    axis.set_major_locator(fixed_locator)
                    axis.set_major_formatter(fixed_formatter)
                else:
                    axis.set_minor_locator(fixed_locator)
                    axis.set_minor_formatter(fixed_formatter)
