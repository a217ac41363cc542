"""BigCodeBench-style tasks: a function to complete, graded by a ``unittest`` module.

A row: ``task_id``, ``complete_prompt`` / ``instruct_prompt``, ``code_prompt`` (the
imports and the signature), ``canonical_solution`` (the body), ``test`` (a module defining
``TestCases``), ``entry_point``, ``libs``. The reference is ``code_prompt`` followed by
the body; a model's answer is its whole program (``solution``).

The tests run in the check's process (``formatlib_bigcodebench.harness_unittest``). For a reference
they share one module with it, as in BigCodeBench; an untrusted answer's module lives in
its own process, and the tests' module holds the prompt's imports and constants (the
task's own code, the *prelude*) and stand-ins for what the answer defined: calling one
is a call in the answer's process (``envside/crossing_*.py``). A task whose tests share
with the answer something that cannot cross is graded as upstream does, tests beside the
answer in its process (``DRIVER``), and its outcome says so.
"""

from __future__ import annotations

import ast
from typing import Any

from harness.benchmarks.base import (
    Format,
    Row,
    check,
    context,
    library_list,
    main_library,
)
from harness.core.problem import Problem, imported_modules

KEYS = ("task_id", "code_prompt", "canonical_solution", "test")
DEFAULT_TIMEOUT = 240.0  # BigCodeBench's own limit per task

# The in-process fallback. Runs apart, with the solution, as BigCodeBench's own grader
# runs a task: one module
# named ``__test__`` holds the solution and then its tests, importable by that name (tests
# patch ``__name__ + ".randint"``), with upstream's globals (``os``, ``sys``, ``environ``)
# and clock (UTC). Each test's exception is described here, where it was raised: its
# type's full name, its message, its last frames, and two facts only this process can
# see — the class an attribute was missing from when the task's own class inherits it
# (``assertAlmostEquals`` of ``unittest.TestCase``), and a program this machine lacks
# (``tesseract``), read from the chain of exceptions. Only these strings go back.
DRIVER = """
def _harness_tests():
    import builtins, os, sys, time, types, unittest
    os.environ["TZ"] = "UTC"
    time.tzset()
    module = types.ModuleType("__test__")
    module.__dict__.update({
        "__builtins__": builtins, "__file__": "__test__.py", "__package__": None,
        "__doc__": None, "sys": sys, "os": os, "environ": os.environ,
    })
    sys.modules["__test__"] = module
    try:
        builtins.exec(compile(_HARNESS_SOLUTION, "<solution>", "exec"), module.__dict__)
    except BaseException as exc:
        return [_harness_part("solution", exc)]
    builtins.exec(compile(_HARNESS_TESTS, "<tests>", "exec"), module.__dict__)
    cases = [
        value for value in list(module.__dict__.values())
        if isinstance(value, type) and issubclass(value, unittest.TestCase)
        and value.__module__ == "__test__"
    ]
    suite = unittest.TestSuite()
    for case in cases:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    parts = {}
    for test in _harness_flatten(suite):  # before running: a run empties the suite
        parts[test.id()] = {"name": _harness_name(test), "status": "pass"}
    # what the test did on the network, seen by the interpreter's own audit events: a
    # solution that catches the error of a lookup this sandbox cannot make still needed it
    reached = []
    sys.addaudithook(lambda event, args: _harness_network(event, args, reached))

    class Result(unittest.TestResult):
        def startTest(self, test):
            del reached[:]
            super().startTest(test)

        def addError(self, test, err):
            super().addError(test, err)
            parts[test.id()] = _harness_part(_harness_name(test), err[1], reached)

        def addFailure(self, test, err):
            super().addFailure(test, err)
            parts[test.id()] = _harness_part(_harness_name(test), err[1], reached)

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                parts[test.id()] = _harness_part(_harness_name(subtest), err[1], reached)

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            parts[test.id()] = {
                "name": _harness_name(test), "status": "skipped", "message": str(reason)[:400]
            }

    suite.run(Result())
    return list(parts.values())


def _harness_name(test):
    return test.id().replace("__test__.", "", 1)


def _harness_part(name, exc, reached=()):
    part = _harness_error_part(name, exc)
    kind = type(exc)
    if kind.__module__ != "builtins":
        part["type"] = "%s.%s" % (kind.__module__, kind.__qualname__)
    part["message"] = str(exc)[:400] + _harness_inherited(exc) + _harness_program(exc)
    if reached:
        part["message"] += " [harness: reached for the network: %s]" % reached[0]
    part["traceback"] = _harness_frames(exc)
    return part


def _harness_network(event, args, reached):
    # an audit hook: it must never raise, or the event it watches fails
    try:
        if reached or not event.startswith("socket."):
            return
        if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr"):
            host = args[0]
        elif event in ("socket.connect", "socket.sendto"):
            host = args[1][0] if isinstance(args[1], tuple) else None  # not a Unix socket's path
        else:
            return
        if isinstance(host, bytes):
            host = host.decode("ascii", "replace")
        if isinstance(host, str) and host not in ("", "localhost", "::1", "0.0.0.0") and (
            not host.startswith("127.")
        ):
            reached.append("%s(%r)" % (event, host))
    except Exception:
        pass


def _harness_frames(exc):
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)[-6:]
    return "\\n".join("%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames)


def _harness_inherited(exc):
    # "'TestCases' object has no attribute 'x'" names the task's class; say which class
    # it inherits that attribute's namespace from, by its public name
    import sys
    owner = getattr(exc, "obj", None) if isinstance(exc, AttributeError) else None
    if owner is None:
        return ""
    cls = owner if isinstance(owner, type) else type(owner)
    if cls.__module__ != "__test__":
        return ""
    for base in cls.__mro__:
        if base.__module__ not in ("__test__", "builtins"):
            path = base.__module__.split(".")
            public = base.__module__
            for end in range(1, len(path) + 1):
                name = ".".join(path[:end])
                if getattr(sys.modules.get(name), base.__qualname__, None) is base:
                    public = name
                    break
            return " [harness: %s derives from %s.%s]" % (
                cls.__qualname__, public, base.__qualname__
            )
    return ""


def _harness_program(exc):
    # a program started by the code (or a library under it) that is not on this machine:
    # FileNotFoundError from subprocess starting it, anywhere in the exception's chain
    import traceback
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, FileNotFoundError) and exc.__traceback__ is not None:
            last = traceback.extract_tb(exc.__traceback__)[-1]
            if last.name == "_execute_child" and last.filename.endswith("subprocess.py"):
                program = exc.filename if isinstance(exc.filename, str) else ""
                return " [harness: no program %r on this machine]" % program.rsplit("/", 1)[-1]
        exc = exc.__cause__ or exc.__context__
    return ""


def _harness_flatten(suite):
    import unittest
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from _harness_flatten(item)
        else:
            yield item


_harness_report = _harness_tests()
"""

