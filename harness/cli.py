"""``harness``: argument parsing → library calls → exit status. Nothing else lives here.

Each subcommand is two functions: ``_args_<name>(parser)`` lists the options it takes
(declared once, in :mod:`harness.options`) and ``cmd_<name>(args)`` runs it;
:data:`COMMANDS` lists them in the order ``--help`` shows.

Exit status: 0 when the run completed (failing solutions are results, not errors),
1 with ``--strict`` when drift was found, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import (
    allowlist,
    doctor,
    history,
    interpreters,
    nightly,
    pipeline,
    releases,
    reports,
    shards,
    spec,
    validate,
)
from harness import options as o
from harness.errors import HarnessError, UsageError
from harness.progress import reporter
from harness.reports import reach as reach_report
from harness.reports.markdown import render_changes
from harness.results import write_json
from harness.rundir import RunDir, RunRequest
from harness.runtime_data import data_dir

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.progress import Reporter


def _history(args: argparse.Namespace) -> Path:
    """``--history``, or the history under ``--results``."""
    return Path(args.history or history.default_path(Path(args.results)))


def _args_run(p: argparse.ArgumentParser) -> None:
    o.add(p, *o.SELECT_COMBOS, o.NIGHTLY, o.OWN_ENVS, *o.SELECT_PROBLEMS, o.RESULTS, o.RUN_ID)
    o.add(p, o.RESUME)
    o.add(p, o.ENV_DIR)
    o.add(p, o.PYTHON_DOWNLOADS)
    o.add(p, *o.EXECUTIONS, o.BISECT, o.REPAIR, o.HISTORY, o.NO_HISTORY, o.STRICT, o.QUIET)


def cmd_run(args: argparse.Namespace) -> int:
    results = Path(args.results)
    request = RunRequest.from_dict(vars(args), "harness run")  # its fields are the options
    run_id = args.run_id
    if args.resume:
        run_id, request = pipeline.resume(results, args.run_id)
        print(f"[harness] resuming run {run_id}", file=sys.stderr)
    job = pipeline.plan(
        request,
        results=results,
        env_root=Path(args.env_dir).absolute(),
        run_id=run_id,
        jobs=args.jobs,
        history=None if args.no_history else _history(args),
        resume=args.resume,
    )
    with reporter(args.quiet) as progress:
        summary = pipeline.run(job, progress)
        if args.repair:
            _repair(args, job.run_dir.root, progress)
    print(job.run_dir.summary_md)
    return 1 if args.strict and summary.drift else 0


def _args_bisect(p: argparse.ArgumentParser) -> None:
    o.add(p, o.BISECT_RUN, o.PROBLEM, o.BISECTED_LIBRARY, o.GOOD, o.BAD, o.SOURCE)
    o.add(p, o.PROBLEMS.bare, o.ANSWERS.bare, o.MATRIX.bare, o.COMBO, o.PYTHON, o.ENV_DIR.bare)
    o.add(p, o.PYTHON_DOWNLOADS, o.FINDING_JSON)


def cmd_bisect(args: argparse.Namespace) -> int:
    env_root = Path(args.env_dir).absolute()
    if args.run:
        job = pipeline.bisect_job(args.run, args.matrix, args.problems, args.answers, env_root)
        with reporter(False) as progress:
            summary = pipeline.analyse_existing(job, progress)
        found = [t for t in summary.drift if (f := summary.finding(t)) and f.first_bad]
        done = f"{len(found)} of {len(summary.drift)} drifted problems bisected"
        print(f"{done}; see {job.run_dir.summary_md}")
        return 0
    missing = [f"--{k}" for k in ("problem", "library", "good", "bad") if not getattr(args, k)]
    if missing:
        raise UsageError(f"bisect needs {', '.join(missing)} (or --run RUN_DIR)")
    target = pipeline.bisect_target(
        args.matrix, args.combo, args.problem, args.source, args.problems, args.answers
    )
    bisected = pipeline.bisect_problem(
        target,
        args.library,
        args.good,
        args.bad,
        env_root=env_root,
        python=args.python,
        log=lambda m: print(f"[harness] {m}", file=sys.stderr),
    )
    if args.json:
        print(json.dumps(bisected.finding.to_dict(), indent=2))
    else:
        print("\n".join(bisected.lines()))
    return 0


def _args_fetch_data(p: argparse.ArgumentParser) -> None:
    o.add(p, o.PROBLEMS.bare, o.DATA_DIR, o.SEABORN, o.MATRIX.bare, o.ENV_OF_COMBO, o.ENV_DIR.bare)
    o.add(p, o.PYTHON_DOWNLOADS)


def cmd_fetch_data(args: argparse.Namespace) -> int:
    root = Path(args.data_dir) if args.data_dir else data_dir()
    results = pipeline.fetch_data(
        args.problems,
        root,
        args.seaborn_url,
        matrix=args.matrix,
        combo=args.combo,
        env_root=Path(args.env_dir).absolute(),
    )
    for r in results:
        print(f"{'ok    ' if r.ok else 'FAILED'} {r.name}: {r.detail}")
    print(f"{sum(r.ok for r in results)}/{len(results)} datasets in {root}")
    return 0 if all(r.ok for r in results) else 1


def _args_validate(p: argparse.ArgumentParser) -> None:
    o.add(p, o.PROBLEMS.bare, o.LIBRARY.bare, o.PROBLEM_ID.bare, o.SAMPLE, o.SPAN, o.NEAR)
    o.add(p, o.WRITE_TABLE, o.CHECKS_JSON, o.ENV_DIR.bare, o.JOBS.bare, o.PYTHON_DOWNLOADS)


def cmd_validate(args: argparse.Namespace) -> int:
    problems = pipeline.load_problems(args.problems)
    with reporter(False) as progress:
        result = validate.check_problems(
            problems,
            Path(args.env_dir).absolute(),
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
        command = "harness validate-problems " + " ".join(sys.argv[2:]).strip()
        result.save_table(Path(args.write_table), command.strip())
    return 0 if result.ok else 1


def _args_diff(p: argparse.ArgumentParser) -> None:
    o.add(p, o.RUNS, o.RESULTS.bare, o.HISTORY, o.PRINT_JSON.bare)


def cmd_diff(args: argparse.Namespace) -> int:
    changes = history.compare(_history(args), args.runs)
    if args.json:
        print(json.dumps(changes.to_dict(), indent=2))
    else:
        print("\n".join(render_changes(changes)))
    return 0


def _args_report(p: argparse.ArgumentParser) -> None:
    o.add(p, o.RUN_DIR, o.RECORD_HISTORY)


def cmd_report(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run_dir))
    if not run.root.is_dir():
        raise UsageError(f"{args.run_dir}: no such results directory")
    changes, night = None, None
    if args.history:
        changes, night = history.record_night(run, Path(args.history), pipeline.nights_of(run))
    reports.write_reports(run, changes, night_trends=night)
    print(run.summary_md)
    return 0


def _args_repair(p: argparse.ArgumentParser) -> None:
    o.add(p, o.RUN_DIR, o.NO_VERIFY, o.IN_PLACE, o.ENV_DIR, o.JOBS)
    o.add(p, o.PYTHON_DOWNLOADS, o.QUIET)


def cmd_repair(args: argparse.Namespace) -> int:
    if not Path(args.run_dir).is_dir():
        raise UsageError(f"{args.run_dir}: no such results directory")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    with reporter(args.quiet) as progress:
        _repair(
            args, Path(args.run_dir), progress, check=not args.no_verify, in_place=args.in_place
        )
    print(Path(args.run_dir) / "repairs" / "verification.md")
    return 0


def _repair(
    args: argparse.Namespace,
    run_dir: Path,
    progress: Reporter,
    *,
    check: bool = True,
    in_place: bool = False,
) -> None:
    """Repair the run at ``run_dir``, and say in a few lines what came of it."""
    from harness.repair.job import repair  # noqa: PLC0415 - LibCST loads in 0.5 s: only here

    done = repair(
        run_dir,
        env_root=Path(args.env_dir).absolute(),
        reporter=progress,
        jobs=args.jobs,
        check=check,
        in_place=in_place,
    )
    counts = done.table.counts()
    shown = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items())) or "none"
    print(f"{len(done.table.rows)} drifted problems: {shown}")
    for path in (*done.written.datasets, *done.written.in_place):
        print(f"rewritten: {path}")


def _args_plan(p: argparse.ArgumentParser) -> None:
    o.add(p, *o.SELECT_COMBOS, o.NIGHTLY, o.SHARDS, o.MAX_JOBS, o.GITHUB)
    o.add(p, o.HISTORY.helped("SQLite history whose recorded durations balance the shards"))
    o.add(p, o.WRITE_DURATIONS)


def cmd_plan(args: argparse.Namespace) -> int:
    spec, combos = pipeline.select_combos(
        args.matrix, args.combos, args.keyword, args.tag, nightly=args.nightly
    )
    count = args.shards or (spec.nightly.shards if args.nightly else 1)
    durations: shards.Durations = {}
    if args.history:
        path = Path(args.history)
        if path.is_file():  # the first night has no history: shards by count
            with closing(history.connect(path)) as db:
                durations = shards.from_history(db)
    if args.write_durations:
        shards.write(Path(args.write_durations), durations)
    problems: dict[str, list[str]] = {}
    if durations and count > 1:
        # what the jobs will split: the problems each combo ran most recently
        problems = {c.id: list(durations.get(c.id, {})) for c in combos}
    matrix = nightly.plan(combos, count, args.max_jobs, durations=durations, problems=problems)
    print(
        json.dumps(matrix, separators=(",", ":")) if args.github else json.dumps(matrix, indent=2)
    )
    return 0


def _args_merge(p: argparse.ArgumentParser) -> None:
    o.add(p, o.SOURCES, o.INTO)


def cmd_merge(args: argparse.Namespace) -> int:
    target = RunDir(Path(args.into))
    counts = nightly.merge([Path(s) for s in args.sources], target)
    reports.write_reports(target)
    for combo, n in counts.items():
        print(f"{combo}: {n} outcomes")
    return 0


def _args_issue_text(p: argparse.ArgumentParser) -> None:
    o.add(p, o.RUN_DIR.bare, o.RELEASES)


def _summary(run_dir: str) -> dict[str, Any]:
    summary = RunDir(Path(run_dir)).read_summary()
    if summary is None:
        raise UsageError(f"{run_dir}: no summary.json (run harness report first)")
    return summary


def cmd_issue_text(args: argparse.Namespace) -> int:
    summary = _summary(args.run_dir)
    news = RunDir(Path(args.run_dir)).read_releases(Path(args.releases) if args.releases else None)
    print(nightly.issue_text(summary, news), end="")
    return 0


def _args_annotations(p: argparse.ArgumentParser) -> None:
    o.add(p, o.RUN_DIR.bare)


def cmd_annotations(args: argparse.Namespace) -> int:
    for line in nightly.workflow_commands(_summary(args.run_dir)):
        print(line)
    return 0


def _args_releases(p: argparse.ArgumentParser) -> None:
    o.add(p, o.MATRIX.bare, o.RESULTS.bare, o.HISTORY, o.WRITE_RELEASES)


def cmd_releases(args: argparse.Namespace) -> int:
    matrix = spec.load(args.matrix)
    with closing(history.connect(_history(args))) as db:
        news = releases.check(matrix, db)
    if args.write:
        write_json(Path(args.write), news.to_dict())
    print("\n".join(releases.markdown(news)))
    return 0


def _args_guard(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="guard_command", required=True)
    gal = sub.add_parser(
        "allowlist", help="fold runs made with --guard-record into the allowlist (review the diff)"
    )
    o.add(gal, o.RECORDED_RUNS, o.ALLOWLIST, o.REPLACE)


def cmd_guard(args: argparse.Namespace) -> int:
    measured = allowlist.update(
        [Path(r) for r in args.runs], Path(args.output), replace=args.replace
    )
    print(
        f"{args.output}: {len(measured.globals)} globals, {len(measured.events)} events "
        f"(from {measured.executions} recorded executions)"
    )
    for item in sorted(measured.refusable):
        print(f"  never admitted, whatever the list says: {item}")
    return 0


def _args_combos(p: argparse.ArgumentParser) -> None:
    o.add(p, *o.SELECT_COMBOS, o.PRINT_JSON)


def cmd_combos(args: argparse.Namespace) -> int:
    matrix, combos = pipeline.select_combos(args.matrix, args.combos, args.keyword, args.tag)
    if args.json:
        rows = [
            {
                "id": c.id,
                "python": c.python,
                "tags": list(c.tags),
                "libraries": {lib.library: lib.constraint for lib in c.libraries},
                "as_of": c.as_of.isoformat() if c.as_of else None,
                "baseline": c.id == matrix.baseline,
            }
            for c in combos
        ]
        print(json.dumps(rows, indent=2))
        return 0
    for c in combos:
        libs = " ".join(f"{lib.library}={lib.constraint}" for lib in c.libraries)
        as_of = f" as_of={c.as_of.isoformat()}" if c.as_of else ""
        print(f"{c.id:<28} python={c.python} {libs}{as_of}")
    return 0


def _args_doctor(p: argparse.ArgumentParser) -> None:
    o.add(p, *o.SELECT_COMBOS, o.ENV_DIR.bare, o.PYTHON_DOWNLOADS, o.PRINT_JSON.bare)


def cmd_doctor(args: argparse.Namespace) -> int:
    matrix, combos = pipeline.select_combos(args.matrix, args.combos, args.keyword, args.tag)
    env_dir = Path(args.env_dir).absolute()
    checks = doctor.diagnose(combos, env_dir, matrix.index_url, args.python_downloads)
    print(doctor.to_json(checks) if args.json else doctor.render(checks))
    return 0 if doctor.ok(checks) else 1


def _args_reach(p: argparse.ArgumentParser) -> None:
    o.add(p, o.PROBLEMS, o.LIBRARY, o.PROBLEM_ID, o.LIMIT, o.ENV_DIR, o.JOBS, o.QUIET)
    o.add(p, o.REACH_OUT)


def cmd_reach(args: argparse.Namespace) -> int:
    out = Path(args.out)
    with reporter(args.quiet) as progress:
        found = pipeline.reach_problems(
            args.problems or [],
            args.library or [],
            args.problem_id or [],
            args.limit,
            Path(args.env_dir).absolute(),
            args.jobs,
            progress.log,
        )
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "reach.json", [r.to_dict() for r in found])
    (out / "reach.md").write_text(reach_report.markdown(found), encoding="utf-8")
    run = RunDir(out)
    if run.manifest.is_file():  # a run's directory: its reports show the ranges too
        reports.write_reports(run)
    print(out / "reach.md")
    return 0


Declare = Callable[[argparse.ArgumentParser], None]
Command = Callable[[argparse.Namespace], int]
# name → (its options, its runner), in the order --help lists them
COMMANDS: dict[str, tuple[Declare, Command]] = {
    "run": (_args_run, cmd_run),
    "bisect": (_args_bisect, cmd_bisect),
    "fetch-data": (_args_fetch_data, cmd_fetch_data),
    "validate-problems": (_args_validate, cmd_validate),
    "diff": (_args_diff, cmd_diff),
    "report": (_args_report, cmd_report),
    "repair": (_args_repair, cmd_repair),
    "plan": (_args_plan, cmd_plan),
    "merge": (_args_merge, cmd_merge),
    "issue-text": (_args_issue_text, cmd_issue_text),
    "annotations": (_args_annotations, cmd_annotations),
    "releases": (_args_releases, cmd_releases),
    "guard": (_args_guard, cmd_guard),
    "combos": (_args_combos, cmd_combos),
    "doctor": (_args_doctor, cmd_doctor),
    "reach": (_args_reach, cmd_reach),
}
_HELP = {
    "run": "build each combo's env, run the problems, write results/",
    "bisect": "find the first release of a library where a problem's outcome changes",
    "fetch-data": "download the datasets problems load at run time into the local cache",
    "validate-problems": "check that each of our problems breaks exactly in the release "
    "its metadata names",
    "diff": "what changed between two recorded runs",
    "report": "rewrite the reports of a results directory",
    "repair": "propose, verify and write repairs of a run's drifted problems",
    "plan": "the CI job matrix: one job per combo (and shard)",
    "merge": "fold the results of several jobs into one run directory",
    "issue-text": "what is new since the last run, for the nightly issue",
    "annotations": "GitHub annotations for new failures and drift",
    "releases": "new releases of the matrix's libraries since the last check",
    "guard": "the guard's allowlist of what returned values may use",
    "combos": "list the combos of the matrix",
    "doctor": "what this machine offers the harness: interpreters, uv, disk, sandbox, index",
    "reach": "how far each version-conditioned problem's reference reaches over its "
    "library's releases (GitChameleon)",
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="Run data-science benchmark problems across a matrix of library versions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (declare, _) in COMMANDS.items():
        declare(sub.add_parser(name, help=_HELP[name]))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if getattr(args, "python_downloads", None):  # uv's setting, for every env this builds
        interpreters.set_downloads(args.python_downloads)
    try:
        return COMMANDS[args.command][1](args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept", file=sys.stderr)
        return 130
