"""``matrix.toml`` → :class:`MatrixSpec`, parsed and validated once.

Every mistake of the file is found in one walk, each naming the file, the line where one
can be found, the dotted key and what is wrong, e.g.
``matrix.toml:7: combo 'pandas2'.numpy: '1.2x' is not a valid version or specifier``;
:func:`load` raises them together at the end: a :class:`~harness.core.errors.SpecError`
when there is one, a :class:`~harness.core.errors.SpecErrorGroup` of each, in file order, when
there are more. The values' checks are in :mod:`harness.matrix.checks`, the tables that
make combos in :mod:`harness.matrix.tables`, ``[nightly]`` in
:mod:`harness.matrix.nightly_table`.
"""

from __future__ import annotations

import datetime as dt
import difflib
import enum
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from harness.core.errors import SpecError
from harness.core.libraries import BY_KEY, LIBRARIES
from harness.core.tomlfile import TomlFile
from harness.matrix import indexes, tables
from harness.matrix.checks import Checks
from harness.matrix.combos import select
from harness.matrix.indexes import Source, Sourcing
from harness.matrix.nightly_table import NightlySpec, nightly

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from harness.matrix.tables import ComboTable

DEFAULT_TIMEOUT = 120.0  # seconds; DS-1000's own grader allows 120 s per problem
_COMBO_KEYS = (
    "python",
    "as_of",
    "extras",
    "packages",
    "tags",
    "description",
    "nightly",
    "extra_index_url",
    *indexes.KEYS,
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
    *indexes.KEYS,
)
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
    # Which named index serves which package, and uv's PyTorch backend (harness.matrix.indexes)
    sourcing: Sourcing = field(default_factory=Sourcing)

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
            "sources": [s.to_dict() for s in self.sourcing.sources],
            "torch_backend": self.sourcing.torch_backend,
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
            sourcing=Sourcing(
                tuple(Source.from_dict(s) for s in data.get("sources", ())),
                data.get("torch_backend"),
            ),
        )

    def line(self) -> str:
        """One line for ``harness combos``: id, Python, each library's constraint, date."""
        libs = " ".join(f"{lib.library}={lib.constraint}" for lib in self.libraries)
        as_of = f" as_of={self.as_of.isoformat()}" if self.as_of else ""
        sourced = "".join(f" {s.package}<-{s.index}" for s in self.sourcing.sources)
        if self.sourcing.torch_backend:
            sourced += f" torch_backend={self.sourcing.torch_backend}"
        return f"{self.id:<28} python={self.python} {libs}{as_of}{sourced}"


@dataclass(frozen=True)
class MatrixSpec:
    path: Path
    combos: tuple[Combo, ...]
    baseline: str
    timeout: float = DEFAULT_TIMEOUT
    index_url: str | None = None
    nightly: NightlySpec = field(default_factory=NightlySpec)
    lanes: tuple[Combo, ...] = ()  # [nightly.lanes]: run by ``--nightly`` or by name
    by_id: Mapping[str, Combo] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        every = (*self.combos, *self.lanes)
        object.__setattr__(self, "by_id", {c.id: c for c in every})


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


@dataclass(frozen=True)
class _Defaults:
    """What ``[matrix]`` gives every combo."""

    python: str | None  # None: each combo names its own
    extras: tuple[str, ...]
    packages: dict[str, str]
    wheels_only: bool = False
    build_from_source: tuple[str, ...] = ()
    # named indexes and which package comes from which (harness.matrix.indexes)
    indexes: tuple[dict[str, str], Sourcing] = ({}, Sourcing())
    # [matrix] is not a table: a combo without a Python may have had it from there
    unread: bool = False


