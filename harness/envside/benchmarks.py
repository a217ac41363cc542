"""The benchmarks' own env-side modules, as ``<this package>.benchmarks.<name>``.

They live in their benchmark's folder (``harness/benchmarks/<name>/envside/``, standard
library only) and are imported as sub-packages of this one, on the host as on the env
side: ``from _harness_envside.benchmarks.bigcodebench.check import *`` in a context,
``from ...bridge import guard`` inside them. Importing this module makes each folder a
package of that name (``FOLDERS``); nothing of a benchmark is loaded until imported.
"""

import importlib.util
import os
import sys
from typing import Dict, List

# harness/envside → harness/benchmarks/<name>/envside
_BENCHMARKS = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"
)


def folders() -> Dict[str, str]:
    """Benchmark name → its env-side folder, for every benchmark that has one."""
    found = {}
    for name in sorted(os.listdir(_BENCHMARKS)) if os.path.isdir(_BENCHMARKS) else []:
        folder = os.path.join(_BENCHMARKS, name, "envside")
        if os.path.isfile(os.path.join(folder, "__init__.py")):
            found[name] = folder
    return found


FOLDERS = folders()
__path__: List[str] = []  # a package: its sub-packages are the folders above, below


def _register(name: str, folder: str) -> None:
    full = __name__ + "." + name
    if full in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        full, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    spec.loader.exec_module(module)


for _name, _folder in FOLDERS.items():
    _register(_name, _folder)
