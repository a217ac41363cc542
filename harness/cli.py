"""``harness``: arguments → one call → printing. Nothing else lives here.

Each subcommand is declared once, on its runner (:func:`command`): its help line and its
options (each declared once, in :mod:`harness.options`) in ``--help`` order, listed by
``harness --help`` in the order defined here. A runner reads its arguments, makes one call
into the layer that does the work (``harness.app``, mostly) and prints what came back.

Exit status: 0 when the run completed (failing solutions are results, not errors),
1 with ``--strict`` when drift was found, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import options as o
from harness.analysis import history
from harness.app import doctor, init, nightly, reach, validate
from harness.app import run as main_job
from harness.app.bisect import bisect_one, bisect_run
from harness.core import defaults
from harness.core.errors import HarnessError
from harness.envs import interpreters
from harness.execute import allowlist
from harness.execute.progress import reporter
from harness.execute.rundir import RunDir, RunRequest
from harness.matrix.selection import describe, select_combos
from harness.options import COMMANDS, command
from harness.problems import runtime_data
from harness.problems import sets as problemsets
from harness.reports.markdown import render_changes

if TYPE_CHECKING:
    from collections.abc import Sequence


def _history(args: argparse.Namespace) -> Path:
    """``--history``, or the history under ``--results``."""
    return Path(args.history or history.default_path(Path(args.results)))


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


def _env_root(args: argparse.Namespace) -> Path:
    return Path(args.env_dir).absolute()


def _where(args: argparse.Namespace) -> dict[str, Any]:
    """Where a run's results and envs go: ``--results``, ``--run-id``, ``--env-dir``."""
    return {"results": Path(args.results), "run_id": args.run_id, "env_root": _env_root(args)}


def _log(message: str) -> None:
    print(f"[harness] {message}", file=sys.stderr)


