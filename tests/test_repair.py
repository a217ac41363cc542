"""harness repair: proposals from a run's drift, the files written, and verification.

A synthetic run (two combos, three DS-1000 rows) stands in for a finished one; the
throwaway runs of verification are replaced by canned statuses except in the
network-marked end-to-end test, which repairs a real DS-1000 problem.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness import cli
from harness.analysis import repairs as table
from harness.analysis.staleness import load_catalogue
from harness.app import plan as planning
from harness.app.repair import repair
from harness.benchmarks.bigcodebench.release import split_reference
from harness.core.errors import RunFileError
from harness.core.findings import Finding
from harness.core.problem import MODEL_PREFIX, REFERENCE, Problem, Solution
from harness.core.results import Outcome, OutcomeWriter, Status, write_json
from harness.envs.build import EnvInfo
from harness.execute.progress import QuietReporter
from harness.execute.rundir import RunDir
from harness.labs.repair import verify
from harness.labs.repair.outputs import diff_name, write_dataset
from harness.labs.repair.plan import BY_CATALOGUE, NEEDS_HUMAN, PROPOSED, Break, plan, propose
from harness.problems import sets as problemsets
from tests.conftest import ROOT

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.labs.repair.verify import Lab, Statuses
    from harness.matrix.spec import Combo

CONTEXT = """
import pandas as pd

def generate_test_case(test_case_id):
    def generate_ans(data):
        a, b = data
        return a.append(b, ignore_index=True)
    a, b = pd.DataFrame({"x": [1]}), pd.DataFrame({"x": [2]})
    return (a, b), generate_ans((a, b))

def test_execution(solution: str):
    pass
