"""``harness``: argument parsing → library calls → exit status. Nothing else lives here.

Exit status: 0 when the run completed (failing solutions are results, not errors),
1 with ``--strict`` when drift was found, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from harness import answers as answers_mod
from harness import combos as combinatorics
from harness import datasets, pipeline, problems, reports, spec
from harness.errors import HarnessError, UsageError
from harness.problems import IDIOM_PREFIX, REFERENCE, Solution
from harness.progress import reporter
from harness.results import RunDir, new_run_id
from harness.runner import DEFAULT_MEMORY_MB, RunOptions

if TYPE_CHECKING:
    from collections.abc import Sequence

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
    run.add_argument("--results", default="results", help="results root (default: %(default)s)")
    run.add_argument("--run-id", help="results/<run-id>/ (default: a UTC timestamp)")
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
    run.add_argument("--strict", action="store_true", help="exit 1 when any drift is found")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress output")

    rep = sub.add_parser("report", help="rewrite the reports of a results directory")
    rep.add_argument("run_dir", help="results/<run-id>")

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


def cmd_run(args: argparse.Namespace) -> int:
    matrix, combos = _select(args)
    if args.jobs < 1 or args.repeat < 1:
        raise UsageError("--jobs and --repeat must be at least 1")
    locations = args.problems or ["problems"]
    paths = [datasets.resolve(p) for p in locations]
    all_problems = problems.load_problems(paths)
    chosen = problems.filter_problems(all_problems, args.library, args.problem_id, args.limit)
    if not chosen:
        raise UsageError("no problems selected (check --library, --problem-id, --limit)")
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
    )
    job = pipeline.Job(
        spec=matrix,
        combos=combos,
        problems=chosen,
        solutions=solutions,
        run_dir=RunDir(Path(args.results) / run_id),
        env_root=Path(args.env_dir).absolute(),
        options=options,
        inputs={"problems": locations, "answers": args.answers},
    )
    with reporter(args.quiet) as progress:
        summary = pipeline.run(job, progress)
    print(job.run_dir.summary_md)
    return 1 if args.strict and summary.drift else 0


def cmd_report(args: argparse.Namespace) -> int:
    run = RunDir(Path(args.run_dir))
    if not run.root.is_dir():
        raise UsageError(f"{args.run_dir}: no such results directory")
    reports.write_reports(run)
    print(run.summary_md)
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
    handlers = {"run": cmd_run, "report": cmd_report, "combos": cmd_combos}
    try:
        return handlers[args.command](args)
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted: results written so far are kept", file=sys.stderr)
        return 130
