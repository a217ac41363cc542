"""``harness``: argument parsing → library calls → exit status. Nothing else lives here.

Each subcommand is two functions: ``_args_<name>(parser)`` declares its options and
``cmd_<name>(args)`` runs it; :data:`COMMANDS` lists them in the order ``--help`` shows.

Exit status: 0 when the run completed (failing solutions are results, not errors),
1 with ``--strict`` when drift was found, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness import allowlist as allowlist_mod
from harness import (
    bisection,
    history,
    interpreters,
    nightly,
    pipeline,
    problemsets,
    releases,
    reports,
    runtime_data,
    spec,
    validate,
)
from harness.envs import EnvBuilder
from harness.errors import HarnessError, UsageError
from harness.libraries import canonical
from harness.package_index import Index, IndexUnavailableError
from harness.problem import REFERENCE
from harness.progress import reporter
from harness.reports.markdown import render_changes
from harness.results import write_json
from harness.rundir import RunDir, RunRequest
from harness.runner import DEFAULT_MEMORY_MB, RunOptions

if TYPE_CHECKING:
    from collections.abc import Sequence

DEFAULT_ENV_DIR = ".harness/envs"
_HISTORY_HELP = "SQLite history (default: <results>/history.sqlite)"


def _env_dir(p: argparse.ArgumentParser, help_text: str | None = None) -> None:
    default = os.environ.get("HARNESS_ENV_DIR", DEFAULT_ENV_DIR)
    p.add_argument("--env-dir", default=default, help=help_text)


def _problems(p: argparse.ArgumentParser, help_text: str | None = None) -> None:
    p.add_argument("--problems", action="append", default=[], metavar="PATH", help=help_text)


def _selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--matrix", default="matrix.toml", help="matrix file (default: %(default)s)")
    p.add_argument(
        "--combos",
        action="append",
        default=[],
        metavar="IDS",
        help="comma-separated combo ids or globs (repeatable; default: all)",
    )
    p.add_argument("-k", dest="keyword", help="only combos whose id contains this")
    p.add_argument("-t", "--tag", action="append", default=[], help="only combos with this tag")


def _select(args: argparse.Namespace) -> tuple[spec.MatrixSpec, list[spec.Combo]]:
    return pipeline.select_combos(args.matrix, args.combos, args.keyword, args.tag)


def _args_run(p: argparse.ArgumentParser) -> None:
    _selection(p)
    _problems(
        p,
        "problem file, directory or URL; 'ds1000' is the official DS-1000 file "
        "(repeatable; default: problems/)",
    )
    p.add_argument(
        "--answers",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="model answers JSONL; the model is NAME or the file's name (repeatable)",
    )
    p.add_argument("--no-reference", action="store_true", help="do not run reference solutions")
    p.add_argument(
        "--idioms",
        action="store_true",
        help="also run the named idioms of our problems (e.g. the old API) as idiom:<name>",
    )
    p.add_argument("--library", action="append", default=[], help="only this library's problems")
    p.add_argument("--problem-id", action="append", default=[], help="only this problem")
    p.add_argument("--limit", type=int, help="only the first N problems (after --library)")
    p.add_argument(
        "--shard", metavar="I/N", help="only shard I of N of the problems (for CI fan-out)"
    )
    p.add_argument("--results", default="results", help="results root (default: %(default)s)")
    p.add_argument("--run-id", help="results/<run-id>/ (default: a UTC timestamp)")
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run (--run-id, or the latest unfinished one) with the "
        "inputs and options it was started with; outcomes already recorded are kept",
    )
    _env_dir(p, "where combo environments live (default: %(default)s, or $HARNESS_ENV_DIR)")
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="executions at once (default: number of cores)",
    )
    p.add_argument("--timeout", type=float, help="seconds per execution (default: matrix.timeout)")
    p.add_argument(
        "--memory-mb",
        type=int,
        default=DEFAULT_MEMORY_MB,
        help="memory cap per execution in MiB, 0 for none (default: %(default)s)",
    )
    p.add_argument(
        "--isolation",
        choices=("zygote", "fresh"),
        default="zygote",
        help="zygote: fork each execution from a preloaded process (default); "
        "fresh: a new interpreter per execution, as DS-1000's grader",
    )
    p.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_false",
        help="run executions without namespaces or a read-only filesystem (trusted code only)",
    )
    p.add_argument(
        "--no-guard",
        dest="guard",
        action="store_false",
        help="run model answers in the same process as their checks (trusted answers only)",
    )
    p.add_argument(
        "--guard-allowlist",
        metavar="PATH",
        help="admit also what this allowlist file lists, beside the shipped one "
        "(harness/envside/allowlist.txt; same format)",
    )
    p.add_argument(
        "--guard-record",
        action="store_true",
        help="measure the guard's allowlist: every solution, references too, runs apart and "
        "its values are admitted whatever they are, recording what they used "
        "(for `harness guard allowlist`; honest solutions only)",
    )
    p.add_argument(
        "--fresh-for",
        action="append",
        default=[],
        metavar="MODULE",
        help="always run problems that import MODULE in a fresh interpreter (repeatable)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each execution N times per combo to detect flaky ones",
    )
    p.add_argument(
        "--bisect",
        action="store_true",
        help="for every drifted problem, find the responsible library and its first bad release",
    )
    p.add_argument("--history", help=_HISTORY_HELP)
    p.add_argument("--no-history", action="store_true", help="do not record this run")
    p.add_argument("--strict", action="store_true", help="exit 1 when any drift is found")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress output")


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
        history=None if args.no_history else Path(args.history or history.default_path(results)),
        resume=args.resume,
    )
    with reporter(args.quiet) as progress:
        summary = pipeline.run(job, progress)
    print(job.run_dir.summary_md)
    return 1 if args.strict and summary.drift else 0


def _args_bisect(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--run",
        metavar="RUN_DIR",
        help="instead: attribute and bisect every drifted problem of a finished run",
    )
    p.add_argument("--problem", help="problem id, e.g. ds1000/47")
    p.add_argument("--library", help="the library to bisect, e.g. pandas")
    p.add_argument("--good", help="a release where the solution passes")
    p.add_argument("--bad", help="a later release where it fails")
    p.add_argument(
        "--source",
        default=REFERENCE,
        help="reference (default), idiom:<name> or model:<name> (with --answers)",
    )
    _problems(p)
    p.add_argument("--answers", action="append", default=[], metavar="[NAME=]PATH")
    p.add_argument("--matrix", default="matrix.toml")
    p.add_argument("--combo", help="other libraries pinned as in this combo (default: baseline)")
    p.add_argument(
        "--python",
        help="interpreter for the trial envs (default: the first that has wheels for both ends)",
    )
    _env_dir(p)
    p.add_argument("--json", action="store_true", help="print the finding as JSON")


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
    matrix, combo, execution = pipeline.bisect_target(
        args.matrix, args.combo, args.problem, args.source, args.problems, args.answers
    )
    finding, package = bisection.bisect_release(
        execution,
        args.library,
        args.good,
        args.bad,
        builder=EnvBuilder(env_root, Index(matrix.index_url)),
        combo=combo,
        python=args.python,
        log=lambda m: print(f"[harness] {m}", file=sys.stderr),
    )
    shown = f"{execution.problem.id} ({execution.solution.source})"
    if args.json:
        print(json.dumps(finding.to_dict(), indent=2))
    elif finding.first_bad:
        print(
            f"{shown}: first bad release {package} {finding.first_bad} (last good "
            f"{finding.last_good}; {finding.candidates} releases, {finding.trials} trials, "
            f"Python {finding.python})"
        )
        print(f"  fails with: {finding.error}")
        if finding.warning:
            print(f"  {package} {finding.last_good} warned: {finding.warning}")
    else:
        print(f"{shown}: no first bad release: {finding.how}")
    return 0


def _args_fetch_data(p: argparse.ArgumentParser) -> None:
    _problems(p)
    p.add_argument(
        "--data-dir", help="cache (default: $HARNESS_DATA_DIR or ~/.cache/ds-matrix-harness/data)"
    )
    p.add_argument(
        "--seaborn-url", default=runtime_data.SEABORN_URL, help="base URL of seaborn's datasets"
    )
    p.add_argument("--matrix", default="matrix.toml")
    p.add_argument("--combo", help="env whose scikit-learn runs the fetchers (default: baseline)")
    _env_dir(p)


def cmd_fetch_data(args: argparse.Namespace) -> int:
    needs = runtime_data.needed(pipeline.load_problems(args.problems))
    root = Path(args.data_dir) if args.data_dir else runtime_data.data_dir()
    results = runtime_data.fetch_seaborn(needs.seaborn, root, args.seaborn_url)
    if needs.sklearn:
        matrix = spec.load(args.matrix)
        combo = matrix.by_id.get(args.combo or matrix.baseline)
        if combo is None:
            raise UsageError(f"--combo {args.combo!r}: no such combo")
        env, _ = EnvBuilder(Path(args.env_dir).absolute(), Index(matrix.index_url)).build(combo)
        if not env.ok:
            raise UsageError(f"combo {combo.id!r} cannot be built: {env.error}")
        results += runtime_data.fetch_sklearn(needs.sklearn, root, env)
    for r in results:
        print(f"{'ok    ' if r.ok else 'FAILED'} {r.name}: {r.detail}")
    print(f"{sum(r.ok for r in results)}/{len(results)} datasets in {root}")
    return 0 if all(r.ok for r in results) else 1


def _args_validate(p: argparse.ArgumentParser) -> None:
    _problems(p)
    p.add_argument("--library", action="append", default=[])
    p.add_argument("--problem-id", action="append", default=[])
    p.add_argument(
        "--sample", type=int, metavar="N", help="only the first N problems of each library"
    )
    p.add_argument(
        "--span",
        choices=("full", "near"),
        default="full",
        help="bisect to the newest release (full), or only around the claimed one (near)",
    )
    p.add_argument(
        "--near",
        action="append",
        default=[],
        metavar="LIBRARY",
        help="bisect only around the claimed release for this library (repeatable): for "
        "libraries whose every release costs gigabytes, such as torch",
    )
    p.add_argument("--write-table", metavar="README", help="write the result table into this file")
    p.add_argument("--json", metavar="PATH", help="also write the checks as JSON")
    _env_dir(p)
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)


def cmd_validate(args: argparse.Namespace) -> int:
    chosen = problemsets.filter_problems(
        pipeline.load_problems(args.problems), args.library, args.problem_id
    )
    if args.sample:
        chosen = validate.sample(chosen, args.sample)
    if not chosen:
        raise UsageError("no problems selected")
    pythons = interpreters.available()
    index = Index()
    near = {canonical(name) for name in args.near}
    with reporter(False) as progress:
        builder = EnvBuilder(Path(args.env_dir).absolute(), index)
        lab = bisection.Lab(builder, RunOptions(jobs=args.jobs), log=progress.log)
        facts = validate.ReleaseFacts(index, pythons)
        checks = bisection.drive(
            lab,
            [
                validate.validate(p, facts, "near" if p.library in near else args.span)
                for p in chosen
            ],
        )
    for c in checks:
        notes = f" ({c.notes})" if c.notes else ""
        mark = "ok  " if c.ok else "FAIL"
        print(f"{mark} {c.problem_id}: expected {c.expected}, observed {c.observed}{notes}")
    held = sum(c.ok for c in checks)
    print(f"{held} of {len(checks)} problems hold ({len(lab.envs_built)} environments)")
    if args.json:
        Path(args.json).write_text(json.dumps([c.to_dict() for c in checks], indent=2) + "\n")
    if args.write_table:
        path = Path(args.write_table)
        command = "harness validate-problems " + " ".join(sys.argv[2:]).strip()
        today = dt.datetime.now(dt.timezone.utc).date().isoformat()
        block = validate.table(checks, today, command.strip())
        text = validate.write_table(path.read_text(encoding="utf-8"), block)
        path.write_text(text, encoding="utf-8")
    return 0 if held == len(checks) else 1


def _args_diff(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="*", metavar="RUN", help="RUN_A RUN_B (default: the last two)")
    p.add_argument("--results", default="results")
    p.add_argument("--history", help=_HISTORY_HELP)
    p.add_argument("--json", action="store_true")


def cmd_diff(args: argparse.Namespace) -> int:
    path = Path(args.history or history.default_path(Path(args.results)))
    changes = history.compare(path, args.runs)
    if args.json:
        print(json.dumps(changes.to_dict(), indent=2))
    else:
        print("\n".join(render_changes(changes)))
    return 0


def _args_report(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", help="results/<run-id>")
    p.add_argument("--history", help="also record the run in this SQLite history and diff it")


def cmd_report(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run_dir))
    if not run.root.is_dir():
        raise UsageError(f"{args.run_dir}: no such results directory")
    changes = history.record_and_diff(run, Path(args.history)) if args.history else None
    reports.write_reports(run, changes)
    print(run.summary_md)
    return 0


def _args_plan(p: argparse.ArgumentParser) -> None:
    _selection(p)
    p.add_argument("--shards", type=int, default=1, help="jobs per combo (default: 1)")
    p.add_argument(
        "--max-jobs",
        type=int,
        default=nightly.GITHUB_JOB_LIMIT,
        help="group runs into at most this many jobs (default: %(default)s)",
    )
    p.add_argument("--github", action="store_true", help="compact JSON for fromJSON()")


def cmd_plan(args: argparse.Namespace) -> int:
    _, combos = _select(args)
    if args.shards < 1 or args.max_jobs < 1:
        raise UsageError("--shards and --max-jobs must be at least 1")
    matrix = nightly.plan(combos, args.shards, args.max_jobs)
    print(
        json.dumps(matrix, separators=(",", ":")) if args.github else json.dumps(matrix, indent=2)
    )
    return 0


def _args_merge(p: argparse.ArgumentParser) -> None:
    p.add_argument("sources", nargs="+", help="run directories (downloaded artifacts)")
    p.add_argument("--into", required=True, help="results/<run-id> to write")


def cmd_merge(args: argparse.Namespace) -> int:
    sources = [Path(s) for s in args.sources]
    for source in sources:
        if not source.is_dir():
            raise UsageError(f"{source}: no such directory")
    target = RunDir(Path(args.into))
    counts = nightly.merge(sources, target)
    reports.write_reports(target)
    for combo, n in counts.items():
        print(f"{combo}: {n} outcomes")
    return 0


def _args_issue_text(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir")
    p.add_argument("--releases", help="releases.json from harness releases")


def _summary(run_dir: str) -> dict[str, Any]:
    summary = RunDir(Path(run_dir)).read_summary()
    if summary is None:
        raise UsageError(f"{run_dir}: no summary.json (run harness report first)")
    return summary


def cmd_issue_text(args: argparse.Namespace) -> int:
    summary = _summary(args.run_dir)
    news = RunDir(Path(args.run_dir)).read_releases(Path(args.releases) if args.releases else None)
    print(nightly.issue_text(summary, news.to_dict() if news else None), end="")
    return 0


def _args_annotations(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir")


def cmd_annotations(args: argparse.Namespace) -> int:
    for line in nightly.workflow_commands(_summary(args.run_dir)):
        print(line)
    return 0


def _args_releases(p: argparse.ArgumentParser) -> None:
    p.add_argument("--matrix", default="matrix.toml")
    p.add_argument("--results", default="results")
    p.add_argument("--history", help=_HISTORY_HELP)
    p.add_argument(
        "--write", metavar="PATH", help="also write the findings as JSON (e.g. into a run)"
    )


def cmd_releases(args: argparse.Namespace) -> int:
    matrix = spec.load(args.matrix)
    index = Index(matrix.index_url)
    packages = list(dict.fromkeys(lib.package for c in matrix.combos for lib in c.libraries))
    path = Path(args.history or history.default_path(Path(args.results)))
    try:
        with closing(history.connect(path)) as db:
            new = releases.watch(index, packages, db)
        data = releases.report(new, releases.resolve(matrix.combos, index))
    except IndexUnavailableError as exc:
        raise UsageError(f"package index: {exc}") from None
    if args.write:
        write_json(Path(args.write), data)
    print("\n".join(releases.markdown(data)))
    return 0


def _args_guard(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="guard_command", required=True)
    gal = sub.add_parser(
        "allowlist", help="fold runs made with --guard-record into the allowlist (review the diff)"
    )
    gal.add_argument("runs", nargs="+", metavar="RUN_DIR", help="results/<run-id>")
    gal.add_argument(
        "--output", default=str(allowlist_mod.SHIPPED), help="allowlist file (default: %(default)s)"
    )
    gal.add_argument(
        "--replace", action="store_true", help="start over instead of adding to the file"
    )


def cmd_guard(args: argparse.Namespace) -> int:
    output = Path(args.output)
    measured = allowlist_mod.update([Path(r) for r in args.runs], output, replace=args.replace)
    print(
        f"{args.output}: {len(measured.globals)} globals, {len(measured.events)} events "
        f"(from {measured.executions} recorded executions)"
    )
    for item in sorted(measured.refusable):
        print(f"  never admitted, whatever the list says: {item}")
    return 0


def _args_combos(p: argparse.ArgumentParser) -> None:
    _selection(p)
    p.add_argument("--json", action="store_true", help="print JSON (for scripts and CI)")


def cmd_combos(args: argparse.Namespace) -> int:
    matrix, combos = _select(args)
    if args.json:
        rows = [
            {
                "id": c.id,
                "python": c.python,
                "tags": list(c.tags),
                "libraries": {lib.library: lib.constraint for lib in c.libraries},
                "baseline": c.id == matrix.baseline,
            }
            for c in combos
        ]
        print(json.dumps(rows, indent=2))
        return 0
    for c in combos:
        libs = " ".join(f"{lib.library}={lib.constraint}" for lib in c.libraries)
        print(f"{c.id:<28} python={c.python} {libs}")
    return 0


Declare = Callable[[argparse.ArgumentParser], None]
Command = Callable[[argparse.Namespace], int]
# name → (its options, its handler), in the order --help lists them
COMMANDS: dict[str, tuple[Declare, Command]] = {
    "run": (_args_run, cmd_run),
    "bisect": (_args_bisect, cmd_bisect),
    "fetch-data": (_args_fetch_data, cmd_fetch_data),
    "validate-problems": (_args_validate, cmd_validate),
    "diff": (_args_diff, cmd_diff),
    "report": (_args_report, cmd_report),
    "plan": (_args_plan, cmd_plan),
    "merge": (_args_merge, cmd_merge),
    "issue-text": (_args_issue_text, cmd_issue_text),
    "annotations": (_args_annotations, cmd_annotations),
    "releases": (_args_releases, cmd_releases),
    "guard": (_args_guard, cmd_guard),
    "combos": (_args_combos, cmd_combos),
}
_HELP = {
    "run": "build each combo's env, run the problems, write results/",
    "bisect": "find the first release of a library where a problem's outcome changes",
    "fetch-data": "download the datasets problems load at run time into the local cache",
    "validate-problems": "check that each of our problems breaks exactly in the release "
    "its metadata names",
    "diff": "what changed between two recorded runs",
    "report": "rewrite the reports of a results directory",
    "plan": "the CI job matrix: one job per combo (and shard)",
    "merge": "fold the results of several jobs into one run directory",
    "issue-text": "what is new since the last run, for the nightly issue",
    "annotations": "GitHub annotations for new failures and drift",
    "releases": "new releases of the matrix's libraries since the last check",
    "guard": "the guard's allowlist of what returned values may use",
    "combos": "list the combos of the matrix",
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
    try:
        return COMMANDS[args.command][1](args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept", file=sys.stderr)
        return 130
