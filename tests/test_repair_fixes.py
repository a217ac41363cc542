"""Hand fixes of BigCodeBench tasks: reviewed edits kept as data, applied by ``harness
repair`` beside the codemods, refused when their text is gone, and held to the same
checks as a codemod's repair (a test never looser, its numbers kept)."""

from __future__ import annotations

import ast
import dataclasses
import gzip
import json
import os
import warnings
from typing import TYPE_CHECKING

import pytest

from harness.analysis.repairs import Row
from harness.analysis.staleness import load_catalogue
from harness.app import plan as planning
from harness.app import run as app_run
from harness.benchmarks.base import Fix, FixError
from harness.benchmarks.bigcodebench import fixes, release
from harness.benchmarks.bigcodebench import load as bigcodebench
from harness.core.errors import ProblemError
from harness.execute.progress import QuietReporter
from harness.execute.rundir import RunRequest
from harness.labs.repair.outputs import repair_record
from harness.labs.repair.plan import BY_HAND, NEEDS_HUMAN, PROPOSED, Break, propose
from harness.problems import sets as problemsets
from tests.conftest import ROOT

if TYPE_CHECKING:
    from pathlib import Path

    from harness.core.problem import Problem

PROMPT = "import numpy as np\ndef task_func(values):\n"
SOLUTION = "    data = np.asarray(values)\n    data.sort()\n    return data[-1]\n"
TESTS = """import unittest
class TestCases(unittest.TestCase):
    def test_max(self):
        self.assertEqual(task_func([3, 1, 2]), 3)
    def test_close(self):
        self.assertAlmostEqual(task_func([0.5]), 0.5, places=6)
"""
BROKE = Break("drifted", "old", "new", "", "", "numpy", "ValueError: sort array is read-only")


def _row() -> dict[str, object]:
    return {
        "task_id": "BigCodeBench/7",
        "complete_prompt": PROMPT + '    """The largest value."""\n',
        "instruct_prompt": f"The largest value.\n```\n{PROMPT}```",
        "canonical_solution": SOLUTION,
        "code_prompt": PROMPT,
        "test": TESTS,
        "entry_point": "task_func",
        "doc_struct": json.dumps({"description": ["The largest value."]}),
        "libs": "['numpy']",
    }


def _problem(tmp_path: Path, row: dict[str, object] | None = None) -> Problem:
    data = tmp_path / "bcb.jsonl"
    data.write_text(json.dumps(row or _row()) + "\n", encoding="utf-8")
    (problem,) = problemsets.load_problems([data])
    return problem


def _fix(field: str, old: str, new: str, **given: str) -> Fix:
    return Fix(
        task=given.get("task", "BigCodeBench/7"),
        field=field,
        old=old,
        new=new,
        why="a copy of its own is sorted",
        broke_in="pandas 3.0.0",
        notes="https://example.org/notes",
        file="fixes.toml",
    )


SORTED = _fix("canonical_solution", "    data.sort()\n", "    data = np.sort(data)\n")


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fixes.toml"
    path.write_text(body, encoding="utf-8")
    return path


FIX_TOML = """
[[fix]]
task = "BigCodeBench/7"
field = "{field}"
old = '''{old}'''
new = '''{new}'''
why = "why"
broke_in = "pandas 3.0.0"
notes = "https://example.org"
"""


# -- applied -------------------------------------------------------------------------------


