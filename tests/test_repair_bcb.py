"""Repairing BigCodeBench tasks in every field: the tests, the signature's defaults, the
prose that names the API; the check that a repaired test is never looser; the repaired
release in upstream's schema, and its changelog."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from harness.analysis.repairs import Row
from harness.analysis.staleness import load_catalogue
from harness.benchmarks.bigcodebench import load as bigcodebench
from harness.benchmarks.bigcodebench import release
from harness.labs.repair import apply
from harness.labs.repair.outputs import write_dataset
from harness.labs.repair.plan import NEEDS_HUMAN, PROPOSED, Break, propose, weaker
from harness.labs.repair.strength import loosened
from harness.problems import sets as problemsets

if TYPE_CHECKING:
    from pathlib import Path

    from harness.core.problem import Problem

# upstream's keys (BigCodeBench v0.1.x), in its order
UPSTREAM = (
    "task_id",
    "complete_prompt",
    "instruct_prompt",
    "canonical_solution",
    "code_prompt",
    "test",
    "entry_point",
    "doc_struct",
    "libs",
)

PROMPT = "import pandas as pd\ndef task_func(start_date='2016-01-01', periods=13, freq='M'):\n"
DOC = (
    '    """\n    Sales over a date range.\n\n    Parameters:\n'
    "    - freq (str): the frequency, e.g. 'M' for month ends.\n\n"
    "    Examples:\n    >>> task_func('2021-01-01', 3, 'M')\n    \"\"\"\n"
)
SOLUTION = (
    "    index = pd.date_range(start=start_date, periods=periods, freq=freq)\n"
    "    return pd.Series(range(periods), index=index)\n"
)
TESTS = """import unittest
class TestCases(unittest.TestCase):
    def test_default(self):
        self.assertEquals(len(task_func()), 13)
    def test_monthly(self):
        s = task_func('2021-01-01', 3, 'M')
        self.assertAlmostEquals(float(s.sum()), 3.0, places=6)
"""


def _row(n: int = 1) -> dict[str, object]:
    return {
        "task_id": f"BigCodeBench/{n}",
        "complete_prompt": PROMPT + DOC,
        "instruct_prompt": "Sales over a date range.\nYou should write self-contained code "
        f"starting with:\n```\n{PROMPT}```",
        "canonical_solution": SOLUTION,
        "code_prompt": PROMPT,
        "test": TESTS,
        "entry_point": "task_func",
        "doc_struct": json.dumps({"params": ["freq (str): the frequency, e.g. 'M' for months."]}),
        "libs": "['pandas']",
    }


def _load(tmp_path: Path, rows: list[dict[str, object]]) -> tuple[Path, list[Problem]]:
    data = tmp_path / "bcb.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return data, problemsets.load_problems([data])


BROKE = Break(
    "drifted", "bcb-numpy2", "latest", "", "", "pandas", "ValueError: Invalid frequency: M"
)


# -- the check is never looser -----------------------------------------------------------


def test_renaming_an_alias_checks_the_same() -> None:
    before = "self.assertAlmostEquals(a, b, places=3)\nself.assertEquals(x, y)\nassert z\n"
    after = "self.assertAlmostEqual(a, b, places=3)\nself.assertEqual(x, y)\nassert z\n"
    assert loosened(before, after) == ""
    subset = "self.assertDictContainsSubset(s, d)\n"
    assert loosened(subset, "self.assertEqual(d, {**d, **s})\n") == ""


@pytest.mark.parametrize(
    ("after", "lost"),
    [
        ("self.assertEqual(x, y)\n", "1 fewer assertAlmostEqual"),
        ("self.assertAlmostEqual(a, b, places=1)\nself.assertEqual(x, y)\n", "places=3"),
        ("self.assertAlmostEqual(a, b)\nself.assertEqual(x, y)\n", "places=3"),
        ("self.assertAlmostEqual(a, b, places=3)\n", "1 fewer assertEqual"),
    ],
)
def test_a_dropped_assertion_or_a_wider_tolerance_is_named(after: str, lost: str) -> None:
    before = "self.assertAlmostEqual(a, b, places=3)\nself.assertEqual(x, y)\n"
    assert lost in loosened(before, after)


