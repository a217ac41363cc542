"""The tables that make combos, each checked and turned into one :class:`ComboTable` per
combo it makes: ``[combos.<id>]`` and ``[nightly.lanes.<id>]`` one each,
``[axes.<name>]`` one per combination of its values, ``[timeline.<name>]`` one per date.
:mod:`harness.matrix.spec` checks each combo table's keys and makes the combo.

A table that cannot make its combos (an id that cannot be one, an axis whose rules are
wrong, a timeline without dates) makes none: its mistakes are kept, it returns None, and
the checks that would look for its combos by name hold back (they would only repeat it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.libraries import BY_KEY, lookup
from harness.envside.protocol import SUPPORTED_PYTHONS
from harness.matrix.checks import unknown_library_message
from harness.matrix.combos import ID_PATTERN, MAX_ID_LENGTH, expand, make_id, slug
from harness.matrix.timeline import dates, parse_every, python_for

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Sequence

    from harness.matrix.checks import Checks

_AXIS_KEYS = ("python", "as_of", "extras", "packages", "tags", "include", "exclude", "nightly")
_AXIS_FIXED = ("extras", "packages", "tags", "nightly")  # the same in each combo of an axis
_TIMELINE_KEYS = ("start", "end", "every", "libraries", "python", "extras", "packages", "tags")


@dataclass(frozen=True)
class ComboTable:
    """One combo's keys before they are checked, and how their mistakes are located."""

    id: str
    table: dict[str, Any]
    keys: tuple[str, ...]  # the TOML table its mistakes are found on the line of
    where: str  # how messages name it: "combo 'a'", "axis 'grid'"
    origin: str  # the table it came from, e.g. "combos.latest" or "axes.grid"


def made_by(
    checks: Checks, section: str, name: str, value: Any, today: dt.date
) -> list[ComboTable] | None:
    """The combo tables of ``[<section>.<name>]`` (combos, axes or timeline); None when
    it can make none (its mistakes kept)."""
    keys = (section, name)
    if section == "combos":
        table = checks.attempt(checks.table, value, keys, f"combo {name!r}")
        if table is None or not _an_id(checks, name, keys, f"combo {name!r}", suggest=True):
            return None
        return [ComboTable(name, table, keys, f"combo {name!r}", f"combos.{name}")]
    if section == "axes":
        table = checks.attempt(checks.table, value, keys, f"axis {name!r}")
        return None if table is None else axis(checks, name, table)
    table = checks.attempt(checks.table, value, keys, f"timeline {name!r}")
    return None if table is None else timeline(checks, name, table, today)


def lane(checks: Checks, name: str, value: Any) -> ComboTable | None:
    """``[nightly.lanes.<name>]``: a combo only nights run (or one names)."""
    keys = ("nightly", "lanes", name)
    table = checks.attempt(checks.table, value, keys, f"lane {name!r}")
    if table is None or not _an_id(checks, name, keys, f"lane {name!r}", suggest=False):
        return None
    return ComboTable(name, table, keys, f"lane {name!r}", f"nightly.lanes.{name}")


def _an_id(checks: Checks, name: str, keys: Sequence[str], where: str, *, suggest: bool) -> bool:
    """Whether ``name`` can be a combo's id; a table whose name cannot is not checked
    further (its keys are the keys of a table that will be renamed)."""
    if ID_PATTERN.match(name) and len(name) <= MAX_ID_LENGTH:
        return True
    hint = f" (try {slug(name)[:MAX_ID_LENGTH]!r})" if suggest else ""
    checks.record(checks.fail(keys, where, f"id must be lower-case letters, digits and '-'{hint}"))
    return False


def axis(checks: Checks, name: str, table: dict[str, Any]) -> list[ComboTable] | None:
    """One combo table per combination of the axes' values, less ``exclude``, plus
    ``include``; None when a wrong axis or rule leaves the combinations unknown."""
    keys = ("axes", name)
    where = f"axis {name!r}"
    axes: dict[str, tuple[str, ...]] = {}
    right = True
    for key, value in table.items():
        if key in ("include", "exclude", *_AXIS_FIXED):
            continue
        if key not in _AXIS_KEYS and key not in BY_KEY:
            checks.record(checks.unknown_key(key, _AXIS_KEYS, (*keys, key), where))
            right = False
            continue
        values = checks.attempt(checks.nonempty, value, (*keys, key), f"{where}.{key}")
        if values is None:
            right = False
        else:
            axes[key] = values
    if not right:
        return None  # the rules and the ids name the axes: they cannot be told now
    include = _rules(checks, name, table, "include", axes)
    exclude = _rules(checks, name, table, "exclude", axes)
    if include is None or exclude is None:
        return None
    return _combinations(checks, name, table, axes, include, exclude)


def _combinations(
    checks: Checks,
    name: str,
    table: dict[str, Any],
    axes: dict[str, tuple[str, ...]],
    include: list[dict[str, str]],
    exclude: list[dict[str, str]],
) -> list[ComboTable] | None:
    keys = ("axes", name)
    assignments = expand(axes, include, exclude)
    if not assignments:
        checks.record(checks.fail(keys, f"axis {name!r}", "every combination is excluded"))
        return None
    varying = [k for k in axes if len({a[k] for a in assignments}) > 1]
    fixed = {k: table[k] for k in _AXIS_FIXED if k in table}
    return [
        ComboTable(
            make_id(slug(name), assignment, varying),
            {**fixed, **assignment},
            keys,
            f"axis {name!r}",
            f"axes.{name}",
        )
        for assignment in assignments
    ]


