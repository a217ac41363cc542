"""Our own problems: one TOML file each (``problems/<library>/<name>.toml``).

A file gives ``library``, ``prompt``, ``reference`` and either a full ``context`` (which
defines ``test_execution(solution)``) or the compact ``setup`` + ``check`` pair, turned
into one here; optionally ``timeout``, ``idioms`` (named old solutions), ``change`` (the
API change the problem is built around) and ``tags``. Unlike the JSONL formats, a file
is one problem, and its id is its path below the problem set's root.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING, Any

from packaging.utils import canonicalize_name

from harness.benchmarks.base import Layout, set_name_of, timeout
from harness.core.errors import ProblemError
from harness.core.libraries import LIBRARIES, canonical, lookup
from harness.core.problem import Change, Problem, imported_modules
from harness.core.tomlfile import TomlFile

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

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
# every name of the seven libraries, and what a distribution's name may be (PEP 508)
_NAMES = [name for lib in LIBRARIES for name in (lib.key, lib.module, lib.package, *lib.aliases)]
_PROJECT = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
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
    """The problem in ``path``; its id is its path below ``root``, without ``.toml``."""
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
    library = _library(data["library"], fail)
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
        library=library,
        prompt=data["prompt"],
        reference_code=data["reference"],
        code_context=context,
        timeout=timeout(data.get("timeout"), display, "timeout"),
        idioms=dict(idioms),
        change=_change(data.get("change"), fail),
        metadata={"tags": data.get("tags", [])},
        source_file=display,
        requires=imported_modules(
            *(data.get(k, "") for k in ("context", "setup", "check")), data["reference"]
        ),
    )


def _library(name: str, fail: Callable[[str, str], ProblemError]) -> str:
    """The problem's library: one of the seven by its key, or any other distribution by
    its normalized name (as GitChameleon's problems name theirs), but for a near miss of
    one of the seven's names, which is a typo."""
    lib = lookup(name)
    if lib is not None:
        return lib.key
    close = difflib.get_close_matches(name.strip().lower(), _NAMES, n=1, cutoff=0.8)
    if close or not _PROJECT.fullmatch(name.strip()):
        hint = f" (did you mean {canonical(close[0])!r}?)" if close else ""
        raise fail("library", f"unknown library {name!r}{hint}")
    return canonicalize_name(name.strip())


def _change(value: Any, fail: Callable[[str, str], ProblemError]) -> Change | None:
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


def load_folder(root: Path) -> list[Problem]:
    """The problems in ``root/**/*.toml`` (but ``catalogue.toml``)."""
    problems = []
    for path in sorted(p for p in root.rglob("*.toml") if p.name not in CONFIG_FILES):
        base = set_root(path.resolve(), root.resolve())
        problems.append(load_toml_problem(path, base, set_name_of(base)))
    return problems


def load_file(path: Path) -> list[Problem]:
    base = set_root(path.resolve(), path.parent.resolve())
    return [load_toml_problem(path, base, set_name_of(base))]


LAYOUT = Layout(folder=load_folder, suffixes=(".toml",), file=load_file)
