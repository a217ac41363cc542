"""Problems and the solutions to run against them.

Two problem formats share one executor, because both end in a DS-1000 style
``code_context`` that defines ``test_execution(solution)``:

* DS-1000 (``.jsonl`` / ``.jsonl.gz``): one problem per line;
* our own (``problems/**/*.toml``): one problem per file, either with a full
  ``context`` or with the compact ``setup`` + ``check`` pair we turn into one.

Sources of solutions are ``reference`` (the problem's own), ``model:<name>`` (an
answers file) and, for our problems, named idioms such as ``idiom:old``.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.errors import ProblemError
from harness.libraries import canonical, lookup
from harness.tomlfile import TomlFile

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

REFERENCE = "reference"
MODEL_PREFIX = "model:"
IDIOM_PREFIX = "idiom:"

_IMPORT = re.compile(
    r"^\s*(?:from\s+([A-Za-z_][\w]*)[\w.]*\s+import|import\s+([^#\n]+))", re.MULTILINE
)


@dataclass(frozen=True)
class Change:
    """The API change a problem of ours is built around."""

    kind: str  # removal | rename | signature | default | behaviour
    old_api: str
    new_api: str
    deprecated: str | None  # release that first warned
    changed: str | None  # release where the old idiom stops working (removed or changed)
    notes: str  # release-notes reference


@dataclass(frozen=True, eq=False)
class Problem:
    id: str  # unique across sets: "ds1000/12", "problems/pandas/elementwise-map"
    native_id: str  # the id within its set: "12", "pandas/elementwise-map"
    set_name: str
    library: str  # canonical library key
    prompt: str
    reference_code: str
    code_context: str
    timeout: float | None = None
    idioms: Mapping[str, str] = field(default_factory=dict)  # extra named solutions
    change: Change | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source_file: str = ""
    # Top-level modules the problem's own code imports (its test and its reference):
    # where one is missing from a combo, the problem does not apply there.
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Solution:
    problem_id: str
    source: str  # "reference", "model:<name>" or "idiom:<name>"
    code: str


def imported_modules(*codes: str) -> tuple[str, ...]:
    """Top-level module names in ``import`` statements, also those inside code strings."""
    found: dict[str, None] = {}
    for code in codes:
        for match in _IMPORT.finditer(code):
            if match.group(1):
                found[match.group(1)] = None
            else:
                for part in match.group(2).split(","):
                    name = part.strip().split(" ")[0].split(".")[0]
                    if re.fullmatch(r"[A-Za-z_]\w*", name):
                        found[name] = None
    return tuple(found)


# -- DS-1000 ------------------------------------------------------------------------


def _open_text(path: Path) -> Iterable[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        yield from fh


def _set_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name) or "problems"


def load_ds1000(path: Path, display: str | None = None) -> list[Problem]:
    """Problems from a JSONL file: DS-1000's rows, or another format's (``harness.formats``),
    told apart by the keys of the first row."""
    shown = display or str(path)
    set_name = _set_name(path)
    problems: list[Problem] = []
    seen: set[str] = set()
    try:
        lines = list(_open_text(path))
    except FileNotFoundError:
        raise ProblemError(shown, None, "file not found") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ProblemError(shown, None, f"cannot read: {exc}") from None
    fmt = ""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        row = _json_object(line, shown, number)
        if not fmt:
            from harness import formats  # noqa: PLC0415 - the formats build on this module

            fmt = formats.detect(row)
        if fmt != "ds1000":
            for problem in formats.FORMATS[fmt][1](row, shown, number, set_name):
                if problem.native_id in seen:
                    raise ProblemError(
                        shown,
                        f"line {number}",
                        f"duplicate problem_id {problem.native_id}",
                        line=number,
                    )
                seen.add(problem.native_id)
                problems.append(problem)
            continue
        for key in ("reference_code", "code_context", "metadata"):
            if key not in row:
                raise ProblemError(shown, f"line {number}", f"missing key {key!r}", line=number)
        meta = row["metadata"]
        if not isinstance(meta, dict) or "problem_id" not in meta:
            raise ProblemError(
                shown, f"line {number}", "metadata.problem_id is missing", line=number
            )
        for key in ("reference_code", "code_context"):
            if not isinstance(row[key], str):
                raise ProblemError(shown, f"line {number}", f"{key} must be a string", line=number)
        if "def test_execution(" not in row["code_context"]:
            raise ProblemError(
                shown,
                f"line {number}",
                "code_context does not define test_execution()",
                line=number,
            )
        native = str(meta["problem_id"])
        if native in seen:
            raise ProblemError(
                shown, f"line {number}", f"duplicate problem_id {native}", line=number
            )
        seen.add(native)
        library = canonical(str(meta.get("library", "")))
        problems.append(
            Problem(
                id=f"{set_name}/{native}",
                native_id=native,
                set_name=set_name,
                library=library,
                prompt=str(row.get("prompt", "")),
                reference_code=row["reference_code"],
                code_context=row["code_context"],
                timeout=_timeout(meta.get("timeout"), shown, f"line {number}"),
                metadata=meta,
                source_file=shown,
                requires=imported_modules(row["code_context"], row["reference_code"]),
            )
        )
    return problems


def _json_object(line: str, shown: str, number: int) -> dict[str, Any]:
    try:
        row = json.loads(line)
    except ValueError as exc:
        raise ProblemError(shown, f"line {number}", f"invalid JSON: {exc}", line=number) from None
    if not isinstance(row, dict):
        raise ProblemError(shown, f"line {number}", "expected a JSON object", line=number)
    return row


def _timeout(value: Any, shown: str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ProblemError(shown, where, "timeout must be a positive number of seconds")
    return float(value)


# -- our own TOML problems ----------------------------------------------------------

_PROBLEM_KEYS = {
    "library",
    "prompt",
    "reference",
    "context",
    "setup",
    "check",
    "timeout",
    "idioms",
    "change",
    "tags",
}
_CHANGE_KEYS = {"kind", "old_api", "new_api", "deprecated", "changed", "notes"}
_CHANGE_KINDS = {"removal", "rename", "signature", "default", "behaviour"}

# The compact form's test: run setup, then the solution, then the check in a namespace
# that holds only ``result``: the check sees the outcome, not how it was reached.
_COMPACT_CONTEXT = """\
_SETUP = {setup!r}
_CHECK = {check!r}


