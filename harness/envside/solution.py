"""The solution's process: a brand-new interpreter that runs an untrusted solution.

The guard starts it (``__main__.py solution FD CONFIG``) from the execution's process, the
checker, and it inherits the checker's sandbox — namespaces, working directory, limits,
standard output — but none of its memory. That is the point: a process forked from the
checker would hold the check's code, its expected values and the batch with every
reference, and a solution that reads its own memory raw (ctypes, ``libc.read`` of
``/proc/self/mem``, NumPy's array interface over an address) would find them; no audit
hook can see such a read. A fresh interpreter holds only what it is sent.

Per run of the solution it receives one request: the code, the values the check gives it
(one pickle, so values that share an array still share it), the modules by name and the
global random states a fork would have inherited. It runs the code and sends back what
the code assigned (``transport``), then waits for the check's next run.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import os
import random
import re
import socket
import sys
import traceback
from typing import TYPE_CHECKING, Any

from . import guard, sandbox, transport
from .execution import WarningRecorder

if TYPE_CHECKING:
    from .protocol import Json

# -- what untrusted code may not do ------------------------------------------------------

# Closed in the solution's process for what they would give away anywhere (the parent's
# memory through /proc, other processes' environments); the check's values are not here
# to find, and these close only the easy ways in, not a defence of their own.
_BLOCKED_EVENTS = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "sys._current_frames",
        "ctypes.string_at",
        "ctypes.wstring_at",
    }
)
_PROC_MEMORY = re.compile(
    r"^/proc/(self|thread-self|\d+)/(task/\d+/)?(mem|pagemap|environ|maps|smaps)$"
)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event in _BLOCKED_EVENTS:
        raise RuntimeError("the sandbox does not allow %s" % event)
    if event == "open" and args and isinstance(args[0], (str, bytes)):
        path = args[0].decode() if isinstance(args[0], bytes) else args[0]
        if _PROC_MEMORY.match(path):
            raise PermissionError("the sandbox does not allow reading %s" % path)


def arm_audit() -> None:
    """Install the audit hook; it cannot be removed for the life of the process."""
    sys.addaudithook(_audit)


# -- the process --------------------------------------------------------------------------

_exec = builtins.exec  # bound before any solution runs: one may replace builtins.exec


def main(fd: int, config: Json) -> None:
    """Serve the checker's requests on the socket ``fd`` until it closes it."""
    requests = socket.socket(fileno=fd)
    sandbox.die_with_parent(int(config.get("parent", 0)))
    if config.get("sandboxed"):
        sandbox.drop_privileges()
        sandbox.undumpable()
        sandbox.limit(int(config.get("fsize_mb", 1024)), int(config.get("nproc", 0)))
    recorder = None
    if config.get("warnings"):
        recorder = WarningRecorder()
        recorder.install()
    arm_audit()
    try:
        while True:
            received = guard.receive_request(requests)
            if received is None:
                break  # the checker is done with this process
            request, report_fd = received
            report, blobs = serve(request, recorder)
            guard.send_report(report_fd, report, blobs)
            os.close(report_fd)
            if report.get("kind") == "declined":
                break
    finally:
        # Skip interpreter shutdown: threads and atexit hooks a solution left behind
        # must not keep this process alive.
        os._exit(0)


def serve(request: bytes, recorder: WarningRecorder | None) -> tuple[Json, list[bytes]]:
    """One run: the values, modules and random states as the check has them."""
    try:
        env: dict[str, Any] = {}
        code, values, modules, states = guard.load_request(request, env)
        env.update(values)
        for name, module in modules.items():
            env[name] = sys.modules.get(module) or importlib.import_module(module)
        _set_random_states(states)
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close("all")  # the figures of the check's previous run of the solution
        before = transport.snapshot(env)
    except BaseException as exc:
        return {"kind": "declined", "message": "%s: %s" % (type(exc).__name__, exc)}, []
    return _run(code, env, before, recorder)


def _set_random_states(states: dict[str, Any]) -> None:
    random.seed()  # as after a fork
    if "numpy" in states:
        importlib.import_module("numpy").random.set_state(states["numpy"])
    if "torch" in states:
        importlib.import_module("torch").set_rng_state(states["torch"])


def _run(
    code: Any, env: dict[str, Any], before: dict[str, Any], recorder: WarningRecorder | None
) -> tuple[Json, list[bytes]]:
    recorded = len(recorder.items) if recorder is not None else 0
    try:
        _exec(code, env)
        report, blobs = transport.outputs(env, before)
    except BaseException as exc:
        frames = traceback.extract_tb(exc.__traceback__)[-4:]
        report = {
            "kind": "raised",
            "type": type(exc).__qualname__
            if type(exc).__module__ == "builtins"
            else "%s.%s" % (type(exc).__module__, type(exc).__qualname__),
            "message": str(exc)[:2000],
            "traceback": "\n".join("%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames),
        }
        blobs = []
    if recorder is not None:
        report["warnings"] = list(recorder.items[recorded:])
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return report, blobs
