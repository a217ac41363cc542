"""DS-1000's file written back with its repaired rows: ``reference_code`` and
``code_context`` replaced, the validity in ``metadata.validity``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import ReleaseWriter
from harness.benchmarks.ds1000.load import matches
from harness.core.errors import ProblemError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from harness.benchmarks.base import RepairedFile


def fields(
    row: Mapping[str, Any], number: int, repaired: RepairedFile, _changed: dict[str, list[str]]
) -> dict[str, object]:
    meta = row.get("metadata")
    if not isinstance(meta, dict):
        raise ProblemError(repaired.location, f"line {number}", "metadata is not an object")
    native = str(meta.get("problem_id"))
    code = repaired.code.get(native)
    out: dict[str, object] = {}
    if code:
        out = {"reference_code": code[0], "code_context": code[1]}
    if native in repaired.validity:
        out["metadata"] = {**meta, "validity": repaired.validity[native]}
    return out


WRITER = ReleaseWriter(matches, fields)
