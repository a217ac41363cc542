"""The guard: an untrusted solution runs in a child process apart from its check.

The problem's own code — its test context, its checks — runs in the execution's
process, the checker. When the context executes the solution, the guard forks: the child
enters a fresh process-id namespace (nothing outside is visible, nothing it starts
outlives it), drops every capability, takes resource limits and an audit hook that blocks
memory introspection, clears the checker's state it inherited (the expected answers, the
check code), then runs the solution and sends back what it assigned (``transport``),
which the checker admits before checking it. So a solution cannot patch the checker,
read the expected answer, or reach past its sandbox.
"""

from __future__ import annotations

import base64
import builtins
import contextlib
import ctypes
import json
import os
import re
import signal
import sys
import traceback
from typing import TYPE_CHECKING, Any, NoReturn

from .protocol import RUNS_SOLUTION, Json
from .sandbox import (
    _pdeathsig_only,
    as_pid_one,
    die_with_parent,
    drop_privileges,
    limit,
    new_pid_space,
    tasks_of_this_user,
)
from .transport import outputs, safe_loads

if TYPE_CHECKING:
    from types import FrameType

_MAX_RESPONSE = 512 * 1024 * 1024

# -- what untrusted code may not do ------------------------------------------------------

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


def scrub(keep: list[object]) -> None:
    """Forget what the checker knew: every local of every frame on the stack, and the
    program's namespaces, but the objects in ``keep`` (the solution's code and globals).

    Runs in the solution's process, which never returns to those frames.
    """
    kept = {id(k) for k in keep}
    frame: FrameType | None = sys._getframe(1)  # noqa: SLF001 - the frames are what we clear
    while frame is not None:
        names = frame.f_globals.get("__name__")
        is_module_frame = frame.f_code.co_name == "<module>"
        if is_module_frame and frame.f_code.co_filename == "<program>":
            namespace = frame.f_globals
            if id(namespace) not in kept:
                _leak(list(namespace.values()))
                namespace.clear()
        elif not is_module_frame or names not in sys.modules:
            _clear_locals(frame, kept)
        frame = frame.f_back


def _leak(values: list[object]) -> None:
    """Keep ``values`` alive with a reference no Python code can find (gc's own walks
    are closed to the solution): clearing the frames must not run finalizers, which
    would close files and free memory that C code (fonts, runtimes) still uses."""
    for value in values:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(value))


def _clear_locals(frame: FrameType, kept: set[int]) -> None:
    items = [(n, v) for n, v in list(frame.f_locals.items()) if id(v) not in kept]
    names = [n for n, _ in items]
    if not names:
        return
    _leak([v for _, v in items])
    if sys.version_info >= (3, 13):
        proxy = frame.f_locals  # a write-through view of the frame's variables
        for name in names:
            with contextlib.suppress(Exception):
                proxy[name] = None
        return
    snapshot = frame.f_locals
    for name in names:
        snapshot[name] = None
    with contextlib.suppress(Exception):
        ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))


# Bound at import, before any solution runs: a solution that patches json in its own
# process must not be able to garble the report it sends back.
_quote = json.encoder.encode_basestring_ascii
_str, _int, _bool, _dict, _list, _isinstance, _len = str, int, bool, dict, list, isinstance, len


def _report_json(value: Any) -> str:
    """JSON for a report (dicts, lists, strings, ints, None) without the json module."""
    if value is None:
        return "null"
    if _isinstance(value, _bool):
        return "true" if value else "false"
    if _isinstance(value, _int):
        return _int.__repr__(value)
    if _isinstance(value, _str):
        return _quote(value)
    if _isinstance(value, _dict):
        return "{%s}" % ",".join(
            "%s:%s" % (_quote(_str(k)), _report_json(v)) for k, v in value.items()
        )
    if _isinstance(value, _list):
        return "[%s]" % ",".join(_report_json(v) for v in value)
    return _quote(_str(value))


class RemoteError(Exception):
    """An exception the solution raised in its own process, named as it was there."""

    def __init__(self, qualified: str, message: str, remote_traceback: str = "") -> None:
        super().__init__(message)
        self.qualified = qualified
        self.remote_traceback = remote_traceback


def _reraise(report: Json) -> None:
    qualified = str(report.get("type", "Exception"))
    message = str(report.get("message", ""))
    found = getattr(builtins, qualified, None) if "." not in qualified else None
    if isinstance(found, type) and issubclass(found, BaseException):
        # A built-in exception comes back as itself, so a context that catches it still does.
        raise found(message)
    raise RemoteError(qualified, message, str(report.get("traceback", "")))


# -- the guard ----------------------------------------------------------------------------


