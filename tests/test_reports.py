from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from harness import cli
from harness.analysis.changes import Changes, StatusChange, VersionChange
from harness.analysis.summary import Summary
from harness.analysis.summary import read as summary_of
from harness.core.problem import Change, Problem, Solution
from harness.core.results import Outcome, OutcomeWriter, Part, Status, write_json
from harness.envs.build import EnvInfo
from harness.envside.protocol import OUTPUT_FORMAT
from harness.execute.rundir import RunDir, RunRequest
from harness.problems import sets as problemsets
from harness.problems.answers import load_solutions
from harness.reports import write_reports
from harness.reports.junit import _case
from tests.conftest import ROOT, run_harness


def make_run(tmp_path: Path) -> RunDir:
    run = RunDir(tmp_path / "r1")
    envs = {
        "old": EnvInfo(
            "old", ok=True, python="3.11.7", versions={"numpy": "1.26.4", "pandas": "1.5.3"}
        ),
        "new": EnvInfo(
            "new", ok=True, python="3.11.7", versions={"numpy": "2.1.3", "pandas": "1.5.3"}
        ),
        "bad": EnvInfo("bad", ok=False, stage="resolve", error="No solution found: numpy==99"),
    }
    write_json(run.manifest, {"run_id": "r1", "baseline": "old", "combos": ["old", "new", "bad"]})
    for combo, env in envs.items():
        write_json(run.env_info(combo), env.to_dict())
    rows: dict[str, list[tuple[str, Status, str | None, str]]] = {
        "old": [
            ("p/1", Status.PASS, None, ""),
            ("p/2", Status.PASS, None, ""),
            ("p/3", Status.SKIPPED, None, "needs torch"),
        ],
        "new": [
            ("p/1", Status.ERROR, "AttributeError", "module 'numpy' has no attribute 'product'"),
            ("p/2", Status.FAIL, "AssertionError", ""),
            ("p/3", Status.SKIPPED, None, "needs torch"),
        ],
        "bad": [(p, Status.ENV_ERROR, None, "resolve: No solution") for p in ("p/1", "p/2", "p/3")],
    }
    for combo, items in rows.items():
        with OutcomeWriter(run.outcomes(combo)) as w:
            for seq, (pid, status, exc, msg) in enumerate(items):
                w.write(
                    Outcome(
                        "r1",
                        combo,
                        pid,
                        "reference",
                        status,
                        library="numpy",
                        exc_type=exc,
                        message=msg,
                        duration_s=0.5,
                        versions=envs[combo].library_versions(),
                        seq=seq,
                    )
                )
            w.write(
                Outcome(
                    "r1",
                    combo,
                    "p/1",
                    "model:m",
                    Status.PASS if combo == "old" else Status.FAIL,
                    library="numpy",
                    seq=9,
                )
            )
    return run


