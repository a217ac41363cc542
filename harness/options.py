"""The command line's options, each declared once: ``harness.cli`` says which subcommand
takes which, in the order its ``--help`` lists them.

An option several subcommands take (``--matrix``, ``--problems``, ``--env-dir``…) is one
:class:`Option` here. Some subcommands list it without its help text (``Option.bare``),
as they always have; an option that means something else in one subcommand (``bisect
--library`` names one library to bisect) is an option of its own.

Option names are the fields of :class:`harness.execute.rundir.RunRequest`: ``--no-reference`` is
``no_reference`` in both.

The subcommands are declared here too (:func:`command`, on their runners in ``harness.cli``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from harness import __version__
from harness.app.doctor import KINDS
from harness.app.nightly import GITHUB_JOB_LIMIT
from harness.core.defaults import MATRIX_FILE
from harness.core.problem import REFERENCE
from harness.envs.interpreters import DOWNLOADS, downloads_setting
from harness.execute.allowlist import SHIPPED
from harness.execute.runner import DEFAULT_MEMORY_MB
from harness.problems.runtime_data import SEABORN_URL

DEFAULT_ENV_DIR = ".harness/envs"


@dataclass(frozen=True)
class Option:
    """One option or positional argument, as ``ArgumentParser.add_argument`` takes it.

    A setting left at None is left to argparse. An ``append`` option starts from an
    empty list; ``default_from`` is a default read when the parser is built (the
    environment of that call, not the one the module was imported in).
    """

    flags: tuple[str, ...]
    help: str | None = None
    action: str | None = None
    dest: str | None = None
    default: object = None
    default_from: Callable[[], object] | None = None
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    nargs: str | None = None
    required: bool = False
    version: str | None = None  # action="version": what it prints

    @property
    def bare(self) -> Option:
        """The same option, listed without a help text."""
        return replace(self, help=None)

    def helped(self, text: str) -> Option:
        """The same option, explained as ``text``."""
        return replace(self, help=text)

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        given = {
            "help": self.help,
            "action": self.action,
            "dest": self.dest,
            "default": self.default_from() if self.default_from else self.default,
            "type": self.type,
            "choices": self.choices,
            "metavar": self.metavar,
            "nargs": self.nargs,
            "required": self.required or None,
            "version": self.version,
        }
        settings: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        if self.action == "append":
            settings["default"] = []  # a new list per parser: nothing shares what is parsed
        parser.add_argument(*self.flags, **settings)


def add(parser: argparse.ArgumentParser, *options: Option) -> None:
    """Add ``options`` to ``parser``, in this order."""
    for option in options:
        option.add_to(parser)


def _env_dir() -> str:
    return os.environ.get("HARNESS_ENV_DIR", DEFAULT_ENV_DIR)


def _python_downloads() -> str:
    return downloads_setting()


def _cores() -> int:
    return os.cpu_count() or 1


# -- which combos ----------------------------------------------------------------------------

MATRIX = Option(
    ("--matrix",),
    default=MATRIX_FILE,
    help="matrix file (default: matrix.toml here, else the embedded default)",
)
COMBOS = Option(
    ("--combos",),
    action="append",
    metavar="IDS",
    help="comma-separated combo ids or globs (repeatable; default: all)",
)
KEYWORD = Option(("-k",), dest="keyword", help="only combos whose id contains this")
TAG = Option(("-t", "--tag"), action="append", help="only combos with this tag")
SELECT_COMBOS = (MATRIX, COMBOS, KEYWORD, TAG)
# harness bisect: the run's own matrix for --run, matrix.toml for --problem
BISECT_MATRIX = replace(MATRIX.bare, default=None)

COMBO = Option(("--combo",), help="other libraries pinned as in this combo (default: baseline)")
ENV_OF_COMBO = COMBO.helped("env whose scikit-learn runs the fetchers (default: baseline)")

# -- which problems and solutions ------------------------------------------------------------

PROBLEMS = Option(
    ("--problems",),
    action="append",
    metavar="PATH",
    help="problem file, directory or URL, or a published benchmark by name: ds1000, "
    "bigcodebench, bigcodebench-hard (downloaded once, checksum-checked; repeatable; "
    "default: problems/ here, else the embedded suite)",
)
ANSWERS = Option(
    ("--answers",),
    action="append",
    metavar="[NAME=]PATH",
    help="model answers JSONL; the model is NAME or the file's name (repeatable)",
)
NO_REFERENCE = Option(
    ("--no-reference",), action="store_true", help="do not run reference solutions"
)
IDIOMS = Option(
    ("--idioms",),
    action="store_true",
    default=True,
    help="run the named idioms of our problems (the old API) as idiom:<name> (the default)",
)
NO_IDIOMS = Option(
    ("--no-idioms",),
    action="store_false",
    dest="idioms",
    help="run our problems' references alone, not their idioms",
)
LIBRARY = Option(("--library",), action="append", help="only this library's problems")
PROBLEM_ID = Option(("--problem-id",), action="append", help="only this problem")
LIMIT = Option(("--limit",), type=int, help="only the first N problems (after --library)")
SHARD = Option(
    ("--shard",), metavar="I/N", help="only shard I of N of the problems (for CI fan-out)"
)
SHARD_DURATIONS = Option(
    ("--shard-durations",),
    metavar="FILE",
    help="with --shard: split by the seconds FILE records per problem (harness plan "
    "--write-durations), so that the shards take about as long as each other",
)
OWN_ENVS = Option(
    ("--own-envs",),
    action="store_true",
    help="run each problem only in the environment it brings (GitChameleon: its Python, "
    "library==version and dependencies), one combo per distinct environment, instead of "
    "the matrix's combos (--combos then chooses among those)",
)
REACH_OUT = Option(
    ("--out",),
    default="results/reach",
    help="where reach.json and reach.md go (default: %(default)s)",
)
NIGHTLY = Option(
    ("--nightly",),
    action="store_true",
    help="run what the matrix's [nightly] table declares: its combos and lanes, problem "
    "sets and answers directory (options given here take precedence)",
)
SELECT_PROBLEMS = (
    PROBLEMS,
    ANSWERS,
    NO_REFERENCE,
    IDIOMS,
    NO_IDIOMS,
    LIBRARY,
    PROBLEM_ID,
    LIMIT,
    SHARD,
    SHARD_DURATIONS,
)

# -- where things are ------------------------------------------------------------------------

RESULTS = Option(("--results",), default="results", help="results root (default: %(default)s)")
RUN_ID = Option(
    ("--run-id",),
    help="results/<run-id>/: lowercase letters, digits, - and _ (default: a UTC timestamp)",
)
RUN_DIR = Option(("run_dir",), help="results/<run-id>")
ENV_DIR = Option(
    ("--env-dir",),
    default_from=_env_dir,
    help="where combo environments live (default: %(default)s, or $HARNESS_ENV_DIR)",
)
PYTHON_DOWNLOADS = Option(
    ("--python-downloads",),
    choices=DOWNLOADS,
    default_from=_python_downloads,
    help="when no local Python fits a combo, may uv download one (default: %(default)s, "
    "or $UV_PYTHON_DOWNLOADS)",
)
HISTORY = Option(("--history",), help="SQLite history (default: <results>/history.sqlite)")
NO_HISTORY = Option(("--no-history",), action="store_true", help="do not record this run")

# -- how executions run ----------------------------------------------------------------------

JOBS = Option(
    ("-j", "--jobs"),
    type=int,
    default_from=_cores,
    help="executions at once (default: number of cores)",
)
BURST_JOBS = Option(
    ("--burst-jobs",),
    type=int,
    metavar="N",
    help="up to N executions at once while measured CPU use leaves a core idle and memory "
    "allows (default: three times --jobs; equal to --jobs for a fixed count)",
)
TIMEOUT = Option(("--timeout",), type=float, help="seconds per execution (default: matrix.timeout)")
MEMORY_MB = Option(
    ("--memory-mb",),
    type=int,
    default=DEFAULT_MEMORY_MB,
    help="memory cap per execution in MiB, 0 for none (default: %(default)s)",
)
ISOLATION = Option(
    ("--isolation",),
    choices=("zygote", "fresh"),
    default="zygote",
    help="zygote: fork each execution from a preloaded process (default); "
    "fresh: a new interpreter per execution, as DS-1000's grader",
)
NO_SANDBOX = Option(
    ("--no-sandbox",),
    dest="sandbox",
    action="store_false",
    help="run executions without namespaces or a read-only filesystem (trusted code only)",
)
ALLOW_UNSANDBOXED_ANSWERS = Option(
    ("--allow-unsandboxed-answers",),
    action="store_true",
    help="run model answers even where the sandbox is refused (the kernel's namespaces) or "
    "switched off (--no-sandbox); without it such a run stops before any answer runs",
)
NO_GUARD = Option(
    ("--no-guard",),
    dest="guard",
    action="store_false",
    help="run model answers in the same process as their checks (trusted answers only)",
)
GUARD_ALLOWLIST = Option(
    ("--guard-allowlist",),
    metavar="PATH",
    help="admit also what this allowlist file lists, beside the shipped one "
    "(harness/envside/allowlist.txt; same format)",
)
GUARD_RECORD = Option(
    ("--guard-record",),
    action="store_true",
    help="measure the guard's allowlist: every solution, references too, runs apart and "
    "its values are admitted whatever they are, recording what they used "
    "(for `harness guard allowlist`; honest solutions only)",
)
NO_MEASURED_ADMISSION = Option(
    ("--no-measured-admission",),
    dest="measured_admission",
    action="store_false",
    help="admit model answers' values by the shipped allowlist only, without first "
    "measuring what the references' values use in each combo",
)
FRESH_FOR = Option(
    ("--fresh-for",),
    action="append",
    metavar="MODULE",
    help="always run problems that import MODULE in a fresh interpreter (repeatable)",
)
REPEAT = Option(
    ("--repeat",),
    type=int,
    default=1,
    metavar="N",
    help="run each execution N times per combo to detect flaky ones",
)
EXECUTIONS = (
    JOBS,
    BURST_JOBS,
    TIMEOUT,
    MEMORY_MB,
    ISOLATION,
    NO_SANDBOX,
    ALLOW_UNSANDBOXED_ANSWERS,
    NO_GUARD,
    GUARD_ALLOWLIST,
    GUARD_RECORD,
    NO_MEASURED_ADMISSION,
    FRESH_FOR,
    REPEAT,
)

# -- harness audit ------------------------------------------------------------------------------

MUTANTS = Option(
    ("--mutants",),
    type=int,
    default=5,
    metavar="N",
    help="at most N mutants of each reference (default: %(default)s)",
)
SEED = Option(
    ("--seed",),
    type=int,
    default=0,
    help="which mutants: the same seed makes the same ones (default: %(default)s)",
)
AUDIT_REPEATS = Option(
    ("--repeats",),
    type=int,
    default=3,
    metavar="N",
    help="run each reference N times, each under another hash seed and order, to find "
    "verdicts that vary (default: %(default)s)",
)
AUDIT_BISECT = Option(
    ("--bisect",),
    action="store_true",
    help="bisect each weakened test to the release of its library that weakened it",
)
AUDIT_REPORT = Option(
    ("--report",),
    metavar="RUN_DIR",
    help="assess a finished or interrupted audit again from its files, and rewrite its reports",
)
AUDIT_HELP = (
    "do the problems' tests still tell right answers from wrong ones: null answers, "
    "mutants, repeats, time, safety and network, per combo; write audit.json and audit.md"
)

# -- what a run does besides running ---------------------------------------------------------

RESUME = Option(
    ("--resume",),
    action="store_true",
    help="finish an interrupted run (--run-id, or the latest unfinished one) with the "
    "inputs and options it was started with; outcomes already recorded are kept",
)
BISECT = Option(
    ("--bisect",),
    action="store_true",
    help="for every drifted problem, find the responsible library and its first bad release",
)
REPAIR = Option(
    ("--repair",),
    action="store_true",
    help="after the run (and --bisect), propose and verify repairs of its drifted "
    "problems, as `harness repair` does",
)
COMPARE_UPSTREAM = Option(
    ("--compare-upstream",),
    action="store_true",
    help="compare each model's verdicts with the ones upstream's own grader wrote beside its "
    "answers file (BigCodeBench's S_eval_results.json, GitChameleon's S_eval_results.csv): "
    "agreement.md lists every disagreement with both reasons",
)
STRICT = Option(("--strict",), action="store_true", help="exit 1 when any drift is found")
QUIET = Option(("-q", "--quiet"), action="store_true", help="no progress output")
# harness audit: what to audit, and how its answers run (never without the guard: its
# probes are answers, graded apart from their checks)
AUDIT = (
    *SELECT_COMBOS, OWN_ENVS, PROBLEMS, LIBRARY, PROBLEM_ID, LIMIT, SHARD, MUTANTS, SEED, AUDIT_REPEATS,
    AUDIT_BISECT, AUDIT_REPORT, RESULTS, RUN_ID, ENV_DIR, PYTHON_DOWNLOADS, JOBS, BURST_JOBS, TIMEOUT, MEMORY_MB,
    ISOLATION, FRESH_FOR, ALLOW_UNSANDBOXED_ANSWERS, QUIET,
)  # fmt: skip
PRINT_JSON = Option(("--json",), action="store_true", help="print JSON (for scripts and CI)")

# -- doctor ----------------------------------------------------------------------------------

DOCTOR_CHECK = Option(
    ("--check",),
    action="append",
    choices=KINDS,
    help="only this kind of check (repeatable; default: all): the exit status is theirs, "
    "e.g. `--check sandbox` fails where model answers could not run sandboxed",
)

# -- bisect ----------------------------------------------------------------------------------

BISECT_RUN = Option(
    ("--run",),
    metavar="RUN_DIR",
    help="instead: attribute and bisect every drifted problem of a finished run",
)
PROBLEM = Option(("--problem",), help="problem id, e.g. ds1000/47")
BISECTED_LIBRARY = Option(("--library",), help="the library to bisect, e.g. pandas")
GOOD = Option(("--good",), help="a release where the solution passes")
BAD = Option(("--bad",), help="a later release where it fails")
SOURCE = Option(
    ("--source",),
    default=REFERENCE,
    help="reference (default), idiom:<name> or model:<name> (with --answers)",
)
PYTHON = Option(
    ("--python",),
    help="interpreter for the trial envs (default: the first that has wheels for both ends)",
)
FINDING_JSON = PRINT_JSON.helped("print the finding as JSON")

# -- fetch-data ------------------------------------------------------------------------------

DATA_DIR = Option(
    ("--data-dir",), help="cache (default: $HARNESS_DATA_DIR or ~/.cache/ds-matrix-harness/data)"
)
SEABORN = Option(("--seaborn-url",), default=SEABORN_URL, help="base URL of seaborn's datasets")

# -- validate-problems -----------------------------------------------------------------------

SAMPLE = Option(
    ("--sample",), type=int, metavar="N", help="only the first N problems of each library"
)
SPAN = Option(
    ("--span",),
    choices=("full", "near"),
    default="full",
    help="bisect to the newest release (full), or only around the claimed one (near)",
)
NEAR = Option(
    ("--near",),
    action="append",
    metavar="LIBRARY",
    help="bisect only around the claimed release for this library (repeatable): for "
    "libraries whose every release costs gigabytes, such as torch",
)
WRITE_TABLE = Option(
    ("--write-table",), metavar="README", help="write the result table into this file"
)
CHECKS_JSON = Option(("--json",), metavar="PATH", help="also write the checks as JSON")

# -- diff, report, releases ------------------------------------------------------------------

RUNS = Option(("runs",), nargs="*", metavar="RUN", help="RUN_A RUN_B (default: the last two)")
RECORD_HISTORY = HISTORY.helped("also record the run in this SQLite history and diff it")
WRITE_RELEASES = Option(
    ("--write",), metavar="PATH", help="also write the findings as JSON (e.g. into a run)"
)

# -- the nightly path: plan, merge, issue-text -----------------------------------------------

SHARDS = Option(
    ("--shards",),
    type=int,
    help="jobs per combo (default: [nightly].shards with --nightly, else 1)",
)
WRITE_DURATIONS = Option(
    ("--write-durations",),
    metavar="FILE",
    help="write each problem's measured seconds per combo from --history to FILE, for the "
    "jobs' --shard-durations; the plan's shards are balanced by them",
)
MAX_JOBS = Option(
    ("--max-jobs",),
    type=int,
    default=GITHUB_JOB_LIMIT,
    help="group runs into at most this many jobs (default: %(default)s)",
)
GITHUB = Option(("--github",), action="store_true", help="compact JSON for fromJSON()")
SOURCES = Option(("sources",), nargs="+", help="run directories (downloaded artifacts)")
INTO = Option(("--into",), required=True, help="results/<run-id> to write")
RELEASES = Option(("--releases",), help="releases.json from harness releases")
AUDIT_JSON = Option(
    ("--audit",), metavar="AUDIT_JSON", help="audit.json of tonight's harness audit: its news too"
)
AUDIT_BEFORE = Option(
    ("--audit-before",),
    metavar="AUDIT_JSON",
    help="an earlier night's audit.json: only problems flagged since (ignored if absent)",
)

# -- guard allowlist -------------------------------------------------------------------------

RECORDED_RUNS = Option(("runs",), nargs="+", metavar="RUN_DIR", help="results/<run-id>")
ALLOWLIST = Option(
    ("--output",), default=str(SHIPPED), help="allowlist file (default: %(default)s)"
)
REPLACE = Option(
    ("--replace",), action="store_true", help="start over instead of adding to the file"
)


def guard_subcommands(parser: argparse.ArgumentParser) -> None:
    """``harness guard``'s own subcommands, and their options."""
    sub = parser.add_subparsers(dest="guard_command", required=True)
    allowlist = sub.add_parser(
        "allowlist", help="fold runs made with --guard-record into the allowlist (review the diff)"
    )
    add(allowlist, RECORDED_RUNS, ALLOWLIST, REPLACE)