def _given(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The options ``names`` as keyword arguments (parameters are named as the options)."""
    return {name: getattr(args, name) for name in names}


def _json(data: object, *, compact: bool = False) -> str:
    return json.dumps(data, separators=(",", ":")) if compact else json.dumps(data, indent=2)


@command(
    "run",
    "build each combo's env, run the problems, write results/",
    *o.SELECT_COMBOS, o.NIGHTLY, o.OWN_ENVS, *o.SELECT_PROBLEMS, o.RESULTS, o.RUN_ID, o.RESUME,
    o.ENV_DIR, o.PYTHON_DOWNLOADS, *o.EXECUTIONS, o.BISECT, o.REPAIR, o.COMPARE_UPSTREAM,
    o.HISTORY, o.NO_HISTORY, o.STRICT, o.QUIET,
)  # fmt: skip
def cmd_run(args: argparse.Namespace) -> int:
    ran = main_job.run_request(
        RunRequest.from_dict(vars(args), "harness run"),  # its fields are the options
        **_where(args),
        **_given(args, "jobs", "burst_jobs", "resume"),
        history=None if args.no_history else _history(args),
        repair=args.repair,
        quiet=args.quiet,
        log=_log,
    )
    print("\n".join(ran.lines()))
    return 1 if args.strict and ran.summary.drift else 0


@command("audit", o.AUDIT_HELP, *o.AUDIT)
def cmd_audit(args: argparse.Namespace) -> int:
    from harness.app import audit  # noqa: PLC0415 - LibCST loads in 0.5 s: only here

    asked = _given(args, "jobs", "burst_jobs", "mutants", "seed", "repeats", "bisect", "quiet")
    request = RunRequest.from_dict(vars(args), "harness audit")  # its fields are the options
    found = (
        audit.reassess(RunDir(Path(args.report)), env_root=_env_root(args), bisect=args.bisect)
        if args.report  # a finished audit assessed again from its files
        else audit.audit_request(request, **_where(args), **asked, log=_log)
    )
    print("\n".join(found.lines()))
    return 0


@command(
    "bisect",
    "find the first release of a library where a problem's outcome changes",
    o.BISECT_RUN, o.PROBLEM, o.BISECTED_LIBRARY, o.GOOD, o.BAD, o.SOURCE, o.PROBLEMS.bare,
    o.ANSWERS.bare, o.BISECT_MATRIX, o.COMBO, o.PYTHON, o.ENV_DIR.bare, o.PYTHON_DOWNLOADS,
    o.FINDING_JSON,
)  # fmt: skip
def cmd_bisect(args: argparse.Namespace) -> int:
    if args.run:
        with reporter(False) as progress:
            summary = bisect_run(
                args.run, args.matrix, args.problems, args.answers, _env_root(args), progress
            )
        print(f"{summary.bisected_line()}; see {RunDir(Path(args.run)).summary_md}")
        return 0
    asked = _given(args, "problem", "library", "good", "bad", "source", "matrix", "combo")
    given = _given(args, "problems", "answers", "python")
    found = bisect_one(**asked, **given, env_root=_env_root(args), log=_log)
    print(_json(found.finding.to_dict()) if args.json else "\n".join(found.lines()))
    return 0


@command(
    "fetch-data",
    "download the datasets problems load at run time into the local cache",
    o.PROBLEMS.bare, o.DATA_DIR, o.SEABORN, o.MATRIX.bare, o.ENV_OF_COMBO, o.ENV_DIR.bare,
    o.PYTHON_DOWNLOADS,
)  # fmt: skip
def cmd_fetch_data(args: argparse.Namespace) -> int:
    root = Path(args.data_dir) if args.data_dir else runtime_data.data_dir()
    fetched = runtime_data.fetch(
        problemsets.load(args.problems),
        root,
        args.seaborn_url,
        **_given(args, "matrix", "combo"),
        env_root=_env_root(args),
    )
    print("\n".join(runtime_data.fetched_lines(fetched, root)))
    return 0 if all(f.ok for f in fetched) else 1


@command(
    "validate-problems",
    "check that each of our problems breaks exactly in the release its metadata names",
    o.PROBLEMS.bare, o.LIBRARY.bare, o.PROBLEM_ID.bare, o.SAMPLE, o.SPAN, o.NEAR, o.WRITE_TABLE,
    o.CHECKS_JSON, o.ENV_DIR.bare, o.JOBS.bare, o.PYTHON_DOWNLOADS,
)  # fmt: skip
def cmd_validate(args: argparse.Namespace) -> int:
    with reporter(False) as progress:
        result = validate.validate_problems(
            args.problems,
            _env_root(args),
            libraries=args.library,
            ids=args.problem_id,
            per_library=args.sample,
            **_given(args, "span", "near", "jobs"),
            log=progress.log,
            write_json=_path(args.json),
            write_table=_path(args.write_table),
            command="harness " + " ".join(args.argv),  # as typed
        )
    print("\n".join(result.lines()))
    return 0 if result.ok else 1


@command(
    "diff", "what changed between two recorded runs", o.RUNS, o.RESULTS.bare, o.HISTORY,
    o.PRINT_JSON.bare,
)  # fmt: skip
def cmd_diff(args: argparse.Namespace) -> int:
    changes = history.compare(_history(args), args.runs)
    print(_json(changes.to_dict()) if args.json else "\n".join(render_changes(changes)))
    return 0


@command("report", "rewrite the reports of a results directory", o.RUN_DIR, o.RECORD_HISTORY)
def cmd_report(args: argparse.Namespace) -> int:
    print(main_job.report(RunDir(Path(args.run_dir)), _path(args.history)))
    return 0


@command(
    "repair",
    "propose, verify and write repairs of a run's drifted problems",
    o.RUN_DIR, o.NO_VERIFY, o.IN_PLACE, o.ENV_DIR, o.JOBS, o.PYTHON_DOWNLOADS, o.QUIET,
)  # fmt: skip
def cmd_repair(args: argparse.Namespace) -> int:
    from harness.app.repair import repair  # noqa: PLC0415 - LibCST loads in 0.5 s: only here

    with reporter(args.quiet) as progress:
        done = repair(
            Path(args.run_dir),
            env_root=_env_root(args),
            reporter=progress,
            check=not args.no_verify,
            **_given(args, "jobs", "in_place"),
        )
    print("\n".join([*done.lines(), str(done.verification)]))
    return 0


@command(
    "plan",
    "the CI job matrix: one job per combo (and shard)",
    *o.SELECT_COMBOS, o.NIGHTLY, o.SHARDS, o.MAX_JOBS, o.GITHUB,
    o.HISTORY.helped("SQLite history whose recorded durations balance the shards"),
    o.WRITE_DURATIONS,
)  # fmt: skip
def cmd_plan(args: argparse.Namespace) -> int:
    jobs = nightly.job_matrix(
        **_given(args, "matrix", "combos", "keyword", "tag", "nightly", "shards", "max_jobs"),
        history=_path(args.history),
        write_durations=_path(args.write_durations),
    )
    print(_json(jobs, compact=args.github))
    return 0


@command("merge", "fold the results of several jobs into one run directory", o.SOURCES, o.INTO)
def cmd_merge(args: argparse.Namespace) -> int:
    counts = nightly.merge_and_report([Path(s) for s in args.sources], RunDir(Path(args.into)))
    print("\n".join(f"{combo}: {n} outcomes" for combo, n in counts.items()))
    return 0


@command(
    "issue-text", "what is new since the last run, for the nightly issue", o.RUN_DIR.bare,
    o.RELEASES, o.AUDIT_JSON, o.AUDIT_BEFORE,
)  # fmt: skip
def cmd_issue_text(args: argparse.Namespace) -> int:
    audits = _path(args.audit), _path(args.audit_before)
    print(nightly.issue_text_of(RunDir(Path(args.run_dir)), _path(args.releases), *audits), end="")
    return 0


@command("annotations", "GitHub annotations for new failures and drift", o.RUN_DIR.bare)
def cmd_annotations(args: argparse.Namespace) -> int:
    print("\n".join(nightly.annotations_of(RunDir(Path(args.run_dir)))))
    return 0


@command(
    "releases", "new releases of the matrix's libraries since the last check", o.MATRIX.bare,
    o.RESULTS.bare, o.HISTORY, o.WRITE_RELEASES,
)  # fmt: skip
def cmd_releases(args: argparse.Namespace) -> int:
    print("\n".join(nightly.release_news(args.matrix, _history(args), _path(args.write))))
    return 0


@command(
    "guard", "the guard's allowlist of what returned values may use", declare=o.guard_subcommands
)
def cmd_guard(args: argparse.Namespace) -> int:
    measured = allowlist.update(
        [Path(r) for r in args.runs], Path(args.output), replace=args.replace
    )
    print("\n".join(measured.lines(args.output)))
    return 0


@command("combos", "list the combos of the matrix", *o.SELECT_COMBOS, o.PRINT_JSON)
def cmd_combos(args: argparse.Namespace) -> int:
    matrix, combos = select_combos(args.matrix, args.combos, args.keyword, args.tag)
    print(_json(describe(matrix, combos)) if args.json else "\n".join(c.line() for c in combos))
    return 0


@command(
    "doctor",
    "what this machine offers the harness: interpreters, uv, disk, sandbox, index",
    *o.SELECT_COMBOS, o.ENV_DIR.bare, o.PYTHON_DOWNLOADS, o.DOCTOR_CHECK, o.PRINT_JSON.bare,
)  # fmt: skip
def cmd_doctor(args: argparse.Namespace) -> int:
    matrix, combos = select_combos(args.matrix, args.combos, args.keyword, args.tag)
    checks = doctor.diagnose(combos, _env_root(args), matrix, args.python_downloads, args.check)
    print(doctor.to_json(checks) if args.json else doctor.render(checks))
    return 0 if doctor.ok(checks) else 1


@command(
    "reach",
    "where each version-conditioned problem's solutions work over its library's releases "
    "(references, our old idioms, models' answers) and what each model knows",
    o.PROBLEMS, o.ANSWERS, o.NO_IDIOMS, o.LIBRARY, o.PROBLEM_ID, o.LIMIT, o.REACH_NEAR,
    o.ENV_DIR, o.JOBS, o.QUIET, o.REACH_OUT,
)  # fmt: skip
def cmd_reach(args: argparse.Namespace) -> int:
    asked = _given(args, "problems", "answers", "idioms", "library", "problem_id", "limit")
    with reporter(args.quiet) as progress:
        written = reach.reach_into(
            Path(args.out), _env_root(args), progress.log, **asked, **_given(args, "near", "jobs")
        )
    print(written)
    return 0


@command(
    "init",
    "write a starter matrix.toml (and a nightly workflow) into a project",
    o.INIT_DIRECTORY,
    o.INIT_GITHUB,
)
def cmd_init(args: argparse.Namespace) -> int:
    print("\n".join(init.init(Path(args.directory), github=args.github).lines()))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="Run data-science benchmark problems across a matrix of library versions.",
    )
    o.add(parser, o.VERSION)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, declared in COMMANDS.items():
        p = sub.add_parser(name, help=declared.help)
        if declared.declare:
            declared.declare(p)
        o.add(p, *declared.options)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(given)
    args.argv = given  # as typed: validate-problems records the command in its table
    if getattr(args, "python_downloads", None):  # uv's setting, for every env this builds
        interpreters.set_downloads(args.python_downloads)
    try:
        if said := defaults.notice(getattr(args, "matrix", None), getattr(args, "problems", None)):
            _log(said)
        return COMMANDS[args.command].run(args)
    except HarnessError as exc:
        for line in exc.lines():  # several mistakes of one file: one line each
            print(f"error: {line}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept", file=sys.stderr)
        return 130
