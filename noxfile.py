"""Sessions: one per combo of ``matrix.toml``, plus the project's own checks.

    nox -l                       # list sessions
    nox -t latest                # every combo tagged "latest"
    nox -s combo-ds1000-2024 -- --problems ds1000 --limit 50
    nox -s tests lint            # the checks CI runs

A combo session installs the harness into its own uv-built venv and runs
``harness run --combos <id>``; the harness builds the combo's environment with uv
(locked, reused while the lock is unchanged) and runs the problems inside it. All
combo sessions of one nox invocation write into the same ``results/<run-id>/``.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT))  # the spec parser, without installing the package into nox's env

from harness.core.errors import HarnessError  # noqa: E402
from harness.matrix import spec  # noqa: E402

nox.needs_version = ">=2024.4.15"
nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests", "lint"]

RUN_ID = os.environ.get("HARNESS_RUN_ID") or dt.datetime.now(dt.timezone.utc).strftime(
    "%Y%m%d-%H%M%S"
)


def _install_harness(session: nox.Session, *extras: str) -> None:
    suffix = f"[{','.join(extras)}]" if extras else ""
    session.install("-e", f".{suffix}")


def _combo_session(combo: spec.Combo) -> None:
    def run_combo(session: nox.Session) -> None:
        _install_harness(session)
        session.run("harness", "run", "--combos", combo.id, "--run-id", RUN_ID, *session.posargs)

    run_combo.__doc__ = combo.description or f"Run the problems in combo {combo.id}"
    # a nightly lane is a session of its own (nox -t lane), not one of the combos
    kind = [] if combo.lane else ["combo"]
    nox.session(name=f"combo-{combo.id}", tags=[*kind, *combo.tags])(run_combo)


try:
    MATRIX = spec.load(ROOT / "matrix.toml", display="matrix.toml")
except HarnessError as error:
    for line in error.lines():
        print(f"noxfile: {line}", file=sys.stderr)
    print("noxfile: no combo sessions", file=sys.stderr)
else:
    for _combo in (*MATRIX.combos, *MATRIX.lanes):
        _combo_session(_combo)


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite (the slow tests are in `slow`)."""
    _install_harness(session, "test")
    session.run("pytest", *session.posargs)


@nox.session
def slow(session: nox.Session) -> None:
    """The tests that build many real environments or run large problem sets."""
    _install_harness(session, "test")
    session.run("pytest", "-m", "slow", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff (lint and format) and mypy."""
    _install_harness(session, "dev")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session
def bench(session: nox.Session) -> None:
    """The executor benchmark (fresh vs zygote vs compute floor); see BENCHMARKS.md."""
    _install_harness(session)
    session.run("python", "benchmarks/executor.py", *session.posargs)


@nox.session(name="validate-problems")
def validate_problems(session: nox.Session) -> None:
    """Validate every problem in problems/ against real releases; rewrites its table."""
    _install_harness(session)
    session.run(
        "harness",
        "validate-problems",
        # torch and TensorFlow releases are gigabytes each: bisect them near the claim
        "--near",
        "torch",
        "--near",
        "tensorflow",
        "--write-table",
        "problems/README.md",
        "--json",
        "results/validation.json",
        *session.posargs,
    )


@nox.session
def screenshot(session: nox.Session) -> None:
    """docs/report.png: the default job's report.html, first screen, in headless Chromium.

    The README's screenshot: the default run (``harness run``, our problems in the embedded
    matrix), then the browser test of report.html pointed at it."""
    _install_harness(session, "test")
    results = Path(session.create_tmp()) / "results"
    session.run("harness", "run", "--results", str(results), "--run-id", "readme", "--no-history")
    session.run(
        "pytest",
        "tests/test_html.py::test_report_in_a_headless_browser",
        env={"HARNESS_SCREENSHOT_OF": str(results / "readme"), "CI": "1"},
    )
