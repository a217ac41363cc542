"""GitChameleon 2.0: its published files as problems, graded by pytest, in their own envs.

Small GitChameleon-shaped datasets written here test the loader (the folder, its
``dataset.jsonl`` and the ``.tar.gz`` alike), its one-line errors, the model answers,
the driver that runs pytest (in a subprocess with this venv's pytest) and the derived
per-problem combos. One real run builds the envs of three published problems with the
harness's own machinery and grades their ground truth and two broken answers there.
"""

from __future__ import annotations

import ast
import io
import json
import os
import subprocess
import sys
import tarfile
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.benchmarks import registry
from harness.benchmarks.base import NamedSet, Row
from harness.benchmarks.gitchameleon import load as gitchameleon
from harness.core.errors import ProblemError
from harness.core.problem import Problem
from harness.envside.checks import formatlib
from harness.matrix import own_envs, spec
from harness.matrix.combos import ID_PATTERN, MAX_ID_LENGTH
from harness.matrix.spec import LibrarySpec, VersionKind
from harness.problems import answers, downloads
from harness.problems import sets as problemsets
from tests.conftest import ROOT, run_harness

PUBLISHED = ROOT.parent / "shared" / "data" / "gitchameleon" / "gitchameleon-dataset.tar.gz"

ROUND = {
    "python_version": "3.10",
    "library": "numpy",
    "version": "1.25.0",
    "problem": "Round every element.",
    "starting_code": "import numpy as np\ndef rounded(a):\n",
    "example_id": "7",
    "test": "assert rounded(1.4) == 1",
    "solution": "    return np.round(a)",
    "type_of_change": "deprecation",
    "name_of_class_or_func": "round_",
    "additional_dependencies": "",
    "functional": 1,
    "release_date": "2023-06",
}
HMEAN = {
    **ROUND,
    "library": "scipy",
    "version": "1.8.1",
    "starting_code": "from scipy.stats import hmean\ndef harmonic(a):\n",
    "example_id": "8",
    "solution": "    return hmean(a)",
    "type_of_change": "output change",
    "name_of_class_or_func": "stats.hmean",
    "additional_dependencies": "numpy==1.21.6",
    "release_date": "2022-05",
}
ROUTE = {  # no ground truth: the reference is the starting code and the body
    **ROUND,
    "library": "flask",
    "version": "2.0.0",
    "starting_code": "import flask\ndef app():\n",
    "example_id": "9",
    "solution": "    return flask.Flask('x')",
    "type_of_change": "name change",
    "name_of_class_or_func": "Flask",
    "additional_dependencies": "werkzeug==2.0.0",
    "extra_dependencies": "markupsafe==2.0.1",
    "release_date": "2021-05",
}
OLD = {**ROUND, "python_version": "3.7", "library": "torch", "version": "1.9.0", "example_id": "10"}
HIDDEN = {
    "7": "import numpy as np\nfrom sample_7 import rounded\n\ndef test_half():\n    assert rounded(0.5) == 0\n",
    "8": "import unittest\nfrom sample_8 import harmonic\n\nclass T(unittest.TestCase):\n    pass\n",
    "9": "import pytest\nimport werkzeug\nfrom sample_9 import app\n",
    "10": "import torch\nfrom sample_10 import rounded\n",
}
TRUTH = {
    "7": "import numpy as np\n\ndef rounded(a):\n    return np.round(a)\n",
    "8": "import numpy as np\nfrom scipy.stats import hmean\n\ndef harmonic(a):\n    return hmean(a)\n",
}


def published(name: str) -> NamedSet:
    """The named set ``name``, as the shipped benchmarks declare it (not as a test's
    table stands in for it)."""
    return next(s for s in registry.named_sets() if s.name == name)


def write_dataset(
    root: Path,
    rows: list[dict[str, Any]],
    truth: dict[str, str] | None = None,
    hidden: dict[str, str] | None = None,
) -> Path:
    """A dataset folder as GitChameleon publishes it; returns its dataset.jsonl."""
    folder = root / "dataset"
    (folder / "hidden_tests").mkdir(parents=True)
    (folder / "visible_tests").mkdir()
    for example, text in (HIDDEN if hidden is None else hidden).items():
        (folder / "hidden_tests" / f"test_sample_{example}.py").write_text(text)
    path = folder / "dataset.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    solutions = [
        {"example_id": k, "answer": v} for k, v in (TRUTH if truth is None else truth).items()
    ]
    if solutions:  # else no file: every reference falls back to the row's own code
        (folder / "ground_truth_solutions.jsonl").write_text(
            "".join(json.dumps(s) + "\n" for s in solutions)
        )
    return path


