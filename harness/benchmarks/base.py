r"""What a benchmark declares, and the pieces it is built of.

A benchmark is one folder of ``harness/benchmarks/`` (or a package of its own, found by
its entry point: :mod:`harness.benchmarks.registry`) whose ``BENCHMARK`` is a
:class:`Benchmark`: the rest of the house reads that declaration and never imports the
folder's modules. It says how the benchmark's problems load (JSONL :class:`Format`\ s,
or files and folders laid out its own way: :class:`Layout`), where it is published
(:class:`NamedSet`), how its answers files are written (:class:`Shape`), where its grader
writes its own verdicts (:class:`VerdictFile`), and what it needs at run time. Here too:
the row being loaded with its typed field checks (:class:`Row`), the contexts' preamble,
libraries and timeouts that several formats share.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.core.errors import ProblemError
from harness.core.jsonl import line_error
from harness.core.libraries import canonical, lookup
from harness.envside.protocol import FORMAT_HELPERS

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from pathlib import Path

    from harness.core.problem import Problem

# The env side runs every context with its own package loaded under this name.
ENVSIDE_PACKAGE = "_harness_envside"
PREAMBLE = f"from {ENVSIDE_PACKAGE}.checks.formatlib import *  # the formats' env-side helpers"


def context(*sections: str, checks: str = "") -> str:
    """A context: the env-side helpers, and the benchmark's own checks where it has them
    (``checks``: its name; its folder's ``envside/check.py``), then the format's own
    code."""
    preamble = PREAMBLE
    if checks:
        module = f"{ENVSIDE_PACKAGE}.benchmarks.{checks}.check"
        preamble += f"\nfrom {module} import *  # the benchmark's env-side checks"
    return "\n\n".join([preamble, *sections])


def check(template: str, **values: Any) -> str:
    """A format's check program: ``template`` filled in with ``values`` and with the names
    of the env side's helpers it calls (``{unittest}``, ``{run_cell}``, …), as
    ``protocol.FORMAT_HELPERS`` declares them."""
    return template.format(**FORMAT_HELPERS, **values)


class Row:
    """One JSONL row being loaded: typed access that fails with the file, line and key."""

    def __init__(self, data: dict[str, Any], shown: str, number: int) -> None:
        self.data, self.shown, self.number = data, shown, number

    def fail(self, key: str, message: str) -> ProblemError:
        """A mistake in field ``key``: ``file:N: key: message``."""
        return line_error(self.shown, self.number, message, key)

    def fail_line(self, message: str) -> ProblemError:
        """A mistake in the row as a whole: ``file:N: line N: message``."""
        return line_error(self.shown, self.number, message)

    def text(self, key: str, default: str | None = None, *, empty: bool = False) -> str:
        value = self.data.get(key, default)
        if value is None:
            raise self.fail(key, "missing")
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(key, "must be a non-empty string")
        return value

    def number_or(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise self.fail(key, "must be a non-negative number")
        return float(value)

    def texts(self, key: str) -> list[str]:
        value = self.data.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings")
        return value


@dataclass(frozen=True)
class Format:
    """A JSONL format: which rows are its own, and how one row becomes problems."""

    name: str
    matches: Callable[[dict[str, Any]], bool]  # told by the keys of a file's first row
    load_row: Callable[[Row, str], list[Problem]]  # (row, set name) → its problems
    # For a format whose rows need files beside them (GitChameleon's hidden tests): the
    # whole file, (path, shown) → its problems, read in place of ``load_row``.
    load_file: Callable[[Path, str], list[Problem]] | None = None
    # Formats are asked in this order (lower first); a row no format claims is read by
    # the fallback's (DS-1000's), which then names the keys it lacks.
    rank: int = 50
    fallback: bool = False


def set_name_of(path: Path) -> str:
    """The set a file's or folder's problems belong to: its name without its suffixes."""
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name) or "problems"


def main_library(names: list[str], fallback: str = "python") -> str:
    """The first data-science library among ``names``, by its canonical key."""
    for name in names:
        if lookup(name) is not None:
            return canonical(name)
    return fallback


def library_list(value: Any) -> list[str]:
    """BigCodeBench stores ``libs`` as a list, or as that list's Python repr."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            value = [value]
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return []


def timeout(value: Any, shown: str, where: str) -> float | None:
    """A problem's own time limit: absent, or a positive number of seconds."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ProblemError(shown, where, "timeout must be a positive number of seconds")
    return float(value)


@dataclass(frozen=True)
class NamedSet:
    """A published benchmark that ``--problems NAME`` stands for."""

    name: str
    url: str  # where its maintainers publish it
    sha256: str | None  # of the published bytes; None: not known yet (kept unverified)
    format: str  # the format its rows are in (a :class:`Format`), or the shape it ships in
    licence: str
    homepage: str
    refused: str = ""  # why the published file cannot be read here: the set is listed only


class ShapeError(ValueError):
    """A line that does not have what its file's shape needs (the message says what)."""


@dataclass(frozen=True)
class Read:
    """The code one line gives, and how it was taken out."""

    code: str
    how: str  # "as is", "from a ```python block", "sanitised", …


@dataclass(frozen=True)
class Shape:
    """How one upstream writes a model's answers: which field holds the code, in its
    order, and how the code is taken out of it.

    A line's shape is told by its keys: first the shape that ``claims`` it (in ``rank``
    order), then the one it ``fits`` (a line that kept its problem's row may hold
    another benchmark's fields too); a line neither claims nor fits is read by the
    fallback's shape (DS-1000's ``code``), which names the field it lacks."""

    name: str  # "GitChameleon generations"
    fields: tuple[str, ...]  # where the code may be, in upstream's order
    read: Callable[[str, Any, Problem, str], Read]  # (field, value, problem, file name)
    claims: Callable[[Mapping[str, Any]], bool]  # a line surely of this shape
    fits: Callable[[Mapping[str, Any]], bool] = lambda _row: False  # else, could be
    # what a file is called when its code is in another field than the first
    called: tuple[tuple[str, str], ...] = ()
    rank: int = 50
    fallback: bool = False

    def code(self, row: Mapping[str, Any], problem: Problem, file_name: str) -> Read:
        for field_name in self.fields:
            if field_name in row and row[field_name] is not None:
                return self.read(field_name, row[field_name], problem, file_name)
        raise ShapeError(f"no {' or '.join(self.fields)} (a line of {self.name}, by its keys)")

    def describe(self, row: Mapping[str, Any]) -> str:
        """``GitChameleon generations (example_id + answer)``: the shape and the fields a
        line of it uses."""
        key = next(
            (k for k in ("problem_id", "task_id", "example_id") if k in row),
            "metadata.problem_id",
        )
        field_name = next((f for f in self.fields if f in row), self.fields[0])
        return f"{dict(self.called).get(field_name, self.name)} ({key} + {field_name})"


def text_of(value: Any, field_name: str) -> str:
    """A field that must hold a string."""
    if not isinstance(value, str):
        raise ShapeError(f"{field_name} must be a string")
    return value


@dataclass(frozen=True)
class Verdict:
    """Upstream's verdict on one answer."""

    problem: str  # the id upstream names it by (``BigCodeBench/12``, ``12``)
    passed: bool
    status: str  # upstream's word: pass, fail, timeout, error…
    reason: str  # the last line of what its grader printed, or its failing tests


@dataclass(frozen=True)
class VerdictFile:
    """Where a benchmark's own grader writes its verdicts on an answers file ``S.jsonl``
    (``S`` + ``suffix``), and how that file reads: (path, shown) → verdict by the id
    upstream uses."""

    suffix: str  # "_eval_results.json"
    read: Callable[[Path, str], Mapping[str, Verdict]]


@dataclass(frozen=True)
class Layout:
    """Problems a benchmark publishes in files and folders of its own, not JSONL rows:
    what the problem sets ask of it when they meet a folder, an archive or a file."""

    # the problems laid out its way in a folder given to a run (beside any other files)
    folder: Callable[[Path], list[Problem]] = lambda _folder: []
    # the problems in an unpacked archive, or None when the archive is not its own
    archive: Callable[[Path], list[Problem] | None] | None = None
    holds: str = ""  # what such an archive holds, for the error that finds none
    # one file of its own kind (by suffix), read alone
    suffixes: tuple[str, ...] = ()
    file: Callable[[Path], list[Problem]] | None = None
    # a JSONL file in a folder that is read with another (not a problem file itself)
    companion: Callable[[Path], bool] = lambda _path: False


@dataclass(frozen=True)
class Fix:
    """One reviewed edit by hand of one field of one task (a benchmark's ``fixes.toml``)."""

    task: str  # upstream's task id: BigCodeBench/50
    field: str
    old: str
    new: str
    why: str
    broke_in: str  # the release that broke the task: "pandas 3.0.0"
    notes: str  # the release notes that say so
    file: str = ""  # where the fix is written (for errors)
    line: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in ("file", "line")}