def test_a_tighter_tolerance_is_not_looser() -> None:
    before = "np.testing.assert_allclose(a, b, rtol=1e-3)\nself.assertAlmostEqual(a, b, places=2)\n"
    after = "np.testing.assert_allclose(a, b, rtol=1e-5)\nself.assertAlmostEqual(a, b, places=4)\n"
    assert loosened(before, after) == ""
    assert "rtol" in loosened(after, before)


def test_a_test_that_does_not_parse_is_refused() -> None:
    assert loosened("assert x\n", "assert (\n").startswith("the test does not parse")


# -- every field of the task ---------------------------------------------------------------


def test_the_tests_and_the_signature_are_rewritten_and_the_context_rebuilt(
    tmp_path: Path,
) -> None:
    _, (problem,) = _load(tmp_path, [_row()])
    found = propose(problem, BROKE, load_catalogue())
    assert found.verdict == PROPOSED
    assert set(found.codemods) == {"pandas-freq-aliases", "unittest-removed-aliases"}
    assert "freq='ME'):" in found.new_reference
    tests = bigcodebench.tests_of(found.new_context)
    assert tests is not None
    assert "task_func('2021-01-01', 3, 'ME')" in tests
    assert "self.assertEqual(len(task_func()), 13)" in tests
    assert "self.assertAlmostEqual(float(s.sum()), 3.0, places=6)" in tests
    assert bigcodebench.tests_of(problem.code_context) == TESTS  # the original, as read


def test_a_rewrite_that_would_check_less_is_refused(tmp_path: Path) -> None:
    _, (problem,) = _load(tmp_path, [_row()])
    looser = TESTS.replace("places=6", "places=1")
    context = bigcodebench.context_of(looser, PROMPT, "task_func")
    assert "places=6" in weaker(problem, context)
    assert weaker(problem, problem.code_context) == ""


def test_a_task_no_codemod_reaches_needs_a_human(tmp_path: Path) -> None:
    tests = TESTS.replace("Equals", "Equal").replace("'M'", "'D'")
    row = {**_row(), "test": tests, "code_prompt": PROMPT.replace("'M'", "'D'")}
    _, (problem,) = _load(tmp_path, [row])
    found = propose(problem, BROKE, load_catalogue())
    assert found.verdict == NEEDS_HUMAN


def test_the_prose_follows_the_code(tmp_path: Path) -> None:
    row = _row()
    _, (problem,) = _load(tmp_path, [row])
    fields = release.task_fields(row, propose(problem, BROKE, load_catalogue()))
    assert set(fields) <= set(UPSTREAM)
    assert fields["code_prompt"] == PROMPT.replace("'M'", "'ME'")
    assert "canonical_solution" not in fields  # the body did not change
    assert "self.assertEqual(" in str(fields["test"])
    complete = str(fields["complete_prompt"])
    assert "freq='ME'):" in complete
    assert "e.g. 'ME' for month ends" in complete
    assert ">>> task_func('2021-01-01', 3, 'ME')" in complete
    assert PROMPT.replace("'M'", "'ME'") in str(fields["instruct_prompt"])
    assert "'ME' for months" in json.loads(str(fields["doc_struct"]))["params"][0]
    assert "- freq (str): the frequency" in complete  # still a string


