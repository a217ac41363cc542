"""The solution's process: where an untrusted solution runs, apart from its check.

It never holds the checker's memory. In zygote mode a *template* (``__main__.py template
FD CONFIG``), a new interpreter each zygote starts before any execution, imports the
group's libraries and forks a placer per worker, which forks it on the checker's request
and ends it; it places itself like the execution (sandbox, limits, standard streams) and
is born in the execution's cgroups (``placer``). Otherwise
the checker starts it as a new interpreter (``__main__.py solution FD CONFIG``), which
inherits the checker's sandbox. Never a fork of the checker: that would hold the check's code, its expected values and the batch with every
reference, and a solution that reads its own memory raw (ctypes, ``libc.read`` of
``/proc/self/mem``, NumPy's array interface over an address) would find them; no audit
hook can see such a read. This process holds only the libraries and what it is sent.

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
import tempfile
import traceback
import types
from typing import TYPE_CHECKING, Any

from ..isolation import sandbox
from ..timing import phases
from . import (
    crossing_borrowing,
    crossing_context,
    crossing_errors,
    crossing_handed,
    crossing_lending,
    crossing_pyplot,
    transport,
    wire,
)
from .recorder import WarningRecorder

if TYPE_CHECKING:
    from ..protocol import Json

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
# (Its own memory map is no secret here, and torch reads it as it loads: not in the list.)
_PROC_MEMORY = re.compile(r"^/proc/(self|thread-self|\d+)/(task/\d+/)?(mem|pagemap|environ)$")


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
        if config.get("own_pid"):
            # a new interpreter its checker started: first a pid namespace of its own
            sandbox.into_own_pid_namespace()
        sandbox.own_keyring()  # (not even its checker's)
        if config.get("cover_tmp"):
            # a new interpreter the checker started shares its mounts: the checker's /tmp
            # (where a check keeps its test files) is covered by one of this process's own
            sandbox.cover_tmp(str(config.get("cover_tmp")))
        if not config.get("proc_mounted"):
            sandbox.own_proc()  # (a placer's child mounted it as it entered its sandbox)
        # the machine's root (forked by a placer) becomes the unprivileged user its
        # execution's checker is; a new interpreter a confined checker started is that
        # user already, root only of the checker's user namespace
        sandbox.drop_privileges(become=sandbox.NOBODY if sandbox.machine_root() else None)
        sandbox.undumpable()
        sandbox.limit(int(config.get("fsize_mb", 1024)), int(config.get("nproc", 0)))
    recorder = None
    if config.get("warnings"):
        recorder = WarningRecorder()
        recorder.install()
    channel = crossing_borrowing.CHANNEL
    channel.requests = requests
    channel.send = wire.send_report
    channel.receive = wire.receive_request
    channel.serve = lambda request, report_fd: _serve_one(request, report_fd, recorder)
    crossing_pyplot.SHIPPED.clear()
    arm_audit()
    phases.mark("solution_ready")
    try:
        while True:
            received = wire.receive_request(requests)
            if received is None:
                break  # the checker is done with this process
            request, report_fd = received
            if report_fd < 0:
                continue  # a reply to a callback no one waits for
            if not _serve_one(request, report_fd, recorder):
                break
    finally:
        # Skip interpreter shutdown: threads and atexit hooks a solution left behind
        # must not keep this process alive.
        os._exit(0)


def _serve_one(request: bytes, report_fd: int, recorder: WarningRecorder | None) -> bool:
    """Serve one request, its report on ``report_fd``; False when the process should end."""
    channel = crossing_borrowing.CHANNEL
    channel.report_fds.append(report_fd)
    try:
        try:
            if request.startswith(crossing_lending.MARK):
                report, blobs = crossing_request(request[len(crossing_lending.MARK) :], recorder)
            else:
                report, blobs = serve(request, recorder)
        except Exception as exc:
            # what escaped the request's own handling is the request's outcome, not a
            # process that ends without a word
            report, blobs = _raised(exc, crossing_borrowing.CHANNEL.kept, with_state=False)
        if phases.ON:
            report["phases"] = phases.said(phases.MARKS)
            del phases.MARKS[:]
        wire.send_report(report_fd, report, blobs)
    finally:
        channel.report_fds.pop()
        os.close(report_fd)
    return report.get("kind") != "declined"


def serve(request: bytes, recorder: WarningRecorder | None) -> tuple[Json, list[bytes]]:
    """One run: the values, modules and random states as the check has them."""
    try:
        env: dict[str, Any] = {}
        code, values, modules, states = wire.load_request(request, env)
        phases.mark("solution_loaded")
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


# -- the solution's module, called across the boundary (crossing_*.py) ---------------------

_MODULES: dict[str, types.ModuleType] = {}  # the solution's modules and sessions, by name


def crossing_request(data: bytes, recorder: WarningRecorder | None) -> tuple[Json, list[bytes]]:
    """A request of the check's calls across the boundary: load the solution's module,
    fetch its values, call its functions, run a session's cell."""
    kept = crossing_borrowing.CHANNEL.kept
    try:
        request = crossing_borrowing.loads_from_checker(data, kept)
        operation = request[0]
    except BaseException as exc:
        return {"kind": "declined", "message": "%s: %s" % (type(exc).__name__, exc)}, []
    recorded = len(recorder.items) if recorder is not None else 0
    crossing_errors.watch_network()
    del crossing_context.FORWARDED[:]
    report, blobs = _dispatch(operation, request, kept)
    if recorder is not None:
        report["warnings"] = list(recorder.items[recorded:])
    if crossing_errors.SOLUTION_REACHED:
        report["network"] = crossing_errors.SOLUTION_REACHED[:1]
    if "matplotlib.pyplot" in sys.modules:
        report["pyplot"] = True  # its figures come back: the check starts pyplot first
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return report, blobs


