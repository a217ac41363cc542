"""The env-side runner: executes solutions inside one combo's environment.

This file runs under the combo's interpreter (Python 3.8 to 3.13), so it uses the
standard library only and imports nothing from the ``harness`` package. The host
starts it as ``python -s envside.py run BATCH.json``; it writes one JSON line per
finished execution to its standard output (the protocol), and sends anything the
executed code prints elsewhere.

Each execution runs in a fresh interpreter (``envside.py exec``), in its own
temporary directory and process group, under a wall-clock limit, so a crash, a
hang, ``sys.exit`` or ``os._exit`` in one never reaches another.
"""

from __future__ import annotations

import os
import sys

# This file's directory holds the host package, whose module names must never shadow
# the standard library's or the program's: leave it off the path before importing more.
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import builtins
import contextlib
import gc
import json
import re
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
import traceback
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, TextIO

if TYPE_CHECKING:
    from types import FrameType

PROTOCOL = 1


def _load_sandbox() -> Any:
    """harness/sandbox.py, loaded from beside this file (we are a script, not a package)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox.py")
    spec = importlib.util.spec_from_file_location("_harness_sandbox", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["_harness_sandbox"] = module
    spec.loader.exec_module(module)
    return module


sandbox = _load_sandbox()
Json = Dict[str, Any]  # a decoded JSON object (typing.Dict: this file runs on Python 3.8)
_HERE = os.path.abspath(__file__)
_TRACKED = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)
_MAX_WARNINGS = 100
_MAX_MESSAGE = 2000
_MAX_TRACEBACK = 3000
_KILL_GRACE = 0.5  # seconds to wait for pipes to close after the process has gone


# -- executing one program (in the child) --------------------------------------------


class WarningRecorder:
    """Records each distinct deprecation-type warning the program raises.

    Warnings raised while a module is being imported are left out: they belong to
    the environment (a library's import), not to the program, and are reported once
    per environment by ``probe``. Leaving them out also makes the record the same
    whether the libraries were imported by this process or inherited.
    """

    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []
        self._seen: set[tuple[str, str, str]] = set()
        self._previous = warnings.showwarning

    def install(self) -> None:
        for category in _TRACKED:
            warnings.filterwarnings("always", category=category)
        warnings.showwarning = self.show

    def show(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if not _tracked(category):
            self._previous(message, category, filename, lineno, file, line)
            return
        issuer = None
        frame: FrameType | None = sys._getframe(1)  # noqa: SLF001 - the only way to see the issuer
        while frame is not None:
            code_file = frame.f_code.co_filename
            if code_file.startswith("<frozen importlib"):
                return  # raised by a module's import: environment, not program
            if issuer is None and code_file != _HERE:
                name = frame.f_globals.get("__name__", "") or ""
                top = name.split(".")[0]
                if top in _WRAPPERS:
                    if top != "warnings":
                        issuer = _wrapped_module(frame)
                else:
                    issuer = _module_label(name, code_file)
            frame = frame.f_back
        if str(message).startswith("invalid escape sequence"):
            issuer = "<python>"  # the compiler's, about source text, whoever compiled it
        self.add(
            {
                "category": _qualified(category),
                "message": str(message)[:_MAX_MESSAGE],
                "module": issuer or "<unknown>",
            }
        )

    def add(self, record: dict[str, str]) -> None:
        """Keep ``record`` unless an equal one is kept already (or the list is full)."""
        key = (record["category"], record["message"], record["module"])
        if key not in self._seen and len(self.items) < _MAX_WARNINGS:
            self._seen.add(key)
            self.items.append(record)


def _tracked(category: type[Warning]) -> bool:
    """Deprecation-type warnings, also those outside the hierarchy (numpy's
    ``VisibleDeprecationWarning`` is a ``UserWarning``)."""
    return issubclass(category, _TRACKED) or category.__name__.endswith("DeprecationWarning")


def _module_label(name: str, code_file: str) -> str:
    if code_file == "<string>":
        return "<solution>"
    if code_file == "<program>":
        return "<context>"
    if code_file in ("<setup>", "<check>"):
        return code_file
    return name or code_file


# Modules whose frames only pass a warning on for someone else: a deprecation decorator
# (``typing_extensions.deprecated``) calls warnings.warn before the decorated function.
_WRAPPERS = (
    "warnings",
    "typing_extensions",
    "functools",
    "contextlib",
    "deprecated",
    "deprecation",
)


def _wrapped_module(frame: FrameType) -> str | None:
    """The module of the function a wrapper frame stands for, read from its locals."""
    for value in list(frame.f_locals.values()):
        module = getattr(value, "__module__", None)
        if callable(value) and isinstance(module, str) and module.split(".")[0] not in _WRAPPERS:
            return module
    return None


def _qualified(cls: type) -> str:
    module = getattr(cls, "__module__", "builtins")
    return cls.__qualname__ if module == "builtins" else "%s.%s" % (module, cls.__qualname__)


def build_program(context: str, solution: str) -> str:
    """DS-1000's grading program: the context, then its tests on the solution."""
    program = context + "\ncode = " + repr(solution) + "\ntest_execution(code)\n"
    if "def test_string(" in context:
        program += "test_string(code)\n"
    return program


def execute(payload: Json) -> Json:
    """Run one program in this process and describe how it ended.

    For untrusted solutions the program's ``exec`` is the sandbox's guard: the solution
    runs in a sandboxed child and only what it assigned comes back to be checked here.
    """
    recorder = WarningRecorder()
    recorder.install()
    namespace: Json = {"__name__": "__main__", "__builtins__": builtins}
    if payload.get("untrusted"):
        guard = sandbox.Guard(
            payload["solution"],
            close_fds=[payload.get("result_fd", -1)],
            sandboxed=bool(payload.get("sandboxed")),
            limits=payload.get("limits") or {},
            recorder=recorder,
        )
        namespace["__builtins__"] = guard.builtins()
    status = "pass"
    exc_type = None
    message = ""
    tb = ""
    start = time.perf_counter()
    try:
        code = compile(build_program(payload["context"], payload["solution"]), "<program>", "exec")
        exec(code, namespace)
    except AssertionError as exc:
        status, exc_type, message, tb = "fail", _qualified(type(exc)), str(exc), _tb(exc)
    except sandbox.RemoteError as exc:
        # raised by the solution in its own process, under a name only it knows
        status, exc_type, message = "error", exc.qualified, str(exc)
        tb = exc.remote_traceback
    except BaseException as exc:
        status, exc_type, message, tb = "error", _qualified(type(exc)), str(exc), _tb(exc)
    parts = _parts(namespace.get("HARNESS_PARTS"))
    note = ""
    if payload.get("untrusted"):
        if guard.lost:
            note = "; ".join(guard.lost)
        if guard.unguarded:
            note = "ran beside its check: %s" % guard.unguarded
        elif not guard.engaged and status == "pass":
            # The check ran the solution some way other than exec() of a string, so it
            # ran in this process, next to the check: not a pass we can vouch for.
            status, exc_type = "error", "GuardError"
            message = (
                "the check never ran the solution through exec(), so it could not be run apart"
            )
    return {
        "status": status,
        "note": note,
        "parts": parts,
        "exc_type": exc_type,
        "message": message[:_MAX_MESSAGE],
        "traceback": tb,
        "program_s": time.perf_counter() - start,
        "warnings": recorder.items,
    }


_PART_STATUSES = ("pass", "fail", "error", "skipped")


def _parts(declared: Any) -> list[Json]:
    """The graded pieces a context recorded in ``HARNESS_PARTS`` (unit tests, session
    steps): a list of {name, status, message}; anything else there is ignored."""
    if not isinstance(declared, list):
        return []
    return [
        {
            "name": str(item.get("name", ""))[:200],
            "status": item["status"],
            "message": str(item.get("message", ""))[:500],
        }
        for item in declared[:500]
        if isinstance(item, dict) and item.get("status") in _PART_STATUSES
    ]


def _tb(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != _HERE][-4:]
    lines = ["%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames]
    return "\n".join(lines)[-_MAX_TRACEBACK:]


def _limit_memory(megabytes: int | None) -> None:
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
_exit = os._exit


def _report(result_fd: int, outcome: Json) -> None:
    """Hand the outcome to the runner and leave at once."""
    data = _dumps(outcome).encode("utf-8")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # a program may have closed its streams
            stream.flush()
    with contextlib.suppress(OSError):
        while data:
            data = data[_write(result_fd, data) :]
    # Skip interpreter shutdown: threads and atexit hooks the program left behind
    # must not keep the process alive once its outcome is known.
    _exit(0)


def fresh_child_main(result_fd: int, parent: int) -> None:
    """``envside.py exec FD``: one execution in a brand-new interpreter."""
    sandbox.die_with_parent(parent)
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    _prepare(payload, os.getcwd(), result_fd)
    _report(result_fd, execute(payload))


def _prepare(payload: Json, workdir: str, result_fd: int) -> None:
    """Everything an execution's process does before the program: sandbox, temp dir, limits."""
    for cgroup in payload.get("cgroups", []):
        sandbox.join_cgroup(cgroup)
    if payload.get("sandboxed"):
        sandbox.enter(workdir, payload.get("hide"))
    tempfile.tempdir = workdir  # the zygote may have cached /tmp, read-only in the sandbox
    os.environ["TMPDIR"] = workdir
    payload["result_fd"] = result_fd
    _limit_memory(payload.get("memory_mb"))


# -- the zygote: preloaded libraries, one fork per execution ---------------------------

_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)|import[ \t]+([\w., \t]+))",
    re.MULTILINE,
)


