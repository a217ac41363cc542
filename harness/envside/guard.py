"""The guard: an untrusted solution runs in a process apart from its check.

The problem's own code — its test context, its checks — runs in the execution's
process, the checker. When the context executes the solution, the guard has a process
started for it that never held the checker's memory (``solution.py``: forked by the
zygote's template interpreter, or a new interpreter): in a process-id namespace of its own (the checker
is not in it, so it cannot be signalled or traced; when the execution ends, everything
the solution started ends), without capabilities, under resource limits, holding none of
the checker's memory. The checker sends it the code and the values the check gives the
solution, and admits what comes back through ``transport`` (default-deny) before its
checks see it. So a solution can neither patch the checker, nor read the expected answer
or the reference, nor reach past its sandbox.
"""

from __future__ import annotations

import array
import builtins
import contextlib
import importlib
import io
import json
import marshal
import os
import pickle
import shutil
import signal
import socket
import struct
import sys
import types
from typing import Any, BinaryIO, NoReturn

from . import (
    crossing_context,
    crossing_errors,
    crossing_handed,
    crossing_lending,
    crossing_pyplot,
    crossing_standins,
    sandbox,
    transport,
)
from .crossing_errors import RemoteError
from .protocol import LAUNCHER, RUNS_SOLUTION, Json

_MAX_RESPONSE = 512 * 1024 * 1024

# -- the report the solution's process sends back ----------------------------------------

# Bound at import, before any solution runs: a solution that patches json in its own
# process must not garble its report by accident (on purpose it can: the checker reads
# everything in it as untrusted).
_quote = json.encoder.encode_basestring_ascii
_str, _int, _bool, _dict, _list, _isinstance, _len = str, int, bool, dict, list, isinstance, len


def _report_json(value: Any) -> str:
    """JSON for a report header (dicts, lists, strings, ints, None) without ``json``."""
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


def _frame(header: Json, blobs: list[bytes]) -> bytes:
    """``<n>\\n<header JSON>`` then ``<n>\\n<pickle>`` for each pickle the header announces."""
    data = _report_json(header).encode("utf-8")
    parts = [b"%d\n" % _len(data), data]
    for blob in blobs:
        parts += [b"%d\n" % _len(blob), blob]
    return b"".join(parts)


def _read_report(fh: BinaryIO) -> tuple[Json, list[bytes]] | None:
    """The solution's next report, or None if its process ended before sending a whole one."""
    header = _read_part(fh)
    if header is None:
        return None
    try:
        report = _json_loads(header.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(report, dict):
        return None
    count = 0
    if report.get("kind") == "ok":
        values, figures = report.get("values"), report.get("figures")
        if not isinstance(values, list) or not isinstance(figures, int) or figures < 0:
            return None
        bundle = report.get("bundle")
        if bundle is not None and not isinstance(bundle, list):
            return None
        # values, then the bundle of figures, or else each figure on its own
        count = len(values) + (1 if bundle is not None else figures)
    else:
        # a call's result, a callback, an exception's arguments: as many as it says
        count = report.get("blobs", 0)
        if type(count) is not int or not 0 <= count <= _MAX_BLOBS:
            return None
    blobs = []
    total = len(header)
    for _ in range(count):
        blob = _read_part(fh)
        if blob is None:
            return None
        total += len(blob)
        if total > _MAX_RESPONSE:
            return None
        blobs.append(blob)
    return report, blobs


_MAX_BLOBS = 10_000


def _read_part(fh: Any) -> bytes | None:
    line = fh.readline(32)
    if not line.endswith(b"\n") or not line[:-1].isdigit():
        return None
    size = int(line)
    if size > _MAX_RESPONSE:
        return None
    data = fh.read(size)
    return data if len(data) == size else None


def send_report(fd: int, report: Json, blobs: list[bytes]) -> bool:
    """Write a report whole; False if the checker is no longer there to read it."""
    data = _frame(report, blobs)
    try:
        while data:
            data = data[_write(fd, data) :]
    except OSError:
        return False
    return True


_write = os.write  # bound at import, as _quote above
# ...and what the checker uses while a test's patches are active (``os.pipe``, ``io.open``
# and ``json.loads`` are what a test patches for the code it tests)
_pipe, _close, _open, _json_loads = os.pipe, os.close, io.open, json.loads


# -- the requests a resident solution process serves --------------------------------------


class _Resident:
    """The solution's process of this execution, kept after its first run: the check's
    next runs of the solution are sent to it as requests instead of forking again.

    Each request carries the pipe its report goes back on, which the resident closes
    once it has written the report: a report cut short ends at the end of its pipe, as
    it did when a process ended after its one report."""

    def __init__(
        self,
        pid: int,
        requests: socket.socket,
        lifeline: int = -1,
        status: BinaryIO | None = None,
    ) -> None:
        self.pid = pid
        self.requests = requests
        # Started from the template, it is not this process's child: its keeper ends it
        # when ``lifeline`` closes, and says on ``status`` how it ended.
        self.lifeline = lifeline
        self.status = status

    def end(self) -> int:
        """End the process (if it has not ended) and return its wait status."""
        if self.status is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)  # an ended process keeps its status
            return os.waitpid(self.pid, 0)[1]
        os.close(self.lifeline)
        self.lifeline = -1
        for line in self.status:
            if line.startswith(b"status "):
                return int(line.split()[1])
        return signal.SIGKILL  # its keeper went without a word: as if killed

    def let_go(self) -> None:
        self.requests.close()
        if self.status is None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, os.WNOHANG)
            return
        if self.lifeline >= 0:
            os.close(self.lifeline)
        self.status.close()


