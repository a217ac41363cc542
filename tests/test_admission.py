"""The guard admits what the references' values use in each combo (harness/execute/admission.py).

A value of a class the shipped allowlist has never met is refused, and an honest answer
with it: that is what a release the list has not seen does to every honest answer. Measured
on the references first, it is admitted; the measurement is kept per environment lock.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from harness.core.problem import Problem, Solution
from harness.envs.build import EnvInfo
from harness.execute import admission, allowlist
from harness.execute.runner import Execution, RunOptions
from tests.conftest import run_harness

PY = f"{sys.version_info.major}.{sys.version_info.minor}"
# a value of a class the shipped allowlist does not list (ipaddress is never in a
# DS-1000 answer): its pickle calls ipaddress:IPv4Address
CONTEXT = """
def test_execution(solution):
    env = {}
    exec(solution, env)
    assert str(env["result"]) == "10.0.0.1"
"""
REFERENCE = "import ipaddress\nresult = ipaddress.ip_address('10.0.0.1')\n"


def test_the_shipped_list_does_not_name_the_class() -> None:
    shipped = allowlist.parse(allowlist.SHIPPED.read_text(encoding="utf-8"))
    assert "ipaddress:IPv4Address" not in shipped.globals


def test_beyond_keeps_only_what_is_new() -> None:
    shipped = allowlist.parse("numpy:ndarray call build\nevent object.__getattr__\n")
    measured = allowlist.parse(
        "numpy:ndarray call build\nnumpy:dtype call\nipaddress:IPv4Address call\n"
        "event object.__getattr__\nevent object.__setattr__\n"
    )
    extra = allowlist.beyond(measured, shipped)
    assert sorted(extra.globals) == ["ipaddress:IPv4Address", "numpy:dtype"]
    assert sorted(extra.events) == ["object.__setattr__"]


def test_nothing_is_measured_without_answers(tmp_path: Path) -> None:
    problem = Problem(id="p/1", native_id="1", set_name="p", library="numpy", prompt="",
                      reference_code=REFERENCE, code_context=CONTEXT)  # fmt: skip
    info = EnvInfo(combo="c", ok=True, lock_hash="abc", path=str(tmp_path))
    reference = Execution(problem, Solution("p/1", "reference", REFERENCE))
    assert (
        admission.measure(tmp_path, info, [reference], RunOptions(), "r") == admission.Admission()
    )
    answered = Execution(problem, Solution("p/1", "model:m", REFERENCE))
    # no guard, or a recording run: nothing to admit beyond what everything is
    for options in (RunOptions(guard=False), RunOptions(record_transport=True)):
        assert admission.measure(tmp_path, info, [answered], options, "r") == admission.Admission()


@pytest.mark.network
def test_a_release_the_list_has_not_met_refuses_no_honest_answer(tmp_path: Path) -> None:
    problems = tmp_path / "problems" / "addr"
    problems.mkdir(parents=True)
    (problems / "ip.toml").write_text(
        'library = "numpy"\nprompt = "An address."\n'
        f"context = '''{CONTEXT}'''\nreference = '''{REFERENCE}'''\n"
    )
    answers = tmp_path / "model.jsonl"
    answers.write_text(json.dumps({"problem_id": "problems/addr/ip", "code": REFERENCE}) + "\n")
    (tmp_path / "matrix.toml").write_text(
        textwrap.dedent(f"""
        [matrix]
        python = "{PY}"
        [combos.np]
        numpy = "2.2.6"
    """)
    )

    def run(run_id: str, *more: str) -> dict[str, dict[str, object]]:
        proc = run_harness(
            "run", "--problems", str(tmp_path / "problems"), "--answers", str(answers),
            "--results", str(tmp_path / "results"), "--env-dir", str(tmp_path / "envs"),
            "--run-id", run_id, "--no-history", "-j", "1", *more,
            cwd=tmp_path, check=False,
        )  # fmt: skip
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        lines = (tmp_path / "results" / run_id / "np.jsonl").read_text().splitlines()
        return {json.loads(x)["source"]: json.loads(x) for x in lines} | {
            "log": {"text": proc.stderr}
        }

    shipped_only = run("shipped", "--no-measured-admission")
    assert shipped_only["reference"]["status"] == "pass"
    refused = shipped_only["model:model"]
    assert (refused["status"], refused["exc_type"]) == ("error", "GuardRefused")
    assert "ipaddress:IPv4Address is not in the allowlist" in str(refused["message"])

    measured = run("measured")
    assert measured["model:model"]["status"] == "pass", measured["model:model"]
    admitted = (tmp_path / "results" / "measured" / "envs" / "np.admitted.txt").read_text()
    assert "ipaddress:IPv4Address call" in admitted
    assert "measured what 1 references' values use" in str(measured["log"]["text"])

    again = run("again")  # the same lock: the measurement is kept, not made again
    assert again["model:model"]["status"] == "pass"
    assert "measured what" not in str(again["log"]["text"])
    kept = list((tmp_path / "envs" / admission.CACHE).glob("*.json"))
    assert len(kept) == 1