def pack(folder: Path, archive: Path) -> Path:
    """``folder`` as ``git archive`` packs it: ``<name>/...`` in a ``.tar.gz``."""
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    return archive


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path, [ROUND, HMEAN, ROUTE, OLD])


# -- the loader ------------------------------------------------------------------------------


def test_a_row_becomes_a_problem(dataset: Path) -> None:
    first, second, third, old = problemsets.load_problems([dataset])
    assert [p.id for p in (first, second, third, old)] == [
        "gitchameleon/7",
        "gitchameleon/8",
        "gitchameleon/9",
        "gitchameleon/10",
    ]
    assert (first.native_id, first.set_name, first.library) == ("7", "gitchameleon", "numpy")
    assert first.prompt == "Round every element."
    assert first.reference_code == TRUTH["7"]
    assert first.timeout == 120.0
    assert first.source_file == str(dataset)
    # what the program and the hidden test import, and pytest; never the program itself
    assert first.requires == ("numpy", "pytest")
    assert second.requires == ("numpy", "scipy", "unittest", "pytest")
    assert first.metadata == {
        "format": "gitchameleon",
        "python_version": "3.10",
        "library": "numpy",
        "version": "1.25.0",
        "additional_dependencies": [],
        "extra_dependencies": [],
        "type_of_change": "deprecation",
        "release_date": "2023-06",
        "name_of_class_or_func": "round_",
        "starting_code": "import numpy as np\ndef rounded(a):\n",
        # with what upstream's env builder adds on Python 3.10 (create_venvs.py)
        "env": {
            "python": "3.10",
            "requirements": [
                "numpy==1.25.0",
                "pytest==7.2.0",
                "pytest-cov==4.1.0",
                "scipy==1.10.1",
                "setuptools",
            ],
        },
    }
    assert second.metadata["additional_dependencies"] == ["numpy==1.21.6"]
    assert second.metadata["env"] == {
        "python": "3.10",
        "requirements": [
            "scipy==1.8.1",
            "numpy==1.21.6",
            "pytest==7.2.0",
            "pytest-cov==4.1.0",
            "setuptools",
        ],
    }


def test_a_library_outside_the_seven_keeps_its_name_and_its_reference_falls_back(
    dataset: Path,
) -> None:
    route = problemsets.load_problems([dataset])[2]
    assert route.library == "flask"
    assert route.reference_code == "import flask\ndef app():\n    return flask.Flask('x')"
    assert route.requires == ("flask", "pytest", "werkzeug")
    assert route.metadata["extra_dependencies"] == ["markupsafe==2.0.1"]
    assert route.metadata["env"] == {
        "python": "3.10",
        "requirements": [
            "flask==2.0.0",
            "werkzeug==2.0.0",
            "pytest==7.2.0",
            "pytest-cov==4.1.0",
            "numpy==1.23",
            "scipy==1.10.1",
            "setuptools",
        ],
    }


def test_a_problem_about_pytest_is_not_given_a_second_pytest(tmp_path: Path) -> None:
    row = {**ROUND, "library": "pytest", "version": "7.0.0", "additional_dependencies": ""}
    (problem,) = problemsets.load_problems([write_dataset(tmp_path, [row], {}, {"7": "x = 1\n"})])
    assert problem.metadata["env"]["requirements"] == [
        "pytest==7.0.0",
        "numpy==1.23",
        "scipy==1.10.1",
        "setuptools",
    ]
    assert problem.reference_code == "import numpy as np\ndef rounded(a):\n    return np.round(a)"


