"""The reusable workflow (``.github/workflows/harness.yml``), its callers — our nightly
and the example other repositories copy — and the checker of a caller's inputs."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from harness import __version__
from tests.conftest import ROOT
from tests.workflows import caller_problems, declared_inputs, load

WORKFLOWS = ROOT / ".github" / "workflows"
REUSABLE = WORKFLOWS / "harness.yml"
NIGHTLY = WORKFLOWS / "nightly.yml"
EXAMPLE = ROOT / "docs" / "examples" / "harness-caller.yml"
EXAMPLE_USES = "ds-matrix-harness/ds-matrix-harness/.github/workflows/harness.yml@v0.2.0"


def caller(jobs: str, permissions: str = "{}") -> str:
    """A calling workflow with these ``jobs:`` (indented as under ``jobs:``)."""
    head = f"name: c\non: [workflow_dispatch]\npermissions: {permissions}\njobs:\n"
    return head + textwrap.indent(textwrap.dedent(jobs), "  ")


GRANTS = "  permissions: { contents: read, issues: write }\n"


# -- the reusable workflow's interface ----------------------------------------------------


def test_the_reusable_workflow_declares_its_inputs() -> None:
    inputs = declared_inputs(REUSABLE)
    assert set(inputs) >= {
        "matrix", "problems", "answers", "combos", "shards", "bisect", "audit", "harness",
        "python-version", "issue-title",
    }  # fmt: skip
    for name, spec in inputs.items():
        assert spec.get("description"), name  # every input says what it is
        assert spec.get("type") in {"string", "boolean", "number"}, name
        assert not spec.get("required"), name  # a caller may give none of them
    defaults = {name: spec.get("default") for name, spec in inputs.items()}
    assert defaults["matrix"] == "matrix.toml"
    assert defaults["harness"] == f"ds-matrix-harness=={__version__}"
    assert defaults["python-version"] == "3.11"
    assert defaults["bisect"] is True
    assert defaults["audit"] is True
    assert defaults["issue-title"] == "Nightly drift report"
    for empty in ("problems", "answers", "combos", "shards"):
        assert defaults[empty] == "", empty  # empty: the matrix's [nightly] decides


def test_inputs_reach_the_scripts_only_through_env() -> None:
    """No ``${{ … }}`` inside a ``run:``: an input's text is never shell code."""
    jobs = load(REUSABLE.read_text(encoding="utf-8"))["jobs"]
    for name, job in jobs.items():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), (name, step.get("name"))
    texts = [step.get("env", {}) for job in jobs.values() for step in job["steps"]]
    used = {m for env in texts for v in env.values() for m in re.findall(r"inputs\.([\w-]+)", v)}
    # the inputs the scripts read (the others are actions' `with:` or jobs' `if:`)
    assert used >= {"matrix", "problems", "answers", "combos", "shards", "harness"}
    assert used >= {"audit-problems", "issue-title"}


def test_permissions_are_the_jobs_own_and_minimal() -> None:
    doc = load(REUSABLE.read_text(encoding="utf-8"))
    assert doc["permissions"] == {}
    asked = {name: job["permissions"] for name, job in doc["jobs"].items()}
    assert asked == {
        "plan": {"contents": "read"},
        "run": {"contents": "read"},
        "audit": {"contents": "read"},
        "report": {"contents": "read", "issues": "write"},
    }


def test_the_harness_is_installed_from_the_input_in_every_job() -> None:
    jobs = load(REUSABLE.read_text(encoding="utf-8"))["jobs"]
    for name, job in jobs.items():
        installs = [s for s in job["steps"] if "pip install" in s.get("run", "")]
        assert len(installs) == 1, name
        assert installs[0]["run"].strip() == 'python -m pip install "$HARNESS_REQUIREMENT"'
        assert installs[0]["env"] == {"HARNESS_REQUIREMENT": "${{ inputs.harness }}"}


def test_the_audit_and_bisection_are_switchable() -> None:
    jobs = load(REUSABLE.read_text(encoding="utf-8"))["jobs"]
    assert jobs["audit"]["if"] == "inputs.audit"
    assert "audit" in jobs["report"]["needs"]  # waits for it, runs without it
    assert jobs["report"]["if"] == "always() && needs.plan.result == 'success'"
    bisect = next(s for s in jobs["report"]["steps"] if "harness bisect" in s.get("run", ""))
    assert bisect["if"] == "inputs.bisect"