def load(
    path: Path | str, display: str | None = None, *, today: dt.date | None = None
) -> MatrixSpec:
    """Parse and validate ``path``; raise every mistake found (see the module's doc).

    ``today`` is what a timeline's ``end = "today"`` means (default: the date now)."""
    doc = TomlFile.load(Path(path), SpecError, display)  # not TOML: nothing else to check
    checks = Checks(doc)
    unknown = [key for key in doc.data if key not in _TABLES]
    for key in unknown:
        close = difflib.get_close_matches(key, list(_TABLES), n=1)
        hint = f" (did you mean [{close[0]}]?)" if close else ""
        checks.record(checks.fail((key,), None, f"unknown table [{key}]{hint}"))
    matrix = checks.attempt(checks.table, doc.data.get("matrix", {}), ("matrix",), "[matrix]")
    defaults = replace(_defaults(checks, matrix or {}), unread=matrix is None)
    day = today or dt.datetime.now(dt.timezone.utc).date()  # the index keeps UTC
    made, every_made = _combo_tables(checks, doc.data, day)
    combos = [_combo(checks, table, defaults) for table in made]
    night = checks.attempt(checks.table, doc.data.get("nightly", {}), ("nightly",), "[nightly]")
    settings = nightly(checks, night or {}, Path(path).parent)
    lane_tables = _lane_tables(checks, night or {})
    lanes = [_combo(checks, table, defaults) for table in lane_tables or ()]
    lanes = [replace(lane, tags=(*lane.tags, "lane")) for lane in lanes]
    # An unknown table may be a misspelt [combos]; a table that could not make its combos
    # may have made the one a name looks for: a name not found then is not a mistake yet.
    all_combos = not unknown and every_made
    if not combos and all_combos:
        message = "no combos: add a [combos.<id>], [axes.<name>] or [timeline.<name>] table"
        checks.record(checks.fail(("combos",), None, message))
    _unique(checks, [*combos, *lanes])
    all_lanes = lane_tables is not None and night is not None
    whole = all_combos and all_lanes and bool(combos)  # no combos at all: said once, above
    baseline = _baseline(checks, matrix or {}, combos, lanes, whole)
    for pattern in settings.combos if all_combos else ():
        if not select(combos, [pattern]):
            message = f"{pattern!r} matches no combo"
            checks.record(checks.fail(("nightly", "combos"), "nightly.combos", message))
    timeout, index_url = _run_settings(checks, matrix or {})
    checks.raise_found()
    return MatrixSpec(
        Path(path),
        tuple(_with_implicit_tags(c, baseline) for c in combos),
        baseline,
        timeout,
        index_url,
        settings,
        tuple(_with_implicit_tags(c, baseline) for c in lanes),
    )


def _defaults(checks: Checks, matrix: dict[str, Any]) -> _Defaults:
    """``[matrix]``'s keys for every combo, checked."""
    for key in matrix:
        if key not in _MATRIX_KEYS:
            checks.record(
                checks.unknown_key(key, _MATRIX_KEYS, ("matrix", key), "[matrix]", libraries=False)
            )
    python = None
    if "python" in matrix:
        # a wrong one is kept as written: no combo is then said to be missing its Python
        at = (("matrix", "python"), "matrix.python")
        python = checks.attempt(checks.python, matrix["python"], *at) or str(matrix["python"])
    wheels_only = matrix.get("wheels_only", False)
    wheels_at = (("matrix", "wheels_only"), "matrix.wheels_only")
    sources_at = (("matrix", "build_from_source"), "matrix.build_from_source")
    return _Defaults(
        python=python,
        extras=checks.each(
            checks.requirement, matrix.get("extras", []), ("matrix", "extras"), "matrix.extras"
        ),
        packages=checks.packages(
            matrix.get("packages", {}), ("matrix", "packages"), "matrix.packages"
        ),
        wheels_only=bool(checks.attempt(checks.boolean, wheels_only, *wheels_at)),
        build_from_source=checks.each(
            checks.project, matrix.get("build_from_source", []), *sources_at
        ),
        indexes=indexes.read(checks, matrix, ("matrix",), "matrix"),
    )


def _combo_tables(
    checks: Checks, data: Mapping[str, Any], today: dt.date
) -> tuple[list[ComboTable], bool]:
    """The table of every combo of ``[combos]``, ``[axes]`` and ``[timeline]``, and
    whether each of their tables made its combos."""
    made: list[ComboTable] = []
    every_made = True
    for section in ("combos", "axes", "timeline"):
        entries = checks.attempt(checks.table, data.get(section, {}), (section,), f"[{section}]")
        for name, value in (entries or {}).items():
            combo_tables = tables.made_by(checks, section, name, value, today)
            made += combo_tables or ()
            every_made = every_made and combo_tables is not None
        every_made = every_made and entries is not None
    return made, every_made


def _lane_tables(checks: Checks, night: dict[str, Any]) -> list[ComboTable] | None:
    """The table of every lane of ``[nightly.lanes]``; None when one made no lane."""
    at = (("nightly", "lanes"), "[nightly.lanes]")
    entries = checks.attempt(checks.table, night.get("lanes", {}), *at)
    lanes = [tables.lane(checks, name, value) for name, value in (entries or {}).items()]
    made = [lane for lane in lanes if lane is not None]
    return made if entries is not None and len(made) == len(lanes) else None