def test_a_hand_fix_is_applied_before_the_codemods_and_kept_apart(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    found = propose(problem, BROKE, load_catalogue(), fixes=[SORTED])
    assert (found.verdict, found.chosen_by, found.codemods) == (PROPOSED, BY_HAND, ())
    assert found.fixes == (SORTED,)
    assert found.reference == problem.reference_code  # the original, as before
    assert "data = np.sort(data)" in found.new_reference
    assert "data.sort()" not in found.new_reference
    assert found.new_context == problem.code_context  # the tests were not touched
    assert found.to_dict()["fixes"][0]["broke_in"] == "pandas 3.0.0"


def test_a_fix_of_the_test_rebuilds_the_context(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    fix = _fix("test", "task_func([3, 1, 2])", "task_func(list((3, 1, 2)))")
    found = propose(problem, BROKE, load_catalogue(), fixes=[fix])
    assert found.verdict == PROPOSED
    assert "task_func(list((3, 1, 2)))" in str(bigcodebench.tests_of(found.new_context))


def test_every_field_of_the_release_follows_the_fix(tmp_path: Path) -> None:
    row = _row()
    prose = _fix("complete_prompt", '"""The largest value."""', '"""The largest value, sorted."""')
    found = propose(_problem(tmp_path, row), BROKE, load_catalogue(), fixes=[SORTED, prose])
    fields = release.task_fields(row, found)
    assert fields["canonical_solution"] == SOLUTION.replace("data.sort()", "data = np.sort(data)")
    assert "The largest value, sorted." in str(fields["complete_prompt"])
    assert "test" not in fields and "code_prompt" not in fields


def test_an_import_a_fix_drops_leaves_every_prompt_libs_and_requires(tmp_path: Path) -> None:
    """BigCodeBench/272: ``cgi`` is gone from Python 3.13, and with its use its import."""
    prompt = "import cgi\n" + PROMPT
    row = {
        **_row(),
        "code_prompt": prompt,
        "complete_prompt": prompt + '    """The largest value."""\n',
        "instruct_prompt": f"The largest value.\n```\n{prompt}```",
        "libs": "['cgi', 'numpy']",
    }
    problem = _problem(tmp_path, row)
    assert "cgi" in problem.requires
    drop = _fix("code_prompt", "import cgi\nimport numpy", "import numpy")
    assert "cgi" not in fixes.apply(problem, [drop]).requires
    found = propose(problem, BROKE, load_catalogue(), fixes=[drop, SORTED])
    fields = release.task_fields(row, found)
    assert fields["code_prompt"] == PROMPT
    assert str(fields["complete_prompt"]).startswith(PROMPT)
    assert "import cgi" not in str(fields["instruct_prompt"])
    assert fields["libs"] == "['numpy']"


# -- refused ------------------------------------------------------------------------------


def test_a_fix_whose_text_is_gone_is_refused_naming_file_task_and_field(tmp_path: Path) -> None:
    stale = _fix("canonical_solution", "    data.sort(kind='stable')\n", "    pass\n")
    with pytest.raises(FixError) as raised:
        propose(_problem(tmp_path), BROKE, load_catalogue(), fixes=[stale])
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("fixes.toml: BigCodeBench/7 canonical_solution:")
    assert "is no longer there" in message


def test_a_fix_whose_text_is_there_twice_is_refused(tmp_path: Path) -> None:
    twice = _fix("test", "self.assert", "self.assert")
    with pytest.raises(FixError, match="is there 2 times, not once"):
        fixes.edit(TESTS, dataclasses.replace(twice, new="self.check"))


def test_a_hand_fix_that_loosens_the_test_is_refused(tmp_path: Path) -> None:
    problem = _problem(tmp_path)
    dropped = _fix(
        "test",
        "        self.assertEqual(task_func([3, 1, 2]), 3)\n",
        "        task_func([3, 1, 2])\n",
    )
    found = propose(problem, BROKE, load_catalogue(), fixes=[dropped])
    assert found.verdict == NEEDS_HUMAN
    assert "would check less: 1 fewer assertEqual" in found.reason
    # a tolerance dropped is refused alike
    wider = _fix("test", ", places=6)", ")")
    found = propose(problem, BROKE, load_catalogue(), fixes=[wider])
    assert found.verdict == NEEDS_HUMAN
    assert "places=6" in found.reason


def test_a_fix_that_changes_the_tests_numbers_is_refused_when_loaded(tmp_path: Path) -> None:
    path = _write(
        tmp_path, FIX_TOML.format(field="test", old="places=6)", new="places=6, delta=0.5)")
    )
    with pytest.raises(FixError, match=r"BigCodeBench/7 test: the fix changes the test's numbers"):
        fixes.load(path)
    assert fixes.numbers_changed("f(1, 2.5)", "f(1, 2.5)") == ""
    assert fixes.numbers_changed("x == 3", "x == 4") == "3 dropped, 4 added"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (FIX_TOML.format(field="tests", old="a", new="b"), "not a field a fix edits"),
        (FIX_TOML.format(field="test", old="a", new="a"), "old and new are the same text"),
        (FIX_TOML.replace('why = "why"\n', ""), r"fixes.toml:2: fix\[0\].why: missing or empty"),
        (
            FIX_TOML.format(field="test", old="a", new="b") + "extra = 1\n",
            r"fix\[0\].extra: unknown key",
        ),
    ],
)
def test_a_fix_file_is_checked_when_loaded(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ProblemError, match=message):
        fixes.load(_write(tmp_path, body))


