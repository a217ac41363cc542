"""GitChameleon 2.0: version-conditioned problems, each graded by pytest in its own env.

Published as a folder: ``dataset.jsonl`` (a row per problem: ``example_id``, ``library``,
``version``, ``python_version``, ``problem``, ``starting_code``, ``solution`` (the body),
``additional_dependencies``, ...), ``ground_truth_solutions.jsonl`` (``example_id``,
``answer``: the whole program) and ``hidden_tests/test_sample_<id>.py``, pytest files
that ``from sample_<id> import`` the solution. Upstream grades a program by writing it as
``sample_<id>.py`` beside the hidden test in a fresh temporary directory and running
pytest there: it passes when pytest's exit status is 0. The check here does the same
(``envside/check.harness_pytest``), with pytest in the check's process and a plugin that
keeps each test's outcome as a part; an untrusted program's module lives in its own
process, and the test imports stand-ins whose calls cross to it
(``envside/crossing_*.py``). ``envside/driver.py`` is the fallback for tests that share
with the program something that cannot cross: pytest beside the program, in its process.

Each problem is conditioned on one library release: ``metadata["env"]`` says which
Python and requirements upstream grades it with (``harness.matrix.own_envs`` turns those into
combos). The rows name files beside them, so the dataset file is loaded whole
(``load_file``), not row by row.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from harness.benchmarks.base import Format, Row, check, context
from harness.core.jsonl import read_rows
from harness.core.libraries import lookup
from harness.core.problem import Problem, imported_modules

if TYPE_CHECKING:
    from pathlib import Path

SET_NAME = "gitchameleon"
DATASET = "dataset.jsonl"
SOLUTIONS = "ground_truth_solutions.jsonl"
HIDDEN_TESTS = "hidden_tests"
# A file beside a dataset that is part of it, not a problem file of its own.
COMPANIONS = (SOLUTIONS,)
# told by these keys together; every field a problem needs is checked as it loads
KEYS = ("library", "version", "python_version", "starting_code")
DEFAULT_TIMEOUT = 120.0  # upstream's limit on one pytest run
TEST_RUNNER = "pytest"  # what grades every problem: in every problem's env, unpinned
_EXAMPLE_ID = re.compile(r"\w+")  # it names a module, sample_<id>

CHECK = """
_MODULE = {module!r}
_TESTS = {tests!r}


def test_execution(solution):
    {pytest}(solution, _MODULE, _TESTS)