class FixError(ProblemError):
    """A fix that cannot be applied: the file, the task and the field, one line."""


@dataclass(frozen=True)
class Repairs:
    """What the repair lab asks of a benchmark whose context is built from its tests and
    its prompt (BigCodeBench): the tests are rewritten apart from the solution and the
    context built again; reviewed hand fixes go first; a repaired release is written by
    ``release`` ("module:attribute" of a :class:`ReleaseWriter`, loaded by the lab: it
    runs the lab's codemods, so the declaration names it rather than imports it)."""

    tests_of: Callable[[str], str | None]  # a context → its tests (None: not such a context)
    split: Callable[[str, str], tuple[str, str] | None]  # (prompt, reference) → both halves
    context_of: Callable[[str, str, str], str]  # (tests, prompt, entry point) → a context
    fixes: Callable[[], Sequence[Fix]] = lambda: ()  # reviewed hand fixes
    unfixed: Callable[[], Mapping[str, str]] = dict  # reviewed, left alone: why
    apply_fixes: Callable[[Problem, Sequence[Fix]], Problem] = lambda problem, _fixes: problem


@dataclass(frozen=True)
class RepairedFile:
    """What the repair lab hands a release writer for one JSONL file, by native id."""

    location: str  # the file as given (for errors)
    code: Mapping[str, tuple[str, str]]  # repaired (reference, context)
    validity: Mapping[str, Mapping[str, object]]  # each row's validity record
    proposals: Mapping[str, Any]  # the repair lab's proposals, to follow in every field
    problems: Mapping[str, Problem]  # the problems as loaded


