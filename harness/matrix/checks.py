"""The located checks of ``matrix.toml``'s values, and every mistake they find.

A check takes a value, the TOML keys it sits at (for the line) and the words that name
it in messages (``combo 'a'.numpy``); it returns the value typed, or raises a located
:class:`~harness.core.errors.SpecError`. A walk does not stop at the first: it runs a
check through :meth:`Checks.attempt`, which keeps the mistake, and goes on with what it
can; :meth:`Checks.raise_found` raises them all at the end, in file order, the way
``packaging.metadata`` gathers its errors before it raises them.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from harness.core.errors import SpecError, SpecErrorGroup
from harness.core.libraries import BY_KEY, LIBRARIES, lookup
from harness.envside.protocol import SUPPORTED_PYTHONS

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from harness.core.tomlfile import TomlFile

P = ParamSpec("P")
T = TypeVar("T")

MIN_PYTHON = Version(SUPPORTED_PYTHONS[0])  # the env-side runner's floor

# ``key = <number>`` on one line, to quote a number as written (``3.10``, not ``3.1``)
_NUMBER_VALUE = re.compile(
    r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*=\s*([+-]?\d[\d_]*(?:\.[\d_]+)?)\s*(?:#.*)?$"""
)


class Checks:
    """The checks of one document's values, and the mistakes found in it so far."""

    def __init__(self, doc: TomlFile) -> None:
        self.doc = doc
        # by message: the same mistake met twice (an axis's extras, checked in each of its
        # combos) is one mistake, said once
        self._found: dict[str, SpecError] = {}

    def fail(self, keys: Sequence[str], what: str | None, message: str) -> SpecError:
        return SpecError(self.doc.display, what, message, line=self.doc.line_of(*keys))

    def record(self, error: SpecError) -> None:
        self._found.setdefault(str(error), error)

    def attempt(self, check: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T | None:
        """``check``'s value, or None when it found a mistake (kept)."""
        try:
            return check(*args, **kwargs)
        except SpecError as error:
            self.record(error)
            return None

    def raise_found(self) -> None:
        """Raise every mistake kept, by line (those without one last), if there is any:
        one alone as itself, so its message is the same as when it was the only check."""
        found = sorted(self._found.values(), key=lambda e: (e.line is None, e.line or 0))
        if len(found) == 1:
            raise found[0]
        if found:
            raise SpecErrorGroup(found)

    # -- checks: the value typed, or a located SpecError ---------------------------------
    def string(self, value: Any, keys: Sequence[str], what: str) -> str:
        if not isinstance(value, str):
            raise self.fail(keys, what, f"expected a string, got {describe(value)}")
        return value

    def strings(self, value: Any, keys: Sequence[str], what: str) -> tuple[str, ...]:
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(keys, what, f"expected a list of strings, got {describe(value)}")
        return tuple(value)

    def nonempty(self, value: Any, keys: Sequence[str], what: str) -> tuple[str, ...]:
        """A list of strings with one at least."""
        values = self.strings(value, keys, what)
        if not values:
            raise self.fail(keys, what, "empty list")
        return values

    def table(self, value: Any, keys: Sequence[str], what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(keys, what, f"expected a table, got {describe(value)}")
        return value

    def boolean(self, value: Any, keys: Sequence[str], what: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(keys, what, f"expected true or false, got {describe(value)}")
        return value

    def positive(self, value: Any, keys: Sequence[str], what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(
                keys, what, f"expected a whole number of at least 1, got {describe(value)}"
            )
        return value

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

    def project(self, text: str, keys: Sequence[str], what: str) -> str:
        """A distribution's name alone (no version): ``wordninja``."""
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            requirement = None
        if requirement is None or str(requirement) != requirement.name:
            raise self.fail(keys, what, f"{text!r} is not a package name")
        return canonicalize_name(requirement.name)

    def url(self, value: Any, keys: Sequence[str], what: str) -> str:
        text = self.string(value, keys, what)
        if not re.match(r"^(https?|file)://[^\s]+$", text):
            raise self.fail(keys, what, f"{text!r} is not an http(s) or file URL")
        return text

    def unknown_key(
        self,
        key: str,
        allowed: Sequence[str],
        keys: Sequence[str],
        what: str,
        *,
        libraries: bool = True,
    ) -> SpecError:
        """The mistake of a key the table does not take, with the name it may have meant."""
        lib = lookup(key) if libraries else None
        if lib is not None and lib.key != key:
            hint = f"unknown key {key!r}: the library is called {lib.key!r}"
        else:
            names = [*allowed, *BY_KEY] if libraries else list(allowed)
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
            if not close and libraries:
                hint += "; other packages go in 'extras'"
        return self.fail(keys, what, hint)

    # -- walks of a list or a table: the good entries, each mistake kept ------------------
    def each(
        self,
        check: Callable[[str, Sequence[str], str], T],
        value: Any,
        keys: Sequence[str],
        what: str,
    ) -> tuple[T, ...]:
        """``check`` on every string of the list ``value`` (``extras = [...]``)."""
        texts = self.attempt(self.strings, value, keys, what) or ()
        checked = (self.attempt(check, text, keys, what) for text in texts)
        return tuple(item for item in checked if item is not None)

    def packages(self, value: Any, keys: Sequence[str], what: str) -> dict[str, str]:
        """``{ library = "distribution" }``: what to install for a library."""
        out = {}
        for name, package in (self.attempt(self.table, value, keys, what) or {}).items():
            lib = lookup(name)
            if lib is None or lib.key != name:
                self.record(self.fail(keys, f"{what}.{name}", unknown_library_message(name)))
                continue
            text = self.attempt(self.string, package, keys, f"{what}.{name}")
            requirement = None if text is None else self.attempt(self.requirement, text, keys, what)
            if requirement is not None:
                out[name] = requirement
        return out


def unknown_library_message(name: str) -> str:
    lib = lookup(name)
    if lib is not None:
        return f"the library is called {lib.key!r}"
    return f"{name!r} is not one of {', '.join(lib.key for lib in LIBRARIES)}"


def describe(value: Any) -> str:
    """A value's type and value, as a message names what it got."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"
