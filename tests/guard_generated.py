"""Generated attacks on the checker's side of the guard, run inside a combo's environment.

    python guard_generated.py ENVSIDE_DIR LIBRARY... > report.json

For every public callable of the named libraries (every public module, imported, every
public name that can be called), a pickle calls it with a string, a dict and a list that
would each run code if evaluated, and the checker admits it (``admission``) under the
shipped allowlist. Reported, as JSON:

- ``admitted_unlisted``: pickles admitted whose global is not listed with ``call``
  (must be none: default-deny);
- ``attempted``: calls of listed globals (and state given to classes listed with
  ``build``) that raised an audit event of code evaluation, imports, files, processes,
  sockets or ctypes while the value was read, seen by a hook of our own installed before
  admission's: a listed constructor handed a hostile string may try (a time zone
  name is a file to open, a bad argument a lazy import);
- ``reached``: those of them that were admitted all the same (must be none: the
  admission's hook refuses every such event, and a refusal sticks);
- counts of what was tried.

Standard library only, like the env side it exercises.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pickle
import pkgutil
import sys
import time
import warnings
from typing import Any

FORBIDDEN = (
    "exec",
    "compile",
    "import",
    "open",
    "os.",
    "subprocess.",
    "socket.",
    "ctypes.",
    "shutil.",
    "urllib.",
    "http.",
)
PAYLOADS = {
    "str": "__import__('os').system('touch /tmp/harness-generated-pwned')",
    "dict": {"y ~ x": "__import__('os').system('touch /tmp/harness-generated-pwned')"},
    "list": ["import os; os.system('touch /tmp/harness-generated-pwned')"],
}
SKIP_PARTS = ("tests", "conftest", "setup", "__main__")

_recording: list[Any] = [None]
_admission: list[Any] = []


def _record(event: str, _args: tuple[Any, ...]) -> None:
    sink = _recording[0]
    # only while a value is read, not while admission imports a listed module itself
    if sink is not None and _admission[0]._ACTIVE[0] is not None and event.startswith(FORBIDDEN):
        sink.append(event)


def load_envside(envside: str) -> tuple[Any, Any]:
    """The env side's admission module, and the shipped allowlist as the guard reads it."""
    spec = importlib.util.spec_from_file_location("bootstrap", os.path.join(envside, "__main__.py"))
    assert spec is not None and spec.loader is not None
    bootstrap = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bootstrap)
    bootstrap.load_package()
    allowlist = importlib.import_module("_harness_envside.allowlist").Allowlist.shipped()
    return importlib.import_module("_harness_envside.bridge.admission"), allowlist


def public_modules(top: str, budget_s: float) -> list[Any]:
    """``top`` and its public submodules that import (within a time budget), walked by
    hand: pkgutil.walk_packages would import the test packages it is told to skip."""
    found: list[Any] = []
    deadline = time.monotonic() + budget_s
    pending = [top]
    while pending and time.monotonic() < deadline:
        name = pending.pop(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                module = importlib.import_module(name)
        except BaseException:
            continue
        found.append(module)
        pending.extend(
            name + "." + info.name
            for info in pkgutil.iter_modules(getattr(module, "__path__", None) or [])
            if not (info.name.startswith("_") or info.name in SKIP_PARTS)
        )
    return found


def public_callables(modules: list[Any]) -> list[tuple[str, str]]:
    seen = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module in modules:
            for name in dir(module):
                if name.startswith("_"):
                    continue
                try:
                    value = getattr(module, name)
                except Exception:
                    continue
                if callable(value) and not isinstance(value, type(sys)):
                    seen.add((module.__name__, name))
    return sorted(seen)


def reduce_pickle(module: str, name: str, argument: Any) -> bytes:
    args = pickle.dumps(argument, protocol=4)[2:-1]  # the argument's opcodes, no PROTO/STOP
    args = args[9:] if args[:1] == pickle.FRAME else args
    return (
        pickle.PROTO + b"\x04"
        + _text(module) + _text(name) + pickle.STACK_GLOBAL
        + pickle.MARK + args + pickle.TUPLE + pickle.REDUCE + pickle.STOP
    )  # fmt: skip


def build_pickle(module: str, name: str, state: Any) -> bytes:
    body = pickle.dumps(state, protocol=4)[2:-1]
    body = body[9:] if body[:1] == pickle.FRAME else body
    return (
        pickle.PROTO + b"\x04"
        + _text(module) + _text(name) + pickle.STACK_GLOBAL
        + pickle.EMPTY_TUPLE + pickle.NEWOBJ + body + pickle.BUILD + pickle.STOP
    )  # fmt: skip


def _text(value: str) -> bytes:
    data = value.encode()
    return pickle.SHORT_BINUNICODE + bytes([len(data)]) + data


def admit(admission: Any, allowlist: Any, data: bytes, devnull: int) -> tuple[bool, list[str]]:
    """Admit ``data``, its output silenced; whether it was admitted, and what it tried."""
    events: list[str] = []
    _recording[0] = events
    saved = os.dup(1), os.dup(2)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    try:
        admission.admit(data, allowlist)
        admitted = True
    except BaseException:
        admitted = False
    finally:
        _recording[0] = None
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    return admitted, events


def main(argv: list[str]) -> int:
    envside, libraries = argv[1], argv[2:]
    sys.addaudithook(_record)  # before admission's own hook: it sees every attempt
    admission, allowlist = load_envside(envside)
    _admission.append(admission)
    report: dict[str, Any] = {
        "libraries": {},
        "admitted_unlisted": [],
        "attempted": [],
        "reached": [],
        "tried": 0,
        "listed_called": 0,
        "built": 0,
    }
    devnull = os.open(os.devnull, os.O_WRONLY)
    budget = float(os.environ.get("HARNESS_IMPORT_BUDGET", "120"))
    for top in libraries:
        modules = public_modules(top, budget_s=budget)
        callables = public_callables(modules)
        report["libraries"][top] = {"modules": len(modules), "callables": len(callables)}
        for module, name in callables:
            perms = allowlist.entries.get((module, name), set())
            for kind, argument in PAYLOADS.items():
                report["tried"] += 1
                admitted, events = admit(
                    admission, allowlist, reduce_pickle(module, name, argument), devnull
                )
                if admitted and "call" not in perms:
                    report["admitted_unlisted"].append("%s:%s(%s)" % (module, name, kind))
                if "call" in perms:
                    report["listed_called"] += 1
                if events:
                    what = "%s:%s(%s): %s" % (module, name, kind, events[0])
                    report["attempted"].append(what)
                    if admitted:
                        report["reached"].append(what)
    for (module, qualname), perms in sorted(allowlist.entries.items()):
        if "build" not in perms or "call" not in perms:
            continue
        for kind, argument in PAYLOADS.items():
            state = argument if kind == "dict" else {"state": argument}
            admitted, events = admit(
                admission, allowlist, build_pickle(module, qualname, state), devnull
            )
            report["built"] += 1
            if events:
                what = "%s:%s BUILD(%s): %s" % (module, qualname, kind, events[0])
                report["attempted"].append(what)
                if admitted:
                    report["reached"].append(what)
    report["pwned"] = os.path.exists("/tmp/harness-generated-pwned")
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
