"""The guard's allowlist, measured on honest values and written for review.

The checker admits a value a solution sends back only through the globals, calls,
state and audit events listed in ``harness/envside/allowlist.txt``. That list is not
guessed: a run with ``--guard-record`` sends every solution (references too) through the
guard, whose transport admits everything and records, per execution, what it used.
This module folds such runs into the file, with the library releases each line was seen
in, keeping every line already there (a line is never dropped by a measurement; a
maintainer removes it by hand):

    harness run --guard-record --idioms --problems ds1000 --problems problems \\
        --answers ... --run-id allowlist
    harness guard allowlist results/allowlist
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.core.errors import UsageError
from harness.core.libraries import lookup
from harness.envside.allowlist import ALLOWLIST_PATH, read_lines
from harness.execute.rundir import RunDir

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

SHIPPED = Path(ALLOWLIST_PATH)
PERMISSIONS = ("call", "build", "raise")  # those a line names; every line may be named as a value

HEADER = """\
# The guard's allowlist: what a value a model's solution sends back to its check may
# name, and what its pickle may do with each name. Everything else is refused
# (harness/envside/bridge/admission.py; RELIABILITY.md, "The guard").
#
# Measured, not guessed: `harness guard allowlist RUN_DIR` folds runs made with
# `harness run --guard-record` into this file. Review every change to it.
#
#   module:qualname  call          the pickle may call it (a class or a reconstructor)
#                    build         its instances may receive state (BUILD) and items
#                    shadow=a,b    its instances may hold callables named a, b that hide
#                                  methods of the class
#                    raise         an exception the answer raises comes back to the check
#                                  as this very class (crossing_errors.py), never a test
#                                  framework's
#   (every line may also be named as a value)
#   event NAME                     an audit event admitting a value may raise
#
# After '#': the releases the line was seen in.
"""


@dataclass
class Line:
    """One global (or event) of the allowlist, with where it was seen."""

    permissions: set[str] = field(default_factory=set)
    shadows: set[str] = field(default_factory=set)
    seen: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def add_seen(self, library: str, version: str) -> None:
        if version:
            self.seen[library].add(version)


@dataclass
class Measured:
    globals: dict[str, Line] = field(default_factory=dict)  # "module:qualname" → line
    events: dict[str, Line] = field(default_factory=dict)
    refusable: set[str] = field(default_factory=set)  # what no allowlist line could admit
    executions: int = 0  # executions whose values were recorded

    def lines(self, path: str) -> list[str]:
        """What ``harness guard allowlist`` prints of the file it wrote at ``path``."""
        head = (
            f"{path}: {len(self.globals)} globals, {len(self.events)} events "
            f"(from {self.executions} recorded executions)"
        )
        never = (f"  never admitted, whatever the list says: {i}" for i in sorted(self.refusable))
        return [head, *never]


def parse(text: str, source: str = "allowlist") -> Measured:
    """An allowlist file as the guard reads it (``harness/envside/allowlist.py``, the one
    parser of the format), with the releases each line was seen in (its comment). A line
    the guard would not read is a UsageError naming ``source`` and the line."""
    found = Measured()
    try:
        entries = list(read_lines(text, source))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    for entry in entries:
        if entry.event:
            line = found.events.setdefault(entry.name, Line())
        else:
            line = found.globals.setdefault(entry.name, Line())
            line.permissions.update(p for p in entry.permissions if p in PERMISSIONS)
            line.shadows.update(entry.shadows)
        for library, versions in _parse_seen(entry.comment).items():
            line.seen[library].update(versions)
    return found


def _parse_seen(text: str) -> dict[str, set[str]]:
    """``numpy 1.26.4, 2.5.5; python 3.10.13`` → {numpy: {...}, python: {...}}."""
    seen: dict[str, set[str]] = {}
    for part in text.split(";"):
        words = part.replace(",", " ").split()
        if len(words) >= 2:
            seen.setdefault(words[0], set()).update(words[1:])
    return seen


def _library(module: str) -> str:
    top = module.split(".", 1)[0]
    lib = lookup(top)
    if lib is not None:
        return lib.key
    return "python" if top in _stdlib() else top


def _stdlib() -> frozenset[str]:
    return frozenset(sys.stdlib_module_names) | {"builtins", "_codecs", "copyreg"}


def measure(run_dirs: Sequence[Path], into: Measured | None = None) -> Measured:
    """Fold what the recorded executions of ``run_dirs`` used into ``into``."""
    found = into or Measured()
    recorded = 0
    for path in run_dirs:
        run = RunDir(path)
        if not run.manifest.is_file():
            raise UsageError(f"{path}: not a run directory (no run.json)")
        for combo in run.combos():
            versions = _env_versions(path, combo)
            for outcome in run.read(combo):
                if outcome.transport:
                    recorded += 1
                    fold(
                        outcome.transport,
                        outcome.python or versions.get("python", ""),
                        versions,
                        found,
                    )
    found.executions += recorded
    if not recorded:
        raise UsageError(
            "no recorded values in "
            + ", ".join(str(p) for p in run_dirs)
            + " (were they run with --guard-record?)"
        )
    return found


def fold(
    usage: Mapping[str, Any], python: str, versions: Mapping[str, str], found: Measured
) -> None:
    """Fold one execution's recorded usage (``Outcome.transport``) into ``found``."""
    refusable = [str(r) for r in usage.get("refusable", [])]
    if refusable:
        # its values needed what is never admitted: listing the rest of what they used
        # would admit nothing, and only mislead a reader
        found.refusable.update(refusable)
        return
    for item in usage.get("globals", []):
        name, *permissions = str(item).split()
        line = found.globals.setdefault(name, Line())
        line.permissions.update(p for p in permissions if p in PERMISSIONS)
        library = _library(name.split(":", 1)[0])
        line.add_seen(library, python if library == "python" else versions.get(library, ""))
    for item in usage.get("shadows", []):
        name, _, names = str(item).partition(" ")
        line = found.globals.setdefault(name, Line())
        line.shadows.update(n for n in names.split(",") if n)
    for event in usage.get("events", []):
        found.events.setdefault(str(event), Line()).add_seen("python", python)