def imports_in(code: str) -> list[str]:
    """Dotted module names a piece of code imports, including inside code strings.

    ``from a.b import c`` yields ``a.b`` and ``a.b.c``: ``c`` may be a submodule,
    which importing ``a.b`` alone would not load.
    """
    found: list[str] = []
    for match in _IMPORT_LINE.finditer(code):
        if match.group(1):
            found.append(match.group(1))
            for imported in match.group(2).split(","):
                words = imported.split()  # "c" or "c as d"
                name = words[0] if words else ""
                if name.isidentifier():
                    found.append(match.group(1) + "." + name)
        else:
            for part in match.group(3).split(","):
                words = part.split()
                if words and all(p.isidentifier() for p in words[0].split(".")):
                    found.append(words[0])
    return list(dict.fromkeys(found))


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
                failed[name] = "%s: %s" % (_qualified(type(exc)), exc)
    return loaded, failed


# A tiny piece of real work per library: run in a forked child, it shows whether the
# library still works after a fork (thread pools, runtimes initialised at import).
_FORK_PROBES = {
    "numpy": "import numpy; numpy.ones(3).sum()",
    "torch": "import torch; torch.ones(8, 8).matmul(torch.ones(8, 8)).sum().item()",
    "tensorflow": "import tensorflow as tf; float(tf.reduce_sum(tf.ones((8, 8)) @ tf.ones((8, 8))))",
    "sklearn": "from sklearn.linear_model import LinearRegression; LinearRegression().fit([[0], [1]], [0, 1])",
}
_FORK_PROBE_TIMEOUT = 60.0


