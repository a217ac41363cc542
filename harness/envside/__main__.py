"""Bootstrap: ``python -s harness/envside/__main__.py run|floor|probe|exec ...``.

Run as a script by the combo's interpreter, this loads the directory it lives in as
the package ``_harness_envside`` (a name neither the host nor a program uses) and hands
over to ``entry.main``.
"""

import importlib
import importlib.util
import os
import sys

PACKAGE = "_harness_envside"
_DIR = os.path.dirname(os.path.abspath(__file__))


def load_package() -> None:
    # The script's directory is sys.path[0]; none of its modules may be importable by
    # their bare names, where they would shadow the program's (``guard``, ``probe``).
    if sys.path and os.path.abspath(sys.path[0] or ".") == _DIR:
        del sys.path[0]
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(_DIR, "__init__.py"), submodule_search_locations=[_DIR]
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)


if __name__ == "__main__":
    load_package()
    sys.exit(importlib.import_module(PACKAGE + ".entry").main(sys.argv))
