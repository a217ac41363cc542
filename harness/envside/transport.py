"""The values a solution sends back to its check, and how the check admits them.

Solution side: ``outputs`` pickles what the solution assigned, and the open Matplotlib
figures. Checker side: ``safe_loads`` unpickles them with a restricted unpickler.
"""

from __future__ import annotations

import base64
import builtins
import io
import pickle
import re
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .protocol import Json

# -- handing values back ------------------------------------------------------------------

_ALLOWED_TOPS = frozenset(
    {
        "numpy",
        "pandas",
        "scipy",
        "sklearn",
        "torch",
        "tensorflow",
        "keras",
        "matplotlib",
        "mpl_toolkits",
        "seaborn",
        "statsmodels",
        "xgboost",
        "gensim",
        "PIL",
        "datetime",
        "decimal",
        "fractions",
        "collections",
        "copyreg",
        "_codecs",
        "builtins",
        "dateutil",
        "pytz",
        "zoneinfo",
        "numbers",
        "enum",
        "uuid",
        "functools",
        "itertools",
        "array",
    }
)
_SAFE_BUILTINS = frozenset(
    {
        "list",
        "dict",
        "set",
        "frozenset",
        "tuple",
        "str",
        "bytes",
        "bytearray",
        "int",
        "float",
        "complex",
        "bool",
        "slice",
        "range",
        "object",
        "getattr",
    }
)
# Words in a name that reads or writes files, loads more pickles or runs code: a pickle
# may not reach such a thing, whatever its module. Anything else a returned value can
# call (a library's reconstructors, its classes) does only what the solution could have
# done itself and sent back as its result.
_IO_WORDS = frozenset(
    [
        "load",
        "loads",
        "loadtxt",
        "save",
        "savez",
        "savetxt",
        "read",
        "write",
        "open",
        "dump",
        "dumps",
        "memmap",
        "fromfile",
        "tofile",
        "genfromtxt",
        "fromregex",
        "exec",
        "eval",
        "compile",
        "system",
        "popen",
        "spawn",
        "import",
        "file",
        "files",
        "hdf",
        "sql",
        "pickle",
        "shell",
        "run",
        "setattr",
        "delattr",
        "getattr",
        "globals",
        "locals",
        "vars",
        "unlink",
        "rmtree",
        "rename",
        "chmod",
        "kill",
        "fork",
        "environ",
        "exit",
        "settrace",
        "setprofile",
    ]
)
# Words of functions that change a library's global state (seeds, options, styles):
# refused as module-level functions. Classes may carry them (``QuadContourSet``,
# ``CapStyle``) and so may methods of a returned object, which change only that object.
_SETTING_WORDS = frozenset(
    [
        "set",
        "seed",
        "seterr",
        "seterrcall",
        "setbufsize",
        "option",
        "options",
        "config",
        "register",
        "use",
        "rc",
        "rcdefaults",
        "style",
        "backend",
        "remove",
        "patch",
        "mock",
    ]
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def _words(name: str) -> set[str]:
    """``_load_from_bytes`` → {load, from, bytes}; ``CallbackRegistry`` → {callback, registry}.

    A word run together with ``set`` (``setcontext``, ``setstate``) also counts as "set".
    """
    words = {w.lower() for w in _WORD.findall(name)}
    if any(w.startswith("set") for w in words):
        words.add("set")
    return words


def _foreign(found: object) -> bool:
    """A module, or a function or class that lives outside the allowed libraries (an
    ``os`` function a library happens to import, say): never part of a returned value."""
    if isinstance(found, types.ModuleType):
        return True
    home = getattr(found, "__module__", None)
    return isinstance(home, str) and home.split(".", maxsplit=1)[0] not in _ALLOWED_TOPS


def _safe_getattr(obj: object, name: str) -> object:
    """``getattr`` for pickles: no dunders (``__globals__``, ``__subclasses__``), nothing
    that does I/O, and never a module's (its functions are what ``find_class`` guards).
    Private names are fine: classes pickle their ``_unpickle`` classmethods this way."""
    refused = pickle.UnpicklingError("attribute %r is not allowed in a returned value" % (name,))
    if (
        not isinstance(name, str)
        or name.startswith("__")
        or _words(name) & _IO_WORDS
        or isinstance(obj, types.ModuleType)
    ):
        raise refused
    found = getattr(obj, name)
    if _foreign(found):
        raise refused
    return found


class SafeUnpickler(pickle.Unpickler):
    """Unpickles the values a solution sends back: classes, constants and reconstructors
    of the data-science libraries; never functions that touch files, run code or change
    settings, which would let a returned value reach into the check's process."""

    def find_class(self, module: str, name: str) -> Any:
        top = module.split(".", maxsplit=1)[0]
        refused = pickle.UnpicklingError(
            "%s.%s is not allowed in a returned value" % (module, name)
        )
        if top not in _ALLOWED_TOPS:
            raise refused
        if top == "builtins":
            if name not in _SAFE_BUILTINS:
                raise refused
            return _safe_getattr if name == "getattr" else getattr(builtins, name)
        if top == "torch" and name == "_load_from_bytes":
            return _torch_tensor_from_bytes  # torch.load, restricted to tensors
        words = _words(name)
        if words & _IO_WORDS:
            raise refused
        # Walked by hand rather than by Unpickler.find_class so that no step of a dotted
        # name passes through a module ("uuid", "os.rmdir" reaches os through uuid).
        __import__(module)
        found: object = sys.modules[module]
        for part in name.split("."):
            found = getattr(found, part)
            if isinstance(found, types.ModuleType):
                raise refused
        if _foreign(found) or (words & _SETTING_WORDS and not isinstance(found, type)):
            raise refused
        return found


def _torch_tensor_from_bytes(data: bytes) -> Any:
    torch = sys.modules["torch"]  # loaded: find_class imported torch to get here
    return torch.load(io.BytesIO(data), weights_only=True)


def safe_loads(data: bytes) -> Any:
    return SafeUnpickler(io.BytesIO(data)).load()


# Bound at import, before any solution runs: a solution that patches pickle or base64
# in its own process must not be able to garble the values it sends back.
_pickle_dumps = pickle.dumps
_b64encode = base64.b64encode


def _encode(value: object) -> str:
    return _b64encode(_pickle_dumps(value, protocol=4)).decode("ascii")


def _freeze_ticks(figure: Any) -> None:
    """Replace tick formatters and locators that cannot be pickled (a ``FuncFormatter``
    around a lambda) by fixed ones showing the same ticks and labels, as drawn."""
    import importlib

    ticker = importlib.import_module("matplotlib.ticker")  # loaded: pyplot made the figure
    figure.canvas.draw()
    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            for major in (True, False):
                formatter = axis.get_major_formatter() if major else axis.get_minor_formatter()
                locator = axis.get_major_locator() if major else axis.get_minor_locator()
                try:
                    _pickle_dumps((formatter, locator), protocol=4)
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


def outputs(env: dict[str, Any]) -> Json:
    """What the solution assigned, pickled value by value; the open figures too."""
    values, skipped = {}, {}
    for name, value in list(env.items()):
        if name.startswith("__") or type(value).__name__ in (
            "module",
            "function",
            "type",
            "builtin_function_or_method",
        ):
            continue
        try:
            values[name] = _encode(value)
        except Exception as exc:
            skipped[name] = "%s: %s" % (type(exc).__name__, str(exc)[:200])
    figures, current = [], None
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        numbers = pyplot.get_fignums()
        if numbers:
            current = pyplot.gcf().number
        for number in numbers:
            figure = pyplot.figure(number)
            try:
                figures.append(_encode(figure))
            except Exception as exc:
                try:
                    _freeze_ticks(figure)
                    figures.append(_encode(figure))
                except Exception:
                    skipped["<figure %d>" % number] = "%s: %s" % (
                        type(exc).__name__,
                        str(exc)[:200],
                    )
    return {
        "kind": "ok",
        "values": values,
        "skipped": skipped,
        "figures": figures,
        "current": current,
    }
