"""harness/app/audit.py: what the audit does around its runs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import pytest

from harness.app import audit
from harness.audit.health import Weakened
from harness.audit.probes import Probe
from harness.core.errors import HarnessError, UsageError
from harness.core.problem import Problem
from harness.execute.rundir import RunRequest
from harness.labs import bisection

if TYPE_CHECKING:
    from pathlib import Path

    from harness.envs.build import EnvBuilder
    from harness.execute.job import Job
    from harness.execute.progress import Reporter

PROBLEM = Problem("s/1", "1", "s", "pandas", "", "result = 1\n", "")
PROBE = Probe("s/1", "mutant-1", "result = 2\n", "constant", "line 1: `1` → `2`", "-1\n+2")


def test_a_bisection_that_cannot_run_is_a_finding_not_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise HarnessError("harness", None, "no Python from 3.13 up has wheels of x 1 and 2")

    monkeypatch.setattr(bisection, "bisect_release", refuse)
    combos = [SimpleNamespace(id="old"), SimpleNamespace(id="new")]
    job = cast("Job", SimpleNamespace(problems=[PROBLEM], combos=combos, options=None))
    found = [
        Weakened(
            "s/1", "mutant-1", PROBE.description, PROBE.diff, "pandas", "old", "new", ("1", "2")
        ),
        Weakened(
            "s/1", "mutant-1", PROBE.description, PROBE.diff, "pandas", "old", "new", ("1", "2")
        ),
    ]
    progress = cast("Reporter", SimpleNamespace(log=lambda _m: None))
    done = audit._bisected(job, [PROBE], found, cast("EnvBuilder", None), progress)
    assert len(done) == 2  # the second was tried too
    for w in done:
        assert w.finding is not None
        assert w.finding.first_bad is None
        assert w.finding.how.startswith("cannot bisect: harness: no Python from 3.13")
        assert (w.finding.good, w.finding.bad) == ("pandas 1", "pandas 2")


@pytest.mark.parametrize(("mutants", "repeats"), [(-1, 3), (5, 0)])
def test_bad_counts_are_one_line_errors(tmp_path: Path, mutants: int, repeats: int) -> None:
    with pytest.raises(UsageError, match="--mutants must be at least 0 and --repeats at least 1"):
        audit.audit_request(
            RunRequest(),
            results=tmp_path,
            run_id=None,
            env_root=tmp_path,
            jobs=1,
            mutants=mutants,
            repeats=repeats,
        )