def _rules(
    checks: Checks,
    name: str,
    table: dict[str, Any],
    rule_key: str,
    axes: dict[str, tuple[str, ...]],
) -> list[dict[str, str]] | None:
    """``include`` (whole combinations to add) or ``exclude`` (values to leave out), each
    entry checked against the axes; None when one is wrong."""
    entries = table.get(rule_key, [])
    at = ("axes", name, rule_key)
    where = f"axis {name!r}.{rule_key}"
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        checks.record(checks.fail(at, where, "expected a list of tables"))
        return None
    right = True
    for i, entry in enumerate(entries):
        label = f"{where}[{i}]"
        for key, value in entry.items():
            if key not in axes:
                checks.record(checks.fail(at, label, f"{key!r} is not an axis of {name!r}"))
                right = False
            elif checks.attempt(checks.string, value, at, f"{label}.{key}") is None:
                right = False
            elif rule_key == "exclude" and value not in axes[key]:
                message = f"{value!r} is not one of the axis values {list(axes[key])}"
                checks.record(checks.fail(at, f"{label}.{key}", message))
                right = False
        missing = sorted(set(axes) - set(entry))
        if rule_key == "include" and missing:
            checks.record(checks.fail(at, label, f"missing axis value(s) {missing}"))
            right = False
    return entries if right else None


def timeline(
    checks: Checks, name: str, table: dict[str, Any], today: dt.date
) -> list[ComboTable] | None:
    """One combo table per date: the timeline's libraries at their newest release that
    day (``latest`` as of it), with the Python of that day unless the table names one."""
    keys = ("timeline", name)
    where = f"timeline {name!r}"
    for key in table:
        if key not in _TIMELINE_KEYS:
            checks.record(
                checks.unknown_key(key, _TIMELINE_KEYS, (*keys, key), where, libraries=False)
            )
    for key in ("start", "libraries"):
        if key not in table:
            checks.record(checks.fail(keys, f"{where}.{key}", "missing"))
    days = _dates(checks, table, keys, where, today)
    libraries = _libraries(checks, table, (*keys, "libraries"), where)
    python = table.get("python", "auto")
    if python != "auto":
        python = checks.attempt(checks.python, python, (*keys, "python"), f"{where}.python")
    tags = checks.attempt(checks.strings, table.get("tags", []), (*keys, "tags"), f"{where}.tags")
    if days is None or libraries is None or python is None or tags is None:
        return None
    ids = [f"{slug(name)}-{day.isoformat()}" for day in days]
    if len(ids[0]) > MAX_ID_LENGTH:  # each id is as long as the first
        checks.record(checks.fail(keys, where, f"name too long for ids like {ids[0]!r}"))
        return None
    fixed: dict[str, Any] = {k: table[k] for k in ("extras", "packages") if k in table}
    return [
        ComboTable(
            combo_id,
            {
                **dict.fromkeys(libraries, "latest"),
                **fixed,
                "as_of": day,
                "python": python_for(day, SUPPORTED_PYTHONS) if python == "auto" else python,
                "tags": [*tags, "timeline"],
                "description": f"{name}: the libraries as of {day.isoformat()}",
            },
            keys,
            where,
            f"timeline.{name}",
        )
        for combo_id, day in zip(ids, days, strict=True)
    ]


def _dates(
    checks: Checks, table: dict[str, Any], keys: tuple[str, ...], where: str, today: dt.date
) -> list[dt.date] | None:
    """``start``, then every ``every`` up to ``end`` (``"today"`` by default)."""
    start = None
    if "start" in table:
        start = checks.attempt(checks.as_of, table["start"], (*keys, "start"), f"{where}.start")
    end_value = table.get("end", "today")
    end = (
        today
        if end_value == "today"
        else checks.attempt(checks.as_of, end_value, (*keys, "end"), f"{where}.end")
    )
    every_value = table.get("every", "6 months")
    every_text = checks.attempt(checks.string, every_value, (*keys, "every"), f"{where}.every")
    try:
        every = None if every_text is None else parse_every(every_text)
        if start is None or end is None or every is None:
            return None
        return dates(start, end, every)
    except ValueError as exc:  # the step, or an end before the start
        checks.record(checks.fail(keys, where, str(exc)))
        return None


def _libraries(
    checks: Checks, table: dict[str, Any], keys: tuple[str, ...], where: str
) -> tuple[str, ...] | None:
    """The timeline's libraries, by their keys; None when one is not a library (kept)."""
    if "libraries" not in table:
        return None  # missing: reported by timeline()
    what = f"{where}.libraries"
    libraries = checks.attempt(checks.nonempty, table["libraries"], keys, what)
    if libraries is None:
        return None
    wrong = [name for name in libraries if (lib := lookup(name)) is None or lib.key != name]
    for name in wrong:
        checks.record(checks.fail(keys, what, unknown_library_message(name)))
    return None if wrong else libraries
