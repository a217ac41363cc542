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

import builtins
import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, TextIO

if TYPE_CHECKING:
    from types import FrameType

PROTOCOL = 1
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
        if not issubclass(category, _TRACKED):
            self._previous(message, category, filename, lineno, file, line)
            return
        issuer = None
        frame: FrameType | None = sys._getframe(1)  # noqa: SLF001 - the only way to see the issuer
        while frame is not None:
            code_file = frame.f_code.co_filename
            if code_file.startswith("<frozen importlib"):
                return  # raised by a module's import: environment, not program
            if issuer is None and code_file != _HERE:
                name = frame.f_globals.get("__name__", "")
                if name != "warnings":
                    issuer = _module_label(name, code_file)
            frame = frame.f_back
        if str(message).startswith("invalid escape sequence"):
            issuer = "<python>"  # the compiler's, about source text, whoever compiled it
        record = {
            "category": _qualified(category),
            "message": str(message)[:_MAX_MESSAGE],
            "module": issuer or "<unknown>",
        }
        key = (record["category"], record["message"], record["module"])
        if key not in self._seen and len(self.items) < _MAX_WARNINGS:
            self._seen.add(key)
            self.items.append(record)


def _module_label(name: str, code_file: str) -> str:
    if code_file == "<string>":
        return "<solution>"
    if code_file == "<program>":
        return "<context>"
    return name or code_file


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
    """Run one program in this process and describe how it ended."""
    recorder = WarningRecorder()
    recorder.install()
    namespace = {"__name__": "__main__", "__builtins__": builtins}
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
    except BaseException as exc:
        status, exc_type, message, tb = "error", _qualified(type(exc)), str(exc), _tb(exc)
    return {
        "status": status,
        "exc_type": exc_type,
        "message": message[:_MAX_MESSAGE],
        "traceback": tb,
        "program_s": time.perf_counter() - start,
        "warnings": recorder.items,
    }


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


def child_main(result_fd: int) -> None:
    payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    _limit_memory(payload.get("memory_mb"))
    outcome = execute(payload)
    data = json.dumps(outcome).encode("utf-8")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # a program may have closed its streams
            stream.flush()
    with os.fdopen(result_fd, "wb") as out:
        out.write(data)
    # Skip interpreter shutdown: threads and atexit hooks the program left behind
    # must not keep the process alive once its outcome is known.
    os._exit(0)


# -- scheduling executions (in the runner) ----------------------------------------------


class _Running:
    """One child process and what it has sent so far."""

    def __init__(
        self,
        index: int,
        spec: Json,
        proc: subprocess.Popen[bytes],
        result_r: int,
        workdir: str,
        deadline: float,
    ) -> None:
        self.index = index
        self.spec = spec
        self.proc = proc
        assert proc.stdout is not None
        self.output = proc.stdout
        self.result_r = result_r
        self.workdir = workdir
        self.start = time.monotonic()
        self.deadline = deadline
        self.result = bytearray()
        self.head = bytearray()
        self.tail = bytearray()
        self.output_bytes = 0
        self.open = {"output", "result"}
        self.timed_out = False
        self.exited_at: float | None = None


