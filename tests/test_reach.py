"""How far a problem reaches over its library's releases, against a fake lab."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.version import Version

from harness.analysis import ranges
from harness.analysis.ranges import Reach, classify, share_untested
from harness.core.problem import REFERENCE, Problem, Solution
from harness.core.results import Outcome, Status
from harness.envs.build import EnvInfo
from harness.execute.runner import Execution
from harness.labs import lab as lab_mod
from harness.labs import reach
from harness.labs.lab import Answer, Need
from harness.reports import reach as reach_report
from tests.conftest import ROOT, run_harness

SCIPY = ["1.7.3", "1.8.0", "1.8.1", "1.9.3", "1.10.1", "1.11.4", "1.12.0", "1.13.1", "1.14.1"]
EXECUTION = Execution(
    Problem("gitchameleon/8", "8", "gitchameleon", "scipy", "", "x = 1", ""),
    Solution("gitchameleon/8", REFERENCE, "x = 1"),
)


@dataclass
class Lab:
    """Answers every need by ``passes(version of scipy, python)``."""

    passes: Callable[[str, str], bool]
    installs: Callable[[str, str], bool] = lambda version, python: True
    asked: list[tuple[str, str]] = field(default_factory=list)

    def answer(self, needs: Sequence[Need]) -> list[Answer]:
        out = []
        for need in needs:
            version = dict(need.pins)["scipy"]
            self.asked.append((version, need.python))
            env = EnvInfo("lab", ok=self.installs(version, need.python), python=need.python)
            if not env.ok:
                out.append(Answer(env, None))
                continue
            status = Status.PASS if self.passes(version, need.python) else Status.ERROR
            out.append(Answer(env, Outcome("lab", "lab", "gitchameleon/8", REFERENCE, status)))
        return out


def releases(package: str, python: str) -> list[str]:
    # 1.14.1 has no wheel for 3.9; 1.15.0 (the newest) only for 3.11 and up
    found = [*SCIPY, "1.15.0rc1"] if python != "3.9" else SCIPY[:-1]
    return [*found, "1.15.0"] if Version(python) >= Version("3.11") else found


def run(lab: Lab, python: str = "3.10", pinned: str = "1.8.1") -> Reach:
    investigation = reach.investigate(
        EXECUTION, "scipy", pinned, python, {"numpy": "1.21.6"}, releases, "1.15.0"
    )
    (found,) = lab_mod.drive(lab, [investigation])
    return found


def between(low: str, high: str) -> Callable[[str, str], bool]:
    return lambda v, py: Version(low) <= Version(v) <= Version(high)


def test_a_range_around_its_release_is_version_specific() -> None:
    lab = Lab(between("1.8.0", "1.11.4"))
    found = run(lab)
    assert (found.lowest, found.below, found.highest, found.above) == (
        "1.8.0",
        "1.7.3",
        "1.11.4",
        "1.12.0",
    )
    assert (found.klass, found.oldest, found.today) == ("version-specific", "1.7.3", "1.15.0")
    # the pinned release, then each end, then bisection between: no release twice
    assert len(lab.asked) == len(set(lab.asked)) == found.trials


def test_working_on_older_releases_then_breaking() -> None:
    found = run(Lab(between("1.0", "1.12.0")))
    assert (found.lowest, found.below, found.highest, found.above) == (
        "1.7.3",
        None,
        "1.12.0",
        "1.13.1",
    )
    assert found.klass == "breaks later"


def test_from_its_release_to_today_on_a_newer_python() -> None:
    # the newest release has no wheel for 3.10: it is tried on the first Python that has one
    lab = Lab(between("1.8.1", "9"))
    found = run(lab)
    assert ("1.15.0", "3.11") in lab.asked
    assert (found.highest, found.above, found.klass) == ("1.15.0", None, "version-robust")
    assert found.note == "1.15.0 passes on Python 3.11"


def test_everywhere_tried_means_it_tests_no_version() -> None:
    found = run(Lab(lambda v, py: True))
    assert (found.lowest, found.highest, found.klass) == ("1.7.3", "1.15.0", "works everywhere")
    assert share_untested([found, run(Lab(between("1.8.0", "1.11.4")))]) == 0.5


def test_a_far_end_that_does_not_install_is_passed_over() -> None:
    lab = Lab(lambda v, py: True, installs=lambda v, py: v != "1.14.1")
    found = run(lab)
    assert found.highest == "1.15.0" and ("1.13.1", "3.10") in lab.asked


def test_its_own_release_failing_gives_no_class() -> None:
    found = run(Lab(lambda v, py: v != "1.8.1"))
    assert (found.klass, found.trials) == ("", 1)
    assert found.note.startswith("fails at its own release 1.8.1")


@pytest.mark.parametrize(
    ("lowest", "highest", "klass"),
    [
        ("1.8.0", "1.11.4", "version-specific"),
        ("1.7.3", "1.11.4", "breaks later"),
        ("1.8.1", "1.15.0", "version-robust"),
        ("1.7.3", "1.15.0", "works everywhere"),
    ],
)
def test_classes(lowest: str, highest: str, klass: str) -> None:
    assert classify("1.8.1", lowest, highest, "1.15.0") == klass


def test_the_table_counts_each_class_per_library() -> None:
    found = [run(Lab(between("1.8.0", "1.11.4"))), run(Lab(lambda v, py: True))]
    text = reach_report.markdown(found)
    assert "| scipy | 2 | 0 | 1 | 0 | 0 | 1 |" in text
    assert (
        "| `gitchameleon/8` | scipy | 1.8.1 | 3.10 | 1.8.0 (fails 1.7.3) … 1.11.4 (fails 1.12.0) | version-specific |"
        in text
    )


PUBLISHED = ROOT.parent / "shared" / "data" / "gitchameleon" / "gitchameleon-dataset.tar.gz"


@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/gitchameleon")
def test_a_real_range_lands_in_its_runs_reports(tmp_path: Path) -> None:
    """GitChameleon #71 (numpy 1.25.0): graded in its own env, then its reach measured
    into the same run directory, whose reports then show it."""
    results, problem = tmp_path / "results", "gitchameleon/71"
    run_harness(
        "run",
        "--own-envs",
        "--problems",
        str(PUBLISHED),
        "--problem-id",
        problem,
        "--results",
        str(results),
        "--run-id",
        "gc",
        "--no-history",
        "-j",
        "1",
        cwd=ROOT,
    )
    run_harness(
        "reach",
        "--problems",
        str(PUBLISHED),
        "--problem-id",
        problem,
        "--out",
        str(results / "gc"),
        "-j",
        "1",
        "-q",
        cwd=ROOT,
    )
    (found,) = json.loads((results / "gc" / "reach.json").read_text())
    assert (found["problem_id"], found["library"], found["pinned"]) == (problem, "numpy", "1.25.0")
    # np.round on a float array: every NumPy with a wheel for 3.10 (1.21.2 on), and the
    # newest on the first Python that has one
    assert (found["lowest"], found["below"]) == (found["oldest"], None)
    assert (found["highest"], found["above"]) == (found["today"], None)
    assert found["klass"] == "works everywhere" and found["trials"] >= 3
    assert Version(found["oldest"]) < Version("1.25.0") < Version(found["today"])
    md = (results / "gc" / "summary.md").read_text()
    assert "## How far each problem reaches (harness reach)" in md
    assert "| numpy | 1 | 0 | 0 | 0 | 0 | 1 |" in md
    page = (results / "gc" / "report.html").read_text()
    assert "How far each problem reaches" in page and '<div class="reach"><svg' in page


# -- where a model's answer works ---------------------------------------------------------

ANSWER = Execution(EXECUTION.problem, Solution("gitchameleon/8", "model:m", "x = 1"))


def run_answer(lab: Lab, pinned: str = "1.10.1") -> Reach:
    investigation = reach.investigate(
        ANSWER, "scipy", pinned, "3.10", {"numpy": "1.21.6"}, releases, "1.15.0"
    )
    (found,) = lab_mod.drive(lab, [investigation])
    return found


@pytest.mark.parametrize(
    ("works", "pinned", "lowest", "highest", "below", "above", "error"),
    [
        # passes at its own release: error 0, the range grown both ways
        (("1.9.3", "1.11.4"), "1.10.1", "1.9.3", "1.11.4", "1.8.1", "1.12.0", 0),
        # stale: written for older releases; the oldest end passes
        (("1.0", "1.8.1"), "1.10.1", "1.7.3", "1.8.1", None, "1.9.3", -2),
        # ahead: written for newer releases; the newest end passes
        (("1.13.1", "9"), "1.10.1", "1.13.1", "1.14.1", "1.12.0", None, 3),
        # a window in the middle of the newer side, found at its middle
        (("1.11.4", "1.12.0"), "1.8.1", "1.11.4", "1.12.0", "1.10.1", "1.13.1", 3),
        # a window in the middle of the older side
        (("1.8.1", "1.9.3"), "1.12.0", "1.8.1", "1.9.3", "1.8.0", "1.10.1", -3),
    ],
)
def test_where_an_answer_works_and_its_signed_error(
    works: tuple[str, str],
    pinned: str,
    lowest: str,
    highest: str,
    below: str | None,
    above: str | None,
    error: int,
) -> None:
    lab = Lab(between(*works))
    found = run_answer(lab, pinned)
    assert (found.lowest, found.highest, found.below, found.above) == (
        lowest,
        highest,
        below,
        above,
    )
    assert found.error == error
    assert found.passes_pinned is (error == 0)
    assert found.source == "model:m"
    assert len(lab.asked) == len(set(lab.asked)) == found.trials  # no release twice


def test_a_release_asked_for_in_short_is_the_release_itself() -> None:
    # GitChameleon asks for "pandas 2": it is 2.0.0, one release after 1.5.3, whatever
    # order a set would give two spellings of one version
    series = ["1.4.4", "1.5.3", "2.0.0", "2.0.1"]
    assert ranges.signed_error(series, "2", "1.4.4", "1.5.3") == -1
    assert ranges.signed_error(series, "2.0", "2.0.1", "2.0.1") == 1
    lab = Lab(between("1.0", "1.9"))
    investigation = reach.investigate(
        ANSWER, "scipy", "2", "3.10", {}, lambda p, py: series, "2.0.1"
    )
    (found,) = lab_mod.drive(lab, [investigation])
    assert (found.highest, found.above, found.error) == ("1.5.3", "2", -1)
    assert [v for v, _ in lab.asked].count("2") == 1  # asked once, as asked
    assert "2.0.0" not in [v for v, _ in lab.asked]


def test_an_answer_that_passes_nowhere_tried_has_no_range() -> None:
    lab = Lab(lambda v, py: False)
    found = run_answer(lab)
    assert (found.lowest, found.highest, found.error, found.ranged) == (None, None, None, False)
    assert found.note.startswith("fails at its own release 1.10.1")
    # its own release, each far end and each middle: four tries, then it gives up
    assert found.trials == 5


def test_the_days_an_answer_works_on() -> None:
    dated = Reach(
        "p", "scipy", "1.10.1", "3.10", lowest="1.8.0", highest="1.8.1", below="1.7.3",
        above="1.9.3", oldest="1.7.3", source="model:m", error=-2,
        dates={"1.8.0": "2022-02-05", "1.9.3": "2022-10-19"},
    )  # fmt: skip
    assert dated.works == (dt.date(2022, 2, 5), dt.date(2022, 10, 19))
    open_below = Reach(
        "p", "scipy", "1.10.1", "3.10", lowest="1.7.3", highest="1.8.1", oldest="1.7.3"
    )
    assert open_below.works == (None, None)
    assert Reach.from_dict(dated.to_dict()) == dated


@pytest.mark.network
def test_a_stale_answer_is_dated_before_the_change_it_missed(tmp_path: Path) -> None:
    """Our problem built around pandas 2.0's removal of DataFrame.append: a model that
    answers with ``append`` works up to pandas 1.5 (error -1), the reference from its
    own release on. One stale answer dates nothing (it shows no change, and one miss is
    no evidence beyond chance): the date says so, with its one informative answer and
    the newest change it met, pandas 2.0.0."""
    problem = "problems/pandas/append-rows"
    answers = tmp_path / "stale-answers.jsonl"
    answers.write_text(
        json.dumps(
            {"problem_id": problem, "code": "result = stock.append(arrivals, ignore_index=True)\n"}
        )
        + "\n"
    )
    out = tmp_path / "reach"
    run_harness(
        "reach", "--problems", "problems", "--problem-id", problem, "--answers", str(answers),
        "--no-idioms", "--out", str(out), "-j", "2", "-q", cwd=ROOT,
    )  # fmt: skip
    found = {r["source"]: r for r in json.loads((out / "reach.json").read_text())}
    stale, reference = found["model:stale"], found["reference"]
    assert (stale["pinned"], stale["above"], stale["error"]) == ("2.0.0", "2.0.0", -1)
    assert stale["passes_pinned"] is False and stale["highest"].startswith("1.5.")
    assert reference["error"] == 0 and reference["passes_pinned"] is True
    (known,) = json.loads((out / "knowledge.json").read_text())
    assert known["source"] == "model:stale" and known["stale"] == 1.0
    dating = known["dating"]
    assert (dating["kind"], dating["informative"], dating["shown"]) == ("undated", 1, 0)
    assert dating["ceiling"] == stale["dates"]["2.0.0"]
    text = (out / "reach.md").read_text()
    assert "`stale`: 100% of its answers are written for older releases than asked" in text


def test_an_answer_is_looked_for_past_releases_that_do_not_install() -> None:
    # the old side's far end and middle do not install beside the held pins (SciPy 1.11
    # beside NumPy 2): the answer is looked for on the releases in from them, which do
    lab = Lab(between("1.7.3", "1.9.3"), installs=lambda v, py: Version(v) >= Version("1.9.3"))
    found = run_answer(lab, "1.12.0")
    assert (found.lowest, found.highest, found.above, found.error) == (
        "1.9.3",
        "1.9.3",
        "1.10.1",
        -3,
    )


# Answers to GitChameleon in upstream's own shapes: a model's generations (prose around a
# fenced program) and an agent's results (``output``), ranged over their libraries' releases.
GENERATIONS = {
    # pandas 2 asked; DataFrame.append was removed in 2.0: stale, one release behind
    "65": "Frames can be appended:\n\n```python\nimport pandas as pd\n"
    "def combined(df1, df2, series1, series2):\n"
    "    return df1.append(df2, ignore_index=True), series1.append(series2, ignore_index=True)\n"
    "```\n\nThe frames come first.",
    # pandas 1.4 asked; concat works there and on: no error
    "63": "```python\nimport pandas as pd\ndef combined(df1, df2, series1, series2):\n"
    "    return pd.concat([df1, df2], ignore_index=True), "
    "pd.concat([series1, series2], ignore_index=True)\n```",
    # SciPy 1.8.1 asked; expm of a stack of matrices came in 1.9: ahead by one release
    "111": "```python\nfrom scipy import linalg\nimport numpy as np\n"
    "def compute_matrix_exponential(A):\n    return linalg.expm(A)\n```\nDone.",
}
AGENT = {"64": "import pandas as pd\ndef correct_type(index):\n    return str(index.dtype)\n"}


@pytest.mark.slow
@pytest.mark.network
@pytest.mark.skipif(not PUBLISHED.is_file(), reason="needs ../shared/data/gitchameleon")
def test_gitchameleon_answers_as_upstream_wrote_them_get_signed_errors(tmp_path: Path) -> None:
    generations, agent = tmp_path / "mymodel-generations.jsonl", tmp_path / "myagent.jsonl"
    generations.write_text(
        "".join(json.dumps({"example_id": i, "answer": a}) + "\n" for i, a in GENERATIONS.items())
    )
    agent.write_text(
        "".join(json.dumps({"example_id": i, "output": a}) + "\n" for i, a in AGENT.items())
    )
    ids = [arg for i in [*GENERATIONS, *AGENT] for arg in ("--problem-id", f"gitchameleon/{i}")]
    out = tmp_path / "reach"
    ran = run_harness(
        "reach", "--problems", str(PUBLISHED), *ids, "--answers", str(generations),
        "--answers", str(agent), "--out", str(out), "-j", "2", cwd=ROOT,
    )  # fmt: skip
    assert "GitChameleon generations (example_id + answer), 3 answers" in ran.stderr
    assert "GitChameleon agent results (example_id + output), 1 answers" in ran.stderr
    found = {
        (r["problem_id"].split("/")[1], r["source"]): r
        for r in json.loads((out / "reach.json").read_text())
    }
    errors = {key: r["error"] for key, r in found.items() if key[1] != "reference"}
    assert errors == {
        ("65", "model:mymodel-generations"): -1,
        ("63", "model:mymodel-generations"): 0,
        ("111", "model:mymodel-generations"): 1,
        ("64", "model:myagent"): 0,
    }
    stale = found[("65", "model:mymodel-generations")]
    # it fails at the release asked for (GitChameleon's "pandas 2") and works up to 1.5
    assert (stale["above"], stale["highest"][:4]) == ("2", "1.5.")
    ahead = found[("111", "model:mymodel-generations")]
    assert (ahead["below"], ahead["lowest"]) == ("1.8.1", "1.9.0")
    known = {k["source"]: k for k in json.loads((out / "knowledge.json").read_text())}
    model = known["model:mymodel-generations"]
    assert (model["stale"], model["ahead"], model["answers"]) == (1 / 3, 1 / 3, 3)
