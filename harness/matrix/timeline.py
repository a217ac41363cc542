"""Dated axes: the dates of a ``[timeline.*]`` table, and the Python of each date.

A timeline is one combo per date, every library at its newest release of that day
(uv's ``--exclude-newer``). Kept free of the spec's dataclasses, like
:mod:`harness.matrix.combos`, so that it can be tested as plain data.

The Python of a date is the newest CPython minor release that was at least
:data:`PYTHON_LAG_MONTHS` months old that day (among those the env-side runner
supports): data-science wheels for a new Python arrive over its first months (NumPy
and pandas within weeks, PyTorch within a few months, TensorFlow up to a year), and
users moved later still. Dates before the oldest supported Python had aged so get
that oldest one.
"""

from __future__ import annotations

import datetime as dt
import re

# CPython's x.y.0 releases (python.org), the facts the rule stands on
PYTHON_RELEASES: dict[str, dt.date] = {
    "3.8": dt.date(2019, 10, 14),
    "3.9": dt.date(2020, 10, 5),
    "3.10": dt.date(2021, 10, 4),
    "3.11": dt.date(2022, 10, 24),
    "3.12": dt.date(2023, 10, 2),
    "3.13": dt.date(2024, 10, 7),
    "3.14": dt.date(2025, 10, 7),
}
PYTHON_LAG_MONTHS = 6

_EVERY = re.compile(r"^\s*(\d+)\s*(month|months|year|years)\s*$")


def parse_every(text: str) -> int:
    """``"6 months"`` → 6, ``"1 year"`` → 12; ``ValueError`` with the reason otherwise."""
    found = _EVERY.match(text)
    if not found:
        raise ValueError(f"{text!r} is not a step like '6 months' or '1 year'")
    count = int(found.group(1)) * (12 if found.group(2).startswith("year") else 1)
    if count <= 0:
        raise ValueError(f"{text!r}: the step must be at least one month")
    return count


def add_months(day: dt.date, months: int) -> dt.date:
    """``day`` moved by ``months``, on the same day of the month or the month's last."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    for candidate in (day.day, 30, 29, 28):
        try:
            return dt.date(year, month, min(day.day, candidate))
        except ValueError:
            continue
    raise AssertionError("unreachable: every month has a 28th")


def dates(start: dt.date, end: dt.date, every_months: int) -> list[dt.date]:
    """``start``, then every ``every_months`` up to ``end``; ``end`` itself closes the
    list when the steps miss it (a timeline reaches the day it names)."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    out = []
    step = 0
    while (day := add_months(start, step * every_months)) <= end:
        out.append(day)
        step += 1
    if out[-1] != end:
        out.append(end)
    return out


def python_for(day: dt.date, supported: tuple[str, ...]) -> str:
    """The newest of ``supported`` whose x.y.0 was :data:`PYTHON_LAG_MONTHS` old on ``day``."""
    known = [v for v in supported if v in PYTHON_RELEASES]
    if not known:
        raise ValueError(f"no release date known for any of {', '.join(supported)}")
    aged = [v for v in known if add_months(PYTHON_RELEASES[v], PYTHON_LAG_MONTHS) <= day]
    return max(aged or known[:1], key=lambda v: PYTHON_RELEASES[v])