def _reset_after_fork() -> None:
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


def _warm_reseeding() -> None:
    """Reseed once here, so that each child's reseeding is cheap: NumPy's first
    ``seed()`` in a process costs ~15 ms (it sets up its entropy machinery), later
    ones a fraction of a millisecond. The children still draw fresh OS entropy."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            numpy.random.seed()


def fork_probe(library: str) -> str | None:
    """None when ``library`` works in a forked child, else the reason it does not."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            _reset_after_fork()
            exec(_FORK_PROBES[library], {})
            os._exit(0)
        except BaseException:
            os._exit(1)
    deadline = time.monotonic() + _FORK_PROBE_TIMEOUT
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = _exit_code(status)
            return None if code == 0 else "a forked child failed (%s)" % _describe_exit(code)
        time.sleep(0.01)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return "a forked child hung for %gs" % _FORK_PROBE_TIMEOUT


# -- scheduling executions (in the runner) ----------------------------------------------


class _Child:
    """One execution's process, forked from the zygote or a fresh interpreter."""

    def __init__(
        self,
        index: int,
        pid: int,
        output_fd: int,
        result_fd: int,
        workdir: str,
        timeout: float,
        popen: subprocess.Popen[bytes] | None = None,
    ) -> None:
        self.index = index
        self.pid = pid
        self.popen = popen
        self.fds = {"output": output_fd, "result": result_fd}
        self.workdir = workdir
        self.start = time.monotonic()
        self.deadline = self.start + timeout
        self.result = bytearray()
        self.head = bytearray()
        self.tail = bytearray()
        self.output_bytes = 0
        self.timed_out = False
        self.exited_at: float | None = None
        self.returncode: int | None = None
        self.cgroups: list[str] = []  # the cgroups that hold it, if any

    def poll(self) -> int | None:
        if self.returncode is None:
            if self.popen is not None:
                self.returncode = self.popen.poll()
            else:
                with contextlib.suppress(ChildProcessError):
                    done, status = os.waitpid(self.pid, os.WNOHANG)
                    if done:
                        self.returncode = _exit_code(status)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            if self.popen is not None:
                self.returncode = self.popen.wait()
            else:
                _, status = os.waitpid(self.pid, 0)
                self.returncode = _exit_code(status)
        return self.returncode

    def kill_group(self) -> None:
        # Each child leads its own session and process group: this reaches
        # everything it started that did not escape into a session of its own.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)


