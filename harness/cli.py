"""``harness``: arguments → one call → printing. Nothing else lives here.

Each subcommand is one :class:`Command` in :data:`COMMANDS`, in the order ``--help``
lists them: its help line, the options it takes (each declared once, in
:mod:`harness.options`) and the function that runs it. A runner reads its arguments, makes
one call into the layer that does the work (``harness.app``, mostly) and prints what came
back.

Exit status: 0 when the run completed (failing solutions are results, not errors),
1 with ``--strict`` when drift was found, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness import options as o
from harness.analysis import history
from harness.app import nightly, plan, reach, validate
from harness.app import run as main_job
from harness.app.bisect import analyse_existing, bisect_job, bisect_one
from harness.core.errors import HarnessError
from harness.envs import doctor, interpreters
from harness.execute import allowlist
from harness.execute.progress import reporter
from harness.execute.rundir import RunDir, RunRequest, resume
from harness.matrix.selection import describe, select_combos
from harness.problems import runtime_data
from harness.problems import sets as problemsets
from harness.reports.markdown import render_changes

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.app.repair import Repaired
    from harness.execute.progress import Reporter


def _history(args: argparse.Namespace) -> Path:
    """``--history``, or the history under ``--results``."""
    return Path(args.history or history.default_path(Path(args.results)))


def _env_root(args: argparse.Namespace) -> Path:
    return Path(args.env_dir).absolute()


def _log(message: str) -> None:
    print(f"[harness] {message}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    results, run_id = Path(args.results), args.run_id
    request = RunRequest.from_dict(vars(args), "harness run")  # its fields are the options
    if args.resume:
        run_id, request = resume(results, args.run_id)
        _log(f"resuming run {run_id}")
    job = plan.plan(
        request,
        results=results,
        env_root=_env_root(args),
        run_id=run_id,
        jobs=args.jobs,
        resume=args.resume,
        log=_log,
    )
    with reporter(args.quiet) as progress:
        history_path = None if args.no_history else _history(args)
        summary = main_job.run(
            job,
            progress,
            bisect=request.bisect,
            history=history_path,
            compare_upstream=request.compare_upstream,
        )
        if args.repair:
            _repair(args, job.run_dir.root, progress)
    print(job.run_dir.summary_md)
    return 1 if args.strict and summary.drift else 0


def cmd_bisect(args: argparse.Namespace) -> int:
    if args.run:
        job = bisect_job(args.run, args.matrix, args.problems, args.answers, _env_root(args))
        with reporter(False) as progress:
            summary = analyse_existing(job, progress)
        print(f"{summary.bisected_line()}; see {job.run_dir.summary_md}")
        return 0
    found = bisect_one(
        problem=args.problem,
        library=args.library,
        good=args.good,
        bad=args.bad,
        source=args.source,
        matrix=args.matrix,
        combo=args.combo,
        problems=args.problems,
        answers=args.answers,
        env_root=_env_root(args),
        python=args.python,
        log=_log,
    )
    print(json.dumps(found.finding.to_dict(), indent=2) if args.json else "\n".join(found.lines()))
    return 0


def cmd_fetch_data(args: argparse.Namespace) -> int:
    root = Path(args.data_dir) if args.data_dir else runtime_data.data_dir()
    fetched = runtime_data.fetch(
        problemsets.load(args.problems),
        root,
        args.seaborn_url,
        matrix=args.matrix,
        combo=args.combo,
        env_root=_env_root(args),
    )
    print("\n".join(runtime_data.fetched_lines(fetched, root)))
    return 0 if all(f.ok for f in fetched) else 1


def cmd_validate(args: argparse.Namespace) -> int:
    with reporter(False) as progress:
        result = validate.validate_problems(
            args.problems,
            _env_root(args),
            libraries=args.library,
            ids=args.problem_id,
            per_library=args.sample,
            span=args.span,
            near=args.near,
            jobs=args.jobs,
            log=progress.log,
        )
    print("\n".join(result.lines()))
    if args.json:
        result.save_json(Path(args.json))
    if args.write_table:
        result.save_table(Path(args.write_table), "harness " + " ".join(args.argv))
    return 0 if result.ok else 1


def cmd_diff(args: argparse.Namespace) -> int:
    changes = history.compare(_history(args), args.runs)
    print(
        json.dumps(changes.to_dict(), indent=2) if args.json else "\n".join(render_changes(changes))
    )
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    history_path = Path(args.history) if args.history else None
    print(main_job.report(RunDir(Path(args.run_dir)), history_path))
    return 0


def cmd_repair(args: argparse.Namespace) -> int:
    with reporter(args.quiet) as progress:
        done = _repair(args, Path(args.run_dir), progress, args.no_verify, args.in_place)
    print(done.verification)
    return 0


def _repair(
    args: argparse.Namespace,
    run_dir: Path,
    progress: Reporter,
    no_verify: bool = False,
    in_place: bool = False,
) -> Repaired:
    """Repair the run at ``run_dir``, and say in a few lines what came of it."""
    from harness.app.repair import repair  # noqa: PLC0415 - LibCST loads in 0.5 s: only here

    done = repair(
        run_dir,
        env_root=_env_root(args),
        reporter=progress,
        jobs=args.jobs,
        check=not no_verify,
        in_place=in_place,
    )
    print("\n".join(done.lines()))
    return done


def cmd_plan(args: argparse.Namespace) -> int:
    matrix, combos = select_combos(
        args.matrix, args.combos, args.keyword, args.tag, nightly=args.nightly
    )
    jobs = nightly.job_matrix(
        combos,
        args.shards or (matrix.nightly.shards if args.nightly else 1),
        args.max_jobs,
        history=Path(args.history) if args.history else None,
        write_durations=Path(args.write_durations) if args.write_durations else None,
    )
    print(json.dumps(jobs, separators=(",", ":")) if args.github else json.dumps(jobs, indent=2))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    counts = nightly.merge_and_report([Path(s) for s in args.sources], RunDir(Path(args.into)))
    print("\n".join(f"{combo}: {n} outcomes" for combo, n in counts.items()))
    return 0


def cmd_issue_text(args: argparse.Namespace) -> int:
    releases_path = Path(args.releases) if args.releases else None
    print(nightly.issue_text_of(RunDir(Path(args.run_dir)), releases_path), end="")
    return 0


def cmd_annotations(args: argparse.Namespace) -> int:
    print("\n".join(nightly.annotations_of(RunDir(Path(args.run_dir)))))
    return 0


def cmd_releases(args: argparse.Namespace) -> int:
    write = Path(args.write) if args.write else None
    print("\n".join(nightly.release_news(args.matrix, _history(args), write)))
    return 0


def _guard_options(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="guard_command", required=True)
    gal = sub.add_parser(
        "allowlist", help="fold runs made with --guard-record into the allowlist (review the diff)"
    )
    o.add(gal, o.RECORDED_RUNS, o.ALLOWLIST, o.REPLACE)


def cmd_guard(args: argparse.Namespace) -> int:
    runs = [Path(r) for r in args.runs]
    measured = allowlist.update(runs, Path(args.output), replace=args.replace)
    print("\n".join(measured.lines(args.output)))
    return 0


def cmd_combos(args: argparse.Namespace) -> int:
    matrix, combos = select_combos(args.matrix, args.combos, args.keyword, args.tag)
    if args.json:
        print(json.dumps(describe(matrix, combos), indent=2))
    else:
        print("\n".join(c.line() for c in combos))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    matrix, combos = select_combos(args.matrix, args.combos, args.keyword, args.tag)
    checks = doctor.diagnose(combos, _env_root(args), matrix.index_url, args.python_downloads)
    print(doctor.to_json(checks) if args.json else doctor.render(checks))
    return 0 if doctor.ok(checks) else 1


def cmd_reach(args: argparse.Namespace) -> int:
    with reporter(args.quiet) as progress:
        found = reach.reach_problems(
            args.problems or [],
            args.library or [],
            args.problem_id or [],
            args.limit,
            _env_root(args),
            args.jobs,
            progress.log,
            answers=args.answers,
            idioms=args.idioms,
            near=args.near or [],
        )
    print(reach.write(Path(args.out), found))
    return 0


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, its options in ``--help`` order, and its runner
    (``declare`` instead of ``options`` where the subcommand has subcommands of its own)."""

    help: str
    options: tuple[o.Option, ...]
    run: Callable[[argparse.Namespace], int]
    declare: Callable[[argparse.ArgumentParser], None] | None = None