def test_summary_markdown(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    summary = write_reports(run)
    md = run.summary_md.read_text()
    assert "Baseline combo: `old` · 3 combos · 3 problems · 12 executions" in md
    assert "| `new` | 3.11.7 | 2.1.3 | 1.5.3 | built in 0 s |" in md
    assert "| `bad` | – | – | – | **env_error** (resolve): No solution found: numpy==99 |" in md
    assert "| `old` | reference | 2 | 0 | 0 | 1 | 0 | 100.0% |" in md
    assert "| `new` | reference | 0 | 1 | 1 | 1 | 0 | 0.0% |" in md
    assert "Era order: `old` → `new` → `bad`" in md
    assert (
        "| `p/1` | numpy | drifted | `old` → `new` | AttributeError: module 'numpy' has no attribute "
        "'product' | removed-api | `numpy.product` | – | – | – | – | numpy 1.26.4→2.1.3 |" in md
    )
    assert (
        "| `p/2` | numpy | drifted | `old` → `new` | AssertionError | changed-behaviour | – "
        "| assertion | – | – | – | numpy 1.26.4→2.1.3 |" in md
    )
    assert "| reference | 2 | 1 |" in md  # 2 drifted, 1 with no env that could run it
    # model answers drift too, but they are not problem drift
    assert [(t.problem_id, t.first_bad) for t in summary.drift] == [("p/1", "new"), ("p/2", "new")]
    assert summary.classes["model:m"] == {"drifted": 1}
    data = json.loads(run.summary_json.read_text())
    assert Summary.from_dict(data) == summary  # summary.json is the summary, read back
    assert data["combos"][1]["counts"]["reference"] == {"error": 1, "fail": 1, "skipped": 1}
    assert data["combos"][0]["pass_rate"]["reference"] == 1.0
    assert data["drift"][0]["changed"] == {"numpy": ["1.26.4", "2.1.3"]}
    assert data["drift"][0]["cause"] == "removed-api"
    assert data["classes"]["reference"] == {"drifted": 2, "env-error": 1}


def test_junit(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    write_reports(run)
    merged = JUnitXml.fromfile(str(run.merged_junit))
    suites = {s.name: s for s in merged}
    assert list(suites) == ["old", "new", "bad"]
    new = suites["new"]
    props = {p.name: p.value for p in new.properties()}
    assert props == {"python": "3.11.7", "numpy": "2.1.3", "pandas": "1.5.3"}
    cases = {(c.classname, c.name): c for c in new}
    (err,) = cases[("p/1", "reference")].result
    assert isinstance(err, Error) and err.type == "AttributeError"
    assert err.message == "AttributeError: module 'numpy' has no attribute 'product'"
    (fail,) = cases[("p/2", "reference")].result
    assert isinstance(fail, Failure)
    (skip,) = cases[("p/3", "reference")].result
    assert isinstance(skip, Skipped) and skip.message == "needs torch"
    assert (new.tests, new.failures, new.errors, new.skipped) == (4, 2, 1, 1)
    bad = suites["bad"]
    assert {p.name: p.value for p in bad.properties()}[
        "env_error"
    ] == "resolve: No solution found: numpy==99"
    assert all(
        isinstance(c.result[0], Error) and c.result[0].type == "env_error"
        for c in bad
        if c.name == "reference"
    )
    one = JUnitXml.fromfile(str(run.junit("old")))
    assert [s.name for s in one] == ["old"]


def test_junit_lists_the_parts_of_a_failure() -> None:
    outcome = Outcome(
        "r1",
        "new",
        "bcb/1",
        "model:m",
        Status.FAIL,
        exc_type="AssertionError",
        message="1 of 2 failed (TestCases.test_b): 1 != 2",
        parts=(Part("TestCases.test_a", "pass"), Part("TestCases.test_b", "fail", "1 != 2")),
    )
    (fail,) = _case(outcome).result
    assert fail.text.splitlines() == [
        "1 of 2 failed (TestCases.test_b): 1 != 2",
        "pass    TestCases.test_a",
        "fail    TestCases.test_b: 1 != 2",
    ]
    assert Outcome.from_dict(outcome.to_dict()) == outcome
    assert "parts" not in Outcome.from_dict({**outcome.to_dict(), "parts": []}).to_dict()


def test_changes_are_kept_when_the_reports_are_rewritten(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    changes = Changes(
        "r0",
        "r1",
        new_failures=(StatusChange("new", "p/1", "reference", "pass", "error", "gone"),),
        releases=(VersionChange("new", "numpy", "1.26.4", "2.1.3"),),
    )
    assert write_reports(run, changes).changes == changes
    assert write_reports(run).changes == changes
    assert json.loads(run.summary_json.read_text())["changes"] == changes.to_dict()
    md = run.summary_md.read_text()
    assert "- `new` `p/1` reference: pass → error (gone)" in md
    assert "- `new` numpy: 1.26.4 → 2.1.3" in md


# -- the first screen, and where each idiom of our problems holds ----------------------------

ERAS = {
    "y2022": {"pandas": "1.3.5"},
    "y2024": {"pandas": "1.5.3"},
    "latest": {"pandas": "2.2.3"},
}
APPEND = "module 'pandas' has no attribute 'concat'"  # the modern idiom, before it existed
GONE = "'DataFrame' object has no attribute 'append'"
# (problem, source) → per era: None for a pass, or (exception type, message)
IDIOM_ROWS: dict[tuple[str, str], list[tuple[str, str] | None]] = {
    ("ours/pandas/append", "reference"): [("AttributeError", APPEND), None, None],
    ("ours/pandas/append", "idiom:old"): [None, None, ("AttributeError", GONE)],
    ("ours/pandas/later", "reference"): [None, None, None],
    ("ours/pandas/later", "idiom:old"): [None, None, None],
    ("ours/pandas/wrong", "reference"): [None, None, None],
    ("ours/pandas/wrong", "idiom:old"): [None, ("AssertionError", ""), ("AssertionError", "")],
}


def note(pid: str, changed: str | None, deprecated: str | None = None) -> Problem:
    change = Change("removal", f"old.{pid[-3:]}", f"new.{pid[-3:]}", deprecated, changed, "")
    return Problem(pid, pid, "ours", "pandas", "", "", "", change=change)


PROBLEMS = [
    note("ours/pandas/append", "2.0.0", "1.4.0"),
    note("ours/pandas/later", "3.0.0", "2.1.0"),
    note("ours/pandas/wrong", "2.0.0"),  # the metadata is wrong: it breaks in 1.5.3
]


def make_idiom_run(tmp_path: Path, run_id: str = "i1") -> RunDir:
    run = RunDir(tmp_path / run_id)
    write_json(run.manifest, {"run_id": run_id, "baseline": "y2024", "combos": list(ERAS)})
    for combo, versions in ERAS.items():
        write_json(
            run.env_info(combo),
            EnvInfo(combo, ok=True, python="3.10.14", versions=versions).to_dict(),
        )
        with OutcomeWriter(run.outcomes(combo)) as w:
            for seq, ((pid, source), steps) in enumerate(IDIOM_ROWS.items()):
                failure = steps[list(ERAS).index(combo)]
                exc, message = failure or (None, "")
                status = (
                    Status.PASS
                    if exc is None
                    else (Status.FAIL if exc == "AssertionError" else Status.ERROR)
                )
                w.write(
                    Outcome(
                        run_id,
                        combo,
                        pid,
                        source,
                        status,
                        library="pandas",
                        exc_type=exc,
                        message=message,
                        versions=versions,
                        python="3.10.14",
                        seq=seq,
                    )
                )
    return run


def test_stories_say_where_each_idiom_holds(tmp_path: Path) -> None:
    run = make_idiom_run(tmp_path)
    summary = write_reports(run, problems=PROBLEMS)
    assert summary_of(run) == summary  # the stories and notes, read back from summary.json
    by_id = {s.problem_id: s for s in summary.stories}
    assert list(by_id) == ["ours/pandas/append", "ours/pandas/later", "ours/pandas/wrong"]
    append, later, wrong = by_id.values()
    assert (append.old_last_good, append.old_first_bad, append.old_bad_version) == (
        "y2024",
        "latest",
        "2.2.3",
    )
    assert (append.cause, append.symbol, append.agrees) == (
        "removed-api",
        "pandas.DataFrame.append",
        True,
    )
    assert (append.modern_first_pass, append.modern_first_version) == ("y2024", "1.5.3")
    assert append.modern_red_before == ("y2022",)
    assert append.explanation == (
        "Old idiom `old.end` passes up to `y2024` (pandas 1.5.3) and breaks from `latest` "
        "(pandas 2.2.3): removed-api — drift, where the change says (removal in pandas 2.0.0). "
        "Modern idiom `new.end` is red in `y2022`: the API did not exist yet — not drift; "
        "it passes from `y2024` (pandas 1.5.3) on."
    )
    assert (later.old_breaks, later.agrees, later.modern_not_yet) == (False, True, False)
    assert later.explanation == (
        "Old idiom `old.ter` still passes in every combo (the change, in pandas 3.0.0, is newer "
        "than every combo). Modern idiom `new.ter` passes in every combo."
    )
    assert (wrong.old_first_bad, wrong.cause, wrong.agrees) == ("y2024", "changed-behaviour", False)
    assert "the change says pandas 2.0.0, the combos disagree" in wrong.explanation
    # references never drift here: the old idioms' breaks are not reference drift
    assert summary.drift == ()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("3 problems × 3 combos, 18 executions.", "how many"),
        (
            "the old idiom breaks in 2 and the modern idiom is red before its first release in 1",
            "ours",
        ),
        ("| combo | reference failing | idiom:old failing |", "broke where: header"),
        ("| `y2022` | 1 / 3 | 0 / 3 |", "the modern idiom, before it existed"),
        ("| `y2024` | 0 / 3 | 1 / 3 |", "the wrong metadata breaks early"),
        ("| `latest` | 0 / 3 | 2 / 3 |", "both old idioms broken"),
        (
            (
                "Top causes of pass → fail steps: changed-behaviour 1 (idiom:old 1); "
                "removed-api 1 (idiom:old 1)."
            ),
            "causes",
        ),
        ("No previous run to compare with (first run, or no history).", "history"),
        (
            (
                "| `ours/pandas/append` | pandas | removal: `old.end` → `new.end` | `y2024` → `latest` "
                "(pandas 2.2.3) | removed-api | pandas 2.0.0 | – | yes | `y2024` (pandas 1.5.3) | `y2022` |"
            ),
            "the idioms table",
        ),
        (
            (
                "| `ours/pandas/wrong` | pandas | removal: `old.ong` → `new.ong` | `y2022` → `y2024` "
                "(pandas 1.5.3) | changed-behaviour | pandas 2.0.0 | – | **no** | `y2022` (pandas 1.3.5) | – |"
            ),
            "disagreement",
        ),
        ("red in the 2022 column for the modern idiom", "legend"),
        ("- `ours/pandas/append`: Old idiom `old.end` passes up to `y2024`", "in words"),
    ],
)
def test_the_first_screen_and_the_idioms_in_summary_md(tmp_path: Path, line: str, why: str) -> None:
    run = make_idiom_run(tmp_path)
    write_reports(run, problems=PROBLEMS)
    md = run.summary_md.read_text()
    assert line in md, why
    if why in ("how many", "broke where: header", "causes", "history"):
        assert md.index(line) < md.index("## Environments"), "on the first screen"


def test_notes_are_kept_and_read_back(tmp_path: Path) -> None:
    run = make_idiom_run(tmp_path)
    first = write_reports(run, problems=PROBLEMS)
    md, html_page = run.summary_md.read_text(), run.report_html.read_text()
    again = write_reports(run)  # harness report: the notes come from summary.json
    assert again.notes == first.notes and again.stories == first.stories
    assert (run.summary_md.read_text(), run.report_html.read_text()) == (md, html_page)
    data = json.loads(run.summary_json.read_text())
    assert [n["changed"] for n in data["notes"]] == ["2.0.0", "3.0.0", "2.0.0"]
    assert data["idioms"][0]["old_first_bad"] == "latest"
    assert data["idioms"][0]["modern_red_before"] == ["y2022"]


def test_notes_come_from_the_run_s_local_problems(tmp_path: Path) -> None:
    run = make_idiom_run(tmp_path)
    problems = tmp_path / "ours" / "pandas"
    problems.mkdir(parents=True)
    (problems / "append.toml").write_text(
        'library = "pandas"\nprompt = "p"\nsetup = "import pandas as pd"\nreference = "result = 1"\n'
        'check = "assert result == 1"\n[idioms]\nold = "result = 1"\n'
        '[change]\nkind = "removal"\nold_api = "pandas.DataFrame.append"\n'
        'new_api = "pandas.concat"\ndeprecated = "1.4.0"\nchanged = "2.0.0"\nnotes = "https://x"\n'
    )
    manifest = json.loads(run.manifest.read_text())
    manifest["inputs"] = {"problems": [str(tmp_path / "ours")], "answers": []}
    write_json(run.manifest, manifest)
    summary = write_reports(run)
    assert [(n.problem_id, n.changed) for n in summary.notes] == [("ours/pandas/append", "2.0.0")]


def test_the_first_screen_says_what_is_new(tmp_path: Path) -> None:
    run = make_idiom_run(tmp_path)
    changes = Changes(
        "i0",
        "i1",
        new_failures=(
            StatusChange("latest", "ours/pandas/append", "idiom:old", "pass", "error", GONE),
        ),
    )
    write_reports(run, changes, PROBLEMS)
    md = run.summary_md.read_text()
    first = md[: md.index("## Environments")]
    assert (
        "Since `i0`: 1 new failures, 0 new fixes, 0 new warnings, 0 library versions changed."
        in first
    )
    assert "- new failure: `latest` `ours/pandas/append` idiom:old: pass → error" in first


def test_the_first_screen_says_where_model_answers_ran_unsandboxed(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    assert write_reports(run).unsandboxed == {}  # no executor recorded anything: none said
    why = "[Errno 28] unshare: No space left on device (user.max_user_namespaces=0)"
    # "new" ran its model answer unsandboxed, "old" in the sandbox; "bad" recorded none
    for combo, state in {"old": "on", "new": why}.items():
        write_json(run.executor_info(combo), {"protocol": 2, "sandbox": state})
    summary = write_reports(run)
    assert summary.unsandboxed == {"new": why}
    warning = (
        f"Warning: model answers ran without the sandbox in `new` ({why}), as "
        "`--allow-unsandboxed-answers` allowed: untrusted code ran with this machine's reach."
    )
    md = run.summary_md.read_text()
    assert md.index(f"**{warning}**") < md.index("Broke where")  # the first screen, first
    page = run.report_html.read_text()
    assert "<p data-glance='unsandboxed'>Warning: model answers ran without the sandbox" in page
    assert Summary.from_dict(json.loads(run.summary_json.read_text())) == summary
    # an answer refused for want of the sandbox did not run: nothing to warn of
    with OutcomeWriter(run.outcomes("new")) as w:
        w.write(Outcome("r1", "new", "p/1", "model:m", Status.ENV_ERROR, message="not run"))
    run.outcomes("new").write_text(run.outcomes("new").read_text().splitlines()[-1] + "\n")
    assert write_reports(run).unsandboxed == {}
    assert "Warning: model answers ran" not in run.summary_md.read_text()


def test_reports_without_problems_of_ours_have_no_idioms_section(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    summary = write_reports(run)
    md = run.summary_md.read_text()
    assert summary.stories == () and "## Where each idiom holds" not in md
    assert "## At a glance" in md and "| `old` | 0 / 2 | 0 / 1 |" in md


@pytest.mark.network
def test_the_default_run_shows_the_old_idioms_breaking(tmp_path: Path) -> None:
    """``harness run`` as a newcomer runs it (problems/, idioms by default), on two problems
    and two pandas eras: the old idiom's break is named with its release, and the modern
    idiom's red cell before its first release is explained as not drift."""
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    (tmp_path / "matrix.toml").write_text(
        f'[matrix]\nbaseline = "pd15"\npython = "{py}"\n'
        '[combos.pd15]\nnumpy = "1.26.4"\npandas = "1.5.3"\n'
        '[combos.pd22]\nnumpy = "1.26.4"\npandas = "2.2.3"\n'
    )
    ids = ["problems/pandas/append-rows", "problems/pandas/cell-lengths"]
    run_harness(
        "run",
        "--matrix",
        str(tmp_path / "matrix.toml"),
        "--env-dir",
        str(tmp_path / "envs"),
        "--results",
        str(tmp_path / "results"),
        "--run-id",
        "first",
        "--no-history",
        *[a for i in ids for a in ("--problem-id", i)],
        cwd=ROOT,  # the default problems/
    )
    run = tmp_path / "results" / "first"
    md = (run / "summary.md").read_text()
    assert "| `pd15` | 1 / 2 | 0 / 2 |" in md  # DataFrame.map is newer than pandas 1.5.3
    assert "| `pd22` | 0 / 2 | 1 / 2 |" in md  # DataFrame.append is gone in pandas 2
    assert (
        "| `problems/pandas/append-rows` | pandas | removal: `pandas.DataFrame.append` → "
        "`pandas.concat` | `pd15` → `pd22` (pandas 2.2.3) | removed-api | pandas 2.0.0 | – | yes |"
    ) in md
    assert "breaks from `pd22` (pandas 2.2.3): removed-api — drift, where the change says" in md
    assert "is red in `pd15`: the API did not exist yet — not drift" in md
    outcomes = [json.loads(line) for line in (run / "pd22.jsonl").read_text().splitlines()]
    assert sorted((o["problem_id"], o["source"]) for o in outcomes) == [
        (i, s) for i in ids for s in ("idiom:old", "reference")
    ]


@pytest.mark.parametrize(
    ("argv", "idioms"),
    [
        ([], True),  # the default job runs the old idioms beside the references
        (["--idioms"], True),  # still accepted
        (["--no-idioms"], False),
        (["--no-idioms", "--idioms"], True),  # the last one wins
    ],
)
def test_the_default_job_runs_the_old_idioms(argv: list[str], idioms: bool) -> None:
    args = cli._parser().parse_args(["run", *argv])
    request = RunRequest.from_dict(vars(args), "harness run")
    assert request.idioms is idioms
    problems = problemsets.load([str(ROOT / "problems" / "pandas" / "append-rows.toml")])
    sources = [s.source for s in load_solutions(problems, problems, idioms=idioms)]
    assert sources == (["reference", "idiom:old"] if idioms else ["reference"])


def test_junit_holds_any_text_a_program_prints(tmp_path: Path) -> None:
    """Colour codes, NULs and lone surrogates in output and messages (BigCodeBench's tasks
    print them) are written as escapes: XML 1.0 cannot hold them even escaped."""
    run = RunDir(tmp_path / "r1")
    write_json(run.manifest, {"run_id": "r1", "baseline": "c", "combos": ["c"]})
    write_json(run.env_info("c"), EnvInfo("c", ok=True, python="3.11.7").to_dict())
    nasty = "\x1b[31mred\x1b[0m \x00 \x07 \ud800 tab\tok é"
    with OutcomeWriter(run.outcomes("c")) as w:
        w.write(
            Outcome(
                "r1", "c", "p/1", "reference", Status.ERROR, exc_type="ValueError", message=nasty
            )
        )
        w.write(Outcome("r1", "c", "p/2", "reference", Status.FAIL, message="x", output=nasty))
    write_reports(run)
    xml = JUnitXml.fromfile(str(run.junit("c")))
    (suite,) = list(xml)
    cases = {c.classname: c for c in suite}
    assert cases["p/1"].result[0].message.startswith("ValueError: \\x1b[31mred")
    assert "\\x00 \\x07 \\ud800 tab\tok é" in cases["p/1"].result[0].text
    assert "\\x1b[0m" in cases["p/2"].system_out
    JUnitXml.fromfile(str(run.merged_junit))  # the merged file parses too
    assert "\\ud800" in run.report_html.read_text()  # and the other reports are written
    assert (run.exports("c") / "reference.csv").is_file()


def test_the_apis_each_model_reaches_for_are_in_every_report(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    run.write_answers([Solution("p/1", "model:m", "import numpy as np\nresult = np.product(a)\n")])
    summary = write_reports(run)
    (apis,) = summary.apis
    assert (apis.model, apis.answers, apis.stale_answers) == ("m", 1, ("p/1",))
    assert [a.old for a in apis.apis if a.stale] == ["numpy.product / numpy.cumproduct"]
    assert Summary.from_dict(json.loads(run.summary_json.read_text())) == summary
    assert json.loads(run.deprecations_json.read_text()) == [apis.to_dict()]
    md = run.summary_md.read_text()
    assert "## Deprecated APIs the models reach for" in md
    assert "| `m` | 1 | 1 (100%) |" in md
    page = run.report_html.read_text()
    assert "<h2>What each model knows</h2>" in page
    assert "<code>m</code>: 1 of its 1 answers (100%) reach for a deprecated" in page
    assert "answers reaching for the old API" in page  # the chart's axis


def test_what_each_model_knows_from_its_ranged_answers_is_in_every_report(tmp_path: Path) -> None:
    from tests.test_knowledge import answer  # noqa: PLC0415 - the ranges of a known model

    run = make_run(tmp_path)
    ranged = [answer(f"p{i}", "model:m", "1.0", "1.0", "3.0") for i in range(3)]
    write_json(run.reach_json, [r.to_dict() for r in ranged])
    summary = write_reports(run)
    (known,) = summary.knowledge
    assert (known.model, known.errors, known.stale) == ("m", {-2: 3}, 1.0)
    assert Summary.from_dict(json.loads(run.summary_json.read_text())) == summary
    said = (
        "`m`: 100% of its answers are written for older releases than asked (by a median of "
        "2 releases)"
    )
    assert said in run.summary_md.read_text()
    page = run.report_html.read_text()
    assert "<code>m</code>: 100% of its answers are written for older releases" in page
    assert "signed version error (releases)" in page  # the histogram's axis


def make_cibench_run(tmp_path: Path) -> RunDir:
    """Two sessions across NumPy 1 and 2: one whose printed output alone changed (format
    drift), one whose API was removed; their expected outputs derived in ``old``."""
    run = RunDir(tmp_path / "cib")
    envs = {
        "old": EnvInfo("old", ok=True, python="3.11.7", versions={"numpy": "1.26.4"}),
        "new": EnvInfo("new", ok=True, python="3.11.7", versions={"numpy": "2.1.3"}),
    }
    write_json(run.manifest, {"run_id": "cib", "baseline": "old", "combos": ["old", "new"]})
    for combo, env in envs.items():
        write_json(run.env_info(combo), env.to_dict())
    write_json(
        run.expected(),
        {"expected": "derived, not published", "env": "old", "derived": ["s/1", "s/2"]},
    )
    repr_changed = Part(
        "step 2 (num)", "fail", f"{OUTPUT_FORMAT}: output 'np.float64(-2.0)' is not the expected"
    )
    removed = Part(
        "step 1 (num)",
        "error",
        "module 'numpy' has no attribute 'float_'",
        exc_type="AttributeError",
    )
    for combo, env in envs.items():
        new = combo == "new"
        with OutcomeWriter(run.outcomes(combo)) as w:
            for seq, (pid, part, exc) in enumerate(
                [("s/1", repr_changed, "AssertionError"), ("s/2", removed, "AttributeError")]
            ):
                w.write(
                    Outcome(
                        "cib",
                        combo,
                        pid,
                        "reference",
                        Status.FAIL if new and exc == "AssertionError" else Status.ERROR,
                        library="numpy",
                        exc_type=exc,
                        message=part.message,
                        parts=(Part("step 0 (exec)", "pass"), part),
                        versions=env.library_versions(),
                        seq=seq,
                    )
                    if new
                    else Outcome(
                        "cib",
                        combo,
                        pid,
                        "reference",
                        Status.PASS,
                        library="numpy",
                        versions=env.library_versions(),
                        seq=seq,
                    )
                )
    return run


def test_format_drift_is_counted_and_shown_apart_from_api_drift(tmp_path: Path) -> None:
    run = make_cibench_run(tmp_path)
    summary = write_reports(run)
    assert [r.problem_id for r in summary.api_drift] == ["s/2"]
    assert [r.problem_id for r in summary.format_drift] == ["s/1"]
    assert summary.classes["reference"] == {"drifted": 1, "format-drift": 1}
    data = json.loads(run.summary_json.read_text())
    assert {r["problem_id"]: (r["class"], r["cause"]) for r in data["drift"]} == {
        "s/1": ("format-drift", "output-format"),
        "s/2": ("drifted", "removed-api"),
    }
    read = summary_of(run)  # read back from summary.json
    assert read is not None and read.format_drift == summary.format_drift
    markdown = run.summary_md.read_text()
    api, _, formats = markdown.partition("## Output-format drift")
    assert "References that drift: 1. References whose printed output changed" in markdown
    assert "`s/2`" in api and "`s/1`" not in api.split("## Drifted problems")[1]
    assert "| `s/1` | numpy | format-drift |" in formats
    assert "| format-drift |" in markdown.split("## Across combos")[1].split("##")[0]
    page = run.report_html.read_text()
    assert 'data-count="drifted">1<' in page and 'data-count="format-drift">1<' in page
    assert page.index("<code>s/2</code>") < page.index("Output-format drift")
    assert page.index("Output-format drift") < page.index("<code>s/1</code></td>")


def test_reports_say_cibench_expected_outputs_were_derived_not_published(tmp_path: Path) -> None:
    run = make_cibench_run(tmp_path)
    write_reports(run)
    said = (
        "CIBench: the expected outputs of 2 session(s) are derived, not published "
        "(their references run once in `old`)"
    )
    assert said in run.summary_md.read_text()
    page = run.report_html.read_text()
    assert "<p data-expected='derived'>" + said.replace("`old`", "<code>old</code>") in page
    without = make_run(tmp_path)
    write_reports(without)
    assert "not published" not in without.report_html.read_text()
    assert "not published" not in without.summary_md.read_text()
