"""What crosses the boundary between the host and the env side, defined once.

The host writes a batch file (JSON) and reads one JSON line per finished execution:
``{"seq": N, "outcome": {...}}``, then ``{"done": true, "protocol": PROTOCOL, ...}``.

Both sides import this module: the env side as its own, the host as
``harness.envside.protocol`` (standard library only, Python 3.8 grammar, so that it runs
in every combo's interpreter and in the host's alike).
"""

from __future__ import annotations

import os
import signal
from typing import Any, Dict

PROTOCOL = 1
# The Pythons a combo may ask for: the env side's floor (3.8) to the newest it is tested on.
SUPPORTED_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
Json = Dict[str, Any]  # a decoded JSON object (typing.Dict: this runs on Python 3.8)

# The launcher the host starts, and the directory every env-side module lives in.
HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCHER = os.path.join(HERE, "__main__.py")

# The first line of a program a check runs on the solution's behalf, when the solution
# is data to it (the cells of a session, a module its tests import): the program runs
# apart like the solution itself.
RUNS_SOLUTION = "# harness: runs the solution\n"

STATUSES = ("pass", "fail", "error", "timeout", "crash", "skipped", "env_error")
PART_STATUSES = ("pass", "fail", "error", "skipped")
MAX_WARNINGS = 100
MAX_MESSAGE = 2000
MAX_TRACEBACK = 3000


def outcome(status: str, exc_type: str | None = None, message: str = "") -> Json:
    """An outcome record the env side made itself (the program did not report one)."""
    return {"status": status, "exc_type": exc_type, "message": message, "warnings": []}


def qualified(cls: type) -> str:
    """``KeyError``, ``numpy.exceptions.AxisError``: how outcomes name a type."""
    module = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if module == "builtins" else "%s.%s" % (module, cls.__qualname__)


def exit_code(status: int) -> int:
    """A wait status as ``subprocess`` reports it: negative for a signal."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def describe_exit(code: int) -> str:
    if code < 0:
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit status %d" % code