def _children() -> list[int]:
    """Our child processes, from /proc (Linux); [] where that cannot be read."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError), open("/proc/self/task/%s/children" % task) as fh:
                found.extend(int(p) for p in fh.read().split())
    return found


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit status %d" % code


# Libraries that never share a zygote: each carries native runtimes (LLVM, protobuf,
# thread pools) that clash when both are loaded into one process, which a fresh
# interpreter running one problem would never do.
_APART = ("tensorflow", "torch")


class Scheduler:
    """Runs a batch's executions, ``jobs`` at a time, and emits each outcome as it ends.

    In zygote mode the executions are grouped by which of the ``_APART`` libraries
    they need; each group gets a zygote of its own that preloads what that group's
    problems import and forks one child per execution.
    """

    def __init__(
        self, batch: Json, emit: Callable[[int, Json], None], protocol_fd: int = -1
    ) -> None:
        self.batch = batch
        self.emit = emit
        self.protocol_fd = protocol_fd
        self.jobs = max(1, int(batch.get("jobs", 1)))
        self.output_limit = int(batch.get("output_limit", 65536))
        self.memory_mb = batch.get("memory_mb")
        self.isolation = batch.get("isolation", "zygote")
        self.selector = selectors.DefaultSelector()
        self.running: dict[int, _Child] = {}
        self.env = _child_environment()
        self.fresh_only: dict[str, str] = {}  # top-level module → why it is not forked
        self.preloaded: list[str] = []
        self.preload_failures: dict[str, str] = {}
        self.zygotes: list[Json] = []  # what each group's zygote reported
        # Untrusted solutions run apart from their checks (the guard), and every execution
        # in the sandbox, when this machine allows it (the reason it does not, otherwise).
        self.guard = bool(batch.get("guard", True))
        self.limits = batch.get("limits") or {}
        # what no execution may read: the batch (it holds every solution) and what the
        # host names (the problems, with their references; the results)
        self.hide = list(batch.get("hide", [])) + (
            [os.path.dirname(os.path.abspath(batch["path"]))] if batch.get("path") else []
        )
        self.sandbox_reason: str | None = "not probed"
        if batch.get("sandbox", True):
            probe_dir = tempfile.mkdtemp(prefix="harness-probe-")
            try:
                self.sandbox_reason = sandbox.probe(probe_dir)
            finally:
                shutil.rmtree(probe_dir, ignore_errors=True)
        else:
            self.sandbox_reason = "switched off"
        sandbox.set_subreaper()
        sandbox.sweep_cgroups()
        # A cap on processes and threads per execution: a pids cgroup where we may make
        # one (root, which RLIMIT_NPROC does not bind), else RLIMIT_NPROC.
        self.max_tasks = int(self.limits.get("tasks", 1024))
        self.task_cap = "rlimit" if self.sandbox_reason is None else "none"
        self.cgroups_left: list[str] = []  # to remove once their last processes are gone
        if self.sandbox_reason is None:
            trial = sandbox.execution_cgroups("harness-probe-%d" % os.getpid(), 8)
            for cgroup in trial:
                sandbox.release_cgroup(cgroup)
            if trial:
                self.task_cap = "cgroup"

    # -- setup ----------------------------------------------------------------------
    def prepare_zygote(self, queue: list[tuple[int, Json]]) -> None:
        """Import what the queued problems import, then check each heavy library forks."""
        wanted: list[str] = []
        for problem_id in dict.fromkeys(spec["problem"] for _, spec in queue):
            wanted.extend(imports_in(self.batch["problems"][problem_id]["context"]))
        for _, spec in queue:
            if spec.get("trusted"):
                wanted.extend(imports_in(spec["solution"]))
        configured = set(self.batch.get("fresh_for", []))
        for module in configured:
            self.fresh_only[module] = "configured to run in a fresh interpreter"
        wanted = [m for m in dict.fromkeys(wanted) if m.split(".")[0] not in configured]
        self.preloaded, self.preload_failures = preload(wanted)
        _warm_reseeding()
        for library in _FORK_PROBES:
            if library in sys.modules and library not in self.fresh_only:
                reason = fork_probe(library)
                if reason:
                    self.fresh_only[library] = reason
        # Objects that exist now are never collected in a child: without this, the
        # first collection in each child would write to (and copy) every page.
        gc.collect()
        if hasattr(gc, "freeze"):
            gc.freeze()

    def info(self) -> Json:
        """What the run did, for the record: per zygote, and merged."""
        merged: Json = {"preloaded": [], "fresh_only": {}, "preload_failures": {}}
        for zygote in self.zygotes:
            merged["preloaded"] += [m for m in zygote["preloaded"] if m not in merged["preloaded"]]
            merged["fresh_only"].update(zygote["fresh_only"])
            merged["preload_failures"].update(zygote["preload_failures"])
        return {
            "isolation": self.isolation,
            "sandbox": self.sandbox_reason or "on",
            "task_cap": self.task_cap,
            "guard": self.guard,
            "zygotes": self.zygotes,
            **merged,
        }

    # -- main loop --------------------------------------------------------------------
    def run(self) -> None:
        problems = self.batch["problems"]
        queue = []
        missing_cache: dict[str, bool] = {}
        for index, spec in enumerate(self.batch["executions"]):
            problem = problems[spec["problem"]]
            missing = [m for m in problem.get("requires", []) if not _importable(m, missing_cache)]
            if missing:
                message = "needs %s, not installed in this environment" % ", ".join(missing)
                self.emit(index, _outcome("skipped", message=message))
            else:
                queue.append((index, spec))
        if self.isolation != "zygote":
            self._drain(queue)
            return
        groups: dict[tuple[str, ...], list[tuple[int, Json]]] = {}
        for index, spec in queue:
            requires = problems[spec["problem"]].get("requires", [])
            groups.setdefault(tuple(m for m in _APART if m in requires), []).append((index, spec))
        for group, items in groups.items():
            self._run_zygote(group, items)

    def _drain(self, queue: list[tuple[int, Json]]) -> None:
        """Run ``queue`` to the end, ``jobs`` at a time."""
        pending = list(reversed(queue))
        while pending or self.running:
            while pending and len(self.running) < self.jobs:
                index, spec = pending.pop()
                self._start(index, spec)
            self._wait()
        deadline = time.monotonic() + 30
        while self._release_cgroups() and time.monotonic() < deadline:
            time.sleep(0.05)

    def _release_cgroups(self) -> list[str]:
        """Try again to remove the cgroups that were still busy; returns those still left."""
        self.cgroups_left = [c for c in self.cgroups_left if not sandbox.release_cgroup(c)]
        return self.cgroups_left

    def _run_zygote(self, group: tuple[str, ...], items: list[tuple[int, Json]]) -> None:
        """Fork a zygote for one group, relay what it reports, account for what it does not."""
        read_fd, write_fd = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the zygote
            try:
                sandbox.die_with_parent(parent)
                os.close(read_fd)
                with contextlib.suppress(OSError):
                    os.close(self.protocol_fd)
                self.protocol_fd = write_fd  # executions must not inherit it either
                # what executions leave behind becomes ours, to be reaped (the attribute
                # is not inherited across fork)
                sandbox.set_subreaper()
                out = os.fdopen(write_fd, "w", buffering=1, encoding="utf-8")

                def relay(index: int, outcome: Json) -> None:
                    out.write(json.dumps({"seq": index, "outcome": outcome}) + "\n")

                self.emit = relay
                self.prepare_zygote(items)
                report = {
                    "group": list(group),
                    "preloaded": self.preloaded,
                    "fresh_only": self.fresh_only,
                    "preload_failures": self.preload_failures,
                }
                out.write(json.dumps({"zygote": report}) + "\n")
                self._drain(items)
                out.flush()
            finally:
                os._exit(0)
        os.close(write_fd)
        pending = {index for index, _ in items}
        with os.fdopen(read_fd, encoding="utf-8") as lines:
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if "zygote" in event:
                    self.zygotes.append(event["zygote"])
                elif event.get("seq") in pending:
                    pending.discard(event["seq"])
                    self.emit(event["seq"], event["outcome"])
        _, status = os.waitpid(pid, 0)
        reason = "the zygote died (%s) before reporting this execution" % _describe_exit(
            _exit_code(status)
        )
        for index in sorted(pending):
            self.emit(index, _outcome("crash", message=reason))

    def _fresh_for(self, problem: Json) -> bool:
        if self.isolation != "zygote":
            return True
        return any(m in self.fresh_only for m in problem.get("requires", []))

    def _start(self, index: int, spec: Json) -> None:
        problem = self.batch["problems"][spec["problem"]]
        payload = {
            "context": problem["context"],
            "solution": spec["solution"],
            "memory_mb": self.memory_mb,
            "untrusted": not spec.get("trusted", False) and self.guard,
            "sandboxed": self.sandbox_reason is None,
            "hide": self.hide,
            "limits": dict(self.limits, tasks=self.max_tasks, task_cap=self.task_cap),
        }
        timeout = float(spec.get("timeout") or self.batch.get("timeout", 120))
        workdir = tempfile.mkdtemp(prefix="harness-exec-")
        if self.task_cap == "cgroup":
            payload["cgroups"] = sandbox.execution_cgroups(
                "harness-%s" % os.path.basename(workdir), self.max_tasks
            )
        if self._fresh_for(problem):
            child = self._spawn_fresh(index, payload, workdir, timeout)
        else:
            child = self._fork(index, payload, workdir, timeout)
        child.cgroups = payload.get("cgroups", [])
        self.running[index] = child
        for kind, fd in child.fds.items():
            self.selector.register(fd, selectors.EVENT_READ, (child, kind))

    def _spawn_fresh(self, index: int, payload: Json, workdir: str, timeout: float) -> _Child:
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        popen = subprocess.Popen(
            [sys.executable, "-s", _HERE, "exec", str(result_w), str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=out_w,
            stderr=out_w,
            cwd=workdir,
            env=self.env,
            pass_fds=(result_w,),
            start_new_session=True,
        )
        os.close(out_w)
        os.close(result_w)
        assert popen.stdin is not None
        try:
            popen.stdin.write(json.dumps(payload).encode("utf-8"))
            popen.stdin.close()
        except OSError:
            pass  # the child died at once; its exit is reported as a crash
        return _Child(index, popen.pid, out_r, result_r, workdir, timeout, popen)

    def _fork(self, index: int, payload: Json, workdir: str, timeout: float) -> _Child:
        out_r, out_w = os.pipe()
        result_r, result_w = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            try:
                sandbox.die_with_parent(parent)
                os.setsid()
                # Nothing the runner holds is the child's business: not the protocol,
                # not the other executions' pipes.
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in [out_r, result_r] + [
                    f for c in self.running.values() for f in c.fds.values()
                ]:
                    with contextlib.suppress(OSError):
                        os.close(fd)
                # The protocol fd is owned by a file object (the zygote's relay): covered,
                # not closed, or that object's finalizer would one day close whatever
                # reused the number (the guard's pipe, say).
                with contextlib.suppress(OSError):
                    os.dup2(devnull, self.protocol_fd)
                os.dup2(devnull, 0)
                os.close(devnull)
                os.dup2(out_w, 1)
                os.dup2(out_w, 2)
                os.chdir(workdir)
                _reset_after_fork()
                _prepare(payload, workdir, result_w)
                _report(result_w, execute(payload))
            finally:
                os._exit(70)
        os.close(out_w)
        os.close(result_w)
        return _Child(index, pid, out_r, result_r, workdir, timeout)

    def _wait(self) -> None:
        now = time.monotonic()
        wake = min(
            [c.deadline for c in self.running.values()]
            + [c.exited_at + _KILL_GRACE for c in self.running.values() if c.exited_at]
        )
        # A child whose pipes have closed is exiting: look again soon rather than sleep
        # through the whole tick with nothing left to wake us (it added ~25 ms a child).
        exiting = any(not c.fds and c.exited_at is None for c in self.running.values())
        tick = 0.002 if exiting else 0.05
        events = self.selector.select(timeout=max(0.0, min(wake - now, tick)))
        for key, _ in events:
            child, kind = key.data
            try:
                chunk = os.read(key.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                self._close(child, kind)
            elif kind == "result":
                child.result.extend(chunk)
            else:
                self._keep_output(child, chunk)
        self._reap_strays()
        if self.cgroups_left:
            self._release_cgroups()
        now = time.monotonic()
        for child in list(self.running.values()):
            if child.exited_at is None and child.poll() is not None:
                child.exited_at = now
            if child.exited_at is None and now >= child.deadline:
                child.timed_out = True
                child.kill_group()
                child.exited_at = now
            if child.exited_at is not None and (
                not child.fds or now >= child.exited_at + _KILL_GRACE
            ):
                self._finish(child)

    def _reap_strays(self) -> None:
        """Kill what an execution left behind: we are a subreaper, so its orphans (even those
        in sessions of their own) became our children. Only children we did not start."""
        known = {c.pid for c in self.running.values()}
        for pid in _children():
            if pid not in known:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)

    def _close(self, child: _Child, kind: str) -> None:
        """Stop watching and close one of a child's pipes, exactly once."""
        fd = child.fds.pop(kind, None)
        if fd is not None:
            self.selector.unregister(fd)
            os.close(fd)

    def _keep_output(self, child: _Child, chunk: bytes) -> None:
        half = self.output_limit // 2
        child.output_bytes += len(chunk)
        if len(child.head) < half:
            take = half - len(child.head)
            child.head.extend(chunk[:take])
            chunk = chunk[take:]
        if chunk:
            child.tail.extend(chunk)
            del child.tail[: max(0, len(child.tail) - half)]

    def _finish(self, child: _Child) -> None:
        # Whatever the execution left behind in its process group goes with it.
        child.kill_group()
        child.wait()
        self.cgroups_left += [c for c in child.cgroups if not sandbox.release_cgroup(c)]
        for kind in list(child.fds):
            self._close(child, kind)
        del self.running[child.index]
        shutil.rmtree(child.workdir, ignore_errors=True)
        duration = time.monotonic() - child.start
        if child.timed_out:
            outcome = _outcome(
                "timeout", message="exceeded the time limit of %gs" % (child.deadline - child.start)
            )
        else:
            outcome = _parse_result(bytes(child.result), child.wait())
        outcome["duration_s"] = round(duration, 4)
        if outcome["status"] != "pass":
            output = bytes(child.head)
            lost = child.output_bytes - len(child.head) - len(child.tail)
            if lost > 0:
                output += b"\n[... %d bytes not kept ...]\n" % lost
            outcome["output"] = (output + bytes(child.tail)).decode("utf-8", "replace")
        self.emit(child.index, outcome)