# The solution processes' template of this library group (solution.template_main), where
# the zygote started one: a new interpreter with the group's libraries imported, which
# never held a batch or a check, and forks each solution's process on request.
TEMPLATE: list[socket.socket] = []


def start_template(modules: list[str], place: Json) -> None:
    """Start the template for the executions this process will fork (the zygote's).

    ``place`` is what the template enforces whatever a request says: whether to sandbox,
    what to hide, the memory cap, where working directories may be. A request comes from
    a checker's process, and a solution that ran there (beside a TensorFlow check) could
    write one of its own."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    fd = theirs.fileno()
    config = dict(place, parent=os.getpid(), modules=modules)
    argv = [sys.executable, "-s", LAUNCHER, "template", str(fd), json.dumps(config)]
    actions = [a for a in _no_descriptors() if a[:2] != (os.POSIX_SPAWN_CLOSE, fd)]
    os.set_inheritable(fd, True)
    try:
        os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions)
    finally:
        theirs.close()
    mine.setblocking(True)
    TEMPLATE[:] = [mine]


def drop_template() -> None:
    """Close this process's way to the template."""
    for template in TEMPLATE:
        template.close()
    del TEMPLATE[:]


_LENGTH = struct.Struct("!Q")


def _send_request(requests: socket.socket, request: bytes, report_fd: int) -> None:
    """The request's length, with the write end of its report's pipe (none for a reply
    to a callback), then the request."""
    head = _LENGTH.pack(len(request))
    fds = (
        [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [report_fd]))]
        if report_fd >= 0
        else []
    )
    sent = requests.sendmsg([head], fds, socket.MSG_NOSIGNAL)
    requests.sendall(head[sent:] + request, socket.MSG_NOSIGNAL)


def receive_request(requests: socket.socket) -> tuple[bytes, int] | None:
    """The next request and the descriptor its report goes to; None once the checker is
    done (the socket closed) or sends something else."""
    head, ancillary, _, _ = requests.recvmsg(_LENGTH.size, socket.CMSG_SPACE(4))
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    if len(fds) > 1 or not head:
        return None
    head = _read_exactly(requests, _LENGTH.size - len(head), head)
    if len(head) != _LENGTH.size:
        return None
    request = _read_exactly(requests, _LENGTH.unpack(head)[0])
    # a reply to the solution's callback carries no pipe: its answer is the request itself
    return request, fds[0] if fds else -1


