"""validate-problems: the checks on a fake lab, the table, and a sample in real environments."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from packaging.version import Version

from harness.core.errors import UsageError
from harness.core.problem import Change, Problem
from harness.execute.runner import RunOptions
from harness.labs import lab as lab_mod
from harness.labs import validate
from harness.problems import sets as problemsets
from tests.conftest import ROOT, run_harness
from tests.test_bisection import FakeLab

PROBLEM = Problem(
    "problems/pandas/append",
    "pandas/append",
    "problems",
    "pandas",
    "",
    "result = pd.concat(...)",
    "def test_execution(s):\n    pass\n",
    idioms={"old": "result = df.append(x)"},
    change=Change(
        "removal", "pandas.DataFrame.append", "pandas.concat", "1.4.0", "2.0.0", "https://x"
    ),
    requires=("pandas",),
)
RELEASES = ["1.4.4", "1.5.3", "2.0.0", "2.0.3", "2.1.4", "2.2.3", "3.0.0"]


class Facts(validate.ReleaseFacts):
    def __init__(self) -> None:
        super().__init__(None, ["3.10", "3.11"])  # type: ignore[arg-type]

    def on(self, package: str, python: str) -> list[str]:
        return RELEASES if package == "pandas" else ["1.26.4", "2.1.3"]

    def uploaded(self, package: str, version: str) -> dt.date | None:
        return dt.date(2023, 1, 1)


def fails_from(release: str) -> FakeLab:
    """A lab where the old idiom fails from ``release`` on and the reference always passes."""
    return FakeLab(
        fails=lambda versions: Version(versions["pandas"]) >= Version(release),
        reference_passes=True,
    )


def run(problem: Problem, lab: FakeLab) -> validate.Check:
    (check,) = lab_mod.drive(lab, [validate.validate(problem, Facts())])
    return check


def test_a_problem_that_holds() -> None:
    check = run(PROBLEM, fails_from("2.0.0"))
    assert (check.ok, check.expected, check.observed) == (True, "2.0.0", "2.0.0")


def test_a_problem_whose_metadata_is_wrong() -> None:
    check = run(PROBLEM, fails_from("2.1.4"))
    # the metadata says 2.0.0, but the old idiom passes up to 2.0.3: bisection finds 2.1.4
    assert (check.ok, check.observed) == (False, "2.1.4")


def test_without_change_metadata() -> None:
    bare = Problem("p/x", "x", "p", "pandas", "", "r", "def test_execution(s):\n    pass\n")
    check = run(bare, fails_from("2.0.0"))
    assert not check.ok
    assert check.notes == "needs a [change] table and an old idiom to validate"


def test_table_and_readme(tmp_path: Path) -> None:
    checks = [
        validate.Check("problems/pandas/a", "pandas", "`a` → `b`", "2.0.0", "2.0.0", True),
        validate.Check(
            "problems/numpy/b", "numpy", "x → y", "2.0.0", "2.1.0", False, "first | bad"
        ),
    ]
    block = validate.table(checks, "2026-11-29", "harness validate-problems")
    assert "**1 of 2 problems hold**" in block
    assert (
        "| `problems/numpy/b` | numpy | `x → y` | 2.0.0 | 2.1.0 | **no** | first \\| bad |" in block
    )
    readme = "# Problems\n\ntext\n"
    once = validate.write_table(readme, block)
    twice = validate.write_table(once, block)
    assert once == twice
    assert once.startswith("# Problems\n\ntext\n\n## Validation\n\n<!-- validation:start -->")


def test_what_validate_problems_prints_and_writes(tmp_path: Path) -> None:
    held = validate.Check("problems/pandas/a", "pandas", "a → b", "2.0.0", "2.0.0", True)
    broke = validate.Check("problems/numpy/b", "numpy", "x → y", "2.0.0", "2.1.0", False, "why")
    result = validate.Validation((held, broke), envs_built=3)
    assert (result.held, result.ok) == (1, False)
    assert result.lines() == [
        "ok   problems/pandas/a: expected 2.0.0, observed 2.0.0",
        "FAIL problems/numpy/b: expected 2.0.0, observed 2.1.0 (why)",
        "1 of 2 problems hold (3 environments)",
    ]
    result.save_json(tmp_path / "checks.json")
    assert json.loads((tmp_path / "checks.json").read_text()) == [
        held.to_dict(),
        broke.to_dict(),
    ]
    readme = tmp_path / "README.md"
    readme.write_text("# Problems\n", encoding="utf-8")
    result.save_table(readme, "harness validate-problems --sample 1")
    text = readme.read_text(encoding="utf-8")
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert f"Validated {today} with `harness validate-problems --sample 1`: **1 of 2" in text


def test_checking_nothing_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^harness: no problems selected$"):
        validate.check_problems([PROBLEM], tmp_path, libraries=["numpy"], options=RunOptions())


def test_sample_takes_the_first_of_each_library() -> None:
    suite = problemsets.load_problems([ROOT / "problems"])
    picked = validate.sample(suite, 1)
    assert len({p.library for p in picked}) == len(picked)
    assert {p.library for p in picked} == {p.library for p in suite}


def test_standard_library_imports_are_not_companions() -> None:
    loaded = problemsets.load_problems([ROOT / "problems"])
    table = next(p for p in loaded if p.id == "problems/pandas/whitespace-table")
    assert "io" in table.requires
    companions = validate.companions(table, "pandas")
    assert "io" not in companions
    assert "numpy" in companions


# One problem of each library, validated in real environments (the whole suite is
# `nox -s validate-problems`): the cheapest of each, by the trials a full run needed.
SAMPLE = (
    "problems/numpy/stack-rows",
    "problems/pandas/cell-lengths",
    "problems/scipy/spherical-harmonic",
    "problems/scikit-learn/multinomial-logistic",
    "problems/matplotlib/horizontal-violins",
    "problems/torch/attention-math-backend",
    "problems/tensorflow/cosine-decay-schedule",
)


@pytest.mark.network
def test_one_problem_per_library_holds_in_real_environments(tmp_path: Path) -> None:
    assert {p.split("/")[1] for p in SAMPLE} == {
        "numpy", "pandas", "scipy", "scikit-learn", "matplotlib", "torch", "tensorflow"
    }  # fmt: skip
    report = tmp_path / "validation.json"
    args = [a for p in SAMPLE for a in ("--problem-id", p)]
    proc = run_harness(
        "validate-problems", *args, "--span", "near", "-j", "2", "--json", str(report),
        cwd=ROOT, check=False, timeout=3000,
    )  # fmt: skip
    checks = json.loads(report.read_text()) if report.exists() else []
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    assert {c["problem_id"]: c["ok"] for c in checks} == dict.fromkeys(SAMPLE, True)
