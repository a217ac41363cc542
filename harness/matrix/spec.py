"""``matrix.toml`` → :class:`MatrixSpec`, parsed and validated once.

Every mistake raises :class:`~harness.core.errors.SpecError` naming the file, the line
where one can be found, the dotted key and what is wrong, e.g.
``matrix.toml:7: combo 'pandas2'.numpy: '1.2x' is not a valid version or specifier``.
"""

from __future__ import annotations

import datetime as dt
import difflib
import enum
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from harness.core.errors import SpecError
from harness.core.libraries import BY_KEY, LIBRARIES, lookup
from harness.core.tomlfile import TomlFile
from harness.envside.protocol import SUPPORTED_PYTHONS
from harness.matrix.combos import ID_PATTERN, MAX_ID_LENGTH, expand, make_id, select, slug
from harness.matrix.timeline import dates, parse_every, python_for

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

DEFAULT_TIMEOUT = 120.0  # seconds; DS-1000's own grader allows 120 s per problem
MIN_PYTHON = Version(SUPPORTED_PYTHONS[0])  # the env-side runner's floor

# ``key = <number>`` on one line, to quote a number as written (``3.10``, not ``3.1``)
_NUMBER_VALUE = re.compile(
    r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=\s*([+-]?\d[\d_]*(?:\.[\d_]+)?)\s*(?:#.*)?$"""
)
_COMBO_KEYS = (
    "python",
    "as_of",
    "extras",
    "packages",
    "tags",
    "description",
    "nightly",
    "extra_index_url",
)
NIGHTLY_INDEX = "https://pypi.anaconda.org/scientific-python-nightly-wheels/simple"
_MATRIX_KEYS = (
    "baseline",
    "python",
    "extras",
    "packages",
    "timeout",
    "index_url",
    "wheels_only",
    "build_from_source",
)
_AXIS_KEYS = ("python", "as_of", "extras", "packages", "tags", "include", "exclude", "nightly")
_TIMELINE_KEYS = ("start", "end", "every", "libraries", "python", "extras", "packages", "tags")
_NIGHTLY_KEYS = ("problems", "answers", "idioms", "combos", "shards", "nights", "lanes")
_TABLES = ("matrix", "combos", "axes", "timeline", "nightly")


class VersionKind(enum.Enum):
    PIN = "pin"
    SPECIFIER = "specifier"
    LATEST = "latest"
    OLDEST = "oldest"
    PRE = "pre"


@dataclass(frozen=True)
class LibrarySpec:
    """One library in one combo: what to install and which versions are acceptable."""

    library: str  # canonical key, e.g. "scikit-learn"
    package: str  # distribution to install, e.g. "tensorflow-cpu"
    constraint: str  # as written: "1.26.4", ">=2,<3", "latest", "oldest", "pre"
    kind: VersionKind

    def requirement(self) -> str:
        """A PEP 508 requirement for the resolver; ``oldest`` must be pinned first."""
        if self.kind is VersionKind.PIN:
            return f"{self.package}=={self.constraint}"
        if self.kind is VersionKind.SPECIFIER:
            return f"{self.package}{self.constraint}"
        if self.kind is VersionKind.PRE:
            # An explicit pre-release bound lets uv's ``if-necessary-or-explicit``
            # mode pick pre-releases for this package only.
            return f"{self.package}>=0.0.0a0"
        return self.package

    def to_dict(self) -> dict[str, str]:
        return {
            "library": self.library,
            "package": self.package,
            "constraint": self.constraint,
            "kind": self.kind.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LibrarySpec:
        return cls(
            str(data["library"]),
            str(data["package"]),
            str(data["constraint"]),
            VersionKind(data["kind"]),
        )


@dataclass(frozen=True)
class Combo:
    """One combination of library versions: one environment, one results file."""

    id: str
    python: str
    libraries: tuple[LibrarySpec, ...]
    extras: tuple[str, ...] = ()
    as_of: dt.date | None = None
    tags: tuple[str, ...] = ()
    description: str = ""
    origin: str = ""  # the table it came from, e.g. "combos.latest" or "axes.grid"
    # uv's strategy: "highest", or "lowest-direct" for the trial envs of bisection,
    # which move other libraries only as far as a swapped one requires.
    resolution: str = "highest"
    # Also resolve from the scientific-python nightly wheels index (development builds).
    nightly: bool = False
    # A second index to resolve from (the nightly wheels' own, unless given); with nightly
    extra_index_url: str | None = None
    # Every package from wheels, not only the seven libraries: an extra without a wheel
    # for this Python is left out of the env (and recorded), never compiled.
    wheels_only: bool = False
    # ...but for these source-only distributions, pure Python: built in seconds.
    build_from_source: tuple[str, ...] = ()

    def library(self, key: str) -> LibrarySpec | None:
        return next((lib for lib in self.libraries if lib.library == key), None)

    @property
    def extra_index(self) -> str | None:
        """The index besides the main one this combo resolves from, if any."""
        return self.extra_index_url or (NIGHTLY_INDEX if self.nightly else None)

    @property
    def lane(self) -> bool:
        """A nightly lane: run by ``--nightly`` or by name, never by default."""
        return self.origin.startswith("nightly.")

    @property
    def library_keys(self) -> tuple[str, ...]:
        return tuple(lib.library for lib in self.libraries)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "python": self.python,
            "libraries": [lib.to_dict() for lib in self.libraries],
            "extras": list(self.extras),
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "tags": list(self.tags),
            "description": self.description,
            "origin": self.origin,
            "resolution": self.resolution,
            "nightly": self.nightly,
            "extra_index_url": self.extra_index_url,
            "wheels_only": self.wheels_only,
            "build_from_source": list(self.build_from_source),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Combo:
        """The inverse of :meth:`to_dict`."""
        as_of = data.get("as_of")
        return cls(
            id=str(data["id"]),
            python=str(data["python"]),
            libraries=tuple(LibrarySpec.from_dict(lib) for lib in data["libraries"]),
            extras=tuple(data.get("extras", ())),
            as_of=dt.date.fromisoformat(as_of) if as_of else None,
            tags=tuple(data.get("tags", ())),
            description=str(data.get("description", "")),
            origin=str(data.get("origin", "")),
            resolution=str(data.get("resolution", "highest")),
            nightly=bool(data.get("nightly", False)),
            extra_index_url=data.get("extra_index_url"),
            wheels_only=bool(data.get("wheels_only", False)),
            build_from_source=tuple(data.get("build_from_source", ())),
        )

    def line(self) -> str:
        """One line for ``harness combos``: id, Python, each library's constraint, date."""
        libs = " ".join(f"{lib.library}={lib.constraint}" for lib in self.libraries)
        as_of = f" as_of={self.as_of.isoformat()}" if self.as_of else ""
        return f"{self.id:<28} python={self.python} {libs}{as_of}"


@dataclass(frozen=True)
class NightlySpec:
    """What the nightly workflow runs (``[nightly]``): problem sets, the models' answers
    found in a directory, the matrix's combos to run, and the lanes only nights run."""

    problems: tuple[str, ...] = ("problems",)
    answers: Path | None = None  # a directory of <model>.jsonl; None: no models
    answers_required: bool = False  # named in the file: it must exist
    idioms: bool = True
    combos: tuple[str, ...] = ()  # ids or globs of [combos]/[axes]/[timeline]; (): all
    shards: int = 1
    nights: int = 14  # how many nights the trends look back over
    lanes: tuple[Combo, ...] = ()
    where: tuple[str, int | None] = ("matrix.toml", None)  # of ``answers``, for errors

    def answer_files(self) -> list[str]:
        """``NAME=PATH`` for every ``*.jsonl`` of the answers directory, in name order; the
        model is the file's name without ``.jsonl`` and a trailing ``-answers``."""
        folder = self.answers
        if folder is None or not folder.is_dir():
            if folder is not None and self.answers_required:
                file, line = self.where
                raise SpecError(file, "nightly.answers", f"{folder}: no such directory", line=line)
            return []
        return [
            f"{path.name.removesuffix('.jsonl').removesuffix('-answers')}={path}"
            for path in sorted(folder.glob("*.jsonl"))
        ]


@dataclass(frozen=True)
class MatrixSpec:
    path: Path
    combos: tuple[Combo, ...]
    baseline: str
    timeout: float = DEFAULT_TIMEOUT
    index_url: str | None = None
    nightly: NightlySpec = field(default_factory=NightlySpec)
    by_id: Mapping[str, Combo] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        every = (*self.combos, *self.nightly.lanes)
        object.__setattr__(self, "by_id", {c.id: c for c in every})

    @property
    def lanes(self) -> tuple[Combo, ...]:
        return self.nightly.lanes


def parse_constraint(text: str) -> VersionKind:
    """Classify a version constraint, or raise ``ValueError`` with the reason."""
    value = text.strip()
    if not value:
        raise ValueError("empty version (leave the key out to leave the library out)")
    if value in {k.value for k in (VersionKind.LATEST, VersionKind.OLDEST, VersionKind.PRE)}:
        return VersionKind(value)
    try:
        Version(value)
    except InvalidVersion:
        pass
    else:
        return VersionKind.PIN
    try:
        SpecifierSet(value)
    except InvalidSpecifier:
        pass
    else:
        return VersionKind.SPECIFIER
    raise ValueError(f"{text!r} is not a valid version or specifier")


class _Parser:
    """Walks the TOML document once; every check raises a located ``SpecError``."""

    def __init__(self, doc: TomlFile) -> None:
        self.doc = doc

    def fail(self, keys: Sequence[str], what: str | None, message: str) -> SpecError:
        return SpecError(self.doc.display, what, message, line=self.doc.line_of(*keys))

    # -- scalar helpers -------------------------------------------------------
    def string(self, value: Any, keys: Sequence[str], what: str) -> str:
        if not isinstance(value, str):
            raise self.fail(keys, what, f"expected a string, got {_describe(value)}")
        return value

    def strings(self, value: Any, keys: Sequence[str], what: str) -> tuple[str, ...]:
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(keys, what, f"expected a list of strings, got {_describe(value)}")
        return tuple(value)

    def python(self, value: Any, keys: Sequence[str], what: str) -> str:
        if isinstance(value, float | int) and not isinstance(value, bool):
            # TOML reads 3.10 as the float 3.1: quote the number as the file wrote it
            written = self.written_number(keys, value)
            raise self.fail(keys, what, f'write the version as a string, e.g. "{written}"')
        text = self.string(value, keys, what).strip()
        try:
            version = Version(text)
        except InvalidVersion:
            raise self.fail(keys, what, f"{text!r} is not a Python version") from None
        if len(version.release) < 2 or version.pre or version.dev or version.local:
            raise self.fail(keys, what, f"{text!r}: give major.minor, e.g. '3.11'")
        if version < MIN_PYTHON:
            raise self.fail(
                keys, what, f"{text!r} is older than {MIN_PYTHON}, the oldest supported"
            )
        return text

    def written_number(self, keys: Sequence[str], value: float) -> str:
        """The number at ``keys`` as the file spells it (``3.10``), where its line holds
        ``key = <that number>``; else the value as Python prints it (``3.1``)."""
        line = self.doc.line_of(*keys)
        if line is not None:
            found = _NUMBER_VALUE.match(self.doc.text.splitlines()[line - 1])
            if (
                found
                and found.group(1).strip("\"'") == keys[-1]
                and float(found.group(2).replace("_", "")) == value
            ):
                return found.group(2)
        return str(value)

    def boolean(self, value: Any, keys: Sequence[str]) -> bool:
        if not isinstance(value, bool):
            what = ".".join(keys)
            raise self.fail(keys, what, f"expected true or false, got {_describe(value)}")
        return value

    def project(self, text: str, keys: Sequence[str], what: str) -> str:
        """A distribution's name alone (no version): ``wordninja``."""
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            requirement = None
        if requirement is None or str(requirement) != requirement.name:
            raise self.fail(keys, what, f"{text!r} is not a package name")
        return canonicalize_name(requirement.name)

    def as_of(self, value: Any, keys: Sequence[str], what: str) -> dt.date:
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        text = self.string(value, keys, what)
        try:
            return dt.date.fromisoformat(text.strip())
        except ValueError:
            raise self.fail(keys, what, f"{text!r} is not a date like 2023-06-01") from None

    def requirement(self, text: str, keys: Sequence[str], what: str) -> str:
        try:
            return str(Requirement(text))
        except InvalidRequirement as exc:
            raise self.fail(keys, what, f"{text!r} is not a valid requirement: {exc}") from None

    def packages(self, value: Any, keys: Sequence[str], what: str) -> dict[str, str]:
        if not isinstance(value, dict):
            raise self.fail(keys, what, f"expected a table, got {_describe(value)}")
        out = {}
        for name, package in value.items():
            lib = lookup(name)
            if lib is None or lib.key != name:
                raise self.fail(keys, f"{what}.{name}", self.unknown_library_message(name))
            out[name] = self.requirement(self.string(package, keys, f"{what}.{name}"), keys, what)
        return out

    def library(
        self, key: str, value: Any, packages: Mapping[str, str], keys: Sequence[str], what: str
    ) -> LibrarySpec:
        text = self.string(value, keys, what)
        try:
            kind = parse_constraint(text)
        except ValueError as exc:
            raise self.fail(keys, what, str(exc)) from None
        package = packages.get(key, BY_KEY[key].package)
        return LibrarySpec(key, package, text.strip(), kind)

    def unknown_key(
        self,
        key: str,
        allowed: Sequence[str],
        keys: Sequence[str],
        what: str,
        *,
        libraries: bool = True,
    ) -> None:
        lib = lookup(key) if libraries else None
        if lib is not None and lib.key != key:
            hint = f"unknown key {key!r}: the library is called {lib.key!r}"
        else:
            names = [*allowed, *BY_KEY] if libraries else list(allowed)
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
            if not close and libraries:
                hint += "; other packages go in 'extras'"
        raise self.fail(keys, what, hint)

    @staticmethod
    def unknown_library_message(name: str) -> str:
        lib = lookup(name)
        if lib is not None:
            return f"the library is called {lib.key!r}"
        return f"{name!r} is not one of {', '.join(lib.key for lib in LIBRARIES)}"

    # -- tables -------------------------------------------------------------------
    def url(self, value: Any, keys: Sequence[str], what: str) -> str:
        text = self.string(value, keys, what)
        if not re.match(r"^(https?|file)://[^\s]+$", text):
            raise self.fail(keys, what, f"{text!r} is not an http(s) or file URL")
        return text

    def positive(self, value: Any, keys: Sequence[str], what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(
                keys, what, f"expected a whole number of at least 1, got {_describe(value)}"
            )
        return value

    def nightly(self, table: dict[str, Any], defaults: _Defaults, base: Path) -> NightlySpec:
        """``[nightly]``; its ``[nightly.lanes.<id>]`` are combos like ``[combos.<id>]``."""
        for key in table:
            if key not in _NIGHTLY_KEYS:
                self.unknown_key(key, _NIGHTLY_KEYS, ("nightly", key), "[nightly]", libraries=False)
        out = NightlySpec()
        if "problems" in table:
            problems = self.strings(table["problems"], ("nightly", "problems"), "nightly.problems")
            if not problems:
                raise self.fail(("nightly", "problems"), "nightly.problems", "empty list")
            out = replace(out, problems=problems)
        if "answers" in table:
            folder = self.string(table["answers"], ("nightly", "answers"), "nightly.answers")
            out = replace(
                out,
                answers=base / folder,
                answers_required=True,
                where=(self.doc.display, self.doc.line_of("nightly", "answers")),
            )
        else:
            out = replace(out, answers=base / "answers")
        if "idioms" in table:
            out = replace(out, idioms=self.boolean(table["idioms"], ("nightly", "idioms")))
        if "combos" in table:
            out = replace(
                out, combos=self.strings(table["combos"], ("nightly", "combos"), "nightly.combos")
            )
        if "shards" in table:
            out = replace(
                out, shards=self.positive(table["shards"], ("nightly", "shards"), "nightly.shards")
            )
        if "nights" in table:
            out = replace(
                out, nights=self.positive(table["nights"], ("nightly", "nights"), "nightly.nights")
            )
        lanes = []
        for name, lane in self.table(
            table.get("lanes", {}), ("nightly", "lanes"), "[nightly.lanes]"
        ).items():
            keys = ("nightly", "lanes", name)
            where = f"lane {name!r}"
            lane_table = self.table(lane, keys, where)
            if not ID_PATTERN.match(name) or len(name) > MAX_ID_LENGTH:
                raise self.fail(keys, where, "id must be lower-case letters, digits and '-'")
            combo = self.combo(name, lane_table, defaults, keys, where, f"nightly.lanes.{name}")
            lanes.append(replace(combo, tags=(*combo.tags, "lane")))
        return replace(out, lanes=tuple(lanes))

    def table(self, value: Any, keys: Sequence[str], what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(keys, what, f"expected a table, got {_describe(value)}")
        return value

    def named_combo(self, name: str, table: dict[str, Any], defaults: _Defaults) -> Combo:
        keys = ("combos", name)
        where = f"combo {name!r}"
        if not ID_PATTERN.match(name) or len(name) > MAX_ID_LENGTH:
            suggestion = slug(name)[:MAX_ID_LENGTH]
            raise self.fail(
                keys, where, f"id must be lower-case letters, digits and '-' (try {suggestion!r})"
            )
        return self.combo(name, table, defaults, keys, where, f"combos.{name}")

    def combo(
        self,
        combo_id: str,
        table: dict[str, Any],
        defaults: _Defaults,
        keys: tuple[str, ...],
        where: str,
        origin: str,
    ) -> Combo:
        for key in table:
            if key not in _COMBO_KEYS and key not in BY_KEY:
                self.unknown_key(key, _COMBO_KEYS, (*keys, key), where)
        packages = {**defaults.packages}
        if "packages" in table:
            packages |= self.packages(table["packages"], (*keys, "packages"), f"{where}.packages")
        python = defaults.python
        if "python" in table:
            python = self.python(table["python"], (*keys, "python"), f"{where}.python")
        if python is None:
            raise self.fail(keys, f"{where}.python", "missing (set it here or in [matrix])")
        libraries = tuple(
            self.library(lib.key, table[lib.key], packages, (*keys, lib.key), f"{where}.{lib.key}")
            for lib in LIBRARIES
            if lib.key in table
        )
        extras = defaults.extras + tuple(
            self.requirement(e, (*keys, "extras"), f"{where}.extras")
            for e in self.strings(table.get("extras", []), (*keys, "extras"), f"{where}.extras")
        )
        as_of = (
            self.as_of(table["as_of"], (*keys, "as_of"), f"{where}.as_of")
            if "as_of" in table
            else None
        )
        tags = self.strings(table.get("tags", []), (*keys, "tags"), f"{where}.tags")
        description = self.string(table.get("description", ""), (*keys, "description"), where)
        nightly = table.get("nightly", False)
        if not isinstance(nightly, bool):
            raise self.fail(
                (*keys, "nightly"),
                f"{where}.nightly",
                f"expected true or false, got {_describe(nightly)}",
            )
        extra_index_url = (
            self.url(
                table["extra_index_url"], (*keys, "extra_index_url"), f"{where}.extra_index_url"
            )
            if "extra_index_url" in table
            else None
        )
        return Combo(
            combo_id,
            python,
            libraries,
            extras,
            as_of,
            tags,
            description,
            origin,
            nightly=nightly,
            extra_index_url=extra_index_url,
            wheels_only=defaults.wheels_only,
            build_from_source=defaults.build_from_source,
        )

    def axis(self, name: str, table: dict[str, Any], defaults: _Defaults) -> list[Combo]:
        keys = ("axes", name)
        where = f"axis {name!r}"
        axes: dict[str, tuple[str, ...]] = {}
        for key, value in table.items():
            if key in {"include", "exclude", "extras", "packages", "tags", "nightly"}:
                continue
            if key not in _AXIS_KEYS and key not in BY_KEY:
                self.unknown_key(key, _AXIS_KEYS, (*keys, key), where)
            values = self.strings(value, (*keys, key), f"{where}.{key}")
            if not values:
                raise self.fail((*keys, key), f"{where}.{key}", "empty list")
            axes[key] = values
        rules = {}
        for rule_key in ("include", "exclude"):
            entries = table.get(rule_key, [])
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                raise self.fail(
                    (*keys, rule_key), f"{where}.{rule_key}", "expected a list of tables"
                )
            for i, entry in enumerate(entries):
                label = f"{where}.{rule_key}[{i}]"
                for key, value in entry.items():
                    if key not in axes:
                        raise self.fail(
                            (*keys, rule_key), label, f"{key!r} is not an axis of {name!r}"
                        )
                    self.string(value, (*keys, rule_key), f"{label}.{key}")
                    if rule_key == "exclude" and value not in axes[key]:
                        raise self.fail(
                            (*keys, rule_key),
                            f"{label}.{key}",
                            f"{value!r} is not one of the axis values {list(axes[key])}",
                        )
                if rule_key == "include" and set(entry) != set(axes):
                    missing = sorted(set(axes) - set(entry))
                    raise self.fail((*keys, rule_key), label, f"missing axis value(s) {missing}")
            rules[rule_key] = entries
        assignments = expand(axes, rules["include"], rules["exclude"])
        if not assignments:
            raise self.fail(keys, where, "every combination is excluded")
        varying = [k for k in axes if len({a[k] for a in assignments}) > 1]
        prefix = slug(name)
        out = []
        for assignment in assignments:
            combo_id = make_id(prefix, assignment, varying)
            combo_table: dict[str, Any] = {
                k: table[k] for k in ("extras", "packages", "tags", "nightly") if k in table
            }
            combo_table.update(assignment)
            out.append(self.combo(combo_id, combo_table, defaults, keys, where, f"axes.{name}"))
        return out

    def timeline(
        self, name: str, table: dict[str, Any], defaults: _Defaults, today: dt.date
    ) -> list[Combo]:
        """One combo per date: the timeline's libraries at their newest release that day."""
        keys = ("timeline", name)
        where = f"timeline {name!r}"
        for key in table:
            if key not in _TIMELINE_KEYS:
                self.unknown_key(key, _TIMELINE_KEYS, (*keys, key), where, libraries=False)
        for key in ("start", "libraries"):
            if key not in table:
                raise self.fail(keys, f"{where}.{key}", "missing")
        start = self.as_of(table["start"], (*keys, "start"), f"{where}.start")
        end_value = table.get("end", "today")
        end = (
            today if end_value == "today" else self.as_of(end_value, (*keys, "end"), f"{where}.end")
        )
        every_text = self.string(table.get("every", "6 months"), (*keys, "every"), f"{where}.every")
        try:
            every = parse_every(every_text)
            days = dates(start, end, every)
        except ValueError as exc:
            raise self.fail(keys, where, str(exc)) from None
        libraries = self.strings(table["libraries"], (*keys, "libraries"), f"{where}.libraries")
        if not libraries:
            raise self.fail((*keys, "libraries"), f"{where}.libraries", "empty list")
        for library in libraries:
            lib = lookup(library)
            if lib is None or lib.key != library:
                raise self.fail(
                    (*keys, "libraries"),
                    f"{where}.libraries",
                    self.unknown_library_message(library),
                )
        python = str(table.get("python", "auto"))
        if python != "auto":
            python = self.python(table["python"], (*keys, "python"), f"{where}.python")
        prefix = slug(name)
        out = []
        for day in days:
            combo_table: dict[str, Any] = dict.fromkeys(libraries, "latest")
            combo_table |= {k: table[k] for k in ("extras", "packages") if k in table}
            combo_table["as_of"] = day
            combo_table["python"] = (
                python_for(day, SUPPORTED_PYTHONS) if python == "auto" else python
            )
            tags = self.strings(table.get("tags", []), (*keys, "tags"), f"{where}.tags")
            combo_table["tags"] = [*tags, "timeline"]
            combo_table["description"] = f"{name}: the libraries as of {day.isoformat()}"
            combo_id = f"{prefix}-{day.isoformat()}"
            if len(combo_id) > MAX_ID_LENGTH:
                raise self.fail(keys, where, f"name too long for ids like {combo_id!r}")
            out.append(self.combo(combo_id, combo_table, defaults, keys, where, f"timeline.{name}"))
        return out


@dataclass(frozen=True)
class _Defaults:
    python: str | None
    extras: tuple[str, ...]
    packages: dict[str, str]
    wheels_only: bool = False
    build_from_source: tuple[str, ...] = ()


def load(
    path: Path | str, display: str | None = None, *, today: dt.date | None = None
) -> MatrixSpec:
    """Parse and validate ``path``; raise :class:`SpecError` on the first mistake.

    ``today`` is what a timeline's ``end = "today"`` means (default: the date now)."""
    doc = TomlFile.load(Path(path), SpecError, display)
    p = _Parser(doc)
    for key in doc.data:
        if key not in _TABLES:
            close = difflib.get_close_matches(key, list(_TABLES), n=1)
            hint = f" (did you mean [{close[0]}]?)" if close else ""
            raise p.fail((key,), None, f"unknown table [{key}]{hint}")
    matrix = p.table(doc.data.get("matrix", {}), ("matrix",), "[matrix]")
    for key in matrix:
        if key not in _MATRIX_KEYS:
            p.unknown_key(key, _MATRIX_KEYS, ("matrix", key), "[matrix]", libraries=False)
    defaults = _Defaults(
        python=p.python(matrix["python"], ("matrix", "python"), "matrix.python")
        if "python" in matrix
        else None,
        extras=tuple(
            p.requirement(e, ("matrix", "extras"), "matrix.extras")
            for e in p.strings(matrix.get("extras", []), ("matrix", "extras"), "matrix.extras")
        ),
        packages=p.packages(matrix["packages"], ("matrix", "packages"), "matrix.packages")
        if "packages" in matrix
        else {},
        wheels_only=p.boolean(matrix.get("wheels_only", False), ("matrix", "wheels_only")),
        build_from_source=tuple(
            p.project(name, ("matrix", "build_from_source"), "matrix.build_from_source")
            for name in p.strings(
                matrix.get("build_from_source", []),
                ("matrix", "build_from_source"),
                "matrix.build_from_source",
            )
        ),
    )
    combos: list[Combo] = []
    for name, table in p.table(doc.data.get("combos", {}), ("combos",), "[combos]").items():
        table_ = p.table(table, ("combos", name), f"combo {name!r}")
        combos.append(p.named_combo(name, table_, defaults))
    for name, table in p.table(doc.data.get("axes", {}), ("axes",), "[axes]").items():
        combos.extend(p.axis(name, p.table(table, ("axes", name), f"axis {name!r}"), defaults))
    day = today or dt.datetime.now(dt.timezone.utc).date()  # the index keeps UTC
    for name, table in p.table(doc.data.get("timeline", {}), ("timeline",), "[timeline]").items():
        timeline = p.table(table, ("timeline", name), f"timeline {name!r}")
        combos.extend(p.timeline(name, timeline, defaults, day))
    if not combos:
        raise p.fail(
            ("combos",),
            None,
            "no combos: add a [combos.<id>], [axes.<name>] or [timeline.<name>] table",
        )
    night = p.nightly(
        p.table(doc.data.get("nightly", {}), ("nightly",), "[nightly]"),
        defaults,
        Path(path).parent,
    )
    seen: dict[str, str] = {}
    for combo in (*combos, *night.lanes):
        if combo.id in seen:
            raise p.fail(
                combo.origin.split("."),
                f"{'lane' if combo.lane else 'combo'} {combo.id!r}",
                f"id is not unique (also made by {seen[combo.id]})",
            )
        seen[combo.id] = combo.origin
    baseline = combos[0].id
    if "baseline" in matrix:
        baseline = p.string(matrix["baseline"], ("matrix", "baseline"), "matrix.baseline")
        if baseline not in seen:
            close = difflib.get_close_matches(baseline, list(seen), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise p.fail(("matrix", "baseline"), "matrix.baseline", f"no combo {baseline!r}{hint}")
    timeout = matrix.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise p.fail(
            ("matrix", "timeout"), "matrix.timeout", "expected a positive number of seconds"
        )
    index_url = None
    if "index_url" in matrix:
        index_url = p.string(matrix["index_url"], ("matrix", "index_url"), "matrix.index_url")
    for pattern in night.combos:
        if not select(combos, [pattern]):
            raise p.fail(("nightly", "combos"), "nightly.combos", f"{pattern!r} matches no combo")
    tagged = tuple(_with_implicit_tags(c, baseline) for c in combos)
    lanes = tuple(_with_implicit_tags(c, baseline) for c in night.lanes)
    return MatrixSpec(
        Path(path), tagged, baseline, float(timeout), index_url, replace(night, lanes=lanes)
    )


def _with_implicit_tags(combo: Combo, baseline: str) -> Combo:
    """Add the tags nox sessions are selected by: baseline, latest, one per library."""
    tags = list(combo.tags)
    if combo.id == baseline:
        tags.append("baseline")
    dated = combo.origin.startswith("timeline.")  # its "latest" is that day's
    if (
        not dated
        and not combo.lane
        and any(lib.kind in (VersionKind.LATEST, VersionKind.PRE) for lib in combo.libraries)
    ):
        tags.append("latest")
    if any(lib.kind is VersionKind.PRE for lib in combo.libraries):
        tags.append("pre")
    if combo.nightly:
        tags.append("nightly")
    tags.extend(combo.library_keys)
    return replace(combo, tags=tuple(dict.fromkeys(tags)))


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"
