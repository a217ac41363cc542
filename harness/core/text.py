"""Small text helpers shared by every layer."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def split(values: Sequence[str]) -> list[str]:
    """``["a,b", "c"]`` → ``["a", "b", "c"]``: options that take comma-separated lists."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]