def _parse_result(data: bytes, returncode: int) -> Json:
    if data:
        try:
            result = json.loads(data.decode("utf-8"))
        except ValueError:
            result = None
        if isinstance(result, dict) and result.get("status") in ("pass", "fail", "error"):
            return result
    if returncode < 0:
        name = _describe_exit(returncode).replace("killed by ", "")
        return _outcome("crash", exc_type=name, message="killed by %s" % name)
    return _outcome(
        "crash", message="exited with status %d before reporting an outcome" % returncode
    )


def _outcome(status: str, exc_type: str | None = None, message: str = "") -> Json:
    return {"status": status, "exc_type": exc_type, "message": message, "warnings": []}


def _importable(module: str, cache: dict[str, bool]) -> bool:
    if module not in cache:
        import importlib.util

        try:
            cache[module] = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            cache[module] = False
    return cache[module]


_ENVIRONMENT = {
    "PYTHONHASHSEED": "0",  # set and dict order of strings repeat from run to run
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "MPLBACKEND": "Agg",
    "TF_CPP_MIN_LOG_LEVEL": "2",
    # One thread per execution: results do not depend on the core count, and
    # parallel executions do not fight over the same cores.
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def _child_environment() -> dict[str, str]:
    """The environment executions see: ours, minus anything that redirects Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(_ENVIRONMENT)
    return env


def _in_child_environment() -> bool:
    return all(os.environ.get(k) == v for k, v in _ENVIRONMENT.items())


# -- the compute floor (benchmarks only) --------------------------------------------------


def floor(batch: Json, emit: Callable[[int, Json], None]) -> None:
    """Run the batch's programs one after another in warm processes, with no isolation.

    Not a grader: state carries from one program to the next, and nothing is
    limited. It bounds from below what any isolating executor can reach: the
    programs' own compute. With ``jobs`` > 1 the preloaded process forks that many
    workers, each taking every ``jobs``-th program.
    """
    scheduler = Scheduler(batch, emit)
    scheduler.prepare_zygote(list(enumerate(batch["executions"])))
    jobs = scheduler.jobs
    executions = list(enumerate(batch["executions"]))
    workers = []
    for worker in range(jobs):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the worker
            os.close(read_fd)
            # files the programs write (DS-1000's figures) go to a scratch directory,
            # not wherever the benchmark was started
            os.chdir(tempfile.mkdtemp(prefix="harness-floor-"))
            with os.fdopen(write_fd, "w") as out:
                for index, spec in executions[worker::jobs]:
                    problem = batch["problems"][spec["problem"]]
                    start = time.monotonic()
                    outcome = execute({"context": problem["context"], "solution": spec["solution"]})
                    outcome["duration_s"] = round(time.monotonic() - start, 4)
                    out.write(json.dumps({"seq": index, "outcome": outcome}) + "\n")
                    out.flush()
            os._exit(0)
        os.close(write_fd)
        workers.append((pid, read_fd))
    for pid, read_fd in workers:
        with os.fdopen(read_fd) as lines:
            for line in lines:
                event = json.loads(line)
                emit(event["seq"], event["outcome"])
        os.waitpid(pid, 0)


# -- probing the environment -------------------------------------------------------------


def probe(modules: list[str]) -> Json:
    """Python version, and for each module: importable?, import time, import-time warnings."""
    import importlib
    import platform

    imports: Json = {}
    report: Json = {"python": platform.python_version(), "modules": imports}
    for name in modules:
        entry: Json = {"ok": False}
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                importlib.import_module(name)
                entry["ok"] = True
            except BaseException as exc:
                entry["error"] = "%s: %s" % (_qualified(type(exc)), str(exc)[:_MAX_MESSAGE])
        entry["import_s"] = round(time.perf_counter() - start, 4)
        entry["warnings"] = [
            {
                "category": _qualified(w.category),
                "message": str(w.message)[:_MAX_MESSAGE],
                "module": name,
            }
            for w in caught
            if _tracked(w.category)
        ][:_MAX_WARNINGS]
        imports[name] = entry
    return report


# -- entry point -------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "exec":
        fresh_child_main(int(argv[2]), int(argv[3]))
        return 0
    if command in ("run", "floor") and not _in_child_environment():
        # the host's harness process: if it dies, so does this runner and all below it
        sandbox.die_with_parent(os.getppid())
        # Start over in exactly the environment a fresh execution gets, so forked
        # executions (which inherit ours) see the same: hash seed, backends, threads.
        os.execve(sys.executable, [sys.executable, "-s", _HERE, *argv[1:]], _child_environment())
    # The protocol owns our standard output; everything else printed goes to stderr.
    protocol_fd = os.dup(1)
    protocol = os.fdopen(protocol_fd, "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    if command in ("run", "floor"):
        with open(argv[2], encoding="utf-8") as fh:
            batch = json.load(fh)
        batch["path"] = argv[2]

        def emit(index: int, outcome: Json) -> None:
            protocol.write(json.dumps({"seq": index, "outcome": outcome}) + "\n")

        if command == "floor":
            floor(batch, emit)
            protocol.write(json.dumps({"done": True, "protocol": PROTOCOL}) + "\n")
            return 0
        scheduler = Scheduler(batch, emit, protocol_fd)
        scheduler.run()
        protocol.write(json.dumps({"done": True, "protocol": PROTOCOL, **scheduler.info()}) + "\n")
        return 0
    if command == "probe":
        protocol.write(json.dumps(probe(argv[2:])) + "\n")
        return 0
    sys.stderr.write("usage: envside.py run|floor BATCH.json | probe MODULE... | exec FD\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
