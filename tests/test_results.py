from __future__ import annotations

from pathlib import Path

from harness.core.results import (
    CapturedWarning,
    Outcome,
    OutcomeWriter,
    Part,
    Status,
    read_outcomes,
)
from harness.execute.rundir import RunDir


def outcome(**fields: object) -> Outcome:
    base: dict[str, object] = {
        "run_id": "r",
        "combo": "c",
        "problem_id": "p/1",
        "source": "reference",
        "status": Status.PASS,
    }
    base.update(fields)
    return Outcome(**base)  # type: ignore[arg-type]


def test_round_trip() -> None:
    o = outcome(
        status=Status.ERROR,
        exc_type="AttributeError",
        message="no 'append'\nmore",
        warnings=(CapturedWarning("FutureWarning", "soon", "pandas.core.frame"),),
        versions={"pandas": "2.0.0"},
        python="3.11.7",
        seq=4,
        traceback="tb",
        output="out",
    )
    assert Outcome.from_dict(o.to_dict()) == o
    assert o.first_line == "AttributeError: no 'append'"
    assert o.warnings[0].library == "pandas"


def test_parts_keep_what_each_raised() -> None:
    o = outcome(
        status=Status.ERROR,
        parts=(
            Part("TestCases.test_a", "pass"),
            Part("TestCases.test_b", "error", "no page", "requests.exceptions.ConnectionError"),
        ),
    )
    data = o.to_dict()
    # a passing part's line is as it was before parts carried their exception's type
    assert list(data["parts"]) == [
        {"name": "TestCases.test_a", "status": "pass", "message": ""},
        {
            "name": "TestCases.test_b",
            "status": "error",
            "message": "no page",
            "exc_type": "requests.exceptions.ConnectionError",
        },
    ]
    assert Outcome.from_dict(data) == o


def test_empty_optional_fields_are_left_out() -> None:
    data = outcome().to_dict()
    assert "traceback" not in data and "output" not in data
    assert data["status"] == "pass"


def test_statuses() -> None:
    assert [s.value for s in Status] == [
        "pass",
        "fail",
        "error",
        "timeout",
        "crash",
        "skipped",
        "env_error",
    ]
    assert {s for s in Status if s.is_failure} == {
        Status.FAIL,
        Status.ERROR,
        Status.TIMEOUT,
        Status.CRASH,
    }


def test_writer_appends_and_reader_counts_cut_lines(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run1")
    with OutcomeWriter(run.outcomes("c")) as w:
        w.write(outcome(seq=0))
        w.write(outcome(seq=1, problem_id="p/2"))
    with run.outcomes("c").open("a") as fh:
        fh.write('{"run_id": "r", "combo": "c", "prob')  # a line cut by a kill
    outcomes, bad = read_outcomes(run.outcomes("c"))
    assert [o.seq for o in outcomes] == [0, 1]
    assert bad == 1
    assert run.combos() == ["c"]
    assert run.run_id == "run1"