def test_in_upstreams_pinned_pandas_the_portable_form_is_written_in_every_field(
    tmp_path: Path,
) -> None:
    """When the oldest combo the repair must hold in has pandas 2.0 ('ME' is 2.2's), the
    frequency is the offset both read: in the signature, the tests and the prose."""
    row = _row()
    _, (problem,) = _load(tmp_path, [row])
    found = propose(problem, BROKE, load_catalogue(), {"pandas": "2.0.3", "numpy": "1.21.2"})
    assert found.portable == ("pandas-freq-aliases",)
    assert found.to_dict()["portable"] == ["pandas-freq-aliases"]
    month_end = "pd.offsets.MonthEnd()"
    assert f"freq={month_end}):" in found.new_reference
    assert f"task_func('2021-01-01', 3, {month_end})" in str(
        bigcodebench.tests_of(found.new_context)
    )
    fields = release.task_fields(row, found)
    assert fields["code_prompt"] == PROMPT.replace("'M'", month_end)
    complete = str(fields["complete_prompt"])
    # the parameter is documented as what it now takes
    assert (
        f"- freq (str or pd.DateOffset): the frequency, e.g. {month_end} for month ends" in complete
    )
    assert f">>> task_func('2021-01-01', 3, {month_end})" in complete
    doc = json.loads(str(fields["doc_struct"]))["params"][0]
    assert doc == f"freq (str or pd.DateOffset): the frequency, e.g. {month_end} for months."
    # from pandas 2.2 on, the new alias
    newer = propose(problem, BROKE, load_catalogue(), {"pandas": "2.2.3"})
    assert newer.portable == ()
    assert "freq='ME'):" in newer.new_reference


def test_a_string_replaced_by_an_expression_is_renamed_to_its_text() -> None:
    before = "def f(freq='M'):\n    pass\nf('2020', 'M')\nf('2021', 'M', 3)\n"
    after = before.replace("'M'", "pd.offsets.MonthEnd()")
    assert release.renamed_words(before, after) == {"'M'": "pd.offsets.MonthEnd()"}
    # rewrites that are no rename of one word give none
    assert release.renamed_words("df.applymap(f)\n", "df.apply(lambda col: col.map(f))\n") == {}


def test_renamed_words_are_one_for_one() -> None:
    before = "df.applymap(f)\nx = 'M'\ny = 'M'\n"
    assert release.renamed_words(before, "df.map(f)\nx = 'ME'\ny = 'ME'\n") == {
        "applymap": "map",
        "'M'": "'ME'",
    }
    # the same word replaced by two different ones is no rename
    assert release.renamed_words("a = 'M'\nb = 'M'\n", "a = 'ME'\nb = 'MS'\n") == {}


# -- the release -------------------------------------------------------------------------------


def test_the_repaired_release_keeps_upstreams_schema_and_loads(tmp_path: Path) -> None:
    rows = [_row(1), _row(2)]
    data, problems = _load(tmp_path, rows)
    one = problems[0]
    proposal = propose(one, BROKE, load_catalogue())
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    changed: dict[str, list[str]] = {}
    code = {one.id: (proposal.new_reference, proposal.new_context)}
    validity = {one.id: {"class": "drifted", "repair": {"verdict": "verified"}}}
    out = write_dataset(str(data), code, problems, out_dir, validity, {one.id: proposal}, changed)
    assert out is not None
    written = [json.loads(line) for line in out.read_text().splitlines()]
    for row in written:
        assert [k for k in row if k != "validity"] == list(UPSTREAM)
    assert written[0]["validity"]["repair"] == {"verdict": "verified"}
    assert written[1] == rows[1]  # an unrepaired task is as it was
    assert sorted(changed["BigCodeBench/1"]) == sorted(
        ["code_prompt", "test", "complete_prompt", "instruct_prompt", "doc_struct"]
    )
    reloaded = {p.id: p for p in problemsets.load_problems([out])}
    assert set(reloaded) == {p.id for p in problems}
    again = reloaded[one.id]
    assert again.reference_code == proposal.new_reference
    assert bigcodebench.tests_of(again.code_context) == bigcodebench.tests_of(proposal.new_context)


