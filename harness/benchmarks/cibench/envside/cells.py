"""What a CIBench session does around its steps, as a notebook kernel would: the data
files in its working directory, seeds first, and after each cell its figures taken as PNG
and closed (Jupyter's inline backend shows and closes a cell's figures).

The snippets are source code run in the session (the solution's process for an untrusted
answer), so they import what they use; what they print comes back as text, which is data.
"""

from __future__ import annotations

import os
import re
import shutil
from typing import Any, List, Optional, Tuple

# Seeds every library a session may draw from, before its first step: a derived expected
# output must come out the same on every run (PYTHONHASHSEED and MPLBACKEND=Agg are set
# for every execution, envside/processes.py).
SEED = """
def _harness_seed():
    import random
    import sys
    random.seed(0)
    for name, call in (("numpy", "random.seed"), ("torch", "manual_seed")):
        try:
            module = __import__(name)
            target = module
            for part in call.split("."):
                target = getattr(target, part)
            target(0)
        except Exception:
            pass
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "harness"
    except Exception:
        pass


_harness_seed()
del _harness_seed
"""

FIGURE_MARK = "<<harness-figure>>"

# Every open figure of the cell as a base64 PNG line, then closed (as the inline backend
# closes them): the step's figure is the last one.
FIGURES = (
    """
def _harness_figures():
    import sys
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    import base64
    import io
    for number in pyplot.get_fignums():
        buffer = io.BytesIO()
        pyplot.figure(number).savefig(buffer, format="png", metadata={"Software": None})
        print("%s" + base64.b64encode(buffer.getvalue()).decode("ascii"))
    pyplot.close("all")


_harness_figures()
del _harness_figures
"""
    % FIGURE_MARK
)

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def normalized(text: str) -> str:
    """A cell's text output without what changes from run to run (objects' addresses)."""
    return _ADDRESS.sub("", text)


def last_figure(printed: str) -> Optional[str]:
    """The last figure the FIGURES snippet printed, base64."""
    found = [
        line[len(FIGURE_MARK) :] for line in printed.splitlines() if line.startswith(FIGURE_MARK)
    ]
    return found[-1] if found else None


def stage(data: List[List[str]], into: str) -> None:
    """Copy each data file or folder (``[relative path, source]``) into ``into``, as the
    experiment's folder holds it beside its notebook."""
    for relative, source in data:
        target = os.path.join(into, relative)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            shutil.copyfile(source, target)


def run_step(cell: Any, code: str) -> Tuple[str, Optional[str]]:
    """Run one step through ``cell`` (a session's: code → printed text): its text output
    and its figure."""
    text = cell(code)
    return normalized(text), last_figure(cell(FIGURES))