# -- repair ----------------------------------------------------------------------------------

NO_VERIFY = Option(
    ("--no-verify",),
    action="store_true",
    help="propose and write the repairs without running them through the matrix",
)
IN_PLACE = Option(
    ("--in-place",),
    action="store_true",
    help="also rewrite our TOML problems' code in place with the codemods proposed",
)
REACH_NEAR = NEAR.helped(
    "try only the releases next to the one asked for, for this library (repeatable): for "
    "libraries whose every release costs gigabytes, such as torch"
)


VERSION = Option(
    ("--version",),
    action="version",
    version=f"harness {__version__} (ds-matrix-harness; Python {sys.version.split()[0]})",
)

# -- init ------------------------------------------------------------------------------------

INIT_DIRECTORY = Option(
    ("directory",), nargs="?", default=".", help="the project's folder (default: this one)"
)
INIT_GITHUB = Option(
    ("--github",),
    action="store_true",
    help="also write .github/workflows/harness.yml, a nightly that calls our reusable workflow",
)


# -- the subcommands ------------------------------------------------------------------------

Runner = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Command:
    """One subcommand: its help line, options in ``--help`` order (or subcommands) and runner."""

    help: str
    options: tuple[Option, ...]
    run: Runner
    declare: Callable[[argparse.ArgumentParser], None] | None = None


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    help: str,  # noqa: A002 - argparse's word for it
    *options: Option,
    declare: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Callable[[Runner], Runner]:
    """Declare the subcommand ``name``, run by the function this decorates."""

    def register(run: Runner) -> Runner:
        COMMANDS[name] = Command(help, options, run, declare)
        return run

    return register