def test_the_issue_is_the_callers() -> None:
    jobs = load(REUSABLE.read_text(encoding="utf-8"))["jobs"]
    issue = next(s for s in jobs["report"]["steps"] if "gh issue" in s.get("run", ""))
    assert issue["env"]["GH_REPO"] == "${{ github.repository }}"
    assert issue["env"]["TITLE"] == "${{ inputs.issue-title }}"
    assert 'gh issue create --title "$TITLE"' in issue["run"]


# -- our nightly: a caller --------------------------------------------------------------------


def test_our_nightly_calls_the_reusable_workflow_with_this_repository() -> None:
    text = NIGHTLY.read_text(encoding="utf-8")
    assert caller_problems(text, REUSABLE) == []
    doc = load(text)
    assert doc["on"]["schedule"] == [{"cron": "17 3 * * *"}]
    assert set(doc["on"]["workflow_dispatch"]["inputs"]) == {
        "combos",
        "problems",
        "shards",
        "bisect",
    }
    assert doc["concurrency"] == {"group": "nightly", "cancel-in-progress": False}
    assert doc["permissions"] == {}
    (job,) = doc["jobs"].values()
    assert job["uses"] == "./.github/workflows/harness.yml"
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    assert job["with"]["harness"] == "."  # the checked-out repository, not a release
    # a scheduled night bisects; a manual run when asked
    assert job["with"]["bisect"] == "${{ github.event_name == 'schedule' || inputs.bisect }}"
    for name in ("combos", "problems", "shards"):
        assert job["with"][name] == f"${{{{ inputs.{name} }}}}"


# -- the example other repositories copy ------------------------------------------------


def test_the_docs_example_is_a_short_right_caller() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert caller_problems(text, REUSABLE) == []
    assert 5 <= len(text.splitlines()) <= 10
    (job,) = load(text)["jobs"].values()
    assert job["uses"] == EXAMPLE_USES  # `harness init --github` writes it as it is
    assert text.count("@v0.2.0") == 1


def test_a_tag_of_the_workflow_installs_the_tool_of_that_release() -> None:
    """The caller pins the workflow by tag; the tool it installs by default is that
    release's, and the example names the version being released: bump them together."""
    default = declared_inputs(REUSABLE)["harness"]["default"]
    assert default == f"ds-matrix-harness=={__version__}"
    assert EXAMPLE_USES.endswith(f"@v{__version__}")


def test_the_docs_name_every_input() -> None:
    docs = (ROOT / "docs" / "github-actions.md").read_text(encoding="utf-8")
    for name in declared_inputs(REUSABLE):
        assert f"| `{name}` |" in docs, name
    # the example, whole, as docs/examples/harness-caller.yml has it
    example = EXAMPLE.read_text(encoding="utf-8")
    assert f"```yaml\n{example}```\n" in docs


# -- the checker: broken callers ---------------------------------------------------------


def test_a_right_caller_with_inputs_has_no_problems() -> None:
    text = caller(
        f"h:\n  uses: {EXAMPLE_USES}\n"
        + GRANTS
        + textwrap.dedent("""\
              with:
                matrix: matrices/mine.toml
                problems: problems ds1000
                bisect: false
                audit: ${{ github.event_name == 'schedule' }}
                shards: 2
            """)
    )
    assert caller_problems(text, REUSABLE) == []


@pytest.mark.parametrize(
    ("with_", "expected"),
    [
        (
            "problemz: ds1000",
            "jobs.h.with.problemz: not an input of harness.yml (answers, audit, ",
        ),
        (
            'bisect: "false"',
            "jobs.h.with.bisect: a boolean input, given 'false' (write true or false, unquoted)",
        ),
        ("audit: yes please", "jobs.h.with.audit: a boolean input, given 'yes please'"),
        ("harness: true", "jobs.h.with.harness: a string input, given the boolean True"),
    ],
)
def test_a_wrong_input_is_named(with_: str, expected: str) -> None:
    text = caller(f"h:\n  uses: {EXAMPLE_USES}\n" + GRANTS + f"  with:\n    {with_}\n")
    (problem,) = caller_problems(text, REUSABLE)
    assert problem.startswith(expected)