class Scheduler:
    def __init__(self, batch: Json, emit: Callable[[int, Json], None]) -> None:
        self.batch = batch
        self.emit = emit
        self.jobs = max(1, int(batch.get("jobs", 1)))
        self.output_limit = int(batch.get("output_limit", 65536))
        self.memory_mb = batch.get("memory_mb")
        self.selector = selectors.DefaultSelector()
        self.running: dict[int, _Running] = {}
        self.env = _child_environment(batch.get("env", {}))

    def run(self) -> None:
        problems = self.batch["problems"]
        queue = []
        missing_cache: dict[str, bool] = {}
        for index, spec in enumerate(self.batch["executions"]):
            problem = problems[spec["problem"]]
            missing = [m for m in problem.get("requires", []) if not _importable(m, missing_cache)]
            if missing:
                self.emit(
                    index,
                    _outcome(
                        "skipped",
                        message="needs %s, not installed in this environment" % ", ".join(missing),
                    ),
                )
            else:
                queue.append((index, spec))
        queue.reverse()
        while queue or self.running:
            while queue and len(self.running) < self.jobs:
                index, spec = queue.pop()
                self._start(index, spec)
            self._wait()

    def _start(self, index: int, spec: Json) -> None:
        problem = self.batch["problems"][spec["problem"]]
        payload = {
            "context": problem["context"],
            "solution": spec["solution"],
            "memory_mb": self.memory_mb,
        }
        workdir = tempfile.mkdtemp(prefix="harness-exec-")
        result_r, result_w = os.pipe()
        proc = subprocess.Popen(
            [sys.executable, "-s", _HERE, "exec", str(result_w)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=workdir,
            env=self.env,
            pass_fds=(result_w,),
            start_new_session=True,
        )
        os.close(result_w)
        assert proc.stdin is not None
        assert proc.stdout is not None
        try:
            proc.stdin.write(json.dumps(payload).encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass  # the child died at once; its exit is reported as a crash
        timeout = float(spec.get("timeout") or self.batch.get("timeout", 120))
        run = _Running(index, spec, proc, result_r, workdir, time.monotonic() + timeout)
        self.running[index] = run
        self.selector.register(proc.stdout, selectors.EVENT_READ, (run, "output"))
        self.selector.register(result_r, selectors.EVENT_READ, (run, "result"))

    def _wait(self) -> None:
        now = time.monotonic()
        wake = min(
            [r.deadline for r in self.running.values()]
            + [r.exited_at + _KILL_GRACE for r in self.running.values() if r.exited_at]
        )
        events = self.selector.select(timeout=max(0.0, min(wake - now, 0.2)))
        for key, _ in events:
            run, kind = key.data
            fd = key.fd
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                self._close(run, kind)
            elif kind == "result":
                run.result.extend(chunk)
            else:
                self._keep_output(run, chunk)
        now = time.monotonic()
        for run in list(self.running.values()):
            if run.exited_at is None and run.proc.poll() is not None:
                run.exited_at = now
            if run.exited_at is None and now >= run.deadline:
                run.timed_out = True
                _kill_group(run.proc)
                run.exited_at = now
            done = run.exited_at is not None and (
                not run.open or now >= run.exited_at + _KILL_GRACE
            )
            if done:
                self._finish(run)

    def _close(self, run: _Running, kind: str) -> None:
        """Stop watching and close one of a child's pipes, exactly once."""
        if kind not in run.open:
            return
        run.open.discard(kind)
        if kind == "result":
            self.selector.unregister(run.result_r)
            os.close(run.result_r)
        else:
            self.selector.unregister(run.output)
            run.output.close()

    def _keep_output(self, run: _Running, chunk: bytes) -> None:
        half = self.output_limit // 2
        run.output_bytes += len(chunk)
        if len(run.head) < half:
            take = half - len(run.head)
            run.head.extend(chunk[:take])
            chunk = chunk[take:]
        if chunk:
            run.tail.extend(chunk)
            del run.tail[: max(0, len(run.tail) - half)]

    def _finish(self, run: _Running) -> None:
        # Whatever the execution left behind in its process group goes with it.
        _kill_group(run.proc)
        run.proc.wait()
        for kind in list(run.open):
            self._close(run, kind)
        del self.running[run.index]
        shutil.rmtree(run.workdir, ignore_errors=True)
        duration = time.monotonic() - run.start
        output = bytes(run.head)
        if run.output_bytes > len(run.head) + len(run.tail):
            output += b"\n[... %d bytes not kept ...]\n" % (
                run.output_bytes - len(run.head) - len(run.tail)
            )
        output += bytes(run.tail)
        text = output.decode("utf-8", "replace")
        if run.timed_out:
            timeout = run.deadline - run.start
            outcome = _outcome("timeout", message="exceeded the time limit of %gs" % timeout)
        else:
            outcome = _parse_result(bytes(run.result), run.proc.returncode)
        outcome["duration_s"] = round(duration, 4)
        if outcome["status"] != "pass":
            outcome["output"] = text
        self.emit(run.index, outcome)


def _parse_result(data: bytes, returncode: int) -> Json:
    if data:
        try:
            result = json.loads(data.decode("utf-8"))
        except ValueError:
            result = None
        if isinstance(result, dict) and result.get("status") in ("pass", "fail", "error"):
            return result
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return _outcome("crash", exc_type=name, message="killed by %s" % name)
    return _outcome(
        "crash", message="exited with status %d before reporting an outcome" % returncode
    )


def _outcome(status: str, exc_type: str | None = None, message: str = "") -> Json:
    return {"status": status, "exc_type": exc_type, "message": message, "warnings": []}


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _importable(module: str, cache: dict[str, bool]) -> bool:
    if module not in cache:
        import importlib.util

        try:
            cache[module] = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            cache[module] = False
    return cache[module]


def _child_environment(extra: dict[str, str]) -> dict[str, str]:
    """The environment executions see: ours, minus anything that redirects Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(
        {
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
    )
    env.update(extra)
    return env


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
            if issubclass(w.category, _TRACKED)
        ][:_MAX_WARNINGS]
        imports[name] = entry
    return report


# -- entry point -------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    # Our directory is not the program's business: it holds the host package.
    if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(_HERE):
        sys.path.pop(0)
    command = argv[1] if len(argv) > 1 else ""
    if command == "exec":
        child_main(int(argv[2]))
        return 0
    # The protocol owns our standard output; everything else printed goes to stderr.
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    if command == "run":
        with open(argv[2], encoding="utf-8") as fh:
            batch = json.load(fh)

        def emit(index: int, outcome: Json) -> None:
            protocol.write(json.dumps({"seq": index, "outcome": outcome}) + "\n")

        Scheduler(batch, emit).run()
        protocol.write(json.dumps({"done": True, "protocol": PROTOCOL}) + "\n")
        return 0
    if command == "probe":
        protocol.write(json.dumps(probe(argv[2:])) + "\n")
        return 0
    sys.stderr.write("usage: envside.py run BATCH.json | probe MODULE... | exec FD\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