def beyond(measured: Measured, shipped: Measured) -> Measured:
    """What ``measured`` admits that ``shipped`` does not: new globals, permissions,
    shadows and events."""
    extra = Measured(executions=measured.executions, refusable=set(measured.refusable))
    for name, line in measured.globals.items():
        known = shipped.globals.get(name)
        if known is None:
            extra.globals[name] = line
            continue
        permissions = line.permissions - known.permissions
        shadows = line.shadows - known.shadows
        if permissions or shadows:
            extra.globals[name] = Line(
                permissions=line.permissions, shadows=line.shadows, seen=line.seen
            )
    for name, line in measured.events.items():
        if name not in shipped.events:
            extra.events[name] = line
    return extra


def _env_versions(run_dir: Path, combo: str) -> dict[str, str]:
    """Every distribution's version in the combo's env, by import name where it differs."""
    import json  # noqa: PLC0415 - only here

    path = RunDir(run_dir).env_info(combo)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    versions = {str(k).lower(): str(v) for k, v in data.get("versions", {}).items()}
    for name, version in list(versions.items()):
        lib = lookup(name)
        if lib is not None:
            versions[lib.key] = version
            versions[lib.module] = version
    versions["python"] = str(data.get("python", ""))
    return versions


def render(measured: Measured) -> str:
    """The allowlist file: one section per library, lines sorted, releases as comments."""
    sections: dict[str, list[str]] = defaultdict(list)
    for name in sorted(measured.globals):
        line = measured.globals[name]
        words = [name, *sorted(line.permissions)]
        if line.shadows:
            words.append("shadow=" + ",".join(sorted(line.shadows)))
        sections[_library(name.split(":", 1)[0])].append(_with_seen(" ".join(words), line))
    out = [HEADER]
    for library in sorted(sections):
        out.append(f"\n[{library}]\n")
        out.extend(f"{entry}\n" for entry in sections[library])
    if measured.events:
        out.append("\n[events]\n")
        out.extend(
            _with_seen(f"event {name}", measured.events[name]) + "\n"
            for name in sorted(measured.events)
        )
    return "".join(out)


def _with_seen(text: str, line: Line) -> str:
    if not line.seen:
        return text
    seen = "; ".join(
        f"{library} {', '.join(sorted(versions, key=_version_key))}"
        for library, versions in sorted(line.seen.items())
        if versions
    )
    return f"{text:<72} # {seen}" if seen else text


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version)[:4])


def update(run_dirs: Iterable[Path], path: Path = SHIPPED, replace: bool = False) -> Measured:
    """Fold ``run_dirs`` into the allowlist at ``path`` (or start over with ``replace``).

    The file is written only if the guard reads back what was rendered."""
    existing = Measured()
    if not replace and path.is_file():
        existing = parse(path.read_text("utf-8"), str(path))
    measured = measure(list(run_dirs), existing)
    text = render(measured)
    parse(text, str(path))  # a line the guard would refuse (code evaluation) stops it here
    path.write_text(text, encoding="utf-8")
    return measured
