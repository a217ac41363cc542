"""``__main__.py capture SESSIONS.json``: run CIBench references once and print what each
step output, one JSON line per session: the expected outputs a published notebook would
hold, where the notebooks are missing (``harness/problems/cibench_expected.py``).

Each session runs in a forked child of its own (no state shared between sessions), in an
empty working directory holding its data files, sandboxed where the machine allows it (no
network: a reference that needs one fails here as it would in a run), seeded, under a
time limit. The references are the benchmark's own code, run as a run runs a reference:
in the check's process, not through the guard.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import tempfile
import time
from typing import Any, Dict, List, TextIO

from ...checks.formatlib import harness_run_cell
from ...isolation import sandbox
from ...isolation.processes import fork, remove_tree
from . import cells as cibench_cells

Json = Dict[str, Any]


def _session(spec: List[Json], data: List[List[str]], workdir: str, write_fd: int) -> None:
    """In the child: the references' outputs, or where and why the first one failed."""
    result: Json
    try:
        # staged first: the sandbox covers /tmp, where the data's cache may be
        cibench_cells.stage(data, workdir)
        with contextlib.suppress(OSError):
            sandbox.enter(workdir)
        os.chdir(workdir)
        namespace: Json = {"__name__": "__main__"}
        outputs: List[Json] = []

        def cell(code: str) -> str:
            return str(harness_run_cell(code, namespace))

        cell(cibench_cells.SEED)
        for number, step in enumerate(spec, start=1):
            try:
                text, figure = cibench_cells.run_step(cell, step["reference"])
            except BaseException as exc:
                kind = type(exc)
                name = (
                    kind.__name__
                    if kind.__module__ == "builtins"
                    else "%s.%s"
                    % (
                        kind.__module__,
                        kind.__qualname__,
                    )
                )
                result = {"error": "step %d: %s: %s" % (number, name, str(exc)[:300])}
                break
            outputs.append({"text": text, "figure": figure})
        else:
            result = {"outputs": outputs}
    except BaseException as exc:  # the staging itself
        result = {"error": "%s: %s" % (type(exc).__name__, str(exc)[:300])}
    payload = json.dumps(result).encode()
    view = memoryview(payload)
    while view:
        view = view[os.write(write_fd, view) :]


def _one(session: Json, timeout: float) -> Json:
    """Run one session in a child; its result, or why there is none."""
    workdir = tempfile.mkdtemp(prefix="harness_capture_")
    read_fd, write_fd = os.pipe()
    pid = fork(lambda: _session(session["spec"], session["data"], workdir, write_fd))
    os.close(write_fd)
    chunks: List[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            ready = select.select([read_fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                os.kill(pid, signal.SIGKILL)
                return {"error": "did not finish within %ds" % timeout}
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        os.waitpid(pid, 0)
        remove_tree(workdir)
    try:
        result = json.loads(b"".join(chunks).decode())
    except ValueError:
        return {"error": "the session ended without a result (it crashed)"}
    return result if isinstance(result, dict) else {"error": "no result"}


def capture(path: str, protocol: TextIO) -> int:
    """Each session of the file (``[{key, spec, data, timeout}]``), one line each:
    ``{key, outputs}`` or ``{key, error}``."""
    with open(path, encoding="utf-8") as fh:
        sessions = json.load(fh)
    for session in sessions:
        result = _one(session, float(session.get("timeout", 300)))
        result["key"] = session["key"]
        protocol.write(json.dumps(result) + "\n")
        protocol.flush()
    return 0