def _dispatch(
    operation: str, request: Any, kept: crossing_lending.Lent
) -> tuple[Json, list[bytes]]:
    if operation == "module":
        _, name, source, filename, after = request
        try:
            module = _load_module(name, source, filename, after)
        except BaseException as exc:
            return _raised(exc, kept, with_state=False)
        return {"kind": "module", "names": _names(module, kept)}, []
    if operation == "fetch":
        _, name, wanted = request
        namespace = _MODULES[name].__dict__ if name in _MODULES else {}
        kinds: dict[str, list[Any]] = {}
        blobs = []
        for key in wanted:
            if key not in namespace:
                continue
            kind = _name_kind(namespace[key], name, kept)
            if kind[0] == "value":
                try:
                    blobs.append(crossing_borrowing.dumps_to_checker(namespace[key], kept))
                except Exception:
                    continue
            kinds[key] = kind
        return {"kind": "fetched", "names": kinds, "blobs": len(blobs)}, blobs
    if operation == "call":
        _, target, arguments, context, handed = request
        try:
            args, kwargs = crossing_borrowing.loads_from_checker(arguments, kept)
        except BaseException as exc:
            return _raised(exc, kept)
        crossing_handed.receive(args, kwargs, handed)
        crossing_pyplot.arrived_figures()
        try:
            function = kept.get(target[1])
            with crossing_context.applied(context, _MODULES):
                value = function(*args, **kwargs)
        except BaseException as exc:
            return _raised(exc, kept)
        return _returned(value, kept)
    if operation == "operate":
        _, number, what, args = request
        if what != "next":
            return _raised(TypeError("cannot %r the solution's object" % what), kept)
        try:
            value = next(kept.get(number))
        except BaseException as exc:
            return _raised(exc, kept)
        return _returned(value, kept)
    if operation == "cell":
        _, name, code = request
        if name not in _MODULES:
            _MODULES[name] = types.ModuleType(name)
            _MODULES[name].__dict__["__name__"] = "__main__"  # a notebook's namespace
            crossing_borrowing.SOLUTION_MODULES.add(name)
        module = _MODULES[name]
        try:
            value = _run_cell(code, module.__dict__)
        except BaseException as exc:
            return _raised(exc, kept)
        return _returned(value, kept)
    return {"kind": "declined", "message": "unknown request %r" % (operation,)}, []


def _load_module(name: str, source: str, filename: str, after: str = "") -> types.ModuleType:
    """Run ``source`` as the module ``name``, importable by that name (tests patch
    ``__name__ + ".randint"``); from a file of that name where the check asks for one
    (GitChameleon's ``sample_<id>.py``, read back by ``inspect``)."""
    crossing_borrowing.SOLUTION_MODULES.add(name)
    module = types.ModuleType(name)
    module.__dict__.update({"__builtins__": builtins, "__package__": None, "__doc__": None})
    if filename:
        folder = tempfile.mkdtemp(prefix="solution-")
        path = os.path.join(folder, filename)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        module.__file__ = path
        sys.path.insert(0, folder)
    else:
        module.__file__ = name + ".py"
        path = "<solution>"
        # as upstream's BigCodeBench grader gives the module
        module.__dict__.update({"sys": sys, "os": os, "environ": os.environ})
    sys.modules[name] = module
    _MODULES[name] = module
    crossing_lending.CODE_GLOBALS[:] = [module.__dict__]  # a test's function sent as code runs here
    _exec(compile(source, path, "exec"), module.__dict__)
    if after:
        # what the tests' module does beside its test cases, in the same module as
        # upstream runs it; statement by statement, as far as each goes (one that fails
        # here, a download with no network, leaves the others)
        import ast

        with contextlib.suppress(Exception):
            for node in ast.parse(after).body:
                with contextlib.suppress(Exception):
                    code = compile(ast.Module([node], []), "<the tests' module>", "exec")
                    _exec(code, module.__dict__)
    return module