"""


def matches(row: dict[str, Any]) -> bool:
    return all(key in row for key in KEYS)


def is_companion(path: Path) -> bool:
    """Whether ``path`` belongs to a GitChameleon dataset beside it (its ground truth)."""
    return path.name in COMPANIONS and (path.parent / DATASET).is_file()


def datasets_in(root: Path) -> list[Path]:
    """Every GitChameleon ``dataset.jsonl`` below ``root``: one with its hidden tests."""
    return sorted(p for p in root.rglob(DATASET) if (p.parent / HIDDEN_TESTS).is_dir())


def load_file(path: Path, shown: str) -> list[Problem]:
    """The problems of a GitChameleon ``dataset.jsonl``, with the ground truth and the
    hidden tests found beside it."""
    references = _references(path.parent / SOLUTIONS)
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for number, data in read_rows(path, shown):
        row = Row(data, shown, number)
        problem = _problem(row, path.parent, references)
        if problem.native_id in seen:
            raise row.fail(
                "example_id",
                f"duplicate {problem.native_id!r} (first on line {seen[problem.native_id]})",
            )
        seen[problem.native_id] = number
        problems.append(problem)
    return problems


def load_row(row: Row, set_name: str) -> list[Problem]:
    """Never called by the loader (``load_file`` reads GitChameleon's files whole); a row
    alone lacks its hidden test, so it cannot become a problem."""
    del set_name
    raise row.fail_line(
        f"a GitChameleon row is graded by {HIDDEN_TESTS}/test_sample_<id>.py: "
        f"load the dataset folder or its {DATASET}"
    )


def _references(path: Path) -> dict[str, str]:
    """example_id → the whole ground-truth program; none when the file is absent."""
    if not path.is_file():
        return {}
    found: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, data in read_rows(path):
        row = Row(data, str(path), number)
        example = _example_id(row)
        if example in found:
            raise row.fail("example_id", f"duplicate {example!r} (first on line {lines[example]})")
        found[example], lines[example] = row.text("answer"), number
    return found


def _example_id(row: Row) -> str:
    value = row.data.get("example_id")
    if value is None:
        raise row.fail("example_id", "missing")
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # some copies store it as a number
    if not isinstance(value, str) or not _EXAMPLE_ID.fullmatch(value):
        raise row.fail(
            "example_id", f"{value!r} must be letters, digits or _ (it names sample_<id>.py)"
        )
    return value


def _problem(row: Row, folder: Path, references: dict[str, str]) -> Problem:
    example = _example_id(row)
    library = row.text("library")
    version = row.text("version")
    python = row.text("python_version")
    starting = row.text("starting_code")
    reference = references.get(example) or (
        starting.rstrip("\n") + "\n" + row.text("solution", empty=True)
    )
    test_path = folder / HIDDEN_TESTS / f"test_sample_{example}.py"
    try:
        tests = test_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise row.fail("example_id", f"no hidden test {test_path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise row.fail("example_id", f"cannot read {test_path}: {exc}") from None
    try:
        Requirement(f"{library}=={version}")
    except InvalidRequirement:
        raise row.fail("version", f"{library}=={version} is not a requirement") from None
    additional = _requirements(row, "additional_dependencies")
    extra = _requirements(row, "extra_dependencies")
    module = f"sample_{example}"
    requires = [m for m in imported_modules(reference, tests) if m != module]
    known = lookup(library)
    return Problem(
        id=f"{SET_NAME}/{example}",
        native_id=example,
        set_name=SET_NAME,
        library=known.key if known is not None else library,
        prompt=str(row.data.get("problem", "")),
        reference_code=reference,
        code_context=context(
            check(CHECK, module=module, tests=tests),
            checks="gitchameleon",
        ),
        timeout=DEFAULT_TIMEOUT,
        metadata={
            "format": SET_NAME,
            "python_version": python,
            "library": library,
            "version": version,
            "additional_dependencies": additional,
            "extra_dependencies": extra,
            "type_of_change": str(row.data.get("type_of_change", "")),
            "release_date": str(row.data.get("release_date", "")),
            "name_of_class_or_func": str(row.data.get("name_of_class_or_func", "")),
            "starting_code": starting,
            "env": environment(python, library, version, additional),
        },
        source_file=row.shown,
        requires=tuple(dict.fromkeys([*requires, TEST_RUNNER])),
    )


def _requirements(row: Row, key: str) -> list[str]:
    """A space-separated list of pins (``"scipy==1.7.3 numpy==1.21.6"``); "" or null: none."""
    value = row.data.get(key)
    if value is None:
        return []
    if not isinstance(value, str):
        raise row.fail(key, "must be a string of space-separated requirements")
    for text in value.split():
        try:
            Requirement(text)
        except InvalidRequirement:
            raise row.fail(key, f"{text!r} is not a requirement") from None
    return value.split()


# What upstream's env builder adds to every env (gitchameleon/create_venvs.py at the
# dataset's commit): after ``library==version`` and the additional dependencies, pytest and
# pytest-cov, and NumPy and SciPy at a release chosen per Python, each unless the problem
# is about it or names it among its dependencies. Tests import NumPy and SciPy even where
# the library does not need them (torch 1.10), and a library built against NumPy 1 fails
# to import beside NumPy 2 (matplotlib 3.4, torch 1.13): these pins are what made the
# ground truth pass upstream.
UPSTREAM_EXTRAS = {
    "3.7": ("pytest==6.2.5", "pytest-cov==4.1.0", "numpy==1.21.6", "scipy==1.7.1"),
    "3.9": ("pytest==7.1.2", "pytest-cov==4.1.0", "numpy==1.21.6", "scipy==1.9.1"),
    "3.10": ("pytest==7.2.0", "pytest-cov==4.1.0", "numpy==1.23", "scipy==1.10.1"),
}
# ...and what ``python -m venv`` seeds a venv with on those Pythons besides pip: torch
# 1.10 imports ``pkg_resources`` as it loads.
SEEDED = "setuptools"


def environment(python: str, library: str, version: str, additional: list[str]) -> dict[str, Any]:
    """The env upstream grades a problem in: its Python, ``library==version``, the
    additional dependencies, and what upstream adds for that Python (``UPSTREAM_EXTRAS``;
    pytest unpinned on a Python upstream has none for)."""
    requirements = [f"{library}=={version}", *additional]
    mentioned = " ".join(requirements).lower()
    for companion in UPSTREAM_EXTRAS.get(python, (TEST_RUNNER,)):
        name = canonicalize_name(Requirement(companion).name)
        # upstream's test is a substring one ("numpy" in any of the dependencies), and a
        # problem about pytest gets neither pytest nor pytest-cov
        about_pytest = canonicalize_name(library) == TEST_RUNNER and name.startswith("pytest")
        if name not in mentioned and not about_pytest:
            requirements.append(companion)
    if SEEDED not in mentioned:
        requirements.append(SEEDED)
    return {"python": python, "requirements": list(dict.fromkeys(requirements))}


FORMAT = Format(SET_NAME, matches, load_row, load_file, rank=40)
