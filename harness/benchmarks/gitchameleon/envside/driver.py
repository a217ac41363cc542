"""GitChameleon's in-process fallback: a problem graded as upstream grades it, pytest on
the hidden test beside the answer in the answer's process, for a problem whose test
shares with the answer something that cannot cross (``check.harness_pytest`` sends it
there).

The solution is ``<module>.py`` and the hidden test ``test_<module>.py`` in a folder of
their own, with an empty ``pytest.ini``: this run's whole configuration. A plugin keeps
one part per test: its first failure, with the exception as it was raised (pytest hands
it to ``pytest_exception_interact``, for collection errors too), else its outcome. A
non-zero exit status that no part explains (no tests, a usage error) becomes a part of
its own, so that pass means exit status 0, as upstream.
"""

from __future__ import annotations

import importlib
import io
import os
import shutil
import sys
import tempfile
import traceback
from typing import Any, Callable, Dict, List

Part = Dict[str, Any]
ErrorPart = Callable[[str, BaseException], Part]


def program(package: str) -> str:
    """The program the check runs in the answer's process (``formatlib.in_process`` gives
    it ``_HARNESS_SOLUTION``, ``_HARNESS_TESTS``, ``_HARNESS_MODULE`` and
    ``_harness_error_part``)."""
    return (
        "from %s.driver import run as _harness_run\n\n"
        "_harness_report = _harness_run(\n"
        "    _HARNESS_SOLUTION, _HARNESS_MODULE, _HARNESS_TESTS, _harness_error_part\n"
        ")\n" % package
    )


def run(solution: str, module: str, tests: str, error_part: ErrorPart) -> List[Part]:
    """The parts of pytest's run of ``tests`` on ``solution``, in a folder made for it."""
    folder = tempfile.mkdtemp(prefix="gitchameleon-")
    try:
        return _graded(folder, solution, module, tests, error_part)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _graded(
    folder: str, solution: str, module: str, tests: str, error_part: ErrorPart
) -> List[Part]:
    path = os.path.join(folder, "test_" + module + ".py")
    ini = os.path.join(folder, "pytest.ini")  # this run's whole configuration: none
    for name, text in (
        (os.path.join(folder, module + ".py"), solution),
        (path, tests),
        (ini, "[pytest]\n"),
    ):
        with open(name, "w", encoding="utf-8") as handle:
            handle.write(text)
    sys.path.insert(0, folder)
    try:
        __import__(module)
    except BaseException as exc:
        return [_exception_part(error_part, "solution", exc, "error")]
    try:
        pytest = importlib.import_module("pytest")  # the problem's env has it; not ours
    except BaseException as exc:
        return [_exception_part(error_part, "pytest", exc, "error")]
    # options from the machine's environment would make this run differ from upstream's
    for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS"):
        os.environ.pop(name, None)
    plugin = _Plugin(os.path.basename(path), error_part)
    args = [
        *(path, "-q", "--tb=short", "-c", ini, "--rootdir", folder),
        # no cache to write; and warnings left to the harness, which records the
        # deprecations (pytest's plugin would swallow them)
        *("-p", "no:cacheprovider", "-p", "no:warnings"),
    ]
    return run_pytest(
        pytest, args, plugin, lambda exc: _exception_part(error_part, "pytest", exc, "error")
    )


def run_pytest(
    pytest: Any, args: List[str], plugin: Any, crashed: Callable[[BaseException], Part]
) -> List[Part]:
    """``pytest.main(args)`` with ``plugin``, its output kept as the execution's: the
    plugin's parts (``crashed``'s part too where pytest itself raised), and a part of its
    own for an exit status no part explains, so that pass means exit status 0."""
    shown, saved = io.StringIO(), sys.stdout
    sys.stdout = shown
    try:
        status = int(pytest.main(args, plugins=[plugin]))
    except BaseException as exc:
        return [*plugin.parts.values(), crashed(exc)]
    finally:
        sys.stdout = saved
        saved.write(shown.getvalue())  # still the execution's output, as pytest printed it
    parts: List[Part] = list(plugin.parts.values())
    if status != 0 and not [p for p in parts if p["status"] in ("fail", "error")]:
        lines = [line for line in shown.getvalue().splitlines() if line.strip()]
        parts.append(
            {
                "name": "pytest",
                "status": "error",
                "type": "pytest.ExitCode",
                "message": "exit status %d%s" % (status, ": " + lines[-1][:300] if lines else ""),
            }
        )
    return parts


class _Plugin:
    def __init__(self, test_file: str, error_part: ErrorPart) -> None:
        self.prefix = test_file + "::"
        self.parts: Dict[str, Part] = {}
        self.error_part = error_part

    def _name(self, nodeid: str) -> str:
        return nodeid[len(self.prefix) :] if nodeid.startswith(self.prefix) else nodeid

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and report.nodeid not in self.parts:
            self.parts[report.nodeid] = report_part(self._name(report.nodeid), report)

    def pytest_runtest_logreport(self, report: Any) -> None:
        known = self.parts.get(report.nodeid)
        if known is not None and known["status"] in ("fail", "error"):
            return  # a test's first failure is its part (not its teardown's after it)
        name = self._name(report.nodeid)
        if report.passed:
            if report.when == "call":
                self.parts[report.nodeid] = {"name": name, "status": "pass"}
        else:
            self.parts[report.nodeid] = report_part(name, report)

    def pytest_exception_interact(self, node: Any, call: Any, report: Any) -> None:
        # after a test's report; before a collector's (pytest_collectreport comes next)
        pytest = sys.modules["pytest"]

        part = self.parts.get(report.nodeid)
        if call.excinfo is None or (part is not None and "type" in part):
            return
        exc = call.excinfo.value
        if type(exc).__name__ == "CollectError":
            # pytest wraps what importing the test raised: that is the error
            exc = exc.__cause__ or exc.__context__ or exc
        status = part["status"] if part is not None else "error"
        if status == "fail" and not isinstance(exc, (AssertionError, pytest.fail.Exception)):
            status = "error"  # the test raised, it did not assert
        name = self._name(report.nodeid)
        self.parts[report.nodeid] = _exception_part(self.error_part, name, exc, status)


def report_part(name: str, report: Any) -> Part:
    """A report that is not a pass: a skip (an xfail too) with its reason, or a failure
    pytest describes without its exception (a strict xpass), until
    ``pytest_exception_interact`` hands the exception over."""
    if report.skipped:
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else ""
        if hasattr(report, "wasxfail"):
            reason = "xfail: %s" % report.wasxfail
        return {"name": name, "status": "skipped", "message": str(reason)[:400]}
    status = "fail" if report.when == "call" else "error"
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    lines = [line for line in text.splitlines() if line.strip()]
    return {"name": name, "status": status, "message": lines[0][:400] if lines else ""}


def _exception_part(error_part: ErrorPart, name: str, exc: BaseException, status: str) -> Part:
    part = error_part(name, exc)
    kind = type(exc)
    if kind.__module__ != "builtins":
        part["type"] = "%s.%s" % (kind.__module__, kind.__qualname__)
    lines = [line for line in str(exc).splitlines() if line.strip()]
    part["status"] = status
    part["message"] = lines[0][:400] if lines else ""
    frames = traceback.extract_tb(exc.__traceback__)[-6:]
    part["traceback"] = "\n".join("%s:%s in %s" % (f.filename, f.lineno, f.name) for f in frames)
    return part
