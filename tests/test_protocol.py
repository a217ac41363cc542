"""What crosses the boundary, declared once: the batch file, the outcome and done lines.

Every key is read through its declaration, and anything else is refused with one line
naming it; the defaults of a minimal batch are the declared ones, on both sides; the host's
statuses and the formats' helper names are the protocol's.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from harness.benchmarks.bigcodebench import load as bigcodebench
from harness.benchmarks.cibench import load as cibench
from harness.benchmarks.exeds import load as exeds
from harness.benchmarks.gitchameleon import load as gitchameleon
from harness.core.results import Status
from harness.envside import protocol
from harness.envside.checks import formatlib
from tests.envside import benchmark_side, run_envside

CHECK_THREE = textwrap.dedent("""
    def test_execution(solution):
        namespace = {}
        exec(solution, namespace)
        assert namespace["result"] == 3
""")


def minimal(**extra: Any) -> dict[str, Any]:
    """A batch with nothing but what has no default."""
    return {
        "protocol": protocol.PROTOCOL,
        "problems": {"p": {"context": CHECK_THREE}},
        "executions": [{"problem": "p", "solution": "result = 3"}],
        **extra,
    }


def test_a_minimal_batch_is_read_with_the_declared_defaults() -> None:
    batch = protocol.read_batch(json.dumps(minimal()))
    assert batch.options == protocol.Options()
    assert batch.problems == {"p": protocol.ProblemSpec(CHECK_THREE)}
    (execution,) = batch.executions
    assert execution.trusted is False  # an execution nobody vouched for is a model's
    assert batch.timeout_of(execution) == protocol.Options().timeout == 120.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"limits": {"tasks": 8}}, "batch: unknown key 'limits'"),
        ({"options": {"limits": {}}}, "batch: options: unknown key 'limits'"),
        (
            {"executions": [{"problem": "p", "solution": "", "source": "reference"}]},
            "batch: executions[0]: unknown key 'source'",
        ),
        (
            {"problems": {"p": {"context": "", "timeout": 3}}},
            "batch: problems['p']: unknown key 'timeout'",
        ),
        ({"executions": [{"problem": "p"}]}, "batch: executions[0]: missing key 'solution'"),
        (
            {"problems": {"p": {"context": 3}}},
            "batch: problems['p'].context: expected a string, got 3",
        ),
        (
            {"options": {"timeout": 0}},
            "batch: options.timeout: expected a positive number of seconds, got 0",
        ),
        (
            {"options": {"jobs": True}},
            "batch: options.jobs: expected a positive whole number, got true",
        ),
        (
            {"options": {"isolation": "forked"}},
            "batch: options.isolation: expected one of zygote, fresh, got 'forked'",
        ),
        ({"options": {"hide": "/x"}}, "batch: options.hide: expected a list of strings, got '/x'"),
        ({"options": {"hide": ["/x", 1]}}, "batch: options.hide[1]: expected a string, got 1"),
        (
            {"executions": [{"problem": "q", "solution": ""}]},
            "batch: executions[0].problem: 'q' is not one of the batch's problems",
        ),
        (
            {"protocol": 1, "limits": {}},  # the version is told first: the rest may differ
            (
                "batch: protocol: the host speaks protocol 1, this env side protocol"
                f" {protocol.PROTOCOL} (they come from different versions of the harness)"
            ),
        ),
    ],
)
def test_a_batch_that_does_not_follow_the_protocol_is_refused_naming_the_key(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(protocol.ProtocolError) as refused:
        protocol.read_batch(json.dumps(minimal(**change)))
    assert str(refused.value) == message


def test_a_batch_without_its_protocol_is_refused() -> None:
    data = minimal()
    del data["protocol"]
    with pytest.raises(protocol.ProtocolError, match=r"^batch: missing key 'protocol'$"):
        protocol.read_batch(json.dumps(data))


def test_lines_read_back_as_they_were_written() -> None:
    record = protocol.Record(
        protocol.FAIL,
        exc_type="AssertionError",
        warnings=(protocol.WarningRecord("FutureWarning", "old", "pandas"),),
        parts=(protocol.PartRecord("t1", protocol.PASS),),
        transport={"numpy.ndarray": 1},
    )
    assert protocol.read_line(protocol.outcome_line(4, record)) == protocol.OutcomeLine(4, record)
    zygote = protocol.Zygote(("torch",), "torch", ("torch",), {}, {"x": "ImportError: no"})
    done = protocol.Done(protocol.PROTOCOL, isolation="zygote", zygotes=(zygote,))
    assert protocol.read_line(protocol.done_line(done)) == done


def test_the_env_side_runs_a_minimal_batch_with_the_declared_defaults(tmp_path: Path) -> None:
    execution = {"problem": "p", "solution": "import colorsys\nresult = 3"}
    returncode, (outcome, done) = run_envside(tmp_path, minimal(executions=[execution]))
    assert returncode == 0
    assert isinstance(outcome, protocol.OutcomeLine)
    assert (outcome.seq, outcome.outcome.status) == (0, protocol.PASS)
    assert isinstance(done, protocol.Done)
    defaults = protocol.Options()
    assert (done.isolation, done.guard) == (defaults.isolation, defaults.guard)
    # untrusted by default: what its solution imports, the zygote does not
    (zygote,) = done.zygotes
    assert zygote.preloaded == ()


def test_the_env_side_refuses_a_batch_of_unknown_keys_before_running_any(tmp_path: Path) -> None:
    returncode, lines = run_envside(tmp_path, minimal(limits={"tasks": 8}))
    assert returncode == 2
    assert lines == [protocol.Done(protocol.PROTOCOL, refused="batch: unknown key 'limits'")]


def test_the_hosts_statuses_are_the_protocols() -> None:
    assert tuple(status.value for status in Status) == protocol.STATUSES
    assert set(protocol.PART_STATUSES) <= set(protocol.STATUSES)
    assert set(protocol.REPORTED_STATUSES) <= set(protocol.STATUSES)


def test_the_helpers_the_templates_call_are_formatlibs() -> None:
    # formatlib and its per-format modules: a context imports their ``__all__``
    exported = {
        name: module
        for module in (
            formatlib,
            benchmark_side("bigcodebench.check"),
            benchmark_side("gitchameleon.check"),
            benchmark_side("cibench.check"),
        )
        for name in module.__all__
    }
    for name in protocol.FORMAT_HELPERS.values():
        assert name in exported
        assert hasattr(exported[name], name)


@pytest.mark.parametrize("module", [bigcodebench, gitchameleon, cibench, exeds])
def test_a_template_calls_the_helpers_by_their_declared_names_only(module: Any) -> None:
    # (``_harness_run_cell``, the name a driver is given, is another name)
    spelled = [n for n in protocol.FORMAT_HELPERS.values() if re.search(rf"\b{n}\b", module.CHECK)]
    assert spelled == []