"""
ROWS = [
    {  # drifts: DataFrame.append is gone in pandas 2; reference and context use it
        "prompt": "",
        "reference_code": "result = a.append(b, ignore_index=True)\n",
        "code_context": CONTEXT,
        "metadata": {"problem_id": 1, "library": "Pandas"},
    },
    {  # drifts with a wrong result: nothing to rewrite
        "prompt": "",
        "reference_code": "result = a.sum()\n",
        "code_context": "def test_execution(solution: str):\n    pass\n",
        "metadata": {"problem_id": 2, "library": "Pandas"},
    },
    {  # stable
        "prompt": "",
        "reference_code": "result = 1\n",
        "code_context": "def test_execution(solution: str):\n    pass\n",
        "metadata": {"problem_id": 3, "library": "Pandas"},
    },
]
APPEND_ERROR = ("AttributeError", "'DataFrame' object has no attribute 'append'")
VERSIONS = {"old": {"pandas": "1.5.3"}, "new": {"pandas": "2.2.3"}}


def make_run(tmp_path: Path) -> RunDir:
    data = tmp_path / "ds1000.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    run = RunDir(tmp_path / "results" / "r1")
    write_json(
        run.manifest,
        {
            "run_id": "r1",
            "baseline": "old",
            "combos": ["old", "new"],
            "matrix": str(tmp_path / "matrix.toml"),
            "inputs": {"problems": [str(data)], "answers": []},
        },
    )
    for combo, versions in VERSIONS.items():
        write_json(
            run.env_info(combo),
            EnvInfo(combo, ok=True, python="3.11.7", versions=versions).to_dict(),
        )
    results: dict[str, list[tuple[str, str, Status, tuple[str, str] | None]]] = {
        "old": [
            ("ds1000/1", REFERENCE, Status.PASS, None),
            ("ds1000/2", REFERENCE, Status.PASS, None),
            ("ds1000/3", REFERENCE, Status.PASS, None),
            ("ds1000/1", "model:m", Status.PASS, None),
            ("ds1000/1", "model:w", Status.FAIL, ("AssertionError", "")),
            ("ds1000/3", "model:s", Status.PASS, None),
        ],
        "new": [
            ("ds1000/1", REFERENCE, Status.ERROR, APPEND_ERROR),
            ("ds1000/2", REFERENCE, Status.FAIL, ("AssertionError", "")),
            ("ds1000/3", REFERENCE, Status.PASS, None),
            ("ds1000/1", "model:m", Status.ERROR, APPEND_ERROR),
            ("ds1000/1", "model:w", Status.FAIL, ("AssertionError", "")),
            ("ds1000/3", "model:s", Status.ERROR, APPEND_ERROR),  # stale: #3 still holds
        ],
    }
    for combo, items in results.items():
        with OutcomeWriter(run.outcomes(combo)) as w:
            for seq, (pid, source, status, error) in enumerate(items):
                exc, message = error or (None, "")
                w.write(
                    Outcome(
                        "r1",
                        combo,
                        pid,
                        source,
                        status,
                        library="pandas",
                        exc_type=exc,
                        message=message,
                        versions=VERSIONS[combo],
                        seq=seq,
                    )
                )
    run.write_answers(
        [
            Solution("ds1000/1", "model:m", "result = a.append(b, ignore_index=True)\n"),
            Solution("ds1000/1", "model:w", "result = a\n"),
            Solution("ds1000/3", "model:s", "result = a.append(b, ignore_index=True)\n"),
        ]
    )
    return run


def _problems(run: RunDir) -> list[Problem]:
    manifest = run.read_manifest()
    assert manifest is not None
    return problemsets.load_problems([Path(p) for p in manifest.inputs.problems])


# -- the plan ------------------------------------------------------------------------------


def test_plan_proposes_the_catalogued_codemod_for_the_failing_symbol(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    proposals = {p.problem_id: p for p in plan(run, _problems(run)).proposals}
    assert set(proposals) == {"ds1000/1", "ds1000/2"}  # the stable one is no drift
    append = proposals["ds1000/1"]
    assert append.verdict == PROPOSED
    assert append.chosen_by == BY_CATALOGUE
    assert append.codemods == ("pandas-append-to-concat",)
    assert append.broke.symbol == "pandas.DataFrame.append"
    assert (append.broke.last_good, append.broke.first_bad) == ("old", "new")
    assert "pd.concat([a, b], ignore_index=True)" in append.new_reference
    assert "pd.concat([a, b], ignore_index=True)" in append.new_context  # the context too
    assert append.reference == ROWS[0]["reference_code"]


def test_plan_says_why_a_human_is_needed(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    wrong = next(p for p in plan(run, _problems(run)).proposals if p.problem_id == "ds1000/2")
    assert wrong.verdict == NEEDS_HUMAN
    assert wrong.reason == "no codemod applies to AssertionError"
    assert wrong.new_reference == wrong.reference


def test_needs_a_human_says_why_the_chosen_codemod_left_the_use_alone() -> None:
    code = "df['A'].replace(to_replace=0, method='ffill', limit=2, inplace=True)\n"
    problem = Problem("x/1", "1", "x", "pandas", "", code, "def test_execution(s):\n    pass\n")
    broke = Break(
        "drifted", "a", "b", "changed-signature", "pandas.NDFrame.replace(method=)", "pandas", ""
    )
    found = propose(problem, broke, load_catalogue())
    assert found.verdict == NEEDS_HUMAN
    assert found.reason == (
        "no codemod applies to pandas.NDFrame.replace(method=) (pandas-replace-method: "
        "replace(method=...) with value= or limit=: left alone)"
    )


def test_a_failure_message_chooses_its_codemod_whatever_the_library() -> None:
    """DS-1000 #931 is filed under scikit-learn; NumPy's message names the change."""
    code = "m[i, j] = cosine_similarity([t[i, :]], [t[j, :]])\n"
    problem = Problem("x/1", "1", "x", "sklearn", "", code, "def test_execution(s):\n    pass\n")
    error = "ValueError: setting an array element with a sequence."
    broke = Break("drifted", "a", "b", "", "", "sklearn", error)
    found = propose(problem, broke, load_catalogue())
    assert found.verdict == PROPOSED
    assert found.codemods == ("numpy-array-to-element-item",)
    assert found.new_reference.endswith(".item()\n")
    quiet = propose(problem, Break("drifted", "a", "b", "", "", "sklearn", "KeyError: 0"), [])
    assert quiet.verdict == NEEDS_HUMAN  # without the message nothing tries it