def _unforkable() -> str:
    """Why this process cannot fork a working child now ('' when it can).

    TensorFlow's runtime starts thread pools on its first operation and has no fork
    handlers: a child forked after that hangs or aborts on its own first operation.
    """
    if "tensorflow" in sys.modules:
        try:
            threads = len(os.listdir("/proc/self/task"))
        except OSError:
            threads = 2
        if threads > 1:
            return "TensorFlow was already running in the check's process, which cannot fork"
    return ""


class Guard:
    """The ``exec`` an untrusted solution's context sees.

    ``exec`` of anything that does not contain the solution runs here, as usual; the
    solution itself runs in a sandboxed child, and only what it assigned comes back.
    """

    def __init__(
        self,
        solution: str,
        close_fds: list[int],
        sandboxed: bool,
        limits: Json,
        recorder: Any = None,
    ) -> None:
        self.solution = solution
        self.close_fds = close_fds
        self.sandboxed = sandboxed
        self.limits = limits
        # the warnings recorder: it records in the solution's process, and what it
        # recorded there is added to it here
        self.recorder = recorder
        self.engaged = False  # whether the check ran the solution at all
        self.unguarded = ""  # why the solution ran beside its check, if it did
        self.lost: list[str] = []  # what the solution made that could not come back
        self._lines = [line.strip() for line in solution.splitlines() if line.strip()]
        self._exec = builtins.exec

    def builtins(self) -> dict[str, Any]:
        namespace = dict(builtins.__dict__)
        namespace["exec"] = self.exec
        return namespace

    def _holds_solution(self, code: Any) -> bool:
        """Whether ``code`` carries any of the solution's lines. Checks may edit the
        solution before running it (DS-1000's Matplotlib checks drop ``plt.show()``
        lines), so one line of it is enough; a string with none of it runs as usual."""
        if isinstance(code, bytes):
            code = code.decode("utf-8", "replace")
        if not isinstance(code, str):
            return False
        if code.startswith(RUNS_SOLUTION):
            return True  # a check's driver that runs the solution (notebooks, sessions)
        present = {line.strip() for line in code.splitlines()}
        return any(line in present for line in self._lines)

    def exec(self, code: Any, globals_: Any = None, locals_: Any = None) -> None:
        if not self._holds_solution(code):
            self._exec(code, globals_, locals_)
            return
        self.engaged = True
        reason = _unforkable()
        if reason:
            # Forking now would hang or abort the solution's process; it runs here, in
            # the sandbox still, and its outcome says so.
            self.unguarded = reason
            self._exec(code, globals_, locals_)
            return
        env = globals_ if isinstance(globals_, dict) else {}
        self._run_apart(code, env)

    def _run_apart(self, code: str, env: dict[str, Any]) -> None:
        read_fd, write_fd = os.pipe()
        # RLIMIT_NPROC counts every task of the user, so the cap is what runs now plus
        # the allowance; where a pids cgroup holds the execution, that is the cap instead.
        nproc = 0
        if self.sandboxed and self.limits.get("task_cap") == "rlimit":
            nproc = tasks_of_this_user() + int(self.limits.get("tasks", 1024))
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the shim, then the solution's process
            die_with_parent(parent)
            os.close(read_fd)
            self._shim(code, env, write_fd, nproc)
        os.close(write_fd)
        data = _read_frame(read_fd)
        report: Any = None
        if data is not None:
            with contextlib.suppress(ValueError):
                report = json.loads(data.decode("utf-8"))
        if not isinstance(report, dict):
            _, status = os.waitpid(pid, 0)
            _die_like(status)
        # With the report in hand there is no need to wait for the solution's processes
        # to finish exiting: they are in this execution's process group, which the
        # runner kills when the execution ends.
        if self.recorder is not None:
            for record in report.get("warnings", [])[:100]:
                if isinstance(record, dict) and all(
                    isinstance(record.get(k), str) for k in ("category", "message", "module")
                ):
                    self.recorder.add({k: record[k] for k in ("category", "message", "module")})
        if report.get("kind") == "raised":
            _reraise(report)
        self._apply(report, env)

    def _shim(self, code: str, env: dict[str, Any], write_fd: int, nproc: int) -> None:
        """Outside the new pid namespace: start its init, wait, end the way it ended."""
        status = 70 << 8
        try:
            if self.sandboxed:
                new_pid_space()
            status_r, status_w = os.pipe()
            shim = os.getpid()
            pid = os.fork()
            if pid == 0:
                if self.sandboxed:
                    _pdeathsig_only()  # pid 1 of the new namespace: its parent is outside
                else:
                    die_with_parent(shim)
                os.close(status_r)
                if self.sandboxed:
                    self._init(code, env, write_fd, nproc, status_w)
                os.close(status_w)
                self._solution(code, env, write_fd, nproc)
            os.close(write_fd)
            os.close(status_w)
            relayed = _read_all(status_r)
            _, status = os.waitpid(pid, 0)
            if relayed.isdigit():
                status = int(relayed)  # the solution's own, which init could not mirror
        finally:
            _exit_like(status)

    def _init(
        self, code: str, env: dict[str, Any], write_fd: int, nproc: int, status_fd: int
    ) -> None:
        """Pid 1 of the namespace: the solution runs as its child (pid 2), so that it can
        signal itself as any process can; when it ends, init ends, and the kernel ends
        everything else the solution started. Init cannot die of a signal it sends
        itself, so it hands the solution's exit status to the shim, which can."""
        status = 70 << 8
        try:
            as_pid_one()
            pid = os.fork()
            if pid == 0:
                die_with_parent(1)
                os.close(status_fd)
                self._solution(code, env, write_fd, nproc)
            os.close(write_fd)
            _, status = os.waitpid(pid, 0)
            with contextlib.suppress(OSError):
                os.write(status_fd, str(status).encode())
        finally:
            os._exit(0)

    def _solution(self, code: str, env: dict[str, Any], write_fd: int, nproc: int) -> None:
        report: Json = {"kind": "raised", "type": "RuntimeError", "message": "the sandbox failed"}
        try:
            for fd in self.close_fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            if self.sandboxed:
                drop_privileges()
                limit(int(self.limits.get("fsize_mb", 1024)), nproc)
            scrub([code, env, self, write_fd])
            arm_audit()
            recorded = len(self.recorder.items) if self.recorder is not None else 0
            try:
                self._exec(code, env)
                report = outputs(env)
            except BaseException as exc:
                frames = traceback.extract_tb(exc.__traceback__)[-4:]
                report = {
                    "kind": "raised",
                    "type": type(exc).__qualname__
                    if type(exc).__module__ == "builtins"
                    else "%s.%s" % (type(exc).__module__, type(exc).__qualname__),
                    "message": str(exc)[:2000],
                    "traceback": "\n".join(
                        "%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames
                    ),
                }
            if self.recorder is not None:
                report["warnings"] = list(self.recorder.items[recorded:])
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(BaseException):
                    stream.flush()
        finally:
            data = _report_json(report).encode("utf-8")
            data = b"%d\n" % _len(data) + data  # framed: the reader need not wait for EOF
            with contextlib.suppress(OSError):
                while data:
                    data = data[os.write(write_fd, data) :]
            os._exit(0)

    def _apply(self, report: Json, env: dict[str, Any]) -> None:
        for name, encoded in report.get("values", {}).items():
            try:
                env[name] = safe_loads(base64.b64decode(encoded))
            except Exception as exc:
                if name == "result":
                    raise RemoteError(
                        "TransportError", "the solution's result could not be received: %s" % exc
                    ) from None
        skipped = report.get("skipped", {})
        if "result" in skipped:
            raise RemoteError(
                "TransportError",
                "the solution's result could not be sent back: %s" % skipped["result"],
            )
        for name in sorted(k for k in skipped if k.startswith("<figure")):
            # The check will not see it: say why, so a failure that follows reads right.
            self.lost.append("%s could not be sent back: %s" % (name.strip("<>"), skipped[name]))
        figures = report.get("figures", [])
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close("all")
            for encoded in figures:
                safe_loads(base64.b64decode(encoded))  # re-registers itself with pyplot
            if report.get("current") is not None and report["current"] in pyplot.get_fignums():
                pyplot.figure(report["current"])


def _read_frame(fd: int) -> bytes | None:
    """One length-prefixed message (``<length>\\n<bytes>``), or None if the writer
    ended before sending a whole one."""
    with os.fdopen(fd, "rb") as fh:
        header = fh.readline(32)
        if not header.endswith(b"\n") or not header[:-1].isdigit():
            return None
        size = int(header)
        if size > _MAX_RESPONSE:
            return None
        data = fh.read(size)
    return data if len(data) == size else None


def _read_all(fd: int) -> bytes:
    chunks, size = [], 0
    with os.fdopen(fd, "rb") as fh:
        while True:
            chunk = fh.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > _MAX_RESPONSE:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def _die_like(status: int) -> NoReturn:
    """The solution's process ended without a word: end this one the same way, so the
    execution is a crash exactly as it would be without the guard."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    _exit_like(status)


def _exit_like(status: int) -> NoReturn:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(Exception):
            signal.signal(number, signal.SIG_DFL)  # SIGKILL and SIGSTOP refuse: no matter
        with contextlib.suppress(Exception):
            os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)
