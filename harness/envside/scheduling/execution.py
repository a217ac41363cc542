"""One program in one process: run it, record its warnings, describe how it ended.

``execute`` runs in the execution's own process (forked from a zygote, or a fresh
interpreter); ``prepare`` puts that process in its sandbox first, and ``report`` hands
the outcome to the scheduler through a pipe and leaves at once.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from typing import TYPE_CHECKING, Any, Dict

from ..allowlist import shipped_allowlist
from ..bridge import crossing_errors, guard
from ..bridge.admission import Usage
from ..bridge.recorder import WarningRecorder
from ..isolation import sandbox
from ..protocol import HERE, MAX_MESSAGE, MAX_TRACEBACK, PART_STATUSES, qualified
from ..timing import phases

if TYPE_CHECKING:
    from ..protocol import Json


def build_program(context: str, solution: str) -> str:
    """DS-1000's grading program: the context, then its tests on the solution."""
    program = context + "\ncode = " + repr(solution) + "\ntest_execution(code)\n"
    if "def test_string(" in context:
        program += "test_string(code)\n"
    return program


def execute(payload: Json) -> Json:
    """Run one program in this process and describe how it ended.

    For untrusted solutions the program's ``exec`` is the guard's: the solution runs in
    a sandboxed child and only what it assigned comes back to be checked here.
    """
    recorder = WarningRecorder()
    recorder.install()
    namespace: Json = {"__name__": "__main__", "__builtins__": builtins}
    usage = Usage() if payload.get("record_transport") else None
    apart = _make_guard(payload, recorder, usage) if payload.get("untrusted") else None
    if apart is not None:
        namespace["__builtins__"] = apart.builtins()
        guard.ACTIVE[:] = [apart]
        # its process placed while the check computes what it will give it
        apart.resident.prestart()
    start = time.perf_counter()
    phases.mark("program")
    status, exc_type, message, tb = _run(payload, namespace)
    phases.mark("checked")
    parts = _parts(namespace.get("HARNESS_PARTS"))
    note = ""
    graded = ""
    if apart is not None:
        notes = ["refused %s" % r for r in apart.refused] + apart.lost
        marked = namespace.get("HARNESS_GRADED")
        if isinstance(marked, list) and marked and isinstance(marked[0], str):
            # graded beside the solution in its process: its parts are its own report
            graded = "in-process"
            notes.insert(0, "graded in the solution's process: %s" % marked[0][:300])
        note = "; ".join(notes)
        if not apart.engaged and status == "pass":
            # The check ran the solution some way other than exec() of a string, so it
            # ran in this process, next to the check: not a pass we can vouch for.
            status, exc_type = "error", "GuardError"
            message = (
                "the check never ran the solution through exec(), so it could not be run apart"
            )
    result: Json = {
        "status": status,
        "note": note,
        "graded": graded,
        "parts": parts,
        # graded in the solution's process, its values never crossed: nothing to digest
        "crossed": _crossed(apart, graded),
        "exc_type": exc_type,
        "message": message[:MAX_MESSAGE],
        "traceback": tb,
        "program_s": time.perf_counter() - start,
        "warnings": recorder.items,
    }
    if usage is not None:
        result["transport"] = usage.to_json()
    return result


def _crossed(apart: guard.Guard | None, graded: str) -> Dict[str, str]:
    """The digests of the data the solution sent back, by label (``Guard.digests``: a
    variable's name, ``module:name``, ``<figures>``; ``?why`` where something crossed
    that it cannot count); none for a solution graded in its own process (nothing
    crossed)."""
    if apart is None or not apart.engaged or graded:
        return {}
    return apart.digests()


def _make_guard(payload: Json, recorder: WarningRecorder, usage: Usage | None) -> guard.Guard:
    """The guard the program's ``exec`` becomes, for an untrusted solution."""
    return guard.Guard(
        payload["solution"],
        close_fds=[payload.get("result_fd", -1)],
        sandboxed=bool(payload.get("sandboxed")),
        limits=payload.get("limits") or {},
        recorder=recorder,
        allowlist=shipped_allowlist(payload.get("allowlist_extra") or ""),
        usage=usage,
        place={k: payload.get(k) for k in ("hide", "memory_mb", "cgroups")},
        in_process="" if payload.get("record_transport") else str(payload.get("in_process") or ""),
    )