CHECK = """
_TESTS = {tests!r}
_PRELUDE = {prelude!r}
_DRIVER = {driver!r}


def test_execution(solution):
    {unittest}(solution, _TESTS, prelude=_PRELUDE, fallback=_DRIVER)
"""


def prelude(code_prompt: str, entry_point: str) -> str:
    """The task's own code around the function to write: ``code_prompt``'s top-level
    statements (imports, constants, helpers) but the entry point's definition."""
    source = code_prompt.rstrip() + "\n"
    try:
        tree = ast.parse(source + "    pass\n")
    except SyntaxError:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            return ""
    kept = [
        node
        for node in tree.body
        if not (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point
        )
    ]
    return "".join(ast.unparse(node) + "\n" for node in kept)


def context_of(tests: str, code_prompt: str, entry_point: str) -> str:
    """A task's context: its ``test`` module, checked with its prompt's own code."""
    return context(
        check(CHECK, tests=tests, prelude=prelude(code_prompt, entry_point), driver=DRIVER),
        checks="bigcodebench",
    )


def split_solution(code_prompt: str, reference: str) -> tuple[str, str] | None:
    """A reference (a task's ``code_prompt`` and ``canonical_solution``, joined) split
    again after the line that ends ``code_prompt`` (its ``def``), when that line is in it
    once: the two fields; None otherwise. The prompt's last line may have been rewritten
    (a default of the signature): then the line is found by the function's name."""
    last = next((line for line in reversed(code_prompt.splitlines()) if line.strip()), "")
    lines = reference.splitlines(keepends=True)
    at = [i for i, line in enumerate(lines) if line.rstrip("\n") == last]
    if not at and last.lstrip().startswith("def "):
        head = last[: last.index("(") + 1] if "(" in last else last
        at = [i for i, line in enumerate(lines) if line.startswith(head)]
    if not last or len(at) != 1:
        return None
    return "".join(lines[: at[0] + 1]), "".join(lines[at[0] + 1 :])


def tests_of(context_code: str) -> str | None:
    """The ``test`` field a task's context was built from (:func:`context_of`), None when
    ``context_code`` is no such context."""
    try:
        tree = ast.parse(context_code)
    except SyntaxError:
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["_TESTS"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    return None


def matches(row: dict[str, Any]) -> bool:
    return all(key in row for key in KEYS)


def load_row(row: Row, set_name: str) -> list[Problem]:
    data, shown = row.data, row.shown
    task_id = row.text("task_id")
    code_prompt = row.text("code_prompt")
    tests = row.text("test")
    reference = code_prompt.rstrip("\n") + "\n" + row.text("canonical_solution")
    libs = library_list(data.get("libs"))
    return [
        Problem(
            id=f"{set_name}/{task_id}",
            native_id=task_id,
            set_name=set_name,
            library=main_library([*libs, *imported_modules(code_prompt)]),
            prompt=str(data.get("instruct_prompt") or data.get("complete_prompt") or ""),
            reference_code=reference,
            code_context=context_of(
                tests, code_prompt, str(data.get("entry_point") or "task_func")
            ),
            timeout=row.number_or("timeout", DEFAULT_TIMEOUT),
            metadata={
                "format": "bigcodebench",
                "entry_point": data.get("entry_point", ""),
                # what upstream's evaluator puts before a sample's ``completion`` (and,
                # for a calibrated sample, its ``solution``): harness.problems.shapes
                "complete_prompt": str(data.get("complete_prompt") or ""),
                "code_prompt": code_prompt,
            },
            source_file=shown,
            requires=imported_modules(code_prompt, tests),
        )
    ]


FORMAT = Format("bigcodebench", matches, load_row, rank=10)