def _read_exactly(requests: socket.socket, size: int, data: bytes = b"") -> bytes:
    chunks = [data]
    while size > 0:
        chunk = requests.recv(min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _request(code: Any, env: dict[str, Any]) -> tuple[bytes | None, str]:
    """What the solution's process needs to run ``code`` in ``env`` as this process
    would: the code, the values (in one pickle, so that values that share an array still
    share it), the modules by name, and the global random states a fork would inherit.

    ``(None, why)`` when something cannot travel: builtins of the check's own choosing,
    an object of a class the check defined (pickle finds classes by name), a closure.
    Other functions that pickle cannot name (a notebook's, a check's helper) travel as
    their code, bound to the copy of ``env`` there. Only values the check hands the solution are sent, and only the
    (untrusted) solution's process reads them.
    """
    values: dict[str, Any] = {}
    modules: dict[str, str] = {}
    for name, value in env.items():
        if name == "__builtins__":
            # put there by an earlier exec() of the check's: the solution gets its own
            if value is builtins or (isinstance(value, dict) and set(value) <= _BUILTIN_NAMES):
                continue
            return None, "the check gives the solution builtins of its own"
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
        else:
            values[name] = value
    buffer = io.BytesIO()
    try:
        _RequestPickler(buffer, env).dump((code, values, modules, _random_states()))
    except Exception as exc:
        return None, "%s: %s" % (type(exc).__name__, str(exc)[:300])
    return buffer.getvalue(), ""


_BUILTIN_NAMES = frozenset(builtins.__dict__)


class _RequestPickler(pickle.Pickler):
    def __init__(self, file: BinaryIO, env: dict[str, Any]) -> None:
        super().__init__(file, protocol=4)
        self.env = env

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is types.FunctionType and obj.__closure__ is None and not _named(obj):
            # A function the check or the notebook defined, which pickle cannot find by
            # name: its code, bound there to the solution's globals (its own, for a
            # notebook's; never the check's, which hold the expected values).
            code = marshal.dumps(obj.__code__)
            return _function, (code, obj.__name__, obj.__defaults__, obj.__kwdefaults__)
        return NotImplemented


def _named(function: types.FunctionType) -> bool:
    """Whether pickle finds ``function`` by its module and qualified name."""
    found: Any = sys.modules.get(function.__module__ or "")
    if found is None or function.__module__ == "__main__":
        return False  # the program's namespace is not the __main__ module
    for part in function.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is function


_GLOBALS: list[dict[str, Any]] = []  # the env functions are rebuilt into, while loading


def load_request(request: bytes, env: dict[str, Any]) -> Any:
    """A request as ``_request`` made it; functions it carries are bound to ``env``."""
    _GLOBALS[:] = [env]
    try:
        return pickle.loads(request)
    finally:
        del _GLOBALS[:]


def _function(code: bytes, name: str, defaults: Any, kwdefaults: Any) -> types.FunctionType:
    function = types.FunctionType(marshal.loads(code), _GLOBALS[0], name, defaults)
    function.__kwdefaults__ = kwdefaults
    return function


def _random_states() -> dict[str, Any]:
    """The states of the libraries' global generators here, which a process forked now
    would start from. (Not ``random``'s: it reseeds itself in a forked process.)"""
    states: dict[str, Any] = {}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            states["numpy"] = numpy.random.get_state()
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            states["torch"] = torch.get_rng_state()
    return states


class GuardRefusedError(Exception):
    """The check's process would not admit a value the solution sent back."""


class GuardError(Exception):
    """The solution could not be run apart: what the check gives it cannot be sent."""


def _reraise(report: Json) -> None:
    qualified = str(report.get("type", "Exception"))
    message = str(report.get("message", ""))
    found = getattr(builtins, qualified, None) if "." not in qualified else None
    if isinstance(found, type) and issubclass(found, BaseException):
        # A built-in exception comes back as itself, so a context that catches it still does.
        raise found(message)
    raise RemoteError(qualified, message, str(report.get("traceback", "")))


# -- the guard ----------------------------------------------------------------------------


class SolutionNamespace:
    """The pid namespace the solutions of one execution are born in.

    Made once per execution, without a fork of this (large) process: this process
    unshares a new pid namespace for its children, starts ``sleep`` as its first process
    (pid 1 there, which holds it open and is gone by itself after ``lifetime`` seconds even
    if nothing is left to kill it), and at once points its children back at its own pid
    namespace. A process whose next children are born in another pid namespace may not
    start threads (the kernel refuses with EINVAL), and a check, or TensorFlow or torch
    under it, starts threads. So each guarded fork enters the solutions' namespace just for
    the fork (``setns``) and leaves it right after.

    A solution is pid 2, 3… there: it signals itself as anywhere else, but cannot see or
    signal the checker, which is outside; when the execution ends, the namespace and all
    in it go. No mount namespace or /proc of its own: solutions see the execution's /proc,
    where the checker's memory, descriptors and environment are closed to them (it keeps
    capabilities they do not have).
    """

    def __init__(self, lifetime: float) -> None:
        self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        sandbox.unshare_pid()
        try:
            self.init = os.posix_spawn(*_sleeper(lifetime), {}, file_actions=_no_descriptors())
            self.solutions = os.open("/proc/%d/ns/pid" % self.init, os.O_RDONLY | os.O_CLOEXEC)
        finally:
            sandbox.set_pid_namespace(self.own)

    def enter(self) -> None:
        """Children started from now on are born in the solutions' namespace."""
        sandbox.set_pid_namespace(self.solutions)

    def leave(self) -> None:
        """...and in this process's own again (so that it may start threads)."""
        sandbox.set_pid_namespace(self.own)


_NAMESPACE: list[SolutionNamespace] = []  # this execution's, once made


def _sleeper(lifetime: float) -> tuple[str, list[str]]:
    seconds = str(int(lifetime) + 30)
    sleeper = shutil.which("sleep") or "/bin/sleep"
    if os.path.exists(sleeper):
        return sleeper, [sleeper, seconds]
    # no coreutils here: a Python that waits
    return sys.executable, [sys.executable, "-S", "-c", "import time; time.sleep(%s)" % seconds]


def _inherited(keep: int = -1) -> list[int]:
    """This process's descriptors that a new program would inherit, but ``keep``: a pipe
    it held would keep the execution's output open after the execution ended, and the
    result pipe is the checker's alone."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        with contextlib.suppress(OSError):
            if fd > 2 and fd != keep and os.get_inheritable(fd):
                found.append(fd)
    return found


def _no_descriptors() -> list[Any]:
    """None of this process's descriptors for a process it spawns (the sleeper)."""
    actions: list[Any] = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    return actions + [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]


def _spawn(argv: list[str], close: list[int]) -> int:
    """Start the solution's new interpreter: a process group of its own (kill(0, …) and
    killpg reach only what the solution starts, never the checker), standard input from
    /dev/null, only the descriptors it is meant to have. Spawned, not forked: this process
    may be running threads (TensorFlow's, torch's) that a fork would copy mid-step."""
    actions: list[Any] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in close]
    return os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setpgroup=0)


