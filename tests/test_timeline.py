"""Dated axes (harness/matrix/timeline.py, ``[timeline.*]`` in matrix.toml): the dates, the
Python of each date, the combos' ids and fields, and one-line errors for bad specs."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import pytest

from harness.core.errors import SpecError
from harness.envside.protocol import SUPPORTED_PYTHONS
from harness.matrix.spec import VersionKind, load
from harness.matrix.timeline import add_months, dates, parse_every, python_for

if TYPE_CHECKING:
    from tests.conftest import Writer

D = dt.date


@pytest.mark.parametrize(
    ("text", "months"), [("6 months", 6), ("1 month", 1), ("1 year", 12), (" 2 years ", 24)]
)
def test_parse_every(text: str, months: int) -> None:
    assert parse_every(text) == months


@pytest.mark.parametrize("text", ["6", "six months", "0 months", "2 weeks", "-1 month"])
def test_bad_steps(text: str) -> None:
    with pytest.raises(ValueError, match="month"):
        parse_every(text)


def test_add_months_keeps_the_day_or_takes_the_months_last() -> None:
    assert add_months(D(2020, 7, 1), 6) == D(2021, 1, 1)
    assert add_months(D(2020, 8, 31), 6) == D(2021, 2, 28)
    assert add_months(D(2023, 8, 31), 6) == D(2024, 2, 29)
    assert add_months(D(2021, 1, 31), 3) == D(2021, 4, 30)


def test_dates_step_from_the_start_and_reach_the_end() -> None:
    assert dates(D(2020, 7, 1), D(2022, 1, 1), 6) == [
        D(2020, 7, 1),
        D(2021, 1, 1),
        D(2021, 7, 1),
        D(2022, 1, 1),
    ]
    # the end is a date of its own when the steps miss it
    assert dates(D(2020, 7, 1), D(2021, 3, 15), 6) == [D(2020, 7, 1), D(2021, 1, 1), D(2021, 3, 15)]
    assert dates(D(2024, 1, 1), D(2024, 1, 1), 6) == [D(2024, 1, 1)]
    with pytest.raises(ValueError, match="before start"):
        dates(D(2024, 1, 1), D(2023, 1, 1), 6)


@pytest.mark.parametrize(
    ("day", "python"),
    [
        (D(2019, 1, 1), "3.8"),  # before any supported Python had aged: the oldest
        (D(2020, 7, 1), "3.8"),
        (D(2021, 4, 4), "3.8"),  # 3.9.0 is a day short of six months old
        (D(2021, 4, 5), "3.9"),
        (D(2022, 7, 1), "3.10"),
        (D(2023, 7, 1), "3.11"),
        (D(2024, 7, 1), "3.12"),
        (D(2025, 7, 1), "3.13"),
        (D(2026, 12, 1), "3.13"),  # 3.14 has aged, but the runner supports up to 3.13
    ],
)
def test_the_python_of_a_date(day: dt.date, python: str) -> None:
    assert python_for(day, SUPPORTED_PYTHONS) == python


def test_a_timeline_expands_into_one_combo_per_date(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [matrix]
        baseline = "core-2021-01-01"
        extras = ["pytest"]

        [combos.fixed]
        python = "3.11"
        numpy = "1.26.4"

        [timeline.core]
        start = 2020-07-01
        end = 2022-01-01
        libraries = ["numpy", "pandas"]
        extras = ["pyarrow"]
        tags = ["dated"]
        """,
    )
    matrix = load(path, display="m.toml", today=D(2030, 1, 1))
    dated = [c for c in matrix.combos if c.origin == "timeline.core"]
    assert [c.id for c in dated] == [
        "core-2020-07-01",
        "core-2021-01-01",
        "core-2021-07-01",
        "core-2022-01-01",
    ]
    assert [c.python for c in dated] == ["3.8", "3.8", "3.9", "3.9"]
    assert [c.as_of for c in dated] == [D(2020, 7, 1), D(2021, 1, 1), D(2021, 7, 1), D(2022, 1, 1)]
    first = dated[0]
    assert [(lib.library, lib.kind) for lib in first.libraries] == [
        ("numpy", VersionKind.LATEST),
        ("pandas", VersionKind.LATEST),
    ]
    assert first.extras == ("pytest", "pyarrow")
    assert first.tags == ("dated", "timeline", "numpy", "pandas")  # no "latest": it is that day's
    assert "baseline" in dated[1].tags
    assert matrix.baseline == "core-2021-01-01"
    assert first.description == "core: the libraries as of 2020-07-01"


def test_a_timeline_ends_today_by_default_and_takes_a_fixed_python(write: Writer) -> None:
    path = write(
        "m.toml",
        """
        [timeline.t]
        start = 2024-01-01
        every = "1 year"
        libraries = ["pandas"]
        python = "3.12"
        """,
    )
    matrix = load(path, today=D(2025, 6, 30))
    assert [c.id for c in matrix.combos] == ["t-2024-01-01", "t-2025-01-01", "t-2025-06-30"]
    assert {c.python for c in matrix.combos} == {"3.12"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('libraries = ["numpy"]\n', "m.toml:1: timeline 't'.start: missing"),
        ("start = 2020-01-01\n", "m.toml:1: timeline 't'.libraries: missing"),
        (
            'start = "July 2020"\nlibraries = ["numpy"]\n',
            "m.toml:2: timeline 't'.start: 'July 2020' is not a date like 2023-06-01",
        ),
        (
            'start = 2020-01-01\nlibraries = ["numpy"]\nevery = "2 weeks"\n',
            "m.toml:1: timeline 't': '2 weeks' is not a step like '6 months' or '1 year'",
        ),
        (
            'start = 2020-01-01\nend = 2019-01-01\nlibraries = ["numpy"]\n',
            "m.toml:1: timeline 't': end 2019-01-01 is before start 2020-01-01",
        ),
        (
            'start = 2020-01-01\nlibraries = ["np"]\n',
            "m.toml:3: timeline 't'.libraries: the library is called 'numpy'",
        ),
        (
            "start = 2020-01-01\nlibraries = []\n",
            "m.toml:3: timeline 't'.libraries: empty list",
        ),
        (
            'start = 2020-01-01\nlibraries = ["numpy"]\nstep = "6 months"\n',
            "m.toml:4: timeline 't': unknown key 'step'",
        ),
        (
            'start = 2020-01-01\nlibraries = ["numpy"]\npython = 3.10\n',
            "m.toml:4: timeline 't'.python: write the version as a string, e.g. \"3.10\"",
        ),
    ],
)
def test_bad_timelines_give_one_located_line(write: Writer, body: str, message: str) -> None:
    path = write("m.toml", "[timeline.t]\n" + body)
    with pytest.raises(SpecError) as info:
        load(path, display="m.toml", today=D(2026, 12, 1))
    assert str(info.value) == message
