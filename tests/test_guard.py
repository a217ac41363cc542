"""The guard's checker side: applying the report a solution's process sends, and where
that process may be started (harness/envside/bridge/guard.py, harness/envside/bridge/resident.py).

The processes themselves (the fork, the pid namespace, the sandbox) are exercised by
tests/test_envside.py and tests/test_hostile.py; these are the parts that decide what the
check sees, fed with reports as a hostile solution could write them. The reports' wire
format: tests/test_wire.py.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from harness.envside.allowlist import Allowlist
from harness.envside.bridge import crossing_errors, guard, resident, transport
from harness.envside.protocol import RUNS_SOLUTION

ALLOWED = Allowlist.parse("builtins:complex call\n")


def make_guard() -> guard.Guard:
    return guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={}, allowlist=ALLOWED)


def test_values_are_admitted_and_unchanged_ones_kept() -> None:
    env = {"test_input": [1, 2], "stale": 5, "helper": len}
    report = {"kind": "ok", "values": ["result"], "unchanged": ["test_input"], "skipped": {}}
    make_guard()._apply(report, [pickle.dumps(3j, protocol=4)], env)
    # the solution's result; its own copy of the input as the checker had it; what it
    # deleted (stale) gone; functions, never sent, kept
    assert env == {"test_input": [1, 2], "result": 3j, "helper": len}


def test_a_refused_result_is_an_outcome_of_its_own() -> None:
    apart = make_guard()
    blob = pickle.dumps(1.5j + 1, protocol=4).replace(b"complex", b"eval\x00\x00\x00")
    env: dict[str, Any] = {}
    with pytest.raises(guard.GuardRefusedError, match="the solution's result was refused"):
        apart._apply({"values": ["result"]}, [blob], env)
    assert "result" not in env
    assert apart.refused


def test_another_refused_value_is_dropped_and_noted() -> None:
    apart = make_guard()
    env: dict[str, Any] = {"other": "the checker's"}
    bad = pickle.dumps(print, protocol=4)
    apart._apply({"values": ["result", "other"]}, [pickle.dumps(2j, protocol=4), bad], env)
    assert env == {"result": 2j}
    assert apart.refused == ["other: builtins:print is not in the allowlist"]


@pytest.mark.parametrize("name", ["__builtins__", "not an identifier", "__class__"])
def test_a_value_may_not_take_the_place_of_the_checks_own_names(name: str) -> None:
    env: dict[str, Any] = {"__builtins__": {}}
    with pytest.raises(guard.GuardRefusedError, match="not a variable of its own"):
        make_guard()._apply({"values": [name]}, [pickle.dumps(1, protocol=4)], env)


def test_a_result_that_could_not_be_sent_is_an_error() -> None:
    with pytest.raises(crossing_errors.RemoteError, match="could not be sent back"):
        make_guard()._apply({"values": [], "skipped": {"result": "PicklingError: no"}}, [], {})


def test_solution_lines_are_recognised_in_what_the_check_executes() -> None:
    apart = guard.Guard("x = 1\nresult = x + 1\n", close_fds=[], sandboxed=False, limits={})
    assert apart._holds_solution("import numpy\nresult = x + 1\nprint(result)")
    assert apart._holds_solution(RUNS_SOLUTION + "driver()")
    assert not apart._holds_solution("y = 2")
    assert not apart._holds_solution(compile("result = x + 1", "<c>", "exec"))


def test_the_placer_runs_solutions_only_in_an_executions_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A request comes from a checker's process, where a solution may have run (beside a
    # TensorFlow check) and could write its own: the placer keeps what the zygote told
    # the template, and a working directory that is no execution's gets no process.
    root = tmp_path / "tmp"
    (root / "harness_exec_1").mkdir(parents=True)
    place = {"sandboxed": False, "hide": [], "memory_mb": None, "workdirs": str(root)}
    resident.start_template([], place)
    template = resident.TEMPLATE[0].dup()  # as the zygote keeps it while its workers run
    try:
        resident.start_placer([])  # as a worker asks for its own
        assert resident.PLACER and resident.TEMPLATE[0].fileno() != template.fileno()
        assert resident.spared() == resident.PLACER
        config = {"parent": os.getpid(), "sandboxed": False, "fsize_mb": 64, "nproc": 0}
        solutions = resident.Resident(sandboxed=False, limits={}, place={}, warnings=False)
        monkeypatch.chdir(tmp_path)  # not under the template's directory
        assert solutions._from_template(dict(config, warnings=False)) is None
        assert resident.TEMPLATE == []  # refused once, it is not asked again

        resident.TEMPLATE[:] = [template.dup()]
        resident.start_placer([])
        monkeypatch.chdir(root / "harness_exec_1")
        process = solutions._from_template(dict(config, warnings=False))
        assert process is not None
        process.let_go()
    finally:
        resident.drop_template()
        template.close()


class _ObjectsWithoutFlat:
    """Looks like an object-dtype array to a quick test (pandas' Series), has no ``flat``."""

    dtype = type("D", (), {"kind": "O"})()


@pytest.mark.parametrize(
    ("value", "packages", "digested"),
    [
        ([1, 2], set(), True),
        (len, set(), True),  # a library function crosses by its name: counted
        (_ObjectsWithoutFlat(), set(), True),  # whatever its attributes, counted
        ([1, 2], {"matplotlib"}, False),  # admitting it named Matplotlib: a figure's part
    ],
)
def test_the_digest_counts_data_and_never_raises(
    value: Any, packages: set[str], digested: bool
) -> None:
    apart = guard.Guard("result = 1", close_fds=[], sandboxed=False, limits={})
    apart._digest("result", value, pickle.dumps(1), packages)
    found = apart.digests()
    assert set(found) == {"result"}
    assert (not found["result"].startswith("?")) is digested
    if not digested:
        assert found["result"] == "?it holds matplotlib objects"


def test_a_holder_of_artists_is_told_by_what_it_is_made_of_not_its_attributes() -> None:
    # the solution's side: an object-dtype value without ``flat`` (a Series of strings)
    # holds no artist, and asking does not raise (it did, failing the whole report)
    assert not transport.holds_artists(_ObjectsWithoutFlat())
    assert transport.holds_artists([1, type("Axes", (), {"__module__": "matplotlib.axes"})()])