# The guard of the execution in this process, when its solution is untrusted: formats
# whose checks call what the solution defined reach it here (formatlib).
ACTIVE: list[Guard] = []


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
        allowlist: transport.Allowlist | None = None,
        usage: transport.Usage | None = None,
        place: Json | None = None,
        in_process: str = "",
    ) -> None:
        self.solution = solution
        self.close_fds = close_fds
        self.sandboxed = sandboxed
        self.limits = limits
        # the warnings recorder: it records in the solution's process, and what it
        # recorded there is added to it here
        self.recorder = recorder
        self.allowlist = allowlist if allowlist is not None else transport.shipped_allowlist()
        self.usage = usage  # measuring the allowlist: admit everything, note what was used
        # where the execution lives, for a solution process started from the template
        self.place = place or {}
        # why this task is graded beside the solution in its process, when the run decided
        # so from the task's reference (harness/execute/admission.py): '' to grade across
        self.in_process = in_process
        self.engaged = False  # whether the check ran the solution at all
        self.lost: list[str] = []  # what the solution made that could not come back
        self.refused: list[str] = []  # what the checker would not admit, and why
        self._lines = [line.strip() for line in solution.splitlines() if line.strip()]
        self._exec = builtins.exec
        self._nproc = 0
        self._resident: _Resident | None = None  # the solution's process, once forked
        # calls across the boundary (crossing.py): what this side lent the solution, the
        # check's stand-in modules → the solution's modules they stand for, and the
        # figures the solution sent, by its number for them
        self.lent = crossing_lending.Lent()
        self.sent = crossing_lending.Lent()  # what calls sent by value, by number (crossing_handed)
        self.modules: dict[str, str] = {}
        self.figures: dict[int, Any] = {}
        self.refused_names: set[str] = set()  # values of the solution's module refused

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
        env = globals_ if isinstance(globals_, dict) else {}
        request, why = _request(code, env)
        if request is None:
            raise GuardError("what the check gives the solution cannot be sent to it: %s" % why)
        report, blobs = self._ask(request)
        if self.recorder is not None:
            for record in report.get("warnings", [])[:100]:
                if isinstance(record, dict) and all(
                    isinstance(record.get(k), str) for k in ("category", "message", "module")
                ):
                    self.recorder.add({k: record[k] for k in ("category", "message", "module")})
        if report.get("kind") == "raised":
            _reraise(report)
        self._apply(report, blobs, env)

    def _ask(self, request: bytes) -> tuple[Json, list[bytes]]:
        """The solution's report on ``request``, from its process (started now if there
        is none yet: one serves all the check's runs of the solution). While it works on
        the request it may call back what the check lent it: each callback is answered
        here, and the report that ends the request follows."""
        for attempt in (1, 2):
            started = self._resident is None
            if self._resident is None:
                self._resident = self._start()
            read_fd, write_fd = _pipe()
            try:
                try:
                    _send_request(self._resident.requests, request, write_fd)
                finally:
                    _close(write_fd)
            except OSError:
                _close(read_fd)
                if started or attempt == 2:
                    self._crashed()
                self._retire()  # it ended after its last report: a new one runs this
                continue
            with _open(read_fd, "rb") as reports:
                received = _read_report(reports)
                while received is not None and received[0].get("kind") == "callback":
                    self._answer(*received)
                    received = _read_report(reports)
            if received is None:
                self._crashed()
            if received[0].get("kind") == "declined":
                self._retire()
                raise GuardError(
                    "the solution's process could not rebuild what the check gives it: %s"
                    % str(received[0].get("message", ""))[:300]
                )
            return received
        raise AssertionError("unreachable")  # pragma: no cover

    # -- calls across the boundary (crossing.py) ---------------------------------------

    def _admit(self, blob: bytes, what: str) -> Any:
        """A value the solution sent, admitted as data (its handles as stand-ins)."""
        try:
            return transport.admit(blob, self.allowlist, self.usage, self._persistent)
        except transport.RefusedError as exc:
            self.refused.append("%s: %s" % (what, exc))
            raise GuardRefusedError("%s was refused: %s" % (what, exc)) from None
        except transport.UnreadableError as exc:
            raise RemoteError(
                "TransportError", "%s could not be received: %s" % (what, exc)
            ) from None

    def _persistent(self, kind: str, number: int) -> Any:
        if kind == "checker":
            try:
                return self.lent.get(number)
            except KeyError:
                raise transport.RefusedError(
                    "checker object %d" % number, "was never lent"
                ) from None
        if kind == "sent":
            try:
                return self.sent.get(number)  # the test's own object, back unchanged
            except KeyError:
                raise transport.RefusedError("object %d" % number, "was never sent") from None
        if kind in ("function", "iterator", "generator", "object"):
            return crossing_standins.stand_in(kind, number, self)
        if kind == "nan":
            return crossing_handed.nan_constant(number)  # the check's own np.nan (math.nan)
        raise transport.RefusedError("a handle of kind %r" % kind, "is not one the solution keeps")

    def _answer(self, header: Json, blobs: list[bytes]) -> None:
        """Do what the solution's callback asks of an object the check lent it, and send
        the answer (a value, or the exception it raised) back on the request socket."""
        assert self._resident is not None
        outcome, value = "raise", None
        try:
            target = self.lent.get(header.get("number"))
            args, kwargs = self._arguments(blobs)
            value = crossing_lending.perform(
                target, str(header.get("op", "")), header.get("name"), args, kwargs
            )
            outcome = "value"
        except (GuardRefusedError, RemoteError) as exc:
            value = TypeError(str(exc))
        except KeyError as exc:
            value = LookupError(str(exc))
        except BaseException as exc:
            value = exc
        try:
            reply = crossing_lending.dumps_to_solution(("reply", outcome, value), self.lent)
        except Exception as exc:
            reply = crossing_lending.dumps_to_solution(
                ("reply", "raise", TypeError("the answer cannot be sent: %s" % exc)), self.lent
            )
        try:
            _send_request(self._resident.requests, reply, -1)
        except OSError:
            self._crashed()

    def _arguments(self, blobs: list[bytes]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """A callback's arguments, admitted as data: ``(args, kwargs)``."""
        if len(blobs) != 1:
            raise TypeError("a callback carries its arguments")
        arguments = self._admit(blobs[0], "the arguments of a call back to the check")
        if (
            not isinstance(arguments, tuple)
            or len(arguments) != 2
            or not isinstance(arguments[0], tuple)
            or not isinstance(arguments[1], dict)
            or not all(isinstance(k, str) for k in arguments[1])
        ):
            raise TypeError("a callback's arguments come as (args, kwargs)")
        return arguments[0], arguments[1]

    def load_module(
        self, name: str, source: str, filename: str = "", after: str = ""
    ) -> dict[str, Any]:
        """Have the solution's process run ``source`` as the module ``name``; return the
        check's view of the names it defines (``_kinds``): a stand-in for each function
        or class of its own, ``"module:numpy"`` for a module, ``"value"`` for the rest."""
        self.engaged = True
        self.modules[name] = name
        request = crossing_lending.MARK + crossing_lending.dumps_to_solution(
            ("module", name, source, filename, after), self.lent
        )
        report, blobs = self._ask(request)
        self._warnings(report)
        if report.get("kind") == "raised":
            self._result((report, blobs))
        if report.get("kind") != "module":
            raise RemoteError("TransportError", "the solution's module did not come back")
        return self._kinds(report.get("names"))

    def _kinds(self, names: Any) -> dict[str, Any]:
        found: dict[str, Any] = {}
        if not isinstance(names, dict):
            return found
        for key, kind in names.items():
            if not isinstance(key, str) or not key.isidentifier() or not isinstance(kind, list):
                continue
            if kind[:1] == ["function"] and len(kind) == 2 and type(kind[1]) is int:
                found[key] = crossing_standins.stand_in("function", kind[1], self, key)
            elif kind[:1] == ["module"] and len(kind) == 2 and isinstance(kind[1], str):
                found[key] = "module:" + kind[1]
            elif kind == ["value"]:
                found[key] = "value"
        return found

    def fetch(self, module: str, name: str) -> Any:
        """One name of the solution's module (``from sample_1 import f``)."""
        values = self.fetch_many(module, [name])
        if name not in values:
            raise ImportError("cannot import name %r from the solution's module" % name)
        return values[name]

    def fetch_many(self, module: str, names: list[str]) -> dict[str, Any]:
        """Names of the solution's module or session: a stand-in for a function of its
        own, a module (imported here by its name), a value admitted as data. A name that
        is missing, cannot be sent or is refused is left out (a refusal noted)."""
        request = crossing_lending.MARK + crossing_lending.dumps_to_solution(
            ("fetch", module, names), self.lent
        )
        report, blobs = self._ask(request)
        self._make_room(None, bool(report.get("pyplot")))
        if report.get("kind") != "fetched":
            raise RemoteError("TransportError", "the solution's values did not come back")
        kinds = self._kinds(report.get("names"))
        values = [k for k, v in kinds.items() if v == "value"]
        if len(values) != len(blobs):
            raise RemoteError("TransportError", "the solution's values came back garbled")
        found: dict[str, Any] = {}
        blob_of = dict(zip(values, blobs))
        for key, kind in kinds.items():
            if key not in names:
                continue
            if kind == "value":
                try:
                    found[key] = self._admit(blob_of[key], key)
                except GuardRefusedError:
                    self.refused_names.add(key)  # noted by _admit, with the reason
                except RemoteError as exc:
                    self.lost.append(str(exc))
                _strict_masks()
            elif isinstance(kind, str) and kind.startswith("module:"):
                module_found = crossing_standins.installed_module(kind[len("module:") :])
                if module_found is not None:
                    found[key] = module_found
            else:
                found[key] = kind
        return found

    def call(self, target: Any, args: Any, kwargs: Any) -> Any:
        """Call a function of the solution's in its process, with the state its tests
        would share with it in one process; return what it returned, admitted as data,
        or raise what it raised."""
        context = crossing_context.call_context(self.modules, self._open_figures())
        args, kwargs = tuple(args), dict(kwargs)
        handed = crossing_handed.handed(args, kwargs, self.sent)
        # the arguments on their own: a function of the test's among them goes as code
        arguments = crossing_lending.dumps_to_solution((args, kwargs), self.lent, code=True)
        request = crossing_lending.MARK + crossing_lending.dumps_to_solution(
            ("call", target, arguments, context, handed), self.lent
        )
        return self._result(self._ask(request))

    def operate(self, number: int, operation: str, args: Any) -> Any:
        """``next`` of an iterator the solution keeps, and the like."""
        request = crossing_lending.MARK + crossing_lending.dumps_to_solution(
            ("operate", number, operation, tuple(args)), self.lent
        )
        return self._result(self._ask(request))

    def cell(self, module: str, code: str) -> str:
        """Run ``code`` as a notebook cell in the solution's session ``module``; return
        what it printed and displayed (text), or raise what it raised."""
        self.engaged = True
        request = crossing_lending.MARK + crossing_lending.dumps_to_solution(
            ("cell", module, code), self.lent
        )
        output = self._result(self._ask(request))
        if not isinstance(output, str):
            raise RemoteError("TransportError", "the cell's output did not come back as text")
        return output

    def _warnings(self, report: Json) -> None:
        if self.recorder is not None:
            for record in report.get("warnings", [])[:100]:
                if isinstance(record, dict) and all(
                    isinstance(record.get(k), str) for k in ("category", "message", "module")
                ):
                    self.recorder.add({k: record[k] for k in ("category", "message", "module")})

    def _result(self, received: tuple[Json, list[bytes]]) -> Any:
        report, blobs = received
        self._warnings(report)
        crossing_context.reemit(report.get("warned"))
        network = report.get("network")
        if isinstance(network, list) and network and isinstance(network[0], str):
            crossing_errors.REACHED[:] = [network[0][:300]]
        if report.get("kind") == "raised":
            arguments = None
            if len(blobs) == 1:
                with contextlib.suppress(GuardRefusedError, RemoteError):
                    arguments = self._admit(blobs[0], "an exception's arguments")
            state = None
            if isinstance(arguments, tuple) and len(arguments) == 2:
                arguments, state = arguments
            crossing_context.after_call(state)
            raise crossing_errors.rebuild(
                report, arguments if isinstance(arguments, tuple) else None
            )
        if report.get("kind") != "returned" or len(blobs) != 1:
            raise RemoteError("TransportError", "the solution's result did not come back")
        self._make_room(report.get("figures"), bool(report.get("pyplot")))
        open_before = set(crossing_pyplot.figure_managers())
        returned = self._admit(blobs[0], "the solution's result")
        if not isinstance(returned, tuple) or len(returned) != 4:
            raise GuardRefusedError("the result came back in a shape it is not sent in")
        value, state, figures, written = returned  # figures re-registered as admitted
        crossing_context.after_call(state)
        originals = self._write_back(written, figures, open_before)
        value = crossing_handed.as_originals(value, originals)
        _strict_masks()
        numbers = report.get("figures")
        if isinstance(figures, list) and isinstance(numbers, list) and len(numbers) == len(figures):
            for number, figure in zip(numbers, figures):
                if type(number) is int:
                    self.figures[number] = figure
        lost = report.get("lost")
        if isinstance(lost, str) and lost:
            self.lost.append(lost[:300])
        return value

    def _write_back(self, written: Any, figures: Any, open_before: set[int]) -> dict[int, Any]:
        """What the call changed of the objects the test handed it (an axes it drew on,
        a model it fitted, a list it appended to) becomes the state of the test's own
        objects; returned: which copy now stands for which of the test's objects. A
        figure that registered itself with pyplot only because it came back inside one
        of them is the test's figure, not a new one: closed here."""
        originals: dict[int, Any] = {}
        if not isinstance(written, list):
            return originals
        for item in written:
            if isinstance(item, tuple) and len(item) == 2:
                with contextlib.suppress(KeyError):
                    original = self.sent.get(item[0])
                    if crossing_handed.write_back(original, item[1]):
                        originals[id(item[1])] = original
        if not written:
            return originals
        shipped = {id(f) for f in figures} if isinstance(figures, list) else set()
        for number, manager in crossing_pyplot.figure_managers().items():
            if number not in open_before and id(manager.canvas.figure) not in shipped:
                crossing_pyplot.close_figure(manager)
        return originals

    def _open_figures(self) -> dict[int, list[int]] | None:
        """The solution's numbers of the figures it sent that the check still has open,
        with what their axes hold here (a test that closes or clears them does so there
        too)."""
        if "matplotlib.pyplot" not in sys.modules:
            return None
        here = {
            id(m.canvas.figure): m.canvas.figure for m in crossing_pyplot.figure_managers().values()
        }
        return {
            number: crossing_pyplot.drawn(figure)
            for number, figure in self.figures.items()
            if id(figure) in here
        }

    def _make_room(self, numbers: Any, pyplot_there: bool = False) -> None:
        """Before a call's figures are admitted (each registers itself with pyplot, last
        the current one): pyplot imported and its backend started where the solution's
        process has them (a figure being admitted would import them, which admission
        refuses), and the check's copies of the figures being replaced closed."""
        if pyplot_there and "matplotlib.pyplot" not in sys.modules:
            with contextlib.suppress(Exception):
                importlib.import_module("matplotlib.pyplot")
        crossing_pyplot.start_backend()
        if "matplotlib.pyplot" not in sys.modules or not isinstance(numbers, list) or not numbers:
            return
        copies = {id(self.figures[n]) for n in numbers if type(n) is int and n in self.figures}
        for manager in crossing_pyplot.figure_managers().values():
            if id(manager.canvas.figure) in copies:
                crossing_pyplot.close_figure(manager)

    def _start(self) -> _Resident:
        """Start the solution's process: forked by the template where there is one, else
        a new interpreter (``solution.py``) born in the solutions' pid namespace, with
        the request socket and the standard streams as its only descriptors."""
        # RLIMIT_NPROC counts every task of the user: the cap is what runs now plus the
        # allowance (where a pids cgroup holds the execution, that is the cap).
        if self.sandboxed and self.limits.get("task_cap") == "rlimit" and not self._nproc:
            self._nproc = sandbox.tasks_of_this_user() + int(self.limits.get("tasks", 1024))
        config: Json = {
            # a process whose parent is outside its pid namespace sees it as pid 0
            "parent": 0 if self.sandboxed else os.getpid(),
            "sandboxed": self.sandboxed,
            "fsize_mb": int(self.limits.get("fsize_mb", 1024)),
            "nproc": self._nproc,
            "warnings": self.recorder is not None,
        }
        if TEMPLATE:
            resident = self._from_template(config)
            if resident is not None:
                return resident
        if self.sandboxed and not _NAMESPACE:
            _NAMESPACE.append(SolutionNamespace(float(self.limits.get("timeout", 120))))
        if self.sandboxed:
            config["cover_tmp"] = os.getcwd()
        asking, answering = socket.socketpair()
        fd = answering.fileno()
        argv = [sys.executable, "-s", LAUNCHER, "solution", str(fd), json.dumps(config)]
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        close = _inherited(keep=fd)
        os.set_inheritable(fd, True)
        namespace = _NAMESPACE[0] if self.sandboxed else None
        if namespace is not None:
            namespace.enter()
        try:
            pid = _spawn(argv, close)
        finally:
            if namespace is not None:
                namespace.leave()
            answering.close()
        return _Resident(pid, asking)

    def _from_template(self, config: Json) -> _Resident | None:
        """The solution's process forked by the template, placed by its keeper in a
        sandbox like this execution's: its working directory, hidden paths, cgroups,
        limits, environment and standard streams. None if the template cannot (then a
        new interpreter is started instead)."""
        asking, answering = socket.socketpair()
        lifeline_r, lifeline_w = os.pipe()
        status_r, status_w = os.pipe()
        message = dict(
            config,
            workdir=os.getcwd(),
            hide=self.place.get("hide") or [],
            memory_mb=self.place.get("memory_mb"),
            cgroups=self.place.get("cgroups") or [],
            environ=dict(os.environ),
            timeout=float(self.limits.get("timeout", 120)),
        )
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        # this execution's network namespace: a server the test starts on localhost is one
        # the solution reaches, and the other way round, as in one process
        network = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        fds = [answering.fileno(), lifeline_r, status_w, 1, 2, network]
        try:
            TEMPLATE[0].sendmsg(
                [json.dumps(message).encode("utf-8")],
                [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))],
            )
            sent = True
        except OSError:
            sent = False
        finally:
            answering.close()
            os.close(lifeline_r)
            os.close(status_w)
            os.close(network)
        status = os.fdopen(status_r, "rb")
        line = status.readline() if sent else b""
        if not line.startswith(b"pid "):
            asking.close()
            os.close(lifeline_w)
            status.close()
            drop_template()  # it is gone, broken or refused: new interpreters from now on
            return None
        return _Resident(int(line.split()[1]), asking, lifeline_w, status)

    def retire(self) -> None:
        """Let the solution's process go; the next request starts a new one."""
        self._retire()

    def _retire(self) -> None:
        """Let the resident go: its request socket closes, and it ends."""
        resident, self._resident = self._resident, None
        if resident is not None:
            resident.let_go()

    def _crashed(self) -> NoReturn:
        """The solution's process closed its report's pipe without a whole report: it
        ended (the solution crashed it), or it lies. Either way the execution ends as
        that process did, killed if it had not ended yet."""
        assert self._resident is not None
        _die_like(self._resident.end())

    def _apply_bundle(
        self, rest: list[bytes], bundled: list[str], env: dict[str, Any]
    ) -> list[bytes]:
        """The figures and the values that hold them, sent as one pickle: admitted as
        one (the figures re-register themselves with pyplot). Returns the pickles after it."""
        if not rest:
            return rest
        try:
            admitted = transport.admit(rest[0], self.allowlist, self.usage)
        except transport.RefusedError as exc:
            self.refused.append("the figures: %s" % exc)
            for name in bundled:
                env.pop(name, None)
            raise GuardRefusedError("the solution's figures were refused: %s" % exc) from None
        except transport.UnreadableError as exc:
            self.lost.append("the figures could not be received: %s" % exc)
            return rest[1:]
        if (
            not isinstance(admitted, tuple)
            or len(admitted) != 2
            or not isinstance(admitted[1], dict)
            or sorted(admitted[1]) != sorted(bundled)
        ):
            raise GuardRefusedError("the figures came back in a shape they are not sent in")
        env.update(admitted[1])
        return rest[1:]

    def _apply(self, report: Json, blobs: list[bytes], env: dict[str, Any]) -> None:
        names = [n for n in report.get("values", []) if isinstance(n, str) and n.isidentifier()]
        if len(names) != len(report.get("values", [])) or any(n.startswith("__") for n in names):
            # what the solution assigned is named like a variable; never ``__builtins__``
            raise GuardRefusedError("the report names a value that is not a variable of its own")
        # A figure (sent back as one, or held by a variable) re-registers itself with
        # pyplot's backend, which this process may never have started: start it here,
        # not in the middle of admitting a value (it imports modules).
        crossing_pyplot.start_backend()
        for name, blob in zip(names, blobs):
            try:
                value = transport.admit(blob, self.allowlist, self.usage)
            except transport.RefusedError as exc:
                self.refused.append("%s: %s" % (name, exc))
                env.pop(name, None)  # the check must not see an earlier value under its name
                if name == "result":
                    raise GuardRefusedError("the solution's result was refused: %s" % exc) from None
                continue
            except transport.UnreadableError as exc:
                env.pop(name, None)
                if name == "result":
                    raise RemoteError(
                        "TransportError", "the solution's result could not be received: %s" % exc
                    ) from None
                self.lost.append("%s could not be received: %s" % (name, exc))
                continue
            env[name] = value
        # what the solution left as the check gave it stays as the checker has it; what
        # it deleted goes
        skipped = report.get("skipped", {})
        skipped = skipped if isinstance(skipped, dict) else {}
        bundled = report.get("bundle")
        bundled = [n for n in bundled if isinstance(n, str)] if isinstance(bundled, list) else None
        if bundled is not None and not all(
            n.isidentifier() and not n.startswith("__") for n in bundled
        ):
            raise GuardRefusedError("the report names a value that is not a variable of its own")
        kept = set(names) | set(skipped) | set(report.get("unchanged", [])) | set(bundled or ())
        for name in [n for n in env if not n.startswith("__") and n not in kept]:
            if type(env[name]).__name__ not in transport.SKIPPED_TYPES:
                del env[name]
        if "result" in skipped:
            raise RemoteError(
                "TransportError",
                "the solution's result could not be sent back: %s" % skipped["result"],
            )
        for name in sorted(str(k) for k in skipped if str(k).startswith("<figure")):
            # The check will not see it: say why, so a failure that follows reads right.
            self.lost.append("%s could not be sent back: %s" % (name.strip("<>"), skipped[name]))
        pyplot = sys.modules.get("matplotlib.pyplot")
        rest = blobs[len(names) :]
        if pyplot is not None or bundled is not None:
            if pyplot is not None:
                pyplot.close("all")
            if bundled is not None:
                rest = self._apply_bundle(rest, bundled, env)
            for blob in rest:
                try:
                    # re-registers itself with pyplot
                    transport.admit(blob, self.allowlist, self.usage)
                except transport.RefusedError as exc:
                    self.refused.append("a figure: %s" % exc)
                    raise GuardRefusedError("a figure was refused: %s" % exc) from None
                except transport.UnreadableError as exc:
                    self.lost.append("a figure could not be received: %s" % exc)
            pyplot = sys.modules.get("matplotlib.pyplot")  # a bundle may have loaded it
            current = report.get("current")
            if pyplot is not None and isinstance(current, int) and current in pyplot.get_fignums():
                pyplot.figure(current)
        _strict_masks()


