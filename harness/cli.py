"""``harness``: argument parsing → library calls → exit status. Nothing else lives here.

Exit status: 0 when the run completed (failing solutions are results, not errors),
1 with ``--strict`` when drift was found, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import sys
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from harness import allowlist as allowlist_mod
from harness import answers as answers_mod
from harness import (
    bisection,
    datasets,
    fetchdata,
    gha,
    history,
    interpreters,
    pipeline,
    problems,
    releases,
    reports,
    spec,
    validate,
)
from harness import combos as combinatorics
from harness.envs import EnvBuilder
from harness.errors import HarnessError, UsageError
from harness.libraries import canonical, lookup
from harness.problems import IDIOM_PREFIX, REFERENCE, Solution
from harness.progress import reporter
from harness.reports.markdown import render_changes
from harness.results import RunDir, new_run_id, write_json
from harness.runner import DEFAULT_MEMORY_MB, Execution, RunOptions
from harness.versions import Index, IndexUnavailableError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

DEFAULT_ENV_DIR = ".harness/envs"


def _add_selection(p: argparse.ArgumentParser) -> None:
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="Run data-science benchmark problems across a matrix of library versions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="build each combo's env, run the problems, write results/")
    _add_selection(run)
    run.add_argument(
        "--problems",
        action="append",
        default=[],
        metavar="PATH",
        help="problem file, directory or URL; 'ds1000' is the official DS-1000 file "
        "(repeatable; default: problems/)",
    )
    run.add_argument(
        "--answers",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="model answers JSONL; the model is NAME or the file's name (repeatable)",
    )
    run.add_argument("--no-reference", action="store_true", help="do not run reference solutions")
    run.add_argument(
        "--idioms",
        action="store_true",
        help="also run the named idioms of our problems (e.g. the old API) as idiom:<name>",
    )
    run.add_argument("--library", action="append", default=[], help="only this library's problems")
    run.add_argument("--problem-id", action="append", default=[], help="only this problem")
    run.add_argument("--limit", type=int, help="only the first N problems (after --library)")
    run.add_argument(
        "--shard", metavar="I/N", help="only shard I of N of the problems (for CI fan-out)"
    )
    run.add_argument("--results", default="results", help="results root (default: %(default)s)")
    run.add_argument("--run-id", help="results/<run-id>/ (default: a UTC timestamp)")
    run.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted run (--run-id, or the latest unfinished one) with the "
        "inputs and options it was started with; outcomes already recorded are kept",
    )
    run.add_argument(
        "--env-dir",
        default=os.environ.get("HARNESS_ENV_DIR", DEFAULT_ENV_DIR),
        help="where combo environments live (default: %(default)s, or $HARNESS_ENV_DIR)",
    )
    run.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="executions at once (default: number of cores)",
    )
    run.add_argument(
        "--timeout", type=float, help="seconds per execution (default: matrix.timeout)"
    )
    run.add_argument(
        "--memory-mb",
        type=int,
        default=DEFAULT_MEMORY_MB,
        help="memory cap per execution in MiB, 0 for none (default: %(default)s)",
    )
    run.add_argument(
        "--isolation",
        choices=("zygote", "fresh"),
        default="zygote",
        help="zygote: fork each execution from a preloaded process (default); "
        "fresh: a new interpreter per execution, as DS-1000's grader",
    )
    run.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_false",
        help="run executions without namespaces or a read-only filesystem (trusted code only)",
    )
    run.add_argument(
        "--no-guard",
        dest="guard",
        action="store_false",
        help="run model answers in the same process as their checks (trusted answers only)",
    )
    run.add_argument(
        "--guard-allowlist",
        metavar="PATH",
        help="admit also what this allowlist file lists, beside the shipped one "
        "(harness/envside/allowlist.txt; same format)",
    )
    run.add_argument(
        "--guard-record",
        action="store_true",
        help="measure the guard's allowlist: every solution, references too, runs apart and "
        "its values are admitted whatever they are, recording what they used "
        "(for `harness guard allowlist`; honest solutions only)",
    )
    run.add_argument(
        "--fresh-for",
        action="append",
        default=[],
        metavar="MODULE",
        help="always run problems that import MODULE in a fresh interpreter (repeatable)",
    )
    run.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run each execution N times per combo to detect flaky ones",
    )
    run.add_argument(
        "--bisect",
        action="store_true",
        help="for every drifted problem, find the responsible library and its first bad release",
    )
    run.add_argument("--history", help="SQLite history (default: <results>/history.sqlite)")
    run.add_argument("--no-history", action="store_true", help="do not record this run")
    run.add_argument("--strict", action="store_true", help="exit 1 when any drift is found")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress output")

    bis = sub.add_parser(
        "bisect", help="find the first release of a library where a problem's outcome changes"
    )
    bis.add_argument(
        "--run",
        metavar="RUN_DIR",
        help="instead: attribute and bisect every drifted problem of a finished run",
    )
    bis.add_argument("--problem", help="problem id, e.g. ds1000/47")
    bis.add_argument("--library", help="the library to bisect, e.g. pandas")
    bis.add_argument("--good", help="a release where the solution passes")
    bis.add_argument("--bad", help="a later release where it fails")
    bis.add_argument(
        "--source",
        default=REFERENCE,
        help="reference (default), idiom:<name> or model:<name> (with --answers)",
    )
    bis.add_argument("--problems", action="append", default=[], metavar="PATH")
    bis.add_argument("--answers", action="append", default=[], metavar="[NAME=]PATH")
    bis.add_argument("--matrix", default="matrix.toml")
    bis.add_argument("--combo", help="other libraries pinned as in this combo (default: baseline)")
    bis.add_argument(
        "--python",
        help="interpreter for the trial envs (default: the first that has wheels for both ends)",
    )
    bis.add_argument("--env-dir", default=os.environ.get("HARNESS_ENV_DIR", DEFAULT_ENV_DIR))
    bis.add_argument("--json", action="store_true", help="print the finding as JSON")

    fet = sub.add_parser(
        "fetch-data", help="download the datasets problems load at run time into the local cache"
    )
    fet.add_argument("--problems", action="append", default=[], metavar="PATH")
    fet.add_argument(
        "--data-dir", help="cache (default: $HARNESS_DATA_DIR or ~/.cache/ds-matrix-harness/data)"
    )
    fet.add_argument(
        "--seaborn-url", default=fetchdata.SEABORN_URL, help="base URL of seaborn's datasets"
    )
    fet.add_argument("--matrix", default="matrix.toml")
    fet.add_argument("--combo", help="env whose scikit-learn runs the fetchers (default: baseline)")
    fet.add_argument("--env-dir", default=os.environ.get("HARNESS_ENV_DIR", DEFAULT_ENV_DIR))

    val = sub.add_parser(
        "validate-problems",
        help="check that each of our problems breaks exactly in the release its metadata names",
    )
    val.add_argument("--problems", action="append", default=[], metavar="PATH")
    val.add_argument("--library", action="append", default=[])
    val.add_argument("--problem-id", action="append", default=[])
    val.add_argument(
        "--sample", type=int, metavar="N", help="only the first N problems of each library"
    )
    val.add_argument(
        "--span",
        choices=("full", "near"),
        default="full",
        help="bisect to the newest release (full), or only around the claimed one (near)",
    )
    val.add_argument(
        "--near",
        action="append",
        default=[],
        metavar="LIBRARY",
        help="bisect only around the claimed release for this library (repeatable): for "
        "libraries whose every release costs gigabytes, such as torch",
    )
    val.add_argument(
        "--write-table", metavar="README", help="write the result table into this file"
    )
    val.add_argument("--json", metavar="PATH", help="also write the checks as JSON")
    val.add_argument("--env-dir", default=os.environ.get("HARNESS_ENV_DIR", DEFAULT_ENV_DIR))
    val.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)

    dif = sub.add_parser("diff", help="what changed between two recorded runs")
    dif.add_argument("runs", nargs="*", metavar="RUN", help="RUN_A RUN_B (default: the last two)")
    dif.add_argument("--results", default="results")
    dif.add_argument("--history", help="SQLite history (default: <results>/history.sqlite)")
    dif.add_argument("--json", action="store_true")

    rep = sub.add_parser("report", help="rewrite the reports of a results directory")
    rep.add_argument("run_dir", help="results/<run-id>")
    rep.add_argument("--history", help="also record the run in this SQLite history and diff it")

    pla = sub.add_parser("plan", help="the CI job matrix: one job per combo (and shard)")
    _add_selection(pla)
    pla.add_argument("--shards", type=int, default=1, help="jobs per combo (default: 1)")
    pla.add_argument(
        "--max-jobs",
        type=int,
        default=gha.GITHUB_JOB_LIMIT,
        help="group runs into at most this many jobs (default: %(default)s)",
    )
    pla.add_argument("--github", action="store_true", help="compact JSON for fromJSON()")

    mer = sub.add_parser("merge", help="fold the results of several jobs into one run directory")
    mer.add_argument("sources", nargs="+", help="run directories (downloaded artifacts)")
    mer.add_argument("--into", required=True, help="results/<run-id> to write")

    iss = sub.add_parser("issue-text", help="what is new since the last run, for the nightly issue")
    iss.add_argument("run_dir")
    iss.add_argument("--releases", help="releases.json from harness releases")

    ann = sub.add_parser("annotations", help="GitHub annotations for new failures and drift")
    ann.add_argument("run_dir")

    rel = sub.add_parser(
        "releases", help="new releases of the matrix's libraries since the last check"
    )
    rel.add_argument("--matrix", default="matrix.toml")
    rel.add_argument("--results", default="results")
    rel.add_argument("--history", help="SQLite history (default: <results>/history.sqlite)")
    rel.add_argument(
        "--write", metavar="PATH", help="also write the findings as JSON (e.g. into a run)"
    )

    grd = sub.add_parser("guard", help="the guard's allowlist of what returned values may use")
    grd_sub = grd.add_subparsers(dest="guard_command", required=True)
    gal = grd_sub.add_parser(
        "allowlist",
        help="fold runs made with --guard-record into the allowlist (review the diff)",
    )
    gal.add_argument("runs", nargs="+", metavar="RUN_DIR", help="results/<run-id>")
    gal.add_argument(
        "--output", default=str(allowlist_mod.SHIPPED), help="allowlist file (default: %(default)s)"
    )
    gal.add_argument(
        "--replace", action="store_true", help="start over instead of adding to the file"
    )

    lst = sub.add_parser("combos", help="list the combos of the matrix")
    _add_selection(lst)
    lst.add_argument("--json", action="store_true", help="print JSON (for scripts and CI)")
    return parser


def _split(values: Sequence[str]) -> list[str]:
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def _select(args: argparse.Namespace) -> tuple[spec.MatrixSpec, list[spec.Combo]]:
    matrix = spec.load(args.matrix)
    chosen = combinatorics.select(matrix.combos, _split(args.combos), args.keyword, args.tag)
    if not chosen:
        known = ", ".join(c.id for c in matrix.combos)
        raise UsageError(f"no combo matches the selection (combos: {known})")
    return matrix, chosen


def _load_solutions(
    args: argparse.Namespace, all_problems: list[problems.Problem], chosen: list[problems.Problem]
) -> list[Solution]:
    selected = {p.id for p in chosen}
    solutions: list[Solution] = []
    if not args.no_reference:
        solutions += [Solution(p.id, REFERENCE, p.reference_code) for p in chosen]
    if args.idioms:
        solutions += [
            Solution(p.id, IDIOM_PREFIX + name, code)
            for p in chosen
            for name, code in p.idioms.items()
        ]
    for entry in args.answers:
        name, sep, location = entry.partition("=")
        if not sep or datasets.is_url(entry):
            name, location = "", entry
        path = datasets.resolve(location)
        solutions += answers_mod.load_answers(path, all_problems, selected, name or None)
    return solutions


# What a run was started with, recorded in its manifest so that --resume can redo it.
_RESUMED = (
    "matrix", "combos", "keyword", "tag", "problems", "answers", "no_reference", "idioms",
    "library", "problem_id", "limit", "shard", "timeout", "memory_mb", "isolation",
    "fresh_for", "repeat", "sandbox", "guard", "bisect", "guard_allowlist", "guard_record",
)  # fmt: skip


def _resume_from(args: argparse.Namespace) -> None:
    """Point ``args`` at the run to resume and restore what it was started with."""
    root = Path(args.results)
    if args.run_id:
        manifest = root / args.run_id / "run.json"
        if not manifest.is_file():
            raise UsageError(f"--resume: no run {args.run_id!r} in {root}")
    else:
        unfinished = []
        for path in root.glob("*/run.json"):
            with contextlib.suppress(ValueError, OSError):
                data = json.loads(path.read_text(encoding="utf-8"))
                if not data.get("finished") and "command" in data.get("inputs", {}):
                    unfinished.append((str(data.get("started", "")), path))
        if not unfinished:
            raise UsageError(f"--resume: every run in {root} has finished; nothing to resume")
        manifest = max(unfinished)[1]
        args.run_id = manifest.parent.name
    recorded = json.loads(manifest.read_text(encoding="utf-8")).get("inputs", {}).get("command")
    if not isinstance(recorded, dict):
        raise UsageError(f"--resume: {manifest} does not say how the run was started")
    for key in _RESUMED:
        if key in recorded:
            setattr(args, key, recorded[key])
    print(f"[harness] resuming run {args.run_id}", file=sys.stderr)


def cmd_run(args: argparse.Namespace) -> int:
    if args.resume:
        _resume_from(args)
    matrix, combos = _select(args)
    if args.jobs < 1 or args.repeat < 1:
        raise UsageError("--jobs and --repeat must be at least 1")
    locations = args.problems or ["problems"]
    paths = [datasets.resolve(p) for p in locations]
    all_problems = problems.load_problems(paths)
    chosen = problems.filter_problems(all_problems, args.library, args.problem_id, args.limit)
    if args.shard:
        try:
            chosen = problems.shard(chosen, *problems.parse_shard(args.shard))
        except ValueError as exc:
            raise UsageError(f"--shard {exc}") from None
    if not chosen:
        raise UsageError("no problems selected (check --library, --problem-id, --limit, --shard)")
    solutions = _load_solutions(args, all_problems, chosen)
    run_id = args.run_id or new_run_id()
    if not combinatorics.ID_PATTERN.match(run_id.replace("_", "-")):
        raise UsageError(f"--run-id {run_id!r}: use letters, digits, '-' and '_'")
    options = RunOptions(
        jobs=args.jobs,
        timeout=args.timeout or matrix.timeout,
        memory_mb=args.memory_mb or None,
        isolation=args.isolation,
        fresh_for=tuple(_split(args.fresh_for)),
        repeat=args.repeat,
        env=tuple(sorted(fetchdata.environment().items())),
        # no execution may read the problems (their references) or earlier results
        hide=tuple(str(p.absolute()) for p in [*paths, Path(args.results)]),
        sandbox=args.sandbox,
        guard=args.guard,
        allowlist_extra=_read_allowlist(args.guard_allowlist),
        record_transport=args.guard_record,
    )
    job = pipeline.Job(
        spec=matrix,
        combos=combos,
        problems=chosen,
        solutions=solutions,
        run_dir=RunDir(Path(args.results) / run_id),
        env_root=Path(args.env_dir).absolute(),
        options=options,
        inputs={
            "problems": locations,
            "answers": args.answers,
            "shard": args.shard,
            "command": {k: getattr(args, k) for k in _RESUMED},
        },
        bisect=args.bisect,
        resume=args.resume,
        history=None
        if args.no_history
        else Path(args.history or history.default_path(Path(args.results))),
    )
    with reporter(args.quiet) as progress:
        summary = pipeline.run(job, progress)
    print(job.run_dir.summary_md)
    return 1 if args.strict and summary.drift else 0


def _read_allowlist(path: str | None) -> str:
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--guard-allowlist {path}: {exc.strerror}") from None


def cmd_guard(args: argparse.Namespace) -> int:
    measured = allowlist_mod.update(
        [Path(r) for r in args.runs], Path(args.output), replace=args.replace
    )
    print(
        f"{args.output}: {len(measured.globals)} globals, {len(measured.events)} events "
        f"(from {measured.executions} recorded executions)"
    )
    for item in sorted(measured.refusable):
        print(f"  never admitted, whatever the list says: {item}")
    return 0


def cmd_bisect(args: argparse.Namespace) -> int:
    if args.run:
        return _bisect_run(args)
    missing = [f"--{k}" for k in ("problem", "library", "good", "bad") if not getattr(args, k)]
    if missing:
        raise UsageError(f"bisect needs {', '.join(missing)} (or --run RUN_DIR)")
    matrix = spec.load(args.matrix)
    combo = matrix.by_id.get(args.combo or matrix.baseline)
    if combo is None:
        raise UsageError(f"--combo {args.combo!r}: no such combo in {args.matrix}")
    paths = [datasets.resolve(p) for p in (args.problems or ["problems"])]
    all_problems = problems.load_problems(paths)
    chosen = problems.filter_problems(all_problems, ids=[args.problem])
    if not chosen:
        raise UsageError(f"--problem {args.problem!r}: no such problem")
    (problem,) = chosen[:1]
    args.no_reference, args.idioms = False, True
    solution = next(
        (s for s in _load_solutions(args, all_problems, [problem]) if s.source == args.source),
        None,
    )
    if solution is None:
        raise UsageError(f"--source {args.source!r}: no such solution for {problem.id}")
    library = lookup(args.library)
    package = library.package if library else args.library
    builder = EnvBuilder(Path(args.env_dir).absolute(), Index(matrix.index_url))
    try:
        _, base_versions = builder.resolved_versions(combo)
    except LookupError as exc:
        raise UsageError(str(exc)) from None
    execution = Execution(problem, solution)
    others = {
        k: v
        for k, v in bisection.problem_packages(execution, base_versions).items()
        if k not in (package, args.library)
    }
    releases = bisection.release_lister(builder.index)
    python = args.python or _python_for(package, args.good, args.bad, combo.python, releases)
    lab = bisection.Lab(
        builder, RunOptions(), log=lambda m: print(f"[harness] {m}", file=sys.stderr)
    )
    (finding,) = bisection.drive(
        lab,
        [
            bisection.bisect_library(
                execution, package, args.good, args.bad, python, others, releases
            )
        ],
    )
    if args.json:
        print(json.dumps(finding.to_dict(), indent=2))
    elif finding.first_bad:
        print(
            f"{problem.id} ({solution.source}): first bad release {package} {finding.first_bad} "
            f"(last good {finding.last_good}; {finding.candidates} releases, {finding.trials} trials, "
            f"Python {python})"
        )
        print(f"  fails with: {finding.error}")
        if finding.warning:
            print(f"  {package} {finding.last_good} warned: {finding.warning}")
    else:
        print(f"{problem.id} ({solution.source}): no first bad release: {finding.how}")
    return 0


def _bisect_run(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run))
    manifest = reports.load_manifest(run)
    if not manifest:
        raise UsageError(f"{args.run}: not a results directory (no run.json)")
    inputs = manifest.get("inputs", {})
    locations = args.problems or inputs.get("problems") or ["problems"]
    all_problems = problems.load_problems([datasets.resolve(p) for p in locations])
    args.no_reference, args.idioms = False, False
    args.answers = args.answers or inputs.get("answers", [])
    matrix = spec.load(args.matrix)
    job = pipeline.Job(
        spec=matrix,
        combos=(),
        problems=all_problems,
        solutions=_load_solutions(args, all_problems, all_problems),
        run_dir=run,
        env_root=Path(args.env_dir).absolute(),
    )
    with reporter(False) as progress:
        summary = pipeline.analyse_existing(job, progress)
    found = [
        t
        for t in summary.drift
        if summary.analysis.get((t.problem_id, t.source), {}).get("first_bad")
    ]
    print(f"{len(found)} of {len(summary.drift)} drifted problems bisected; see {run.summary_md}")
    return 0


def _python_for(
    package: str, good: str, bad: str, start: str, releases: Callable[[str, str], list[str]]
) -> str:
    """The first Python from ``start`` up on which both ends have a wheel."""
    for python in bisection.pythons_between(start, "3.13"):
        try:
            available = set(releases(package, python))
        except (IndexUnavailableError, LookupError):
            continue
        if good in available and bad in available:
            return python
    raise UsageError(f"no Python from {start} up has wheels of {package} {good} and {bad}")


def cmd_fetch_data(args: argparse.Namespace) -> int:
    paths = [datasets.resolve(p) for p in (args.problems or ["problems"])]
    needs = fetchdata.needed(problems.load_problems(paths))
    root = Path(args.data_dir) if args.data_dir else fetchdata.data_dir()
    results = fetchdata.fetch_seaborn(needs.seaborn, root, args.seaborn_url)
    if needs.sklearn:
        matrix = spec.load(args.matrix)
        combo = matrix.by_id.get(args.combo or matrix.baseline)
        if combo is None:
            raise UsageError(f"--combo {args.combo!r}: no such combo")
        env, _ = EnvBuilder(Path(args.env_dir).absolute(), Index(matrix.index_url)).build(combo)
        if not env.ok:
            raise UsageError(f"combo {combo.id!r} cannot be built: {env.error}")
        results += fetchdata.fetch_sklearn(needs.sklearn, root, env)
    for r in results:
        print(f"{'ok    ' if r.ok else 'FAILED'} {r.name}: {r.detail}")
    print(f"{sum(r.ok for r in results)}/{len(results)} datasets in {root}")
    return 0 if all(r.ok for r in results) else 1


def cmd_validate(args: argparse.Namespace) -> int:
    locations = args.problems or ["problems"]
    chosen = problems.filter_problems(
        problems.load_problems([datasets.resolve(p) for p in locations]),
        args.library,
        args.problem_id,
    )
    if args.sample:
        chosen = validate.sample(chosen, args.sample)
    if not chosen:
        raise UsageError("no problems selected")
    pythons = [p for p in ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13") if _has_python(p)]
    index = Index()
    with reporter(False) as progress:
        builder = EnvBuilder(Path(args.env_dir).absolute(), index)
        lab = bisection.Lab(builder, RunOptions(jobs=args.jobs), log=progress.log)
        facts = validate.ReleaseFacts(index, pythons)
        near = {canonical(name) for name in args.near}
        checks = bisection.drive(
            lab,
            [
                validate.validate(p, facts, "near" if p.library in near else args.span)
                for p in chosen
            ],
        )
    for c in checks:
        mark = "ok  " if c.ok else "FAIL"
        print(
            f"{mark} {c.problem_id}: expected {c.expected}, observed {c.observed}"
            + (f" ({c.notes})" if c.notes else "")
        )
    held = sum(c.ok for c in checks)
    print(f"{held} of {len(checks)} problems hold ({len(lab.envs_built)} environments)")
    if args.json:
        Path(args.json).write_text(json.dumps([c.to_dict() for c in checks], indent=2) + "\n")
    if args.write_table:
        path = Path(args.write_table)
        command = "harness validate-problems " + " ".join(sys.argv[2:]).strip()
        block = validate.table(
            checks, dt.datetime.now(dt.timezone.utc).date().isoformat(), command.strip()
        )
        path.write_text(
            validate.write_table(path.read_text(encoding="utf-8"), block), encoding="utf-8"
        )
    return 0 if held == len(checks) else 1


def _has_python(version: str) -> bool:
    try:
        interpreters.find(version)
    except interpreters.InterpreterNotFoundError:
        return False
    return True


def cmd_diff(args: argparse.Namespace) -> int:
    path = Path(args.history or history.default_path(Path(args.results)))
    if not path.is_file():
        raise UsageError(f"{path}: no history yet (harness run records each run there)")
    if len(args.runs) > 2:
        raise UsageError("diff takes at most two runs")
    with closing(history.connect(path)) as db:
        known = history.runs(db)
        if args.runs:
            after = args.runs[-1]
            before = args.runs[0] if len(args.runs) == 2 else history.previous(db, after)
        else:
            after = known[-1] if known else ""
            before = history.previous(db, after) if after else None
        if not before:
            raise UsageError("need two recorded runs to compare")
        changes = history.diff(db, before, after)
    if args.json:
        print(json.dumps(changes, indent=2))
    else:
        print("\n".join(render_changes(changes)))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run_dir))
    if not run.root.is_dir():
        raise UsageError(f"{args.run_dir}: no such results directory")
    changes = history.record_and_diff(run, Path(args.history)) if args.history else None
    reports.write_reports(run, changes)
    print(run.summary_md)
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    _, combos = _select(args)
    if args.shards < 1 or args.max_jobs < 1:
        raise UsageError("--shards and --max-jobs must be at least 1")
    matrix = gha.plan(combos, args.shards, args.max_jobs)
    print(
        json.dumps(matrix, separators=(",", ":")) if args.github else json.dumps(matrix, indent=2)
    )
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    sources = [Path(s) for s in args.sources]
    for source in sources:
        if not source.is_dir():
            raise UsageError(f"{source}: no such directory")
    target = RunDir(Path(args.into))
    counts = gha.merge(sources, target)
    reports.write_reports(target)
    for combo, n in counts.items():
        print(f"{combo}: {n} outcomes")
    return 0


def cmd_issue_text(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run_dir))
    if not run.summary_json.is_file():
        raise UsageError(f"{args.run_dir}: no summary.json (run harness report first)")
    summary = json.loads(run.summary_json.read_text(encoding="utf-8"))
    found = Path(args.releases) if args.releases else run.root / "releases.json"
    release_data = json.loads(found.read_text(encoding="utf-8")) if found.is_file() else None
    print(gha.issue_text(summary, release_data), end="")
    return 0


def cmd_annotations(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run_dir))
    if not run.summary_json.is_file():
        raise UsageError(f"{args.run_dir}: no summary.json (run harness report first)")
    for line in gha.workflow_commands(json.loads(run.summary_json.read_text(encoding="utf-8"))):
        print(line)
    return 0


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


def cmd_combos(args: argparse.Namespace) -> int:
    matrix, combos = _select(args)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": c.id,
                        "python": c.python,
                        "tags": list(c.tags),
                        "libraries": {lib.library: lib.constraint for lib in c.libraries},
                        "baseline": c.id == matrix.baseline,
                    }
                    for c in combos
                ],
                indent=2,
            )
        )
        return 0
    for c in combos:
        libs = " ".join(f"{lib.library}={lib.constraint}" for lib in c.libraries)
        print(f"{c.id:<28} python={c.python} {libs}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {
        "run": cmd_run,
        "report": cmd_report,
        "combos": cmd_combos,
        "bisect": cmd_bisect,
        "diff": cmd_diff,
        "fetch-data": cmd_fetch_data,
        "validate-problems": cmd_validate,
        "plan": cmd_plan,
        "merge": cmd_merge,
        "issue-text": cmd_issue_text,
        "releases": cmd_releases,
        "annotations": cmd_annotations,
        "guard": cmd_guard,
    }
    try:
        return handlers[args.command](args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept", file=sys.stderr)
        return 130
