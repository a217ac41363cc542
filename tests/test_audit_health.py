"""What the audit's outcomes say (harness/audit/health.py), on outcomes made here."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from harness.audit.health import (
    HEADROOM,
    Flag,
    assess,
    compare,
    counts,
    weakened,
    with_survivors,
)
from harness.audit.probes import Probe
from harness.benchmarks.ds1000.audit import reads as ds1000_reads
from harness.benchmarks.ours.audit import reads as ours_reads
from harness.benchmarks.ours.load import compact_context
from harness.core.problem import Problem
from harness.core.results import Outcome, Part, Status

PROBLEM = Problem(
    id="set/1",
    native_id="1",
    set_name="set",
    library="pandas",
    prompt="",
    reference_code="result = df.sum()\n",
    code_context="",
)
PROBES = (
    Probe("set/1", "null-pass", "pass\n"),
    Probe("set/1", "null-none", "result = None\n"),
    Probe("set/1", "mutant-1", "result = df.max()\n", "constant", "line 1: sum → max", "-a\n+b"),
    Probe("set/1", "mutant-2", "result = df.sum(1)\n", "arguments", "line 1: added 1", "-a\n+c"),
    Probe("set/1", "reference-copy", "result = df.sum()\n"),
)


def outcome(source: str, status: Status = Status.FAIL, **fields: Any) -> Outcome:
    given: dict[str, Any] = {"combo": "new", "attempt": 0, "duration_s": 0.5, "library": "pandas"}
    given.update(fields)
    return Outcome(run_id="r", problem_id="set/1", source=source, status=status, **given)


def graded(**statuses: Status) -> list[Outcome]:
    """The reference passing, and each probe as ``statuses`` says (else killed)."""
    found = [outcome("reference", Status.PASS)]
    for probe in PROBES:
        status = statuses.get(probe.name.replace("-", "_"), Status.FAIL)
        if probe.kind == "copy":
            status = Status.PASS
        crossed = "same" if probe.kind == "copy" else probe.name
        found.append(outcome(probe.source, status, crossed={"result": crossed}))
    return found


def test_tests_that_kill_every_probe_are_not_flagged() -> None:
    (h,) = assess([PROBLEM], PROBES, graded(), default_limit=60)
    assert h.flags == ()
    assert (h.mutants, h.killed, h.score) == (2, 2, 1.0)
    assert h.nulls == ("null-pass", "null-none")
    assert h.nulls_passed == ()
    assert h.headroom == 120


def test_a_passing_null_makes_the_tests_weak() -> None:
    (h,) = assess([PROBLEM], PROBES, graded(null_none=Status.PASS), default_limit=60)
    assert h.flags == (Flag.WEAK,)
    assert h.nulls_passed == ("null-none",)


def test_a_survivor_with_other_values_is_weak_one_with_the_same_is_not() -> None:
    outcomes = graded(mutant_1=Status.PASS, mutant_2=Status.PASS)
    outcomes = [
        o
        if o.source != "model:mutant-2"
        else outcome(o.source, Status.PASS, crossed={"result": "same"})
        for o in outcomes
    ]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert h.flags == (Flag.WEAK,)
    assert h.score == 0.0
    assert [(s.name, s.equivalent) for s in h.survivors] == [
        ("mutant-1", False),
        ("mutant-2", True),
    ]
    assert [s.name for s in h.wrongly_accepted] == ["mutant-1"]


def test_only_likely_equivalent_survivors_are_not_weak() -> None:
    outcomes = [
        outcome(o.source, Status.PASS, crossed={"result": "same"})
        if o.source == "model:mutant-1"
        else o
        for o in graded()
    ]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert h.flags == ()
    assert h.score == 0.5


def test_survivors_cannot_be_compared_without_the_copys_digest() -> None:
    outcomes = [
        outcome(o.source, Status.PASS, crossed={})
        if o.source == "model:reference-copy"
        else (
            outcome(o.source, Status.PASS, crossed={"result": "x"})
            if o.source == "model:mutant-1"
            else o
        )
        for o in graded()
    ]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert [s.equivalent for s in h.survivors] == [None]
    assert Flag.WEAK not in h.flags


def test_repeats_that_disagree_are_flaky() -> None:
    outcomes = [*graded(), outcome("reference", Status.FAIL, attempt=1)]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert h.verdicts == ("pass", "fail")
    assert Flag.FLAKY in h.flags


@pytest.mark.parametrize(
    ("duration", "limit", "slow"),
    [(1.0, HEADROOM * 1.0 + 0.1, False), (1.0, HEADROOM * 1.0 - 0.1, True), (0.0, 1.0, False)],
)
def test_headroom(duration: float, limit: float, slow: bool) -> None:
    outcomes = [
        outcome("reference", Status.PASS, duration_s=duration),
        *graded()[1:],
    ]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=limit)
    assert (Flag.SLOW in h.flags) is slow


def test_the_problems_own_limit_wins() -> None:
    problem = Problem(**{**PROBLEM.__dict__, "timeout": 1.0})
    (h,) = assess([problem], PROBES, graded(), default_limit=600)
    assert h.limit_s == 1.0
    assert Flag.SLOW in h.flags


def test_graded_in_process_is_unsafe_with_its_reason() -> None:
    note = "graded in the solution's process: its tests write a file it reads; refused x"
    outcomes = [
        outcome(o.source, o.status, graded="in-process", note=note)
        if o.source.startswith("model:")
        else o
        for o in graded()
    ]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert Flag.UNSAFE in h.flags
    assert h.graded_why == "its tests write a file it reads"


def test_network_and_data() -> None:
    reached = outcome(
        "reference",
        Status.PASS,
        parts=(Part("test_a", "pass", "[harness: reached for the network: socket.connect('x')]"),),
    )
    (h,) = assess([PROBLEM], PROBES, [reached, *graded()[1:]], default_limit=60)
    assert Flag.NETWORK in h.flags
    assert "socket.connect" in h.needs_evidence
    failed = outcome(
        "reference", Status.ERROR, exc_type="urllib.error.URLError", message="<urlopen error>"
    )
    (h,) = assess([PROBLEM], PROBES, [failed, *graded()[1:]], default_limit=60)
    assert h.flags == (Flag.REFERENCE_FAILS, Flag.NETWORK)


def test_a_failing_reference_proves_nothing_of_its_probes() -> None:
    outcomes = [outcome("reference", Status.FAIL), *graded(null_pass=Status.PASS)[1:]]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert h.flags == (Flag.REFERENCE_FAILS,)


def test_combos_where_the_reference_did_not_run_are_left_out() -> None:
    outcomes = [*graded(), outcome("reference", Status.SKIPPED, combo="old")]
    assert [h.combo for h in assess([PROBLEM], PROBES, outcomes, default_limit=60)] == ["new"]


def test_a_mutant_killed_then_surviving_is_weakened() -> None:
    old = [outcome(o.source, o.status, combo="old", crossed=o.crossed) for o in graded()]
    new = graded(mutant_2=Status.PASS)
    outcomes = [*old, *new]
    healths = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    versions = {
        "old": {"pandas": "2.1.0", "python": "3.11"},
        "new": {"pandas": "2.2.0", "python": "3.11"},
    }
    (w,) = weakened(healths, PROBES, outcomes, versions)
    assert (w.mutant, w.killed_in, w.survived_in, w.versions) == (
        "mutant-2",
        "old",
        "new",
        ("2.1.0", "2.2.0"),
    )
    assert counts(healths, [w])["weakened"] == 1
    # surviving first, then killed: strengthened, not weakened
    assert (
        weakened(healths, PROBES, outcomes, {"old": versions["new"], "new": versions["old"]}) == []
    )


def test_survivors_of_a_problem_whose_own_values_vary_cannot_be_judged() -> None:
    outcomes = graded(mutant_1=Status.PASS)
    assert with_survivors(PROBES, outcomes) == {"set/1"}
    second = Probe("set/1", "reference-copy-2", PROBLEM.reference_code)
    varies = outcome("model:reference-copy-2", Status.PASS, crossed={"result": "other"})
    (h,) = assess([PROBLEM], [*PROBES, second], [*outcomes, varies], default_limit=60)
    assert [s.equivalent for s in h.survivors] == [None]
    assert h.flags == (Flag.NONDETERMINISTIC,)
    stable = outcome("model:reference-copy-2", Status.PASS, crossed={"result": "same"})
    (h,) = assess([PROBLEM], [*PROBES, second], [*outcomes, stable], default_limit=60)
    assert [s.equivalent for s in h.survivors] == [False]
    assert h.flags == (Flag.WEAK,)


def test_no_survivors_nothing_to_judge() -> None:
    assert with_survivors(PROBES, graded()) == set()


def test_the_repeats_grade_the_reference_as_an_answer() -> None:
    again = [
        outcome("model:reference-copy", Status.PASS, crossed={"result": "same"}, attempt=1),
        outcome("model:reference-copy", Status.FAIL, crossed={"result": "x"}, attempt=2),
    ]
    (h,) = assess([PROBLEM], PROBES, [*graded(), *again], default_limit=60)
    assert h.verdicts == ("pass", "pass", "fail")
    assert h.flags == (Flag.FLAKY,)


def test_a_reference_whose_values_vary_is_nondeterministic() -> None:
    again = outcome("model:reference-copy", Status.PASS, crossed={"result": "other"}, attempt=1)
    (h,) = assess([PROBLEM], PROBES, [*graded(mutant_1=Status.PASS), again], default_limit=60)
    assert h.values_vary
    assert h.flags == (Flag.NONDETERMINISTIC,)  # and its survivor cannot be judged
    assert [s.equivalent for s in h.survivors] == [None]


def test_repeats_count_only_where_the_copy_gives_the_references_verdict() -> None:
    outcomes = [
        o if o.source != "model:reference-copy" else outcome(o.source, Status.ERROR)
        for o in graded()
    ]
    again = outcome("model:reference-copy", Status.ERROR, attempt=1)
    (h,) = assess([PROBLEM], PROBES, [*outcomes, again], default_limit=60)
    assert h.verdicts == ("pass",)
    assert Flag.FLAKY not in h.flags


def test_a_dataset_fetched_at_run_time_is_data_bound() -> None:
    failed = outcome(
        "reference",
        Status.ERROR,
        exc_type="OSError",
        message="[Errno 30] Read-only file system: '/root/.cache'",
        traceback="site-packages/seaborn/utils.py:570 in load_dataset\nos.py:225 in makedirs",
    )
    (h,) = assess([PROBLEM], PROBES, [failed, *graded()[1:]], default_limit=60)
    assert h.flags == (Flag.REFERENCE_FAILS, Flag.DATA)
    assert h.needs_evidence.endswith("(in load_dataset)")


def test_a_mutant_the_guard_could_not_send_to_is_not_killed() -> None:
    refused = "what the check gives the solution cannot be sent to it: a lock"
    outcomes = [
        outcome(o.source, Status.ERROR, exc_type="GuardError", message=refused)
        if o.source == "model:mutant-1"
        else o
        for o in graded()
    ]
    (h,) = assess([PROBLEM], PROBES, outcomes, default_limit=60)
    assert (h.mutants, h.killed) == (1, 1)  # mutant-2 alone was judged
    # nor is it weakened where it passes in the next combo
    old = [
        outcome(o.source, o.status, combo="old", exc_type=o.exc_type, message=o.message)
        for o in outcomes
    ]
    new = graded(mutant_1=Status.PASS)
    healths = assess([PROBLEM], PROBES, [*old, *new], default_limit=60)
    versions = {
        "old": {"pandas": "2.1.0", "python": "3.11"},
        "new": {"pandas": "2.2.0", "python": "3.11"},
    }
    assert weakened(healths, PROBES, [*old, *new], versions) == []


# -- what the digests compare: the names the check reads ---------------------------------


def _survivor_with(copy: dict[str, str], mutant: dict[str, str], problem: Problem = PROBLEM) -> Any:
    outcomes = [
        (
            outcome(o.source, Status.PASS, crossed=mutant)
            if o.source == "model:mutant-1"
            else (outcome(o.source, Status.PASS, crossed=copy) if o.source.endswith("copy") else o)
        )
        for o in graded()
    ]
    probes = [Probe(problem.id, p.name, p.code) for p in PROBES]
    outcomes = [dataclasses.replace(o, problem_id=problem.id) for o in outcomes]
    (h,) = assess([problem], probes, outcomes, default_limit=60)
    (s,) = h.survivors
    return h, s


def test_only_the_names_the_check_reads_are_compared() -> None:
    # DS-1000 reads ``result``: a temporary of the mutant's own does not make it differ
    h, s = _survivor_with({"result": "a", "ranked": "b"}, {"result": "a", "ranked": "c", "i": "d"})
    assert (s.equivalent, h.flags) == (True, ())
    h, s = _survivor_with({"result": "a"}, {"result": "z"})
    assert (s.equivalent, h.flags) == (False, (Flag.WEAK,))
    # a problem whose check may read anything (a full context): every name counts
    full = dataclasses.replace(
        PROBLEM, id="ours/full", source_file="ours/full.toml", code_context=FULL_CONTEXT
    )
    h, s = _survivor_with({"result": "a", "t": "b"}, {"result": "a", "t": "c"}, full)
    assert (s.equivalent, h.flags) == (False, (Flag.WEAK,))


def test_a_survivor_that_cannot_be_compared_says_why() -> None:
    # what crossed unnamed (figures, calls, values fetched) is compared always
    _, s = _survivor_with(
        {"result": "a", "<figures>": "?a figure crossed"}, {"result": "a", "x": "?whatever"}
    )
    assert (s.equivalent, s.uncompared) == (None, "<figures>: a figure crossed")
    # an undigested temporary the check does not read is no reason
    _, s = _survivor_with({"result": "a"}, {"result": "a", "names": "?it holds matplotlib objects"})
    assert (s.equivalent, s.uncompared) == (True, "")
    _, s = _survivor_with({}, {})
    assert (s.equivalent, s.uncompared) == (None, "nothing the check reads crossed")
    _, s = _survivor_with({"result": "a"}, {"result": "?what a call returned"})
    assert s.uncompared == "result: what a call returned"


def test_the_copys_values_varying_only_where_the_check_does_not_read_is_deterministic() -> None:
    second = Probe("set/1", "reference-copy-2", PROBLEM.reference_code)
    outcomes = [
        *graded(mutant_1=Status.PASS),
        outcome(
            "model:reference-copy-2", Status.PASS, crossed={"result": "same", "others": "seed"}
        ),
    ]
    (h,) = assess([PROBLEM], [*PROBES, second], outcomes, default_limit=60)
    assert not h.values_vary
    assert Flag.NONDETERMINISTIC not in h.flags


def test_an_older_outcome_files_single_digest_still_reads_and_compares() -> None:
    row = outcome("model:mutant-1", Status.PASS).to_dict()
    old = Outcome.from_dict({**row, "crossed": "0123456789abcdef"})
    assert old.crossed == {"": "0123456789abcdef"}
    assert Outcome.from_dict({**row, "crossed": ""}).crossed == {}
    again = Outcome.from_dict(outcome("x", crossed={"result": "ab"}).to_dict())
    assert again.crossed == {"result": "ab"}
    assert "crossed" not in outcome("x").to_dict()
    # two older outcomes: their one digest each is what is compared
    assert compare({"": "a"}, {"": "a"}) == (True, "")
    assert compare({"": "a"}, {"": "b"}) == (False, "")
    assert compare({"": "a"}, {"result": "a"}) == (False, "")


def test_our_compact_problems_read_result_and_full_contexts_anything() -> None:
    compact = dataclasses.replace(
        PROBLEM, source_file="p.toml", code_context=compact_context("x = 1\n", "assert 1\n")
    )
    assert ours_reads(compact) == ("result",)
    assert ours_reads(dataclasses.replace(compact, code_context=FULL_CONTEXT)) is None
    tampered = compact.code_context + "\nprint(namespace)\n"
    assert ours_reads(dataclasses.replace(compact, code_context=tampered)) is None
    assert ds1000_reads(PROBLEM) == ("result",)


FULL_CONTEXT = (
    "def test_execution(solution):\n    ns = {}\n    exec(solution, ns)\n    assert ns['t']\n"
)