def _strict_masks() -> None:
    """NumPy's testing asserts skip masked elements: ``np.ma.masked`` "equals" any array,
    so a solution could pass without computing anything (DS-1000's own grader accepts it
    too). In a check of untrusted values, a masked element matches only a masked one."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return
    if "numpy.testing" not in sys.modules:  # NumPy 2 loads it on first use (the zygote did)
        try:
            importlib.import_module("numpy.testing")
        except Exception:
            return
    utils = sys.modules.get("numpy.testing._private.utils")
    original = getattr(utils, "assert_array_compare", None)
    if original is None or original in _STRICT:
        return

    def assert_array_compare(comparison: Any, x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
        ma = numpy.ma
        if ma.isMaskedArray(x) or ma.isMaskedArray(y):
            mx, my = ma.getmaskarray(x), ma.getmaskarray(y)
            if (mx.any() or my.any()) and (mx.shape != my.shape or not (mx == my).all()):
                raise AssertionError(
                    "masked elements differ: a masked value matches only a masked value "
                    "(actual masks %d of %d, desired %d of %d)"
                    % (mx.sum(), mx.size, my.sum(), my.size)
                )
        return original(comparison, x, y, *args, **kwargs)

    _STRICT.append(assert_array_compare)
    utils.assert_array_compare = assert_array_compare  # type: ignore[union-attr]


_STRICT: list[Any] = []  # the comparison installed by _strict_masks, once per process


def _die_like(status: int) -> NoReturn:
    """The solution's process ended without a word: end this one the same way, so the
    execution is a crash exactly as it would be without the guard."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(Exception):
            signal.signal(number, signal.SIG_DFL)  # SIGKILL and SIGSTOP refuse: no matter
        with contextlib.suppress(Exception):
            os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)