def _names(module: types.ModuleType, kept: crossing_lending.Lent) -> dict[str, list[Any]]:
    """Each name the module defines, as the check may take it (``_name_kind``)."""
    return {
        key: _name_kind(value, module.__name__, kept)
        for key, value in list(module.__dict__.items())
        if not (key.startswith("__") and key.endswith("__"))
    }


def _name_kind(value: Any, module: str, kept: crossing_lending.Lent) -> list[Any]:
    """A function or class of the module's own by a number, a module by its name,
    anything else a value (sent as data when asked for)."""
    try:
        if isinstance(value, types.ModuleType):
            return ["module", value.__name__]
        if callable(value) and getattr(value, "__module__", None) == module:
            return ["function", kept.lend(value)]
    except Exception:
        pass  # an object that raises when asked (Django's unconfigured ``settings``)
    return ["value"]


def _returned(value: Any, kept: crossing_lending.Lent) -> tuple[Json, list[bytes]]:
    """What a call returned, with the shared state after it and the figures it made or
    changed, in one pickle (so that ``ax.figure`` is the figure the check gets)."""
    state = crossing_context.state_after()
    figures = crossing_pyplot.figures_to_ship()
    written = crossing_handed.changed_received()
    lost = ""
    for attempt in range(3):
        try:
            blob = crossing_borrowing.dumps_to_checker(
                (value, state, figures, written), kept, value
            )
            break
        except BaseException as exc:
            if attempt == 0 and figures:
                for figure in figures:
                    with contextlib.suppress(Exception):
                        transport.freeze_ticks(figure)
                continue
            if attempt <= 1 and figures:
                lost = "the figures could not be sent back: %s: %s" % (
                    type(exc).__name__,
                    str(exc)[:200],
                )
                figures = []
                continue
            failure = RuntimeError(
                "the solution's result could not be sent back: %s: %s"
                % (type(exc).__name__, str(exc)[:300])
            )
            failed, blobs = _raised(failure, kept)
            failed["type"] = "TransportError"
            return failed, blobs
    crossing_pyplot.shipped(figures)
    header: Json = {"kind": "returned", "blobs": 1, "figures": [f.number for f in figures]}
    if crossing_context.FORWARDED:
        header["warned"] = list(crossing_context.FORWARDED)
    if lost:
        header["lost"] = lost
    return header, [blob]


def _raised(
    exc: BaseException, kept: crossing_lending.Lent, with_state: bool = True
) -> tuple[Json, list[bytes]]:
    header, args = crossing_errors.describe_exception(exc)
    if crossing_context.FORWARDED:
        header["warned"] = list(crossing_context.FORWARDED)
    state = crossing_context.state_after() if with_state else None
    try:
        blob = crossing_borrowing.dumps_to_checker((args, state), kept)
    except BaseException:
        try:
            blob = crossing_borrowing.dumps_to_checker((None, state), kept)
        except BaseException:
            return header, []
    header["blobs"] = 1
    return header, [blob]


def _run_cell(source: str, namespace: dict[str, Any]) -> str:
    """Run ``source`` as a notebook cell: what it printed, then the value of its last line
    when that is an expression (``df.head()``) not ending with ``;``."""
    import ast
    import io

    tree = ast.parse(source)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
        last = ast.Expression(tree.body[-1].value)
        tree.body.pop()
    buffer = io.StringIO()
    saved = sys.stdout
    sys.stdout = buffer
    try:
        _exec(compile(tree, "<cell>", "exec"), namespace)
        value = None
        if last is not None:
            value = builtins.eval(compile(last, "<cell>", "eval"), namespace)
    finally:
        sys.stdout = saved
    output = buffer.getvalue()
    if value is not None:
        output += repr(value) + "\n"
    return output


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
        phases.mark("solution_ran")
        report, blobs = transport.outputs(env, before)
        phases.mark("solution_packed")
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