COMMANDS: dict[str, Command] = {
    "run": Command(
        "build each combo's env, run the problems, write results/",
        (*o.SELECT_COMBOS, o.NIGHTLY, o.OWN_ENVS, *o.SELECT_PROBLEMS, o.RESULTS, o.RUN_ID,
         o.RESUME, o.ENV_DIR, o.PYTHON_DOWNLOADS, *o.EXECUTIONS, o.BISECT, o.REPAIR,
         o.COMPARE_UPSTREAM,
         o.HISTORY, o.NO_HISTORY, o.STRICT, o.QUIET),
        cmd_run,
    ),
    "bisect": Command(
        "find the first release of a library where a problem's outcome changes",
        (o.BISECT_RUN, o.PROBLEM, o.BISECTED_LIBRARY, o.GOOD, o.BAD, o.SOURCE, o.PROBLEMS.bare,
         o.ANSWERS.bare, o.BISECT_MATRIX, o.COMBO, o.PYTHON, o.ENV_DIR.bare,
         o.PYTHON_DOWNLOADS, o.FINDING_JSON),
        cmd_bisect,
    ),
    "fetch-data": Command(
        "download the datasets problems load at run time into the local cache",
        (o.PROBLEMS.bare, o.DATA_DIR, o.SEABORN, o.MATRIX.bare, o.ENV_OF_COMBO, o.ENV_DIR.bare,
         o.PYTHON_DOWNLOADS),
        cmd_fetch_data,
    ),
    "validate-problems": Command(
        "check that each of our problems breaks exactly in the release its metadata names",
        (o.PROBLEMS.bare, o.LIBRARY.bare, o.PROBLEM_ID.bare, o.SAMPLE, o.SPAN, o.NEAR,
         o.WRITE_TABLE, o.CHECKS_JSON, o.ENV_DIR.bare, o.JOBS.bare, o.PYTHON_DOWNLOADS),
        cmd_validate,
    ),
    "diff": Command(
        "what changed between two recorded runs",
        (o.RUNS, o.RESULTS.bare, o.HISTORY, o.PRINT_JSON.bare),
        cmd_diff,
    ),
    "report": Command(
        "rewrite the reports of a results directory", (o.RUN_DIR, o.RECORD_HISTORY), cmd_report
    ),
    "repair": Command(
        "propose, verify and write repairs of a run's drifted problems",
        (o.RUN_DIR, o.NO_VERIFY, o.IN_PLACE, o.ENV_DIR, o.JOBS, o.PYTHON_DOWNLOADS, o.QUIET),
        cmd_repair,
    ),
    "plan": Command(
        "the CI job matrix: one job per combo (and shard)",
        (*o.SELECT_COMBOS, o.NIGHTLY, o.SHARDS, o.MAX_JOBS, o.GITHUB,
         o.HISTORY.helped("SQLite history whose recorded durations balance the shards"),
         o.WRITE_DURATIONS),
        cmd_plan,
    ),
    "merge": Command(
        "fold the results of several jobs into one run directory", (o.SOURCES, o.INTO), cmd_merge
    ),
    "issue-text": Command(
        "what is new since the last run, for the nightly issue",
        (o.RUN_DIR.bare, o.RELEASES),
        cmd_issue_text,
    ),
    "annotations": Command(
        "GitHub annotations for new failures and drift", (o.RUN_DIR.bare,), cmd_annotations
    ),
    "releases": Command(
        "new releases of the matrix's libraries since the last check",
        (o.MATRIX.bare, o.RESULTS.bare, o.HISTORY, o.WRITE_RELEASES),
        cmd_releases,
    ),
    "guard": Command(
        "the guard's allowlist of what returned values may use", (), cmd_guard, _guard_options
    ),
    "combos": Command("list the combos of the matrix", (*o.SELECT_COMBOS, o.PRINT_JSON), cmd_combos),
    "doctor": Command(
        "what this machine offers the harness: interpreters, uv, disk, sandbox, index",
        (*o.SELECT_COMBOS, o.ENV_DIR.bare, o.PYTHON_DOWNLOADS, o.PRINT_JSON.bare),
        cmd_doctor,
    ),
    "reach": Command(
        "where each version-conditioned problem's solutions work over its library's releases "
        "(references, our old idioms, models' answers) and what each model knows",
        (o.PROBLEMS, o.ANSWERS, o.NO_IDIOMS, o.LIBRARY, o.PROBLEM_ID, o.LIMIT, o.REACH_NEAR,
         o.ENV_DIR, o.JOBS, o.QUIET, o.REACH_OUT),
        cmd_reach,
    ),
}  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="Run data-science benchmark problems across a matrix of library versions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help)
        if command.declare:
            command.declare(p)
        o.add(p, *command.options)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(given)
    args.argv = given  # as typed: validate-problems records the command in its table
    if getattr(args, "python_downloads", None):  # uv's setting, for every env this builds
        interpreters.set_downloads(args.python_downloads)
    try:
        return COMMANDS[args.command].run(args)
    except HarnessError as exc:
        for line in exc.lines():  # several mistakes of one file: one line each
            print(f"error: {line}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept", file=sys.stderr)
        return 130
