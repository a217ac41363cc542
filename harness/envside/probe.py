"""What an environment offers: its Python, and for each library whether it imports, how
fast, and the deprecation warnings its import raises."""

from __future__ import annotations

import importlib
import platform
import time
import warnings

from .bridge.recorder import tracked
from .protocol import MAX_MESSAGE, MAX_WARNINGS, Json, qualified


def probe_modules(modules: list[str]) -> Json:
    imports: Json = {}
    report: Json = {"python": platform.python_version(), "modules": imports}
    for name in modules:
        entry: Json = {"ok": False}
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                importlib.import_module(name)
                entry["ok"] = True
            except BaseException as exc:
                entry["error"] = "%s: %s" % (qualified(type(exc)), str(exc)[:MAX_MESSAGE])
        entry["import_s"] = round(time.perf_counter() - start, 4)
        entry["warnings"] = [
            {
                "category": qualified(w.category),
                "message": str(w.message)[:MAX_MESSAGE],
                "module": name,
            }
            for w in caught
            if tracked(w.category)
        ][:MAX_WARNINGS]
        imports[name] = entry
    return report