def test_plan_of_a_problem_no_longer_in_the_inputs(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    found = plan(run, []).proposals
    assert {p.verdict for p in found} == {NEEDS_HUMAN}
    assert found[0].reason == "the problem is not among the run's problem files any more"


# -- what is written -----------------------------------------------------------------------


def test_no_verify_writes_diffs_dataset_table_and_summary(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    done = repair(run.root, env_root=tmp_path / "envs", reporter=QuietReporter(), check=False)
    root = run.root / "repairs"
    diff = (root / "diffs" / "ds1000-1.diff").read_text(encoding="utf-8")
    assert "--- a/ds1000/1/reference_code" in diff
    assert "+result = pd.concat([a, b], ignore_index=True)" in diff
    assert not (root / "diffs" / "ds1000-2.diff").exists()  # nothing changed there
    # the repaired dataset loads under the same ids, with only the repaired row changed
    assert done.written.datasets == (root / "ds1000.jsonl",)
    loaded = {p.id: p for p in problemsets.load_problems([root / "ds1000.jsonl"])}
    assert set(loaded) == {"ds1000/1", "ds1000/2", "ds1000/3"}
    assert "pd.concat" in loaded["ds1000/1"].reference_code
    assert loaded["ds1000/2"].reference_code == ROWS[1]["reference_code"]
    # each row carries its validity: the original's range, and the repair's verdict
    rows = [json.loads(line) for line in (root / "ds1000.jsonl").read_text().splitlines()]
    validity = {r["metadata"]["problem_id"]: r["metadata"].get("validity") for r in rows}
    assert validity[1]["class"] == "drifted"
    assert validity[1]["combos"] == {"old": "pass", "new": "error"}
    assert validity[1]["repair"] == {
        "verdict": table.UNVERIFIED,
        "by": "codemods",
        "passes_in": [],
    }
    assert "repair" not in validity[2]
    saved = table.read(root / "verification.json")
    assert saved is not None
    assert {r.problem_id: r.verdict for r in saved.rows} == {
        "ds1000/1": table.UNVERIFIED,
        "ds1000/2": table.NEEDS_HUMAN,
    }
    assert saved.rows[0].required == ("old", "new")
    summary = run.summary_md.read_text(encoding="utf-8")
    assert "## Repairs" in summary
    assert "\n1 needs-human · 1 unverified (of the drifted references;" in summary
    assert json.loads(run.summary_json.read_text(encoding="utf-8"))["repairs"]["counts"] == {
        "verified": 0,
        "version-conditioned": 0,
        "needs-human": 1,
        "unverified": 1,
    }


def test_cli_repair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = make_run(tmp_path)
    assert cli.main(["repair", str(run.root), "--no-verify", "-q"]) == 0
    out = capsys.readouterr().out
    assert "2 drifted problems: 1 needs-human, 1 unverified" in out
    assert f"rewritten: {run.root / 'repairs' / 'ds1000.jsonl'}" in out


def test_cli_repair_of_a_directory_that_is_no_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["repair", str(tmp_path / "nowhere"), "--no-verify"]) == 2
    assert (
        capsys.readouterr().err
        == f"error: harness: {tmp_path / 'nowhere'}: no such results directory\n"
    )
    assert cli.main(["repair", str(tmp_path), "--no-verify"]) == 2
    assert "not a results directory (no run.json)" in capsys.readouterr().err


def test_diff_names() -> None:
    assert diff_name("ds1000/151") == "ds1000-151.diff"
    assert diff_name("problems/pandas/append rows") == "problems-pandas-append-rows.diff"


def test_table_round_trip_and_bad_verdict(tmp_path: Path) -> None:
    row = table.Row("p/1", table.VERIFIED, codemods=("c",), original={"a": "pass"})
    t = table.RepairTable("r", "a", ("a",), (row,))
    assert table.RepairTable.from_dict(t.to_dict(), "v.json") == t
    bad = t.to_dict()
    bad["rows"][0]["verdict"] = "fine"
    with pytest.raises(RunFileError) as err:
        table.RepairTable.from_dict(bad, "v.json")
    assert str(err.value) == (
        "v.json: rows[0].verdict: not one of verified, version-conditioned, needs-human, unverified"
    )


# -- verification, with canned throwaway runs -----------------------------------------------


def test_required_combos() -> None:
    order = ("a", "b", "c", "d")
    assert verify.required(order, {"a": "error", "b": "pass", "c": "fail", "d": "skipped"}) == (
        "b",
        "c",
    )
    assert verify.required(order, {"a": "fail"}) == ()


def test_split_version() -> None:
    versions = {"a": {"pandas": "1.5.3"}, "b": {"pandas": "2.0.1"}, "c": {"pandas": "2.2.0"}}
    assert verify.split_version("pandas", ["b", "c"], ["a"], versions) == (2, 0)
    assert verify.split_version("pandas", ["a"], ["b"], versions) is None  # old above new
    assert verify.split_version("numpy", ["b"], ["a"], versions) is None


@pytest.mark.parametrize("indent", ["", "    "])
def test_conditioned_reference_picks_its_branch_by_version(indent: str) -> None:
    # json has a __version__ ("2.0.9"): the branch from 2.0 on is taken, not the older one
    code = verify.conditioned(f"{indent}x = 'old'\n", f"{indent}x = 'new'\n", "json", (2, 0))
    assert code.startswith(f"{indent}if ")
    body = code if not indent else "def f():\n" + code + "    return x\n"
    namespace: dict[str, object] = {}
    exec(body, namespace)
    assert (namespace["x"] if not indent else namespace["f"]()) == "new"  # type: ignore[operator]
    newer = verify.conditioned("x = 'old'\n", "x = 'new'\n", "json", (99, 0))
    exec(newer, namespace)
    assert namespace["x"] == "old"


def test_conditioned_context_keeps_its_strings_and_defines_its_names() -> None:
    # a context's multi-line string (DS-1000's exec_context) must not be re-indented
    old = 'CODE = """\nx = 1\n"""\ndef test_execution(solution):\n    return "old"\n'
    new = old.replace('"old"', '"new"')
    for version, expected in (((2, 0), "new"), ((99, 0), "old")):
        namespace: dict[str, Any] = {}
        exec(verify.conditioned_module(old, new, "json", version), namespace)
        assert namespace["CODE"] == "\nx = 1\n"
        assert namespace["test_execution"]("") == expected


class Canned:
    """Stands in for the throwaway runs: statuses by run name and (problem, source, combo)."""

    def __init__(
        self, runs: dict[str, Statuses], messages: dict[tuple[str, str], str] | None = None
    ) -> None:
        self.runs = runs
        self.messages = messages or {}
        self.asked: dict[str, list[tuple[str, str]]] = {}
        self.contexts: dict[str, dict[str, str]] = {}

    def __call__(
        self,
        lab: Lab,
        name: str,
        combos: Sequence[Combo],
        problems: Sequence[Problem],
        solutions: Sequence[Solution],
    ) -> list[Outcome]:
        self.asked[name] = [(s.problem_id, s.source) for s in solutions]
        self.contexts[name] = {p.id: p.code_context for p in problems}
        ids = {c.id for c in combos}
        return [
            Outcome(
                "lab", c, pid, source, Status(status), message=self.messages.get((pid, source), "")
            )
            for (pid, source, c), status in self.runs.get(name, {}).items()
            if c in ids
        ]


def _verify(
    tmp_path: Path,
    canned: Canned,
    monkeypatch: pytest.MonkeyPatch,
    findings: Sequence[Finding] = (),
) -> table.RepairTable:
    (tmp_path / "matrix.toml").write_text(
        '[matrix]\nbaseline = "old"\npython = "3.11"\n[combos.old]\npandas = "1.5.3"\n'
        '[combos.new]\npandas = "2.2.3"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(verify, "_outcomes", canned)
    run = make_run(tmp_path)
    run.write_analysis(findings)
    done = repair(run.root, env_root=tmp_path / "envs", reporter=QuietReporter())
    return done.table


P1 = "ds1000/1"


def test_verified_when_it_passes_everywhere_and_keeps_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canned = Canned(
        {
            "matrix": {(P1, REFERENCE, "old"): "pass", (P1, REFERENCE, "new"): "pass"},
            "baseline": {(P1, "model:m", "old"): "pass", (P1, "model:w", "old"): "fail"},
            "meaning": {(P1, "idiom:original", "old"): "pass"},
            "answers": {("ds1000/3", "model:s", "new"): "pass"},
        }
    )
    found = _verify(tmp_path, canned, monkeypatch)
    row = next(r for r in found.rows if r.problem_id == P1)
    assert (row.verdict, row.reason) == (table.VERIFIED, "")
    assert row.meaning == "kept: the test inputs and expected results are the original ones"
    assert (row.answers_kept, row.answers_changed) == (2, ())
    assert row.repaired == {"old": "pass", "new": "pass"}
    # the baseline run got both answers; the meaning run the original reference, in a
    # context that builds each test case both ways; no conditioned run
    assert sorted(canned.asked["baseline"]) == [(P1, MODEL_PREFIX + "m"), (P1, MODEL_PREFIX + "w")]
    assert canned.asked["meaning"] == [(P1, "idiom:original")]
    assert "harness meaning check" in canned.contexts["meaning"][P1]
    assert canned.asked.get("conditioned", []) == []
    # the stale answer, rewritten, ran where it first failed, and passes: API-stale
    assert canned.asked["answers"] == [("ds1000/3", "model:s")]
    models = {m.model: m for m in found.models}
    assert models["s"] == table.ModelRow(
        "s",
        candidates=1,
        stale=1,
        rewritten=1,
        api_stale=1,
        revived=("ds1000/3",),
        missed=(("pandas-append-to-concat", 1),),
    )
    assert models["m"].stale == 0  # its failure is the problem's drift, not the model's
    summary = (tmp_path / "results" / "r1" / "summary.md").read_text(encoding="utf-8")
    assert (
        "| `s` | 100.0% (1/1) | 100.0% (1/1) | 1 | 1 | 1 | `pandas-append-to-concat` ×1 |"
        in summary
    )
    # the table reads back as it was written
    saved = table.read(tmp_path / "results" / "r1" / "repairs" / "verification.json")
    assert saved is not None and saved.models == found.models
    report = (tmp_path / "results" / "r1" / "report.html").read_text(encoding="utf-8")
    assert '<h2>Repairs <span class="muted">(1 verified · 1 needs-human)</span></h2>' in report
    assert "<td><code>ds1000/1</code></td><td>verified</td>" in report


def test_a_weaker_check_needs_a_human(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    canned = Canned(
        {
            "matrix": {(P1, REFERENCE, "old"): "pass", (P1, REFERENCE, "new"): "pass"},
            "baseline": {
                (P1, "model:m", "old"): "pass",
                (P1, "model:w", "old"): "pass",  # failed the original: the check got weaker
            },
            "meaning": {(P1, "idiom:original", "old"): "error"},
        },
        {(P1, "idiom:original"): "AssertionError: harness meaning check: test case 1: …"},
    )
    row = next(r for r in _verify(tmp_path, canned, monkeypatch).rows if r.problem_id == P1)
    assert row.verdict == table.NEEDS_HUMAN
    assert row.answers_changed == ("model:w: fail → pass",)
    assert row.meaning.startswith("changed: ")
    assert "harness meaning check: test case 1" in row.meaning
    assert row.reason == (
        "the repaired context changes the problem; the check changed its verdict on 1 model answers"
    )


def test_version_conditioned_when_the_repair_holds_only_in_newer_releases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canned = Canned(
        {
            "matrix": {(P1, REFERENCE, "old"): "error", (P1, REFERENCE, "new"): "pass"},
            "baseline": {(P1, "model:m", "old"): "pass", (P1, "model:w", "old"): "fail"},
            "meaning": {(P1, "idiom:original", "old"): "pass"},
            "conditioned": {(P1, REFERENCE, "old"): "pass", (P1, REFERENCE, "new"): "pass"},
            "conditioned-baseline": {
                (P1, "model:m", "old"): "pass",
                (P1, "model:w", "old"): "fail",
            },
            "conditioned-meaning": {(P1, "idiom:original", "old"): "pass"},
        }
    )
    found = _verify(tmp_path, canned, monkeypatch)
    row = next(r for r in found.rows if r.problem_id == P1)
    assert row.verdict == table.CONDITIONED
    assert row.reason == (
        "the repair fails in old: one branch per range (the repaired code from pandas 2.2 on)"
    )
    assert '__import__("pandas").__version__' in row.conditioned
    assert ">= (2, 2)" in row.conditioned
    assert (row.meaning, row.answers_kept) == (
        "kept: the test inputs and expected results are the original ones",
        2,
    )
    # the context used the removed API too: it is conditioned the same way
    assert row.conditioned_context.startswith("# version-conditioned by harness repair: ")
    assert "pandas 2.2 on" in row.conditioned_context
    assert "return pd.concat([a, b], ignore_index=True)" in row.conditioned_context
    assert "return a.append(b, ignore_index=True)" in row.conditioned_context
    # the dataset carries the conditioned code
    loaded = problemsets.load_problems([tmp_path / "results" / "r1" / "repairs" / "ds1000.jsonl"])
    repaired = next(p for p in loaded if p.id == P1)
    assert (repaired.reference_code, repaired.code_context) == (
        row.conditioned,
        row.conditioned_context,
    )


def test_a_bisected_first_bad_release_splits_the_ranges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    both = {(P1, REFERENCE, "old"): "pass", (P1, REFERENCE, "new"): "pass"}
    checks = {(P1, "idiom:original", "old"): "pass"}
    canned = Canned(
        {
            "matrix": {(P1, REFERENCE, "old"): "error", (P1, REFERENCE, "new"): "pass"},
            "meaning": checks,
            "conditioned": both,
            "conditioned-meaning": checks,
        }
    )
    bisected = Finding(P1, REFERENCE, "old", "new", "pandas", first_bad="2.0.0")
    row = next(
        r for r in _verify(tmp_path, canned, monkeypatch, [bisected]).rows if r.problem_id == P1
    )
    assert row.verdict == table.CONDITIONED
    assert ">= (2, 0)" in row.conditioned
    assert row.reason.endswith("(the repaired code from pandas 2.0 on)")


def test_the_repair_failing_where_the_original_failed_needs_a_human(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    canned = Canned(
        {
            "matrix": {(P1, REFERENCE, "old"): "pass", (P1, REFERENCE, "new"): "fail"},
            "meaning": {(P1, "idiom:original", "old"): "pass"},
        }
    )
    row = next(r for r in _verify(tmp_path, canned, monkeypatch).rows if r.problem_id == P1)
    assert row.verdict == table.NEEDS_HUMAN
    assert row.reason == "the repaired reference fails in new (fail)"
    # not verified: no repaired dataset, as nothing in it would be repaired
    assert not (tmp_path / "results" / "r1" / "repairs" / "ds1000.jsonl").exists()


# -- end to end ------------------------------------------------------------------------------

DS1000 = ROOT.parent / "shared" / "data" / "ds1000" / "ds1000.jsonl.gz"


@pytest.mark.network
@pytest.mark.skipif(not DS1000.is_file(), reason="needs ../shared/data/ds1000")
def test_repair_real_drifted_problems(tmp_path: Path) -> None:
    """DS-1000 #117 (read_csv(delim_whitespace=) in its context) and #155
    (DataFrame.applymap) drift from pandas 1.5 to pandas 3. The first is repaired by one
    code that holds in both; the second's new API (DataFrame.map) does not exist in 1.5,
    so its portable form is written (each column's map), which holds in both too. Both
    keep the check's verdict on GPT-4's answers."""
    from harness.app import run as app_run  # noqa: PLC0415 - the live run is this test's alone
    from harness.execute.rundir import RunRequest  # noqa: PLC0415

    env_root = Path(os.environ.get("HARNESS_ENV_DIR", ROOT / ".harness" / "envs")).absolute()
    request = RunRequest(
        matrix=str(ROOT / "matrix.toml"),
        combos=("ds1000-2024,latest",),
        problems=(str(DS1000),),
        answers=(str(DS1000.parent / "answers" / "gpt-4-0613-answers.jsonl"),),
        problem_id=("117", "155"),
    )
    # `harness run --repair`: the run, then its repair, in one command
    args = ["run", "--matrix", request.matrix, "--combos", request.combos[0]]
    args += ["--problems", str(DS1000), "--answers", request.answers[0]]
    args += ["--problem-id", "117", "--problem-id", "155", "--results", str(tmp_path)]
    args += ["--run-id", "e2e", "--env-dir", str(env_root), "-j", "2", "--no-history", "-q"]
    assert cli.main([*args, "--repair"]) == 0
    found = table.read(tmp_path / "e2e" / "repairs" / "verification.json")
    assert found is not None
    datasets = sorted((tmp_path / "e2e" / "repairs").glob("*.jsonl"))
    rows = {r.problem_id: r for r in found.rows}
    assert rows["ds1000/117"].verdict == table.VERIFIED, rows["ds1000/117"]
    assert rows["ds1000/117"].codemods == ("pandas-delim-whitespace-to-sep",)
    assert rows["ds1000/155"].verdict == table.VERIFIED, rows["ds1000/155"]
    plan = json.loads((tmp_path / "e2e" / "repairs" / "plan.json").read_text())
    (p155,) = [p for p in plan if p["problem_id"] == "ds1000/155"]
    assert p155["portable"] == ["pandas-applymap-to-map"]
    assert ".apply(lambda col: col.map(" in p155["new_reference"]
    for row in rows.values():
        assert row.original == {"ds1000-2024": "pass", "latest": "error"}
        assert row.repaired == {"ds1000-2024": "pass", "latest": "pass"}
        assert row.meaning.startswith("kept"), row
        assert (row.answers_kept, row.answers_changed) == (1, ())
    # #117's context was rewritten: its test cases were compared value by value
    assert rows["ds1000/117"].meaning == (
        "kept: the test inputs and expected results are the original ones"
    )
    # each reference's validity range, in the run and in the repaired file
    validity = {
        v["problem_id"]: v for v in json.loads((tmp_path / "e2e" / "validity.json").read_text())
    }
    assert validity["ds1000/117"]["ranges"]["pandas"]["passes_to"] == "1.5.3"
    repaired_rows = [json.loads(line) for line in datasets[0].read_text().splitlines()]
    carried = {r["metadata"]["problem_id"]: r["metadata"].get("validity") for r in repaired_rows}
    assert carried[117]["repair"]["passes_in"] == ["ds1000-2024", "latest"]
    # the repaired file runs as any problem file does, and both pass in both combos
    check = planning.plan(
        RunRequest(
            matrix=request.matrix,
            combos=request.combos,
            problems=(str(datasets[0]),),
            problem_id=request.problem_id,
        ),
        results=tmp_path,
        env_root=env_root,
        run_id="check",
        jobs=2,
    )
    app_run.run(check, QuietReporter())
    statuses = {(o.problem_id, o.combo): o.status for o in check.run_dir.read_all()}
    assert set(statuses.values()) == {Status.PASS}, statuses
    assert len(statuses) == 4


TOML_PROBLEM = """library = "pandas"
prompt = "Stack the rows."
setup = '''
import pandas as pd
stock = pd.DataFrame({"qty": [1]})
arrivals = pd.DataFrame({"qty": [2]})
'''
reference = '''
result = stock.append(arrivals, ignore_index=True)
'''
check = '''
assert list(result["qty"]) == [1, 2]
'''
"""


def test_in_place_rewrites_our_toml_problem(tmp_path: Path) -> None:
    problem = tmp_path / "problems" / "pandas" / "stack.toml"
    problem.parent.mkdir(parents=True)
    problem.write_text(TOML_PROBLEM, encoding="utf-8")
    (loaded,) = problemsets.load_problems([tmp_path / "problems"])
    run = RunDir(tmp_path / "results" / "r2")
    write_json(
        run.manifest,
        {"run_id": "r2", "baseline": "old", "inputs": {"problems": [str(tmp_path / "problems")]}},
    )
    for combo, versions in VERSIONS.items():
        info = EnvInfo(combo, ok=True, python="3.11.7", versions=versions)
        write_json(run.env_info(combo), info.to_dict())
        status, (exc, message) = (
            (Status.PASS, (None, "")) if combo == "old" else (Status.ERROR, APPEND_ERROR)
        )
        with OutcomeWriter(run.outcomes(combo)) as w:
            w.write(Outcome("r2", combo, loaded.id, REFERENCE, status, "pandas", exc, message))
    done = repair(
        run.root, env_root=tmp_path / "envs", reporter=QuietReporter(), check=False, in_place=True
    )
    assert done.written.in_place == (problem,)
    text = problem.read_text(encoding="utf-8")
    assert "result = pd.concat([stock, arrivals], ignore_index=True)" in text
    assert 'assert list(result["qty"]) == [1, 2]' in text  # untouched
    (reloaded,) = problemsets.load_problems([tmp_path / "problems"])
    assert "pd.concat" in reloaded.reference_code
    assert done.written.datasets == ()  # no JSONL input to copy


def test_a_bigcodebench_reference_splits_back_into_prompt_and_solution() -> None:
    prompt = "import pandas as pd\ndef task_func(df):\n"
    solution = "    return df.applymap(len)\n"
    repaired = "import pandas as pd\ndef task_func(df):\n    return df.map(len)\n"
    assert split_reference(prompt, prompt.rstrip("\n") + "\n" + solution) == (prompt, solution)
    assert split_reference(prompt, repaired) == (prompt, "    return df.map(len)\n")
    # an import added above the def moves the split, not the solution
    moved = "import numpy as np\n" + repaired
    assert split_reference(prompt, moved) == (
        "import numpy as np\n" + prompt,
        "    return df.map(len)\n",
    )
    # the def line twice, or gone: no split
    assert split_reference(prompt, repaired + "def task_func(df):\n") is None
    assert split_reference(prompt, "x = 1\n") is None


def test_a_repaired_bigcodebench_file_keeps_its_format(tmp_path: Path) -> None:
    rows = [
        {
            "task_id": f"BigCodeBench/{n}",
            "code_prompt": "import pandas as pd\ndef task_func(df):\n",
            "canonical_solution": "    return df.applymap(len)\n",
            "test": "import unittest\nclass TestCases(unittest.TestCase):\n    pass\n",
            "entry_point": "task_func",
            "libs": "['pandas']",
        }
        for n in (1, 2)
    ]
    data = tmp_path / "bcb.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    loaded = problemsets.load_problems([data])
    one, two = loaded
    code = {
        one.id: (one.reference_code.replace("applymap", "map"), one.code_context),
        two.id: (two.reference_code.replace("applymap", "map"), two.code_context + "\n# x\n"),
    }
    validity = {one.id: {"class": "drifted"}}
    (tmp_path / "out").mkdir()
    out = write_dataset(str(data), code, loaded, tmp_path / "out", validity)
    assert out == tmp_path / "out" / "bcb.jsonl"
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert written[0]["canonical_solution"] == "    return df.map(len)\n"
    assert written[0]["code_prompt"] == rows[0]["code_prompt"]
    assert written[0]["validity"] == {"class": "drifted"}
    # its tests were rewritten: they live in the context as text, so the row stays
    assert written[1]["canonical_solution"] == rows[1]["canonical_solution"]
    reloaded = {p.id: p for p in problemsets.load_problems([out])}
    assert reloaded[one.id].reference_code == code[one.id][0]
