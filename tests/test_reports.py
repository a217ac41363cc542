from __future__ import annotations

import json
from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped

from harness.envs import EnvInfo
from harness.history import Changes, StatusChange, VersionChange
from harness.reports import write_reports
from harness.reports.junit import _case
from harness.results import Outcome, OutcomeWriter, Part, Status, write_json
from harness.rundir import RunDir


def make_run(tmp_path: Path) -> RunDir:
    run = RunDir(tmp_path / "r1")
    envs = {
        "old": EnvInfo(
            "old", ok=True, python="3.11.7", versions={"numpy": "1.26.4", "pandas": "1.5.3"}
        ),
        "new": EnvInfo(
            "new", ok=True, python="3.11.7", versions={"numpy": "2.1.3", "pandas": "1.5.3"}
        ),
        "bad": EnvInfo("bad", ok=False, stage="resolve", error="No solution found: numpy==99"),
    }
    write_json(run.manifest, {"run_id": "r1", "baseline": "old", "combos": ["old", "new", "bad"]})
    for combo, env in envs.items():
        write_json(run.env_info(combo), env.to_dict())
    rows: dict[str, list[tuple[str, Status, str | None, str]]] = {
        "old": [
            ("p/1", Status.PASS, None, ""),
            ("p/2", Status.PASS, None, ""),
            ("p/3", Status.SKIPPED, None, "needs torch"),
        ],
        "new": [
            ("p/1", Status.ERROR, "AttributeError", "module 'numpy' has no attribute 'product'"),
            ("p/2", Status.FAIL, "AssertionError", ""),
            ("p/3", Status.SKIPPED, None, "needs torch"),
        ],
        "bad": [(p, Status.ENV_ERROR, None, "resolve: No solution") for p in ("p/1", "p/2", "p/3")],
    }
    for combo, items in rows.items():
        with OutcomeWriter(run.outcomes(combo)) as w:
            for seq, (pid, status, exc, msg) in enumerate(items):
                w.write(
                    Outcome(
                        "r1",
                        combo,
                        pid,
                        "reference",
                        status,
                        library="numpy",
                        exc_type=exc,
                        message=msg,
                        duration_s=0.5,
                        versions=envs[combo].library_versions(),
                        seq=seq,
                    )
                )
            w.write(
                Outcome(
                    "r1",
                    combo,
                    "p/1",
                    "model:m",
                    Status.PASS if combo == "old" else Status.FAIL,
                    library="numpy",
                    seq=9,
                )
            )
    return run


def test_summary_markdown(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    summary = write_reports(run)
    md = run.summary_md.read_text()
    assert "Baseline combo: `old` · 3 combos · 3 problems · 12 executions" in md
    assert "| `new` | 3.11.7 | 2.1.3 | 1.5.3 | built in 0 s |" in md
    assert "| `bad` | – | – | – | **env_error** (resolve): No solution found: numpy==99 |" in md
    assert "| `old` | reference | 2 | 0 | 0 | 1 | 0 | 100.0% |" in md
    assert "| `new` | reference | 0 | 1 | 1 | 1 | 0 | 0.0% |" in md
    assert "Era order: `old` → `new` → `bad`" in md
    assert (
        "| `p/1` | numpy | drifted | `old` → `new` | AttributeError: module 'numpy' has no attribute "
        "'product' | removed-api | `numpy.product` | – | – | – | numpy 1.26.4→2.1.3 |" in md
    )
    assert (
        "| `p/2` | numpy | drifted | `old` → `new` | AssertionError | changed-behaviour | – | – | – | – "
        "| numpy 1.26.4→2.1.3 |" in md
    )
    assert "| reference | 2 | 1 |" in md  # 2 drifted, 1 with no env that could run it
    # model answers drift too, but they are not problem drift
    assert [(t.problem_id, t.first_bad) for t in summary.drift] == [("p/1", "new"), ("p/2", "new")]
    assert summary.classes("model:m") == {"drifted": 1}
    data = json.loads(run.summary_json.read_text())
    assert data["combos"][1]["counts"]["reference"] == {"error": 1, "fail": 1, "skipped": 1}
    assert data["combos"][0]["pass_rate"]["reference"] == 1.0
    assert data["drift"][0]["changed"] == {"numpy": ["1.26.4", "2.1.3"]}
    assert data["drift"][0]["cause"] == "removed-api"
    assert data["classes"]["reference"] == {"drifted": 2, "env-error": 1}


def test_junit(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    write_reports(run)
    merged = JUnitXml.fromfile(str(run.merged_junit))
    suites = {s.name: s for s in merged}
    assert list(suites) == ["old", "new", "bad"]
    new = suites["new"]
    props = {p.name: p.value for p in new.properties()}
    assert props == {"python": "3.11.7", "numpy": "2.1.3", "pandas": "1.5.3"}
    cases = {(c.classname, c.name): c for c in new}
    (err,) = cases[("p/1", "reference")].result
    assert isinstance(err, Error) and err.type == "AttributeError"
    assert err.message == "AttributeError: module 'numpy' has no attribute 'product'"
    (fail,) = cases[("p/2", "reference")].result
    assert isinstance(fail, Failure)
    (skip,) = cases[("p/3", "reference")].result
    assert isinstance(skip, Skipped) and skip.message == "needs torch"
    assert (new.tests, new.failures, new.errors, new.skipped) == (4, 2, 1, 1)
    bad = suites["bad"]
    assert {p.name: p.value for p in bad.properties()}[
        "env_error"
    ] == "resolve: No solution found: numpy==99"
    assert all(
        isinstance(c.result[0], Error) and c.result[0].type == "env_error"
        for c in bad
        if c.name == "reference"
    )
    one = JUnitXml.fromfile(str(run.junit("old")))
    assert [s.name for s in one] == ["old"]


def test_junit_lists_the_parts_of_a_failure() -> None:
    outcome = Outcome(
        "r1",
        "new",
        "bcb/1",
        "model:m",
        Status.FAIL,
        exc_type="AssertionError",
        message="1 of 2 failed (TestCases.test_b): 1 != 2",
        parts=(Part("TestCases.test_a", "pass"), Part("TestCases.test_b", "fail", "1 != 2")),
    )
    (fail,) = _case(outcome).result
    assert fail.text.splitlines() == [
        "1 of 2 failed (TestCases.test_b): 1 != 2",
        "pass    TestCases.test_a",
        "fail    TestCases.test_b: 1 != 2",
    ]
    assert Outcome.from_dict(outcome.to_dict()) == outcome
    assert "parts" not in Outcome.from_dict({**outcome.to_dict(), "parts": []}).to_dict()


def test_changes_are_kept_when_the_reports_are_rewritten(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    changes = Changes(
        "r0",
        "r1",
        new_failures=(StatusChange("new", "p/1", "reference", "pass", "error", "gone"),),
        releases=(VersionChange("new", "numpy", "1.26.4", "2.1.3"),),
    )
    assert write_reports(run, changes).changes == changes
    assert write_reports(run).changes == changes
    assert json.loads(run.summary_json.read_text())["changes"] == changes.to_dict()
    md = run.summary_md.read_text()
    assert "- `new` `p/1` reference: pass → error (gone)" in md
    assert "- `new` numpy: 1.26.4 → 2.1.3" in md
