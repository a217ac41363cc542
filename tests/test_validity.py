from __future__ import annotations

import json
from typing import TYPE_CHECKING

from harness import reports
from harness.analysis.drift import trajectories
from harness.analysis.validity import Range, headline, library_range, limited_ranges, validities
from harness.core.findings import Finding
from harness.core.results import Outcome, Status
from harness.execute.rundir import RunDir

if TYPE_CHECKING:
    from pathlib import Path

P, F, E, S = Status.PASS, Status.FAIL, Status.ERROR, Status.SKIPPED
ERAS = {
    "old": {"pandas": "1.3.5", "numpy": "1.21.6"},
    "mid": {"pandas": "1.5.3", "numpy": "1.26.4"},
    "new": {"pandas": "3.0.0", "numpy": "2.3.0"},
}
ORDER = list(ERAS)


def outcomes(problem: str, *statuses: Status, library: str = "pandas") -> list[Outcome]:
    return [
        Outcome("r", c, problem, "reference", s, library=library, versions=ERAS[c])
        for c, s in zip(ORDER, statuses, strict=True)
    ]


def test_range_from_seen_releases() -> None:
    r = library_range(
        "pandas", [("1.3.5", False), ("1.5.3", True), ("2.1.0", True), ("3.0.0", False)]
    )
    assert r == Range("pandas", "1.5.3", "2.1.0", fails_below="1.3.5", fails_from="3.0.0")
    assert r.bounded
    assert r.text() == "pandas 1.5.3–2.1.0, fails in 1.3.5, fails from 3.0.0"


def test_range_that_never_passes_says_so() -> None:
    r = library_range("numpy", [("2.0.0", False)])
    assert r.passes_from is None and r.fails_from == "2.0.0"
    assert "passes in no release tried" in r.text()


def test_a_bisection_of_the_library_makes_the_first_bad_end_exact() -> None:
    found = Finding(
        "p/1", "reference", "mid", "new", library="pandas", last_good="1.5.3", first_bad="2.0.0"
    )
    r = library_range("pandas", [("1.3.5", True), ("1.5.3", True), ("3.0.0", False)], found)
    assert (r.passes_to, r.fails_from, r.bisected) == ("1.5.3", "2.0.0", True)
    assert r.text().endswith("fails from 2.0.0 (bisected)")
    # a finding that blames another library leaves this one's ends as the matrix saw them
    other = library_range("numpy", [("1.21.6", True), ("2.3.0", False)], found)
    assert (other.fails_from, other.bisected) == ("2.3.0", False)


def test_validities_of_a_run() -> None:
    ran = (
        outcomes("p/stable", P, P, P)
        + outcomes("p/drift", P, P, F)
        + outcomes("p/fixed", E, P, P)
        + outcomes("p/never", F, F, F)
        + outcomes("p/skip", S, P, P)
    )
    found = {v.problem_id: v for v in validities(trajectories(ran, ORDER))}
    assert found["p/stable"].everywhere
    assert found["p/stable"].text() == "pandas 1.3.5–3.0.0"
    assert not found["p/drift"].everywhere
    assert found["p/drift"].text() == "pandas 1.3.5–1.5.3, fails from 3.0.0"
    assert found["p/fixed"].text() == "pandas 1.5.3–3.0.0, fails in 1.3.5"
    # a skipped combo says nothing: the reference holds everywhere it ran
    assert found["p/skip"].everywhere and found["p/skip"].combos["old"] == "skipped"
    assert [v.problem_id for v in limited_ranges(list(found.values()))] == ["p/drift", "p/fixed"]
    assert headline(list(found.values())).startswith("2 of 5 references pass in every combo")
    record = found["p/drift"].to_dict()
    assert record["ranges"]["numpy"]["fails_from"] == "2.3.0"
    assert json.loads(json.dumps(record)) == record


def test_reports_write_validity_json_and_show_the_ranges(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    run.root.mkdir()
    for o in outcomes("p/drift", P, P, F) + outcomes("p/stable", P, P, P):
        with run.outcomes(o.combo).open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(o.to_dict()) + "\n")
    reports.write_reports(run)
    written = json.loads(run.validity_json.read_text())
    assert {v["problem_id"]: v["class"] for v in written} == {
        "p/drift": "drifted",
        "p/stable": "stable-pass",
    }
    md = run.summary_md.read_text()
    assert "## Validity ranges" in md
    assert "| `p/drift` | drifted |" in md and "fails from 3.0.0" in md
    assert 'data-count="limited">1<' in run.report_html.read_text()