@pytest.mark.parametrize(
    ("uses", "expected"),
    [
        (
            "ds-matrix-harness/ds-matrix-harness/.github/workflows/nightly.yml@v0.2.0",
            (
                "jobs.h.uses: 'ds-matrix-harness/ds-matrix-harness/.github/workflows/nightly.yml"
                "@v0.2.0' does not name harness.yml"
            ),
        ),
        (
            "ds-matrix-harness/ds-matrix-harness/.github/workflows/harness.yml",  # no @ref
            (
                "jobs.h.uses: 'ds-matrix-harness/ds-matrix-harness/.github/workflows/harness.yml'"
                " is neither owner/repo/.github/workflows/harness.yml@ref nor"
                " ./.github/workflows/harness.yml"
            ),
        ),
        (
            "./harness.yml",
            (
                "jobs.h.uses: './harness.yml' is neither owner/repo/.github/workflows/harness.yml"
                "@ref nor ./.github/workflows/harness.yml"
            ),
        ),
    ],
)
def test_a_wrong_uses_is_named(uses: str, expected: str) -> None:
    assert caller_problems(caller(f"h:\n  uses: {uses}\n" + GRANTS), REUSABLE) == [expected]


def test_a_required_input_must_be_given(tmp_path: Path) -> None:
    reusable = tmp_path / "harness.yml"
    reusable.write_text(
        textwrap.dedent("""\
            on:
              workflow_call:
                inputs:
                  needed: {description: "d", type: string, required: true}
                  defaulted: {description: "d", type: string, required: true, default: x}
            jobs: {}
        """)
    )
    text = caller(f"h:\n  uses: {EXAMPLE_USES}\n")
    assert caller_problems(text, reusable) == [
        "jobs.h.with: the required input needed is not given"
    ]
    given = caller(f"h:\n  uses: {EXAMPLE_USES}\n  with:\n    needed: y\n")
    assert caller_problems(given, reusable) == []


def test_the_caller_must_grant_what_the_jobs_ask_for() -> None:
    none = caller(f"h:\n  uses: {EXAMPLE_USES}\n")  # the workflow's permissions: {}
    assert caller_problems(none, REUSABLE) == [
        "jobs.h.permissions: contents: read is needed, the caller grants none",
        "jobs.h.permissions: issues: write is needed, the caller grants none",
    ]
    read_only = caller(f"h:\n  uses: {EXAMPLE_USES}\n", permissions="read-all")
    assert caller_problems(read_only, REUSABLE) == [
        "jobs.h.permissions: issues: write is needed, the caller grants read"
    ]
    workflow_wide = caller(
        f"h:\n  uses: {EXAMPLE_USES}\n", permissions="{ contents: read, issues: write }"
    )
    assert caller_problems(workflow_wide, REUSABLE) == []


def test_a_caller_that_calls_nothing_is_named() -> None:
    steps = caller("h:\n  runs-on: ubuntu-latest\n  steps: [{run: echo}]\n")
    assert caller_problems(steps, REUSABLE) == ["jobs: none calls harness.yml (a job with `uses:`)"]
    assert caller_problems("name: x\n", REUSABLE) == ["jobs: none"]


# -- the steps' scripts, with a stub `harness` that records what it was asked ------------


def step_script(job: str, command: str) -> str:
    steps = load(REUSABLE.read_text(encoding="utf-8"))["jobs"][job]["steps"]
    return str(next(s["run"] for s in steps if command in s.get("run", "")))


def run_script(
    script: str, cwd: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    """``script`` as Actions runs it (``bash -e``) in ``cwd``, ``harness`` a stub; the
    stub's calls, one argument list each."""
    bin_dir = cwd / "bin"
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "harness"
    stub.write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" >> {cwd / "asked"}\necho >> {cwd / "asked"}\n')
    stub.chmod(0o755)
    proc = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        env={
            **os.environ,
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "RUN_ID": "nightly-1",
            "GITHUB_OUTPUT": str(cwd / "output"),
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
    )
    asked = cwd / "asked"
    calls = asked.read_text().split("\0\n") if asked.exists() else []
    return proc, [call.split("\0") for call in calls if call]


PLAN_ENV = {"MATRIX": "matrix.toml", "ANSWERS": "", "COMBOS": "", "SHARDS": ""}
PLAN = ["plan", "--github", "--nightly", "--history", "results/history.sqlite"]
PLAN += ["--write-durations", "durations.json"]


def test_the_plan_passes_the_matrix_only_when_it_exists(tmp_path: Path) -> None:
    script = step_script("plan", "harness plan")
    proc, calls = run_script(script, tmp_path, PLAN_ENV)
    assert proc.returncode == 0, proc.stderr
    assert calls == [PLAN]  # no matrix.toml here: the tool's own default
    (tmp_path / "m.toml").write_text("")
    (tmp_path / "answers").mkdir()
    given = {"MATRIX": "m.toml", "ANSWERS": "answers", "COMBOS": "latest,pre", "SHARDS": "2"}
    proc, calls = run_script(script, tmp_path, given)
    assert proc.returncode == 0, proc.stderr
    assert calls[-1] == [*PLAN, "--matrix", "m.toml", "--shards", "2", "--combos", "latest,pre"]
    assert (tmp_path / "output").read_text().startswith("matrix=")


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ({"MATRIX": "matrices/gone.toml"}, "::error::matrix: matrices/gone.toml: no such file"),
        ({"ANSWERS": "gone"}, "::error::answers: gone: no such directory"),
    ],
)
def test_the_plan_fails_on_a_path_that_is_not_there(
    tmp_path: Path, given: dict[str, str], error: str
) -> None:
    proc, calls = run_script(step_script("plan", "harness plan"), tmp_path, {**PLAN_ENV, **given})
    assert proc.returncode == 1
    assert proc.stdout.startswith(error)
    assert calls == []  # before any harness command