# -- told -----------------------------------------------------------------------------------


def test_the_changelog_says_a_task_was_hand_fixed_why_and_which_release() -> None:
    row = Row(
        "bcb/BigCodeBench/7",
        "verified",
        broke="old → new: ValueError: sort array is read-only",
        repaired={"old": "pass", "new": "pass"},
        hand_fixed=("canonical_solution",),
    )
    text = release.changelog(
        "bcb",
        [row],
        {"BigCodeBench/7": ["canonical_solution"]},
        {},
        {},
        hand={"BigCodeBench/7": [SORTED]},
    )
    assert "- **BigCodeBench/7** (hand-fixed): `canonical_solution` rewritten by hand." in text
    assert (
        "  `canonical_solution`: a copy of its own is sorted. Broke in: pandas 3.0.0 "
        "(https://example.org/notes)." in text
    )
    assert "verified: passes in old, new." in text
    assert Row.from_dict(row.to_dict(), "f", "rows[0]").hand_fixed == ("canonical_solution",)


# -- the shipped fixes ------------------------------------------------------------------------

PUBLISHED = ROOT.parent / "shared" / "data" / "bigcodebench" / "BigCodeBench-v0.1.5.jsonl.gz"


def test_the_shipped_fixes_load_and_each_says_why_and_which_release() -> None:
    shipped = fixes.load()
    tasks = fixes.by_task(shipped)
    assert len(tasks) >= 15
    for fix in shipped:
        assert fix.notes.startswith("https://"), fix.task
        library, _, version = fix.broke_in.partition(" ")
        assert library and version[:1].isdigit(), fix.task


@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/bigcodebench")
def test_every_shipped_fix_finds_its_text_once_in_the_published_task() -> None:
    tasks = fixes.by_task(fixes.load())
    with gzip.open(PUBLISHED, "rt", encoding="utf-8") as fh:
        rows = {r["task_id"]: r for r in map(json.loads, fh) if r["task_id"] in tasks}
    assert set(rows) == set(tasks)
    for task, own in tasks.items():
        fixed = fixes.apply_row(rows[task], own)
        assert fixed != rows[task]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # upstream's "\d" in plain strings
            ast.parse(str(fixed["code_prompt"]) + str(fixed["canonical_solution"]))
            ast.parse(str(fixed["test"]))


# -- a real run -------------------------------------------------------------------------------

# tasks whose fixed solution needs only the five libraries: pandas 3's copy-on-write (#201),
# scikit-learn 1.4's KMeans default (#699), NumPy 2.1's 0-d nonzero in scikit-learn (#1084),
# SciPy 1.9's NaN skewness of identical values (#276), NumPy 2's overflow and pandas 3's
# resolution in a date range (#495), pandas 3's fillna without downcasting (#46), SciPy 1.11's
# mode of strings (#634), SciPy 1.16's NaN correlation of one point (#91), Matplotlib 3.11's
# order of pie texts (#112), pandas 3's `str` columns in a test's expected frame (#225) and
# in a frame with missing text (#875)
REAL = (
    "BigCodeBench/201",
    "BigCodeBench/699",
    "BigCodeBench/1084",
    "BigCodeBench/276",
    "BigCodeBench/495",
    "BigCodeBench/46",
    "BigCodeBench/634",
    "BigCodeBench/91",
    "BigCodeBench/112",
    "BigCodeBench/225",
    "BigCodeBench/875",
)
MATRIX = """
[matrix]
baseline = "bcb-era"
timeout = 240

[combos.bcb-era]
python = "3.10"
as_of = 2024-06-01
numpy = "1.21.2"
pandas = "2.0.3"
scipy = "1.7.2"
scikit-learn = "1.3.1"
matplotlib = "3.7.0"

[combos.newest]
python = "3.13"
numpy = "latest"
pandas = "latest"
scipy = "latest"
scikit-learn = "latest"
matplotlib = "latest"
"""