def test_the_folder_its_file_and_its_archive_load_alike(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    archive = pack(dataset.parent, tmp_path / "gitchameleon-dataset.tar.gz")
    by_file = problemsets.load_problems([dataset])
    by_folder = problemsets.load_problems([dataset.parent])
    by_archive = problemsets.load_problems([archive])
    assert [p.id for p in by_folder] == [p.id for p in by_file] == [p.id for p in by_archive]
    assert [p.code_context for p in by_archive] == [p.code_context for p in by_file]
    unpacked = downloads.cache_dir() / downloads.sha256_of(archive)[:12]
    assert by_archive[0].source_file == str(
        unpacked / "gitchameleon-dataset" / "dataset" / "dataset.jsonl"
    )
    # unpacked once: a second load reads the same folder
    problemsets.load_problems([archive])
    assert sorted(p.name for p in unpacked.parent.iterdir()) == [unpacked.name]
    assert sorted(p.name for p in unpacked.iterdir()) == ["gitchameleon-dataset"]


def test_a_folder_holding_the_dataset_skips_its_ground_truth(dataset: Path, tmp_path: Path) -> None:
    assert gitchameleon.is_companion(dataset.parent / "ground_truth_solutions.jsonl")
    assert [p.id for p in problemsets.load_problems([tmp_path])][:1] == ["gitchameleon/7"]


def test_gitchameleon_rows_are_told_by_their_keys(dataset: Path) -> None:
    assert registry.detect(ROUND) == "gitchameleon"
    assert registry.detect({k: v for k, v in ROUND.items() if k != "example_id"}) == "gitchameleon"
    row = Row(ROUND, str(dataset), 1)
    with pytest.raises(ProblemError) as caught:
        gitchameleon.FORMAT.load_row(row, "gitchameleon")
    assert str(caught.value) == (
        f"{dataset}:1: line 1: a GitChameleon row is graded by "
        "hidden_tests/test_sample_<id>.py: load the dataset folder or its dataset.jsonl"
    )


def test_the_context_runs_on_python_3_8(dataset: Path) -> None:
    for problem in problemsets.load_problems([dataset]):
        ast.parse(problem.code_context, problem.id, feature_version=(3, 8))


# -- bad input: one line naming the file, the line and the key ---------------------------------


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [ROUND, {k: v for k, v in HMEAN.items() if k != "example_id"}],
            "dataset.jsonl:2: example_id: missing",
        ),
        (
            [{k: v for k, v in ROUND.items() if k != "example_id"}],
            "dataset.jsonl:1: example_id: missing",
        ),
        (
            [{**ROUND, "example_id": "7.1"}],
            (
                "dataset.jsonl:1: example_id: '7.1' must be letters, digits or _ "
                "(it names sample_<id>.py)"
            ),
        ),
        ([ROUND, ROUND], "dataset.jsonl:2: example_id: duplicate '7' (first on line 1)"),
        (
            [{**ROUND, "additional_dependencies": "numpy=>1"}],
            "dataset.jsonl:1: additional_dependencies: 'numpy=>1' is not a requirement",
        ),
        (
            [{**ROUND, "version": "1.x y"}],
            "dataset.jsonl:1: version: numpy==1.x y is not a requirement",
        ),
        (
            [{**ROUND, "starting_code": 3}],
            "dataset.jsonl:1: starting_code: must be a non-empty string",
        ),
    ],
)
def test_bad_rows(tmp_path: Path, rows: list[dict[str, Any]], message: str) -> None:
    path = write_dataset(tmp_path, rows)
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    assert str(caught.value) == f"{path.parent}/{message}"


def test_a_missing_hidden_test_names_the_row_and_the_file(tmp_path: Path) -> None:
    path = write_dataset(tmp_path, [ROUND, HMEAN], hidden={"7": HIDDEN["7"]})
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    test = path.parent / "hidden_tests" / "test_sample_8.py"
    assert str(caught.value) == f"{path}:2: example_id: no hidden test {test}"


def test_a_bad_ground_truth_names_its_own_file(tmp_path: Path) -> None:
    path = write_dataset(tmp_path, [ROUND])
    truth = path.parent / "ground_truth_solutions.jsonl"
    truth.write_text(json.dumps({"example_id": "7"}) + "\n")
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([path])
    assert str(caught.value) == f"{truth}:1: answer: missing"


def test_an_archive_without_a_dataset_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("no dataset here")
    archive = pack(tmp_path / "other", tmp_path / "other.tar.gz")
    with pytest.raises(ProblemError) as caught:
        problemsets.load_problems([archive])
    assert str(caught.value) == (
        f"{archive}: no CIBench experiment or GitChameleon dataset (dataset.jsonl beside "
        "hidden_tests/) in this archive; pass a problem file or folder instead"
    )