def test_execution(solution: str):
    namespace = {{}}
    exec(compile(_SETUP, "<setup>", "exec"), namespace)
    exec(solution, namespace)
    if "result" not in namespace:
        raise NameError("the solution did not assign `result`")
    exec(compile(_CHECK, "<check>", "exec"), {{"result": namespace["result"]}})
"""


def compact_context(setup: str, check: str) -> str:
    return _COMPACT_CONTEXT.format(setup=setup, check=check)


def load_toml_problem(path: Path, root: Path, set_name: str) -> Problem:
    display = str(path)
    doc = TomlFile.load(path, ProblemError, display)
    data = doc.data

    def fail(key: str, message: str) -> ProblemError:
        return ProblemError(display, key, message, line=doc.line_of(*key.split(".")))

    for key in data:
        if key not in _PROBLEM_KEYS:
            raise fail(key, f"unknown key {key!r}")
    for key in ("library", "prompt", "reference"):
        if key not in data:
            raise ProblemError(display, key, "missing")
        if not isinstance(data[key], str) or not data[key].strip():
            raise fail(key, "must be a non-empty string")
    lib = lookup(data["library"])
    if lib is None:
        raise fail("library", f"unknown library {data['library']!r}")
    if "context" in data:
        if "setup" in data or "check" in data:
            raise fail("context", "give either context or setup + check, not both")
        context = data["context"]
        if not isinstance(context, str) or "def test_execution(" not in context:
            raise fail("context", "must define test_execution(solution)")
    else:
        for key in ("setup", "check"):
            if not isinstance(data.get(key), str):
                raise ProblemError(display, key, "missing (or give a full context)")
        context = compact_context(data["setup"], data["check"])
    idioms = data.get("idioms", {})
    if not isinstance(idioms, dict) or not all(isinstance(v, str) for v in idioms.values()):
        raise fail("idioms", "must be a table of name = code strings")
    native = path.resolve().relative_to(root.resolve()).with_suffix("").as_posix()
    return Problem(
        id=f"{set_name}/{native}",
        native_id=native,
        set_name=set_name,
        library=lib.key,
        prompt=data["prompt"],
        reference_code=data["reference"],
        code_context=context,
        timeout=_timeout(data.get("timeout"), display, "timeout"),
        idioms=dict(idioms),
        change=_change(data.get("change"), fail),
        metadata={"tags": data.get("tags", [])},
        source_file=display,
        requires=imported_modules(
            *(data.get(k, "") for k in ("context", "setup", "check")), data["reference"]
        ),
    )


def _change(value: Any, fail: Any) -> Change | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise fail("change", "must be a table")
    for key in value:
        if key not in _CHANGE_KEYS:
            raise fail(f"change.{key}", f"unknown key {key!r}")
    for key in ("kind", "old_api", "new_api", "notes"):
        if not isinstance(value.get(key), str) or not value[key].strip():
            raise fail(f"change.{key}", "missing or not a string")
    if value["kind"] not in _CHANGE_KINDS:
        raise fail("change.kind", f"must be one of {', '.join(sorted(_CHANGE_KINDS))}")
    if not value.get("deprecated") and not value.get("changed"):
        raise fail("change", "give the release it was deprecated in, changed in, or both")
    return Change(
        kind=value["kind"],
        old_api=value["old_api"],
        new_api=value["new_api"],
        deprecated=value.get("deprecated") or None,
        changed=value.get("changed") or None,
        notes=value["notes"],
    )


CONFIG_FILES = frozenset({"catalogue.toml"})  # TOML files in a problem set that are not problems


def set_root(path: Path, given: Path) -> Path:
    """The directory a problem's id is relative to: the one holding the library
    directories, so ``problems/pandas/x.toml`` is ``problems/pandas/x`` whether the
    run was given ``problems/`` or ``problems/pandas/``."""
    folder = path.parent
    while folder != folder.parent:
        library = lookup(folder.name)
        if library is not None and library.key == folder.name:
            return folder.parent
        if folder == given.parent:
            break
        folder = folder.parent
    return given


def load_directory(root: Path) -> list[Problem]:
    """Problems in ``root/**/*.toml`` (but ``catalogue.toml``), and DS-1000 files below ``root``."""
    problems = []
    for path in sorted(p for p in root.rglob("*.toml") if p.name not in CONFIG_FILES):
        base = set_root(path.resolve(), root.resolve())
        problems.append(load_toml_problem(path, base, _set_name(base)))
    for path in sorted([*root.rglob("*.jsonl"), *root.rglob("*.jsonl.gz")]):
        problems.extend(load_ds1000(path))
    return problems


def load_problems(paths: Sequence[Path]) -> list[Problem]:
    """Problems from files and directories, in the order given; ids must be unique."""
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for path in paths:
        if path.is_dir():
            batch = load_directory(path)
        elif path.suffix == ".toml":
            base = set_root(path.resolve(), path.parent.resolve())
            batch = [load_toml_problem(path, base, _set_name(base))]
        else:
            batch = load_ds1000(path)
        for problem in batch:
            if problem.id in seen:
                raise ProblemError(
                    problem.source_file,
                    problem.id,
                    f"duplicate problem id (also in {seen[problem.id]})",
                )
            seen[problem.id] = problem.source_file
            problems.append(problem)
    return problems


def shard(problems: Sequence[Problem], index: int, count: int) -> list[Problem]:
    """Shard ``index`` (1-based) of ``count``: every count-th problem, so that each shard
    gets a like mix of libraries; the same on every machine, for the same problems."""
    return [p for position, p in enumerate(problems) if position % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` → ``(2, 4)``; ``ValueError`` with the reason otherwise."""
    index_text, sep, count_text = text.partition("/")
    if not sep or not index_text.isdigit() or not count_text.isdigit():
        raise ValueError(f"{text!r} is not I/N, e.g. 2/4")
    index, count = int(index_text), int(count_text)
    if not 1 <= index <= count:
        raise ValueError(f"{text!r}: I must be between 1 and N")
    return index, count


def filter_problems(
    problems: Sequence[Problem],
    libraries: Sequence[str] = (),
    ids: Sequence[str] = (),
    limit: int | None = None,
) -> list[Problem]:
    """Problems of the given libraries and ids (full or native), at most ``limit`` of them."""
    wanted_libs = {canonical(lib) for lib in libraries}
    chosen = [p for p in problems if not wanted_libs or p.library in wanted_libs]
    if ids:
        wanted = set(ids)
        chosen = [p for p in chosen if p.id in wanted or p.native_id in wanted]
    return chosen[:limit] if limit is not None else chosen