def test_a_job_runs_its_shards_with_the_callers_inputs(tmp_path: Path) -> None:
    script = step_script("run", "harness run")
    env = {"RUNS": "a:1/2 b:2/2", "NAME": "group-001", "MATRIX": "matrix.toml"}
    proc, calls = run_script(script, tmp_path, {**env, "PROBLEMS": "", "ANSWERS": ""})
    assert proc.returncode == 0, proc.stderr
    tail = ["--shard-durations", "durations.json", "--results", "artifacts/group-001"]
    tail += ["--run-id", "nightly-1", "--no-history", "-q"]
    assert calls == [
        ["run", "--nightly", "--combos", "a", "--shard", "1/2", *tail],
        ["run", "--nightly", "--combos", "b", "--shard", "2/2", *tail],
    ]
    (tmp_path / "matrix.toml").write_text("")
    (tmp_path / "models").mkdir()
    for model in ("gpt-answers.jsonl", "llama.jsonl", "notes.md"):
        (tmp_path / "models" / model).write_text("")
    given = {"PROBLEMS": "problems ds1000", "ANSWERS": "models", "RUNS": "a:1/1"}
    (tmp_path / "asked").unlink()
    proc, calls = run_script(script, tmp_path, {**env, **given})
    assert proc.returncode == 0, proc.stderr
    assert calls == [
        [
            *("run", "--nightly", "--matrix", "matrix.toml", "--problems", "problems"),
            *("--problems", "ds1000", "--answers", "models/gpt-answers.jsonl"),
            *("--answers", "models/llama.jsonl", "--combos", "a", "--shard", "1/1", *tail),
        ]
    ]


def test_the_audit_audits_the_problems_it_is_given(tmp_path: Path) -> None:
    script = step_script("audit", "harness audit")
    proc, calls = run_script(script, tmp_path, {"MATRIX": "matrix.toml", "PROBLEMS": ""})
    assert proc.returncode == 0, proc.stderr
    tail = ["--results", "audit", "--run-id", "nightly-1", "-q"]
    assert calls == [["audit", "--bisect", *tail]]
    (tmp_path / "asked").unlink()
    proc, calls = run_script(script, tmp_path, {"MATRIX": "x.toml", "PROBLEMS": "mine"})
    assert calls == [["audit", "--bisect", "--problems", "mine", *tail]]
    steps = load(REUSABLE.read_text(encoding="utf-8"))["jobs"]["audit"]["steps"]
    audit = next(s for s in steps if "harness audit" in s.get("run", ""))
    assert audit["env"]["PROBLEMS"] == "${{ inputs.audit-problems || inputs.problems }}"


def test_the_release_watch_reads_the_callers_matrix(tmp_path: Path) -> None:
    script = step_script("report", "harness releases")
    tail = ["--history", "results/history.sqlite", "--write", "results/nightly-1/releases.json"]
    proc, calls = run_script(script, tmp_path, {"MATRIX": "matrix.toml"})
    assert proc.returncode == 0, proc.stderr
    assert calls == [["releases", *tail]]  # no matrix.toml: the tool's default
    (tmp_path / "matrix.toml").write_text("")
    (tmp_path / "asked").unlink()
    proc, calls = run_script(script, tmp_path, {"MATRIX": "matrix.toml"})
    assert calls == [["releases", "--matrix", "matrix.toml", *tail]]