def test_the_changelog_says_what_why_and_which_release() -> None:
    rows = [
        Row(
            "bcb/BigCodeBench/1",
            "verified",
            codemods=("pandas-freq-aliases",),
            broke="bcb-numpy2 → latest: ValueError: Invalid frequency: M",
            repaired={"bigcodebench": "pass", "latest": "pass"},
        ),
        Row(
            "bcb/BigCodeBench/3",
            "version-conditioned",
            "the repair fails in old: one branch per range (the repaired code from pandas 2.2 on)",
            codemods=("pandas-applymap-to-map",),
            broke="new → latest: AttributeError: 'DataFrame' object has no attribute 'applymap'",
            repaired={"old": "pass", "latest": "pass"},
        ),
        Row(
            "bcb/BigCodeBench/2",
            "needs-human",
            "no codemod applies to AssertionError",
            broke="bigcodebench → latest: AssertionError: 3 != 4",
        ),
    ]
    versions = {"bcb-numpy2": {"pandas": "2.2.3"}, "latest": {"pandas": "3.0.2"}}
    changed = {"BigCodeBench/1": ["code_prompt", "test"], "BigCodeBench/3": ["canonical_solution"]}
    text = release.changelog("bcb", rows, changed, {}, versions)
    assert "**BigCodeBench/1**: `code_prompt`, `test` rewritten by pandas-freq-aliases." in text
    assert "Why: `ValueError: Invalid frequency: M`" in text
    assert "between the combos bcb-numpy2 and latest (pandas 2.2.3 → 3.0.2)" in text
    assert "passes in bigcodebench, latest" in text
    assert "- BigCodeBench/2 (needs-human): no codemod applies to AssertionError." in text
    assert "as written it holds from the release the split names" in text
    assert "(the repaired code from pandas 2.2 on)" in text
    # a codemod written in its portable form says so
    portable = {"bcb/BigCodeBench/1": ("pandas-freq-aliases",)}
    text = release.changelog("bcb", rows, changed, {}, versions, portable)
    assert (
        "rewritten by pandas-freq-aliases (its portable form: it runs before the new API too)."
        in text
    )


def test_an_import_the_repair_adds_reaches_every_prompt_and_libs(tmp_path: Path) -> None:
    """BigCodeBench/245: the mode's rewrite needs NumPy, which the task did not import."""
    prompt = "import random\nfrom scipy import stats\ndef task_func(n=10):\n"
    row = {
        **_row(),
        "code_prompt": prompt,
        "complete_prompt": prompt.replace("def", "\ndef") + '    """Mode."""\n',
        "instruct_prompt": f"Mode.\n```\n{prompt}```",
        "canonical_solution": "    return stats.mode([random.random() for _ in range(n)])[0][0]\n",
        "test": TESTS.replace("Equals", "Equal"),
        "libs": "['random', 'scipy']",
    }
    _, (problem,) = _load(tmp_path, [row])
    broke = Break(
        "drifted", "a", "b", "", "", "scipy", "IndexError: invalid index to scalar variable."
    )
    fields = release.task_fields(row, propose(problem, broke, load_catalogue()))
    assert "import numpy as np" in str(fields["code_prompt"])
    assert "from scipy import stats\nimport numpy as np\n\ndef task_func(n=10):" in str(
        fields["complete_prompt"]
    )
    assert "from scipy import stats\nimport numpy as np\ndef task_func(n=10):" in str(
        fields["instruct_prompt"]
    )
    assert fields["libs"] == "['random', 'scipy', 'numpy']"
    assert fields["canonical_solution"] == (
        "    return np.atleast_1d(stats.mode([random.random() for _ in range(n)])[0])[0]\n"
    )


def test_an_import_a_test_rewrite_needs_goes_into_the_test() -> None:
    """BigCodeBench/501: the test reads the JSON as the solution does."""
    solution = "import pandas as pd\ndef task_func(s):\n    return pd.read_json(s)\n"
    tests = "import unittest\nimport pandas as pd\nexpected = pd.read_json(json_str)\n"
    rewrite = apply(tests, ["pandas-read-json-literal"], after=solution)
    assert rewrite.source == (
        "import io\nimport unittest\nimport pandas as pd\n"
        "expected = pd.read_json(io.StringIO(json_str))\n"
    )
