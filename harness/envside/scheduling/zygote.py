"""What a zygote does before it forks: import the problems' libraries once, and check
that each heavy one still works in a forked child."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
import warnings

from ..isolation.processes import fork
from ..protocol import describe_exit, exit_code, qualified
from .execution import reset_after_fork


def preload(modules: list[str]) -> tuple[list[str], dict[str, str]]:
    """Import ``modules`` here, once, so that every forked child inherits them.

    A name that is not a module (``from numpy import array`` yields ``numpy.array``)
    or that fails to import is simply left to the child. Returns what was imported
    and what failed, with the reason.
    """
    import importlib
    import importlib.util

    loaded: list[str] = []
    failed: dict[str, str] = {}
    for name in modules:
        if name in sys.modules:
            continue
        try:  # imports the parent packages, which the child would import too
            if importlib.util.find_spec(name) is None:
                continue
        except (ImportError, ValueError, AttributeError):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                importlib.import_module(name)
                loaded.append(name)
            except BaseException as exc:  # a broken module must not stop the zygote
                failed[name] = "%s: %s" % (qualified(type(exc)), exc)
    return loaded, failed


# A tiny piece of real work per library: run in a forked child, it shows whether the
# library still works after a fork (thread pools, runtimes initialised at import).
FORK_PROBES = {
    "numpy": "import numpy; numpy.ones(3).sum()",
    "torch": "import torch; torch.ones(8, 8).matmul(torch.ones(8, 8)).sum().item()",
    "tensorflow": "import tensorflow as tf; float(tf.reduce_sum(tf.ones((8, 8)) @ tf.ones((8, 8))))",
    "sklearn": "from sklearn.linear_model import LinearRegression; LinearRegression().fit([[0], [1]], [0, 1])",
}
_FORK_PROBE_TIMEOUT = 60.0


def warm_pyplot() -> None:
    """Start pyplot's backend once here (Agg: the environment sets it): otherwise each
    child that draws, or that receives a figure, imports and starts it again."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    start = getattr(pyplot, "_get_backend_mod", None)
    if start is not None:
        with contextlib.suppress(Exception), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start()


def warm_reseeding() -> None:
    """Reseed once here, so that each child's reseeding is cheap: NumPy's first
    ``seed()`` in a process costs ~15 ms (it sets up its entropy machinery), later
    ones a fraction of a millisecond. The children still draw fresh OS entropy."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            numpy.random.seed()


def fork_probe(library: str) -> str | None:
    """None when ``library`` works in a forked child, else the reason it does not."""

    def probe() -> None:  # pragma: no cover - runs in the child
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        reset_after_fork()
        exec(FORK_PROBES[library], {})
        os._exit(0)

    pid = fork(probe, status=1)
    deadline = time.monotonic() + _FORK_PROBE_TIMEOUT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = exit_code(status)
            return None if code == 0 else "a forked child failed (%s)" % describe_exit(code)
        time.sleep(0.01)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return "a forked child hung for %gs" % _FORK_PROBE_TIMEOUT