@pytest.mark.parametrize(
    ("member", "message"),
    [
        ("../escaped.txt", "../escaped.txt: leads out of the archive's folder: refused"),
        ("/etc/escaped.txt", "/etc/escaped.txt: leads out of the archive's folder: refused"),
        ("link", "link: is not a folder or a regular file: refused"),
    ],
)
def test_an_archive_member_that_could_escape_is_refused_and_nothing_is_kept(
    tmp_path: Path, member: str, message: str
) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo(member)
        if member == "link":
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
        else:
            info.size = 3
            tar.addfile(info, io.BytesIO(b"bad"))
    cache = tmp_path / "cache"
    with pytest.raises(ProblemError) as caught:
        downloads.extract(archive, cache)
    assert str(caught.value) == f"{archive}: {message}"
    assert [p.name for p in cache.rglob("*")] == [downloads.sha256_of(archive)[:12]]


def test_the_named_set_is_upstreams_archive_kept_unverified(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = published("gitchameleon")
    assert named.url == (
        "https://github.com/mrcabbage972/GitChameleonBenchmark/archive/"
        "630daf9d8b64b2884fe2d0aa165c8a612932885e.tar.gz"
    )
    assert (named.sha256, named.format, named.refused) == (None, "gitchameleon", "")
    # the same table entry, served from a file: cached under its own name, then read
    archive = pack(dataset.parent, tmp_path / "upstream.tar.gz")
    local = replace(named, url=archive.as_uri())
    monkeypatch.setattr(downloads, "named", {"gitchameleon": local}.get)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    heard: list[str] = []
    got = downloads.resolve("gitchameleon", notice=heard.append)
    assert got.name == "gitchameleon.tar.gz"
    unverified = (
        f"gitchameleon: {archive.as_uri()}: sha256 {downloads.sha256_of(archive)} is not "
        "pinned in its benchmark's NamedSet yet: kept unverified"
    )
    assert heard == [unverified]
    assert problemsets.load_problems([got])[0].id == "gitchameleon/7"


# -- model answers ---------------------------------------------------------------------------


def test_answers_in_gitchameleons_shape(dataset: Path, tmp_path: Path) -> None:
    problems = problemsets.load_problems([dataset])
    path = tmp_path / "model-answers.jsonl"
    rows = [
        {"example_id": "7", "answer": "def rounded(a):\n    return round(a)\n"},
        # an answer that kept its problem's row: the answer, not the row's solution
        {**HMEAN, "answer": "def harmonic(a):\n    return 1\n"},
        {"problem_id": "gitchameleon/9", "answer": "app = None\n"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = answers.load_answers(path, problems)
    assert [(s.problem_id, s.source, s.code) for s in got] == [
        ("gitchameleon/7", "model:model", "def rounded(a):\n    return round(a)\n"),
        ("gitchameleon/8", "model:model", "def harmonic(a):\n    return 1\n"),
        ("gitchameleon/9", "model:model", "app = None\n"),
    ]


# -- the driver: pytest beside the program, a part per test -----------------------------------


DRIVE = """
import json, sys
from harness.envside.checks.formatlib import harness_error_part
from harness.envside.benchmarks.gitchameleon import driver
given = json.load(sys.stdin)
namespace = {
    "_HARNESS_SOLUTION": given["solution"],
    "_HARNESS_TESTS": given["tests"],
    "_HARNESS_MODULE": "sample_7",
    "_harness_error_part": harness_error_part,
}
exec(driver.program("harness.envside.benchmarks.gitchameleon"), namespace)
print(json.dumps(namespace["_harness_report"]))
"""


def drive(solution: str, tests: str, tmp_path: Path) -> dict[str, dict[str, str]]:
    """The driver run in a fresh interpreter of this venv (its pytest must not share this
    session's state); returns its parts by name, without their frames."""
    proc = subprocess.run(
        [sys.executable, "-c", DRIVE],
        input=json.dumps({"solution": textwrap.dedent(solution), "tests": textwrap.dedent(tests)}),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("gitchameleon-")]
    return {p["name"]: {k: v for k, v in p.items() if k != "traceback"} for p in report}


SOLUTION = """
import json
def parse(text):
    return json.loads(text)
"""


def test_each_test_is_a_part_with_what_it_raised(tmp_path: Path) -> None:
    found = drive(
        SOLUTION,
        """
        import pytest
        from sample_7 import parse

        def test_number():
            assert parse("1") == 1

        def test_wrong():
            assert parse("1") == 2

        def test_broken_json():
            parse("{")

        @pytest.fixture
        def missing():
            raise KeyError("k")

        def test_fixture(missing):
            pass

        def test_skipped():
            pytest.skip("not here")

        @pytest.mark.xfail(reason="known")
        def test_expected_to_fail():
            assert False
        """,
        tmp_path,
    )
    assert found == {
        "test_number": {"name": "test_number", "status": "pass"},
        "test_wrong": {
            "name": "test_wrong",
            "status": "fail",
            "type": "AssertionError",
            "message": "assert 1 == 2",
        },
        "test_broken_json": {
            "name": "test_broken_json",
            "status": "error",
            "type": "json.decoder.JSONDecodeError",
            "message": "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        },
        "test_fixture": {
            "name": "test_fixture",
            "status": "error",
            "type": "KeyError",
            "message": "'k'",
        },
        "test_skipped": {
            "name": "test_skipped",
            "status": "skipped",
            "message": "Skipped: not here",
        },
        "test_expected_to_fail": {
            "name": "test_expected_to_fail",
            "status": "skipped",
            "message": "xfail: known",
        },
    }


def test_unittest_classes_are_named_by_class_and_method(tmp_path: Path) -> None:
    found = drive(
        SOLUTION,
        """
        import unittest
        from sample_7 import parse

        class TestParse(unittest.TestCase):
            def test_list(self):
                self.assertEqual(parse("[1]"), [1])

            def test_text(self):
                self.assertEqual(parse('"a"'), "b")
        """,
        tmp_path,
    )
    assert found == {
        "TestParse::test_list": {"name": "TestParse::test_list", "status": "pass"},
        "TestParse::test_text": {
            "name": "TestParse::test_text",
            "status": "fail",
            "type": "AssertionError",
            "message": "'a' != 'b'",
        },
    }


def test_a_program_that_does_not_import_is_one_error(tmp_path: Path) -> None:
    found = drive("import no_such_module_here\n", "from sample_7 import parse\n", tmp_path)
    assert found == {
        "solution": {
            "name": "solution",
            "status": "error",
            "type": "ModuleNotFoundError",
            "message": "No module named 'no_such_module_here'",
        }
    }


def test_a_test_that_cannot_import_the_program_is_a_collection_error(tmp_path: Path) -> None:
    found = drive(SOLUTION, "from sample_7 import render\n\ndef test_it():\n    pass\n", tmp_path)
    ((name, part),) = found.items()
    assert (name, part["status"], part["type"]) == ("test_sample_7.py", "error", "ImportError")
    assert part["message"].startswith("cannot import name 'render' from 'sample_7'")


def test_no_tests_is_pytests_exit_status(tmp_path: Path) -> None:
    found = drive(SOLUTION, "VALUE = 1\n", tmp_path)
    assert found["pytest"]["status"] == "error"
    assert found["pytest"]["type"] == "pytest.ExitCode"
    assert found["pytest"]["message"].startswith("exit status 5: no tests ran")


def test_the_verdict_is_the_worst_test(tmp_path: Path) -> None:
    found = drive(
        SOLUTION,
        """
        from sample_7 import parse
        def test_a():
            assert parse("1") == 1
        def test_b():
            assert parse("2") == 3
        """,
        tmp_path,
    )
    with pytest.raises(AssertionError, match=r"^1 of 2 failed \(test_b\): assert 2 == 3$"):
        formatlib.harness_verdict(list(found.values()))


# -- each problem's own env, as combos --------------------------------------------------------


def test_distinct_envs_become_combos(dataset: Path, tmp_path: Path) -> None:
    problems = problemsets.load_problems([dataset])
    again = replace(problems[0], id="gitchameleon/11", native_id="11")
    # the same requirements in another order are the same env
    shuffled = replace(
        problems[1],
        id="gitchameleon/12",
        native_id="12",
        metadata={
            **problems[1].metadata,
            "env": {
                "python": "3.10",
                "requirements": [
                    "setuptools",
                    "pytest-cov==4.1.0",
                    "pytest==7.2.0",
                    "numpy==1.21.6",
                    "scipy==1.8.1",
                ],
            },
        },
    )
    plain = Problem("ds1000/0", "0", "ds1000", "numpy", "", "", "", metadata={"problem_id": 0})
    envs = own_envs.derive([*problems, again, shuffled, plain])
    assert [c.id for c in envs.combos] == [
        "gc-py3-10-numpy-1-25-0-20e9af77",
        "gc-py3-10-scipy-1-8-1-b8c40b75",
        "gc-py3-10-flask-2-0-0-ed0bcfcc",
    ]
    assert envs.combo_of == {
        "gitchameleon/7": "gc-py3-10-numpy-1-25-0-20e9af77",
        "gitchameleon/8": "gc-py3-10-scipy-1-8-1-b8c40b75",
        "gitchameleon/9": "gc-py3-10-flask-2-0-0-ed0bcfcc",
        "gitchameleon/11": "gc-py3-10-numpy-1-25-0-20e9af77",
        "gitchameleon/12": "gc-py3-10-scipy-1-8-1-b8c40b75",
    }
    assert envs.unplaced == {
        "gitchameleon/10": "Python 3.7 is older than 3.8, the oldest the env side runs on"
    }
    numpy_env, scipy_env, flask_env = envs.combos
    assert scipy_env == spec.Combo(
        id="gc-py3-10-scipy-1-8-1-b8c40b75",
        python="3.10",
        libraries=(
            LibrarySpec("numpy", "numpy", "1.21.6", VersionKind.PIN),
            LibrarySpec("scipy", "scipy", "1.8.1", VersionKind.PIN),
        ),
        extras=("pytest-cov==4.1.0", "pytest==7.2.0", "setuptools"),
        tags=("own-env",),
        description="a problem's own env: Python 3.10, scipy==1.8.1, numpy==1.21.6, "
        "pytest==7.2.0, pytest-cov==4.1.0, setuptools",
        origin="own-envs",
        wheels_only=True,
    )
    assert numpy_env.libraries == (
        LibrarySpec("numpy", "numpy", "1.25.0", VersionKind.PIN),
        LibrarySpec("scipy", "scipy", "1.10.1", VersionKind.PIN),
    )
    assert (flask_env.libraries, flask_env.extras) == (
        (
            LibrarySpec("numpy", "numpy", "1.23", VersionKind.PIN),
            LibrarySpec("scipy", "scipy", "1.10.1", VersionKind.PIN),
        ),
        ("flask==2.0.0", "pytest-cov==4.1.0", "pytest==7.2.0", "setuptools", "werkzeug==2.0.0"),
    )


def test_the_seven_libraries_are_pins_and_the_rest_extras() -> None:
    problem = Problem(
        "x/1",
        "1",
        "x",
        "tensorflow",
        "",
        "",
        "",
        metadata={
            "env": {
                "python": "3.11",
                "requirements": [
                    "tensorflow==2.15.0",
                    "pandas>=2,<3",
                    "matplotlib",
                    "torch[opt]==2.1.0",
                    "scikit-learn~=1.3.0",
                    "numpy==1.26.*",
                    "sklearn",
                ],
            }
        },
    )
    (combo,) = own_envs.derive([problem], prefix="own").combos
    assert combo.libraries == (
        LibrarySpec("numpy", "numpy", "==1.26.*", VersionKind.SPECIFIER),
        LibrarySpec("pandas", "pandas", "<3,>=2", VersionKind.SPECIFIER),
        LibrarySpec("scikit-learn", "scikit-learn", "~=1.3.0", VersionKind.SPECIFIER),
        LibrarySpec("matplotlib", "matplotlib", "latest", VersionKind.LATEST),
        LibrarySpec("tensorflow", "tensorflow", "2.15.0", VersionKind.PIN),
    )
    # torch with an extra is not a plain pin; "sklearn" is another distribution
    assert combo.extras == ("sklearn", "torch[opt]==2.1.0")
    assert combo.id.startswith("own-py3-11-tensorflow-2-15-0-")


def test_a_long_env_keeps_its_id_valid_and_unique() -> None:
    def needing(name: str) -> Problem:
        requirement = f"{name}==1.0"
        env = {"python": "3.12", "requirements": [requirement]}
        return Problem(f"x/{name}", name, "x", name, "", "", "", metadata={"env": env})

    long = "a-very-long-distribution-name-that-goes-on-and-on-and-on-and-on-forever"
    envs = own_envs.derive([needing(long + "-one"), needing(long + "-two")])
    ids = [c.id for c in envs.combos]
    assert len(set(ids)) == 2
    assert all(ID_PATTERN.match(i) and len(i) <= MAX_ID_LENGTH for i in ids), ids


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ("3.10", "metadata.env: must be a table of python and requirements"),
        ({"requirements": []}, 'metadata.env.python: must be a version string, e.g. "3.10"'),
        (
            {"python": "three", "requirements": []},
            "metadata.env.python: 'three' is not a Python version",
        ),
        (
            {"python": "3", "requirements": []},
            "metadata.env.python: '3': give major.minor, e.g. '3.10'",
        ),
        (
            {"python": "3.10", "requirements": "numpy"},
            "metadata.env.requirements: must be a list of strings",
        ),
        (
            {"python": "3.10", "requirements": ["numpy=>1"]},
            "metadata.env.requirements: 'numpy=>1' is not a requirement",
        ),
    ],
)
def test_a_bad_env_names_the_problem_and_the_key(env: object, message: str) -> None:
    problem = Problem(
        "x/1", "1", "x", "numpy", "", "", "", metadata={"env": env}, source_file="x.jsonl"
    )
    with pytest.raises(ProblemError) as caught:
        own_envs.derive([problem])
    assert str(caught.value) == f"x.jsonl: x/1: {message}"


def test_the_combos_written_as_a_matrix_read_back_the_same(dataset: Path, tmp_path: Path) -> None:
    envs = own_envs.derive(problemsets.load_problems([dataset]))
    text = own_envs.matrix_toml(envs.combos)
    assert text.splitlines()[:10] == [
        "# Each problem's own environment, derived by harness.matrix.own_envs.",
        "[matrix]",
        "wheels_only = true",
        "",
        "[combos.gc-py3-10-numpy-1-25-0-20e9af77]",
        (
            "description = \"a problem's own env: Python 3.10, numpy==1.25.0, pytest==7.2.0, "
            'pytest-cov==4.1.0, scipy==1.10.1, setuptools"'
        ),
        'python = "3.10"',
        'numpy = "1.25.0"',
        'scipy = "1.10.1"',
        'extras = ["pytest-cov==4.1.0", "pytest==7.2.0", "setuptools"]',
    ]
    path = tmp_path / "matrix.toml"
    path.write_text(text)
    read = spec.load(path)
    assert [
        (c.id, c.python, c.libraries, c.extras, c.wheels_only, c.description) for c in read.combos
    ] == [
        (c.id, c.python, c.libraries, c.extras, c.wheels_only, c.description) for c in envs.combos
    ]
    assert [c.id for c in read.combos if "own-env" in c.tags] == [c.id for c in envs.combos]


def test_a_library_installed_under_another_name_says_so_in_the_matrix() -> None:
    env = {"python": "3.11", "requirements": ["tensorflow==2.15.0"]}
    problem = Problem("x/1", "1", "x", "tensorflow", "", "", "", metadata={"env": env})
    text = own_envs.matrix_toml(own_envs.derive([problem]).combos)
    assert 'packages = { "tensorflow" = "tensorflow" }' in text.splitlines()


# -- the real thing: three published problems, each in its own env ----------------------------

REAL = {"71": "custom_round", "72": "custom_product", "160": "count_unique_hmean"}
# Two models' answers as upstream's tools write them, unconverted. A generation file
# (``example_id`` + ``answer``: the model's whole reply, prose around a fenced program)...
BROKEN = [
    {  # rounds to one decimal: four of the six tests fail
        "example_id": "71",
        "answer": "Round with NumPy:\n\n```python\nimport numpy as np\n\n"
        "def custom_round(arr):\n    return np.around(arr, 1)\n```\n\nThis keeps the shape.",
    },
]
# ...and an agent's result file (``example_id`` + ``output``)
AGENT = [
    {  # a function NumPy never had: every test errors
        "example_id": "72",
        "output": "import numpy as np\n\ndef custom_product(arr):\n    return np.no_such_product(arr)\n",
    },
]


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("gitchameleon")
    (dataset,) = gitchameleon.datasets_in(downloads.extract(PUBLISHED, work / "cache"))
    problems = [p for p in problemsets.load_problems([dataset]) if p.native_id in REAL]
    envs = own_envs.derive(problems)
    broken, agent = work / "broken-answers.jsonl", work / "agent.jsonl"
    broken.write_text("".join(json.dumps(row) + "\n" for row in BROKEN))
    agent.write_text("".join(json.dumps(row) + "\n" for row in AGENT))
    # the run shape of its own: every problem only in the env it brings
    command = ["run", "--own-envs", "--problems", str(dataset.parent)]
    command += ["--answers", str(broken), "--answers", str(agent)]
    for example in REAL:
        command += ["--problem-id", f"gitchameleon/{example}"]
    command += ["--results", str(work / "results"), "--run-id", "gc", "--no-history", "-j", "2"]
    ran = run_harness(*command, cwd=ROOT)
    found: dict[tuple[str, str], Any] = {}
    ran_in: dict[str, set[str]] = {}
    for combo in envs.combos:
        lines = (work / "results" / "gc" / f"{combo.id}.jsonl").read_text().splitlines()
        for row in map(json.loads, lines):
            found[(row["problem_id"], row["source"])] = row
            ran_in.setdefault(row["problem_id"], set()).add(combo.id)
    return {"envs": envs, "outcomes": found, "ran_in": ran_in, "log": ran.stderr}


def parts(outcome: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["status"] for p in outcome["parts"]}


@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/gitchameleon")
def test_each_problem_gets_the_env_upstream_grades_it_in(real_run: dict[str, Any]) -> None:
    envs = real_run["envs"]
    assert envs.combo_of == {
        "gitchameleon/71": "gc-py3-10-numpy-1-25-0-20e9af77",
        "gitchameleon/72": "gc-py3-10-numpy-1-25-0-20e9af77",
        "gitchameleon/160": "gc-py3-10-scipy-1-8-1-b8c40b75",
    }
    # ...and ran there only: one combo per problem, never the others
    assert real_run["ran_in"] == {p: {c} for p, c in envs.combo_of.items()}
    outcomes = real_run["outcomes"]
    assert outcomes[("gitchameleon/71", "reference")]["versions"] == {
        "numpy": "1.25.0",
        "scipy": "1.10.1",
    }
    assert outcomes[("gitchameleon/160", "reference")]["versions"] == {
        "numpy": "1.21.6",
        "scipy": "1.8.1",
    }


@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/gitchameleon")
def test_the_ground_truth_passes_test_by_test(real_run: dict[str, Any]) -> None:
    outcomes = real_run["outcomes"]
    for example in REAL:
        outcome = outcomes[(f"gitchameleon/{example}", "reference")]
        assert outcome["status"] == "pass", outcome
        assert len(outcome["parts"]) >= 5
        assert set(parts(outcome).values()) == {"pass"}
    assert parts(outcomes[("gitchameleon/71", "reference")]) == {
        f"TestCustomRound::test_custom_round_{case}": "pass"
        for case in ("decimals", "empty", "integers", "mixed", "multidimensional", "negative")
    }


@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/gitchameleon")
def test_a_broken_answer_fails_naming_the_failing_tests(real_run: dict[str, Any]) -> None:
    outcomes = real_run["outcomes"]
    wrong = outcomes[("gitchameleon/71", "model:broken")]
    failing = {n for n, status in parts(wrong).items() if status == "fail"}
    assert failing == {
        f"TestCustomRound::test_custom_round_{case}"
        for case in ("decimals", "mixed", "multidimensional", "negative")
    }
    assert (wrong["status"], wrong["exc_type"]) == ("fail", "AssertionError")
    assert wrong["message"].startswith(
        "4 of 6 failed (TestCustomRound::test_custom_round_decimals, "
    )
    assert wrong["message"].endswith("): Arrays are not equal")
    missing = outcomes[("gitchameleon/72", "model:agent")]
    assert (missing["status"], missing["exc_type"]) == ("error", "AttributeError")
    assert missing["message"] == "module 'numpy' has no attribute 'no_such_product'"
    assert set(parts(missing).values()) == {"error"}


@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/gitchameleon")
def test_upstreams_answer_files_are_read_as_they_are(real_run: dict[str, Any]) -> None:
    """Each file's shape said in one line; the prose around the generation's fence is
    dropped as upstream's ``extract_code`` drops it (else the program would not import)."""
    log = real_run["log"]
    assert (
        "answers broken-answers.jsonl: GitChameleon generations (example_id + answer), 1 answers"
        in log
    )
    assert "answers agent.jsonl: GitChameleon agent results (example_id + output), 1 answers" in log
    rounded = real_run["outcomes"][("gitchameleon/71", "model:broken")]
    assert rounded["exc_type"] == "AssertionError"  # ran and was judged: not a SyntaxError
