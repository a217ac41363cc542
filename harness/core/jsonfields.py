"""Typed reading of the JSON files this harness writes and reads back (a run's
``run.json``, ``releases.json``): a value of the wrong type is a one-line
:class:`~harness.core.errors.RunFileError` naming the file and the dotted key, never a
traceback or a silently wrong value.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from harness.core.errors import RunFileError


class Fields:
    """Typed access to one JSON object of a file; a mistake names the file and key."""

    def __init__(self, data: object, file: str, where: str = "") -> None:
        if not isinstance(data, dict):
            raise RunFileError(file, where or None, f"expected an object, got {_shown(data)}")
        self.data: dict[str, Any] = data
        self.file = file
        self.where = where

    def _key(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key: str, expected: str) -> NoReturn:
        raise RunFileError(
            self.file, self._key(key), f"expected {expected}, got {_shown(self.data[key])}"
        )

    def text(self, key: str, default: str) -> str:
        value = self.data.get(key, default)
        return value if isinstance(value, str) else self.fail(key, "a string")

    def optional_text(self, key: str, default: str | None = None) -> str | None:
        value = self.data.get(key, default)
        return value if value is None or isinstance(value, str) else self.fail(key, "a string")

    def texts(self, key: str, default: tuple[str, ...] = ()) -> tuple[str, ...]:
        value = self.data.get(key, list(default))
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, "a list of strings")
        return tuple(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        return value if isinstance(value, bool) else self.fail(key, "true or false")

    def integer(self, key: str, default: int) -> int:
        value = self.optional_integer(key, default)
        return value if value is not None else self.fail(key, "an integer")

    def optional_integer(self, key: str, default: int | None = None) -> int | None:
        value = self.data.get(key, default)
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        return self.fail(key, "an integer")

    def optional_number(self, key: str, default: float | None = None) -> float | None:
        value = self.data.get(key, default)
        if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
            return None if value is None else float(value)
        return self.fail(key, "a number")

    def table(self, key: str) -> Fields | None:
        """The object at ``key``; None when it is missing or null."""
        value = self.data.get(key)
        return None if value is None else Fields(value, self.file, self._key(key))

    def tables(self, key: str) -> list[Fields]:
        value = self.data.get(key, [])
        if not isinstance(value, list):
            self.fail(key, "a list")
        return [Fields(v, self.file, f"{self._key(key)}[{i}]") for i, v in enumerate(value)]


def _shown(value: object) -> str:
    text = json.dumps(value) if not isinstance(value, dict) else "an object"
    return text if len(text) <= 60 else text[:59] + "…"