def _run(payload: Json, namespace: Json) -> tuple[str, str | None, str, str]:
    """Run the program in ``namespace``: its status, exception type, message and
    traceback."""
    try:
        code = compile(build_program(payload["context"], payload["solution"]), "<program>", "exec")
        exec(code, namespace)
    except AssertionError as exc:
        return "fail", qualified(type(exc)), str(exc), _tb(exc)
    except crossing_errors.RemoteError as exc:
        # raised by the solution in its own process, under a name only it knows
        return "error", exc.qualified, str(exc), exc.remote_traceback
    except guard.GuardError as exc:
        # what the check gives the solution could not be sent to its process
        return "error", "GuardError", str(exc), ""
    except guard.GuardRefusedError as exc:
        # the checker would not admit what the solution sent back (admission.py)
        return "error", "GuardRefused", str(exc), ""
    except BaseException as exc:
        return "error", qualified(type(exc)), str(exc), _tb(exc)
    return "pass", None, "", ""


def _parts(declared: Any) -> list[Json]:
    """The graded pieces a context recorded in ``HARNESS_PARTS`` (unit tests, session
    steps): a list of {name, status, message, type}; anything else there is ignored."""
    if not isinstance(declared, list):
        return []
    return [
        {
            "name": str(item.get("name", ""))[:200],
            "status": item["status"],
            "message": str(item.get("message", ""))[:500],
            "exc_type": str(item.get("type", ""))[:200],
        }
        for item in declared[:500]
        if isinstance(item, dict) and item.get("status") in PART_STATUSES
    ]


def _tb(exc: BaseException) -> str:
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(HERE)
    ][-4:]
    lines = ["%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames]
    return "\n".join(lines)[-MAX_TRACEBACK:]


def limit_memory(megabytes: int | None) -> None:
    if not megabytes:
        return
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return
    limit = megabytes * 1024 * 1024
    # RLIMIT_DATA counts heap and private anonymous maps but not shared libraries,
    # so it caps what a solution allocates without breaking torch's or TF's imports.
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))


# Bound once, at start: the program may patch ``json`` or ``os`` in its own process,
# and the report of how it ended must not depend on what it patched.
_dumps = json.dumps
_write = os.write
_close = os.close
_exit = os._exit


def report(result_fd: int, outcome: Json) -> None:
    """Hand the outcome to the runner and leave at once."""
    if phases.ON:
        phases.mark("reported")
        outcome = dict(outcome, phases=[*phases.MARKS, *phases.usage()])
    data = _dumps(outcome).encode("utf-8")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # a program may have closed its streams
            stream.flush()
    with contextlib.suppress(OSError):
        while data:
            data = data[_write(result_fd, data) :]
        # closed now, so that its reader has the whole report before this process's
        # memory is torn down (which ends the process, and takes milliseconds)
        _close(result_fd)
    # Skip interpreter shutdown: threads and atexit hooks the program left behind
    # must not keep the process alive once its outcome is known.
    _exit(0)


def fresh_child_main(result_fd: int, parent: int) -> None:
    """``exec FD PARENT``: one execution in a brand-new interpreter."""
    sandbox.die_with_parent(parent)
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    prepare(payload, os.getcwd(), result_fd)
    report(result_fd, execute(payload))


def prepare(payload: Json, workdir: str, result_fd: int) -> None:
    """Everything an execution's process does before the program: sandbox, temp dir, limits.

    (Its cgroups it was born in: those of the worker that forked it.)"""
    sandboxed = bool(payload.get("sandboxed"))
    if sandboxed:
        # born in its worker's pid namespace (its parent outside it is pid 0): a /proc of
        # that namespace, where no process of the machine is
        sandbox.enter(
            workdir,
            payload.get("hide"),
            own_proc=os.getppid() == 0,
            protect_proc=not payload.get("confined"),
        )
        if sandbox.machine_root():
            # its solution's process runs as the unprivileged user: it writes here too
            os.chown(workdir, sandbox.NOBODY, sandbox.NOBODY)
        phases.mark("sandboxed")
    tempfile.tempdir = workdir  # the zygote may have cached /tmp, read-only in the sandbox
    os.environ["TMPDIR"] = workdir
    # Numba caches what it compiles (librosa asks it to) beside the library's source or in
    # the home directory, both read-only in the sandbox: "no locator available" unless
    # told to use the one directory an execution may write to. Read when numba is
    # imported, which the zygote may have done already.
    os.environ["NUMBA_CACHE_DIR"] = workdir
    config = sys.modules.get("numba.core.config")
    if config is not None:
        with contextlib.suppress(Exception):
            config.CACHE_DIR = workdir  # type: ignore[attr-defined]
    payload["result_fd"] = result_fd
    limit_memory(payload.get("memory_mb"))
    if sandboxed and payload.get("confined"):
        sandbox.confine_checker(workdir)
    phases.mark("prepared")


def reset_after_fork() -> None:
    """Give the child what a fresh interpreter would have: fresh random seeds, default signals."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        with contextlib.suppress(OSError, ValueError):
            signal.signal(
                signum, signal.SIG_DFL if signum != signal.SIGINT else signal.default_int_handler
            )
    # ``random`` reseeds itself after fork; the libraries' global generators do not.
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            numpy.random.seed()
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            torch.seed()
