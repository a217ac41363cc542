"""Progress: plain lines for logs (throttled), a live bar for terminals, nothing when quiet."""

from __future__ import annotations

import io
import sys

import pytest

from harness.core.results import Outcome, Status
from harness.envs.build import EnvInfo
from harness.execute.progress import LiveReporter, QuietReporter, Reporter, reporter


def outcome(status: Status) -> Outcome:
    return Outcome("r1", "new", "p/1", "reference", status)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr("harness.execute.progress.time.monotonic", fake)
    return fake


def lines(stream: io.StringIO) -> list[str]:
    return stream.getvalue().splitlines()


@pytest.mark.parametrize(
    ("info", "line"),
    [
        (
            EnvInfo(
                "new",
                ok=True,
                python="3.11.7",
                reused=True,
                versions={"pandas": "2.2.3", "numpy": "2.2.6", "six": "1"},
            ),
            "[harness] new: environment reused (Python 3.11.7; numpy 2.2.6, pandas 2.2.3)",
        ),
        (
            EnvInfo("new", ok=True, python="3.13.0", build_s=41.6),
            "[harness] new: environment built in 42 s (Python 3.13.0; )",
        ),
        (
            EnvInfo("bad", ok=False, stage="resolve", error="\n  No solution found\nbecause\n"),
            "[harness] bad: env_error at resolve: No solution found",
        ),
        (
            EnvInfo("bad", ok=False, stage="interpreter", error="  "),
            "[harness] bad: env_error at interpreter: ",
        ),
    ],
)
def test_env_ready(info: EnvInfo, line: str) -> None:
    stream = io.StringIO()
    Reporter(stream).env_ready(info)
    assert stream.getvalue() == line + "\n"


def test_outcomes_are_counted_and_printed_at_most_every_ten_seconds(clock: Clock) -> None:
    stream = io.StringIO()
    with Reporter(stream) as r:
        r.combo_started("new", 4)
        r.outcome(outcome(Status.PASS))  # the first is printed
        clock.now += 5
        r.outcome(outcome(Status.FAIL))  # too soon
        clock.now += 6
        r.outcome(outcome(Status.ERROR))  # ten seconds after the last line
        r.outcome(outcome(Status.PASS))  # the last always is
    assert lines(stream) == [
        "[harness] new: running 4 executions",
        "[harness] new: 1/4 pass=1",
        "[harness] new: 3/4 pass=1 fail=1 error=1",
        "[harness] new: 4/4 pass=2 fail=1 error=1",
    ]


def test_each_combo_counts_from_zero(clock: Clock) -> None:
    stream = io.StringIO()
    r = Reporter(stream)
    r.combo_started("a", 1)
    r.outcome(outcome(Status.TIMEOUT))
    r.combo_started("b", 2)
    r.outcome(outcome(Status.ENV_ERROR))
    clock.now += 1
    r.outcome(outcome(Status.CRASH))
    assert lines(stream)[-2:] == [
        "[harness] b: running 2 executions",
        "[harness] b: 2/2 crash=1 env_error=1",
    ]
    assert (r.combo, r.done, r.total) == ("b", 2, 2)


def test_quiet_prints_nothing_but_still_counts(capsys: pytest.CaptureFixture[str]) -> None:
    r = reporter(quiet=True)
    assert isinstance(r, QuietReporter)
    r.log("hello")
    r.combo_started("a", 1)
    r.outcome(outcome(Status.PASS))
    assert r.counts == {"pass": 1}
    assert capsys.readouterr() == ("", "")


def test_a_log_gets_plain_lines_and_a_terminal_a_live_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert type(reporter()) is Reporter
    assert reporter().stream is sys.stderr
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert type(reporter()) is LiveReporter


def test_the_live_bar_advances_per_outcome() -> None:
    with LiveReporter() as live:
        live.console.quiet = True  # keep the test's output clean
        live.combo_started("new", 3)
        live.outcome(outcome(Status.PASS))
        live.outcome(outcome(Status.FAIL))
        assert live.task is not None
        (task,) = live.bar.tasks
        assert (task.total, task.completed, task.fields["combo"]) == (3, 2, "new")
        assert task.fields["counts"] == "pass=1 fail=1"
    assert live.bar.live.is_started is False