@pytest.mark.slow
@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/bigcodebench")
def test_the_fixed_tasks_pass_where_the_published_ones_break(tmp_path: Path) -> None:
    tasks = fixes.by_task(fixes.load())
    with gzip.open(PUBLISHED, "rt", encoding="utf-8") as fh:
        rows = [r for r in map(json.loads, fh) if r["task_id"] in REAL]
    published = tmp_path / "published" / "bcb.jsonl"
    fixed = tmp_path / "fixed" / "bcb.jsonl"
    for path, lines in (
        (published, rows),
        (fixed, [fixes.apply_row(r, tasks[r["task_id"]]) for r in rows]),
    ):
        path.parent.mkdir()
        path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    (tmp_path / "matrix.toml").write_text(MATRIX, encoding="utf-8")
    env_root = os.environ.get("HARNESS_ENV_DIR", str(ROOT / ".harness" / "envs"))
    statuses = {}
    for name, path in (("published", published), ("fixed", fixed)):
        job = planning.plan(
            RunRequest(matrix=str(tmp_path / "matrix.toml"), problems=(str(path),)),
            results=tmp_path / "results",
            env_root=(ROOT / env_root).absolute(),
            run_id=name,
            jobs=2,
        )
        app_run.run(job, QuietReporter())
        for o in job.run_dir.read_all():
            if o.source == "reference":
                statuses[(name, o.problem_id.partition("/")[2], o.combo)] = o.status.value
    for task in REAL:
        assert statuses[("published", task, "bcb-era")] == "pass", task
        assert statuses[("published", task, "newest")] != "pass", task
        assert statuses[("fixed", task, "bcb-era")] == "pass", task
        assert statuses[("fixed", task, "newest")] == "pass", task


def test_the_tasks_left_as_they_are_each_say_why(tmp_path: Path) -> None:
    unfixed = fixes.load_unfixed()
    fixed = fixes.by_task(fixes.load())
    # the 27 that needed a human, and 7 the whole release's run found (docs/benchmarks/drift-and-repairs.md): 32 fixed, 2 left
    assert len(unfixed) + len(fixed) == 34
    assert sorted(unfixed) == ["BigCodeBench/883", "BigCodeBench/894"]
    assert not set(unfixed) & set(fixed)
    assert all(len(why) > 40 for why in unfixed.values())
    bad = _write(tmp_path, '[[unfixed]]\ntask = "BigCodeBench/7"\n')
    with pytest.raises(ProblemError, match=r"unfixed\[0\]: expected a table of task and why"):
        fixes.load_unfixed(bad)


def test_the_release_validity_says_a_task_was_hand_fixed(tmp_path: Path) -> None:
    found = propose(_problem(tmp_path), BROKE, load_catalogue(), fixes=[SORTED])
    row = Row(found.problem_id, "verified", repaired={"old": "pass", "new": "pass"})
    record = repair_record(row, found)
    assert record["verdict"] == "verified"
    assert record["by"] == "hand fix"
    assert record["hand_fixed"] == [
        {
            "field": "canonical_solution",
            "why": "a copy of its own is sorted",
            "broke_in": "pandas 3.0.0",
            "notes": "https://example.org/notes",
        }
    ]
    by_codemods = repair_record(dataclasses.replace(row, codemods=("x",)), None)
    assert by_codemods["by"] == "codemods" and "hand_fixed" not in by_codemods
