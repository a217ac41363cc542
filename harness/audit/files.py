"""An audit's files in its run's directory, read and written here only (the run's own
files are :class:`~harness.execute.rundir.RunDir`'s)::

    audit-probes.jsonl   the answers the audit graded besides the references, one a line
    audit.json           what it found of each problem's tests (harness.audit.health)
    audit.md             the same, to read, with the surviving mutants' diffs
    confirm/             the copies of the references that judge survivors (no repeats)
    repeats/<k>/         its further runs of the references, each a run directory
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.errors import RunFileError
from harness.execute.rundir import RunDir

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class AuditFiles:
    run: RunDir

    @property
    def probes(self) -> Path:
        return self.run.root / "audit-probes.jsonl"

    @property
    def json(self) -> Path:
        return self.run.root / "audit.json"

    @property
    def markdown(self) -> Path:
        return self.run.root / "audit.md"

    @property
    def confirm(self) -> RunDir:
        """The run of the copies of references that judge survivors, in an audit
        without repeats (``probes.copies``)."""
        return RunDir(self.run.root / "confirm")

    def repeat(self, k: int) -> RunDir:
        """The ``k``-th further run of the references (1, 2, …)."""
        return RunDir(self.run.root / "repeats" / str(k))

    def repeats(self) -> list[tuple[int, RunDir]]:
        """The further runs there are, by number."""
        found = sorted(
            int(p.name) for p in (self.run.root / "repeats").glob("*") if p.name.isdigit()
        )
        return [(k, self.repeat(k)) for k in found]

    def cells(self) -> dict[str, str]:
        """Each audited problem's tests in a few words (report.html's column); empty
        when the run is not an audit."""
        cells = _read(self.json, "cells")
        if cells is None:
            return {}
        if not isinstance(cells, dict) or not all(isinstance(v, str) for v in cells.values()):
            raise RunFileError(str(self.json), "cells", "not an object of strings")
        return {str(k): v for k, v in cells.items()}


def flagged(path: Path) -> dict[str, list[str]]:
    """The problems each flag names in the audit.json at ``path`` (an audit's, or a copy
    kept from an earlier night)."""
    named = _read(path, "flagged")
    if named is None:
        raise RunFileError(str(path), None, "not found, or not an audit.json")
    if not isinstance(named, dict) or not all(
        isinstance(v, list) and all(isinstance(p, str) for p in v) for v in named.values()
    ):
        raise RunFileError(str(path), "flagged", "not an object of lists of problem ids")
    return {str(k): list(v) for k, v in named.items()}


def _read(path: Path, key: str) -> Any:
    """``key`` of the JSON object at ``path``; None when there is no such file or key."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RunFileError(str(path), None, f"not JSON ({exc})") from None
    return data.get(key) if isinstance(data, dict) else None