@dataclass(frozen=True)
class ReleaseWriter:
    """How a benchmark's JSONL file is written back with its repaired rows."""

    matches: Callable[[dict[str, Any]], bool]  # a row of this benchmark's file
    # (row, line number, the file's repairs, fields changed per task) → the new fields
    fields: Callable[
        [Mapping[str, Any], int, RepairedFile, dict[str, list[str]]], dict[str, object]
    ]
    changelog: Callable[..., str] | None = None  # ``<set>.changelog.md`` beside it


DERIVED = "derived, not published"  # how expected outputs that were derived are labelled


@dataclass(frozen=True)
class DerivedOutputs:
    """Expected outputs a benchmark does not publish (CIBench's Markdown), derived by
    running each session's references once in the matrix's baseline, through the env
    side's ``capture`` command (``execute/expected``)."""

    needs: Callable[[Problem], bool]  # still lacks them (and is not already skipped)
    # what ``capture`` runs for it ({"spec": steps, "data": files}), and what, besides
    # the env, its outputs depend on (the cache key's content)
    session: Callable[[Problem], Mapping[str, Any]]
    content: Callable[[Problem], Mapping[str, Any]]
    filled: Callable[[Problem, list[dict[str, Any]], str], Problem]  # (outputs, how)
    unavailable: Callable[[Problem, str], Problem]  # skipped wherever it runs, and why


@dataclass(frozen=True)
class Audit:
    """What ``harness audit`` asks of a benchmark: a problem's null answers (name → code:
    answers shaped as its answers are that do none of the work, which its tests must
    fail) and the code its mutants are made from (the reference, shaped as an answer).
    Builders for the usual shapes are in :mod:`harness.benchmarks.nulls`."""

    nulls: Callable[[Problem], Mapping[str, str]]
    mutable: Callable[[Problem], str] = lambda problem: problem.reference_code
    # the variables of the answer's whose values the check reads (DS-1000's ``result``):
    # the audit compares the digests of these (and of what crossed unnamed: figures,
    # values fetched, what calls returned) to tell a likely equivalent mutant; None: all
    reads: Callable[[Problem], Sequence[str] | None] = lambda _problem: None


@dataclass(frozen=True)
class Benchmark:
    """One benchmark as the rest of the house sees it. Only ``name`` and ``title`` are
    required: a benchmark declares what it provides, and each stage asks for its part."""

    name: str  # "bigcodebench": what problems' ``format`` metadata and ``--problems`` say
    title: str  # "BigCodeBench"
    formats: tuple[Format, ...] = ()  # its JSONL rows
    layout: Layout | None = None  # its own files and folders
    named: tuple[NamedSet, ...] = ()  # where it is published (``--problems NAME``)
    shapes: tuple[Shape, ...] = ()  # how its upstream writes model answers
    verdicts: VerdictFile | None = None  # where its upstream writes its own verdicts
    # its tests call what the answer defined (graded across the boundary by calls)
    calls_answer: bool = False
    # what its executions need in their environment (data staged in the cache)
    environment: Callable[[], Mapping[str, str]] = field(default=dict)
    # expected outputs it does not publish, derived in the baseline
    derives: DerivedOutputs | None = None
    # what the repair lab asks of it (tests apart, hand fixes), and its release writer
    repairs: Repairs | None = None
    release: str = ""  # "module:attribute" of its ReleaseWriter (see Repairs)
    # its null answers and what its mutants mutate (harness audit); None: not audited
    audit: Audit | None = None
    # its problems' ids for answers that name them otherwise (CIBench's oracle twin)
    aliases: Callable[[Problem], str | None] = lambda _problem: None
