"""A problem, the solutions run against it, and the names of their sources.

Pure data: every benchmark (``harness.benchmarks``) builds ``Problem`` values and everything
downstream reads them, so this module imports nothing else of the harness.

Every problem ends in a DS-1000 style ``code_context`` that defines
``test_execution(solution)``; the executor needs nothing more. Sources of solutions are
``reference`` (the problem's own), ``model:<name>`` (an answers file) and, for our
problems, named idioms such as ``idiom:old``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

REFERENCE = "reference"
MODEL_PREFIX = "model:"
IDIOM_PREFIX = "idiom:"

_IMPORT = re.compile(
    r"^\s*(?:from\s+([A-Za-z_][\w]*)[\w.]*\s+import|import\s+([^#\n]+))", re.MULTILINE
)


@dataclass(frozen=True)
class Change:
    """The API change a problem of ours is built around."""

    kind: str  # removal | rename | signature | default | behaviour
    old_api: str
    new_api: str
    deprecated: str | None  # release that first warned
    changed: str | None  # release where the old idiom stops working (removed or changed)
    notes: str  # release-notes reference


@dataclass(frozen=True, eq=False)
class Problem:
    id: str  # unique across sets: "ds1000/12", "problems/pandas/elementwise-map"
    native_id: str  # the id within its set: "12", "pandas/elementwise-map"
    set_name: str
    library: str  # canonical library key
    prompt: str
    reference_code: str
    code_context: str
    timeout: float | None = None
    idioms: Mapping[str, str] = field(default_factory=dict)  # extra named solutions
    change: Change | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source_file: str = ""
    # Top-level modules the problem's own code imports (its test and its reference):
    # where one is missing from a combo, the problem does not apply there.
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Solution:
    problem_id: str
    source: str  # "reference", "model:<name>" or "idiom:<name>"
    code: str


def imported_modules(*codes: str) -> tuple[str, ...]:
    """Top-level module names in ``import`` statements, also those inside code strings:
    what a problem ``requires``."""
    found: dict[str, None] = {}
    for code in codes:
        for match in _IMPORT.finditer(code):
            if match.group(1):
                found[match.group(1)] = None
            else:
                for part in match.group(2).split(","):
                    name = part.strip().split(" ")[0].split(".")[0]
                    if re.fullmatch(r"[A-Za-z_]\w*", name):
                        found[name] = None
    return tuple(found)
