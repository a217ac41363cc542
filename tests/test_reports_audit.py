"""audit.json, audit.md, report.html's section and the nightly's news (harness/reports/audit.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from harness.app import nightly
from harness.app.nightly import issue_text_of
from harness.audit import files
from harness.audit.health import Flag, Health, Survivor, Weakened
from harness.core.errors import RunFileError
from harness.core.findings import Finding
from harness.execute.rundir import RunDir
from harness.reports import audit

if TYPE_CHECKING:
    from pathlib import Path

WRONG = Survivor("mutant-1", "constant", "line 1: `7` → `8`", "-x * 7\n+x * 8", False)
ALIKE = Survivor("mutant-2", "keyword", "line 1: dropped keyword `axis=0`", "-a\n+b", True)
HEALTHS = [
    Health(
        "s/1",
        "old",
        "numpy",
        "pass",
        ("pass",),
        mutants=4,
        killed=3,
        survivors=(WRONG,),
        flags=(Flag.WEAK,),
    ),
    Health("s/1", "new", "numpy", "pass", ("pass",), mutants=4, killed=4),
    Health(
        "s/2",
        "new",
        "numpy",
        "pass",
        ("pass", "fail"),
        mutants=2,
        killed=1,
        survivors=(ALIKE,),
        flags=(Flag.FLAKY,),
    ),
    Health(
        "s/3",
        "new",
        "numpy",
        "pass",
        ("pass",),
        mutants=0,
        duration_s=2.0,
        limit_s=4.0,
        flags=(Flag.SLOW,),
    ),
]
FOUND = [
    Weakened(
        "s/1", "mutant-1", WRONG.description, WRONG.diff, "numpy", "new", "old", ("1.0", "2.0"),
        Finding("s/1", "model:mutant-1", "numpy 1.0", "numpy 2.0", last_good="1.1", first_bad="1.2"),
    )
]  # fmt: skip


def test_cells_say_each_problems_flags_and_its_lowest_score() -> None:
    assert audit.cells(HEALTHS) == {
        "s/1": "weak, score 0.75",
        "s/2": "flaky, score 0.50",
        "s/3": "slow",
    }


def test_markdown_shows_the_evidence() -> None:
    text = audit.markdown(HEALTHS, FOUND)
    assert "| weak | 1 |" in text and "| weakened | 1 |" in text
    assert "- **s/1** in `old`: mutation score 3/4" in text
    assert "    +x * 8" in text  # the survivor's diff
    assert "1 surviving mutants sent the check the reference copy's own values" in text
    assert "- **s/2** in `new`: verdicts pass, fail" in text
    assert "- **s/3** in `new`: 2.00 s of a 4 s limit (2.0×)" in text
    assert "first release that passes it numpy 1.2 (last that fails it 1.1)" in text


def test_scores_are_summed_where_the_reference_passes() -> None:
    scores = audit.score_summary(HEALTHS)
    assert scores["scored"] == 3
    assert scores["buckets"] == {"1": 1, "0.8–1": 0, "0.5–0.8": 2, "<0.5": 0}


def test_the_html_section_lists_the_flagged() -> None:
    html = "".join(audit.html_section({"s/1": "weak, score 0.75", "s/9": "ok", "s/<x>": "slow"}))
    assert 'data-count="tests-flagged">2</span> of 3 audited' in html
    assert "s/&lt;x&gt;" in html and "s/9" not in html


def test_the_nightly_reports_problems_newly_flagged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = RunDir(tmp_path / "run")
    run.root.mkdir()
    # nothing new in the run itself: the audit's news alone
    monkeypatch.setattr(nightly, "_summary_of", lambda _run: None)
    monkeypatch.setattr(nightly, "issue_text", lambda _summary, _releases: "")
    now = tmp_path / "audit.json"
    now.write_text(json.dumps(audit.to_json(HEALTHS, FOUND, {})))
    before = tmp_path / "before.json"
    before.write_text(json.dumps({"flagged": {"weak": ["s/1"], "flaky": []}}))
    text = issue_text_of(run, audit=now, audit_before=before)
    assert text.startswith("## Nightly run `run`")
    assert "### Test health: newly flagged since the last audit" in text
    assert "- flaky (" in text and "`s/2`" in text
    assert "- weakened (" in text
    assert "- weak (" not in text  # s/1 was weak the night before
    assert issue_text_of(run, audit=now, audit_before=now) == ""
    first = issue_text_of(run, audit=now, audit_before=tmp_path / "absent.json")
    assert "newly flagged in the first audit" in first and "- weak (" in first


def test_an_audit_json_that_is_not_one_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps({"flagged": {"weak": "s/1"}}))
    with pytest.raises(RunFileError, match=r"audit\.json: flagged: not an object of lists"):
        files.flagged(path)
    path.write_text("{")
    with pytest.raises(RunFileError, match="not JSON"):
        files.flagged(path)