def _combo(checks: Checks, made: ComboTable, defaults: _Defaults) -> Combo:
    """The combo of a combo table. A wrong key is kept as a mistake and left out (or at
    its default), so the keys after it are still checked and the combo keeps its id for
    the checks that look for it; :func:`load` raises before such a combo is returned."""
    table, keys, where = made.table, made.keys, made.where
    for key in table:
        if key not in _COMBO_KEYS and key not in BY_KEY:
            checks.record(checks.unknown_key(key, _COMBO_KEYS, (*keys, key), where))
    packages = {**defaults.packages}
    if "packages" in table:
        packages |= checks.packages(table["packages"], (*keys, "packages"), f"{where}.packages")
    python = defaults.python
    if "python" in table:
        # a wrong one is kept as written: it is not missing too
        at = ((*keys, "python"), f"{where}.python")
        python = checks.attempt(checks.python, table["python"], *at) or str(table["python"])
    if python is None and not defaults.unread:
        checks.record(checks.fail(keys, f"{where}.python", "missing (set it here or in [matrix])"))
    libraries = [
        checks.attempt(_library, checks, lib.key, table[lib.key], packages, keys, where)
        for lib in LIBRARIES
        if lib.key in table
    ]
    extras = checks.each(
        checks.requirement, table.get("extras", []), (*keys, "extras"), f"{where}.extras"
    )
    as_of = None
    if "as_of" in table:
        as_of = checks.attempt(checks.as_of, table["as_of"], (*keys, "as_of"), f"{where}.as_of")
    tags = checks.attempt(checks.strings, table.get("tags", []), (*keys, "tags"), f"{where}.tags")
    description = table.get("description", "")
    description = checks.attempt(checks.string, description, (*keys, "description"), where)
    at = ((*keys, "nightly"), f"{where}.nightly")
    nightly_index = checks.attempt(checks.boolean, table.get("nightly", False), *at)
    extra_index_url = None
    if "extra_index_url" in table:
        at = ((*keys, "extra_index_url"), f"{where}.extra_index_url")
        extra_index_url = checks.attempt(checks.url, table["extra_index_url"], *at)
    _, sourcing = indexes.read(checks, table, keys, where, defaults.indexes)
    return Combo(
        made.id,
        python or "",  # missing: a mistake is reported, and this combo is never returned
        tuple(lib for lib in libraries if lib is not None),
        defaults.extras + extras,
        as_of,
        tags or (),
        description or "",
        made.origin,
        nightly=bool(nightly_index),
        extra_index_url=extra_index_url,
        wheels_only=defaults.wheels_only,
        build_from_source=defaults.build_from_source,
        sourcing=sourcing,
    )


def _library(
    checks: Checks,
    key: str,
    value: Any,
    packages: Mapping[str, str],
    keys: Sequence[str],
    where: str,
) -> LibrarySpec:
    at = (*keys, key)
    text = checks.string(value, at, f"{where}.{key}")
    try:
        kind = parse_constraint(text)
    except ValueError as exc:
        raise checks.fail(at, f"{where}.{key}", str(exc)) from None
    return LibrarySpec(key, packages.get(key, BY_KEY[key].package), text.strip(), kind)


def _unique(checks: Checks, combos: Sequence[Combo]) -> None:
    """Every id made once, by the combos and the lanes together."""
    seen: dict[str, str] = {}
    for combo in combos:
        if combo.id in seen:
            message = f"id is not unique (also made by {seen[combo.id]})"
            kind = "lane" if combo.lane else "combo"
            checks.record(checks.fail(combo.origin.split("."), f"{kind} {combo.id!r}", message))
        seen.setdefault(combo.id, combo.origin)


def _baseline(
    checks: Checks,
    matrix: dict[str, Any],
    combos: Sequence[Combo],
    lanes: Sequence[Combo],
    whole: bool,
) -> str:
    """``[matrix].baseline``, the first combo unless named (checked when every table that
    makes combos made them)."""
    if "baseline" not in matrix:
        return combos[0].id if combos else ""  # none: reported, and no spec is returned
    at = (("matrix", "baseline"), "matrix.baseline")
    baseline = checks.attempt(checks.string, matrix["baseline"], *at)
    ids = [c.id for c in (*combos, *lanes)]
    if baseline is not None and baseline not in ids and whole:
        close = difflib.get_close_matches(baseline, ids, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        checks.record(checks.fail(*at, f"no combo {baseline!r}{hint}"))
    return baseline or ""


def _run_settings(checks: Checks, matrix: dict[str, Any]) -> tuple[float, str | None]:
    """``[matrix]``'s ``timeout`` per problem and ``index_url``."""
    timeout = matrix.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        message = "expected a positive number of seconds"
        checks.record(checks.fail(("matrix", "timeout"), "matrix.timeout", message))
    index_url = None
    if "index_url" in matrix:
        at = (("matrix", "index_url"), "matrix.index_url")
        index_url = checks.attempt(checks.string, matrix["index_url"], *at)
    return float(timeout) if isinstance(timeout, int | float) else DEFAULT_TIMEOUT, index_url


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
