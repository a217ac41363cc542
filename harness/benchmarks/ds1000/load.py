"""DS-1000's rows: the format every other one is compiled into.

A row: ``prompt``, ``reference_code``, ``code_context`` (which defines
``test_execution(solution)``, the check) and ``metadata`` (``problem_id``, ``library``,
optionally ``timeout``). The context runs as it is: nothing to compile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.benchmarks.base import Format, timeout
from harness.core.libraries import canonical
from harness.core.problem import Problem, imported_modules

if TYPE_CHECKING:
    from harness.benchmarks.base import Row

KEYS = ("reference_code", "code_context", "metadata")


def matches(row: dict[str, Any]) -> bool:
    return all(key in row for key in KEYS)


def load_row(row: Row, set_name: str) -> list[Problem]:
    data = row.data
    for key in KEYS:
        if key not in data:
            raise row.fail_line(f"missing key {key!r}")
    meta = data["metadata"]
    if not isinstance(meta, dict) or "problem_id" not in meta:
        raise row.fail_line("metadata.problem_id is missing")
    for key in ("reference_code", "code_context"):
        if not isinstance(data[key], str):
            raise row.fail_line(f"{key} must be a string")
    if "def test_execution(" not in data["code_context"]:
        raise row.fail_line("code_context does not define test_execution()")
    native = str(meta["problem_id"])
    return [
        Problem(
            id=f"{set_name}/{native}",
            native_id=native,
            set_name=set_name,
            library=canonical(str(meta.get("library", ""))),
            prompt=str(data.get("prompt", "")),
            reference_code=data["reference_code"],
            code_context=data["code_context"],
            timeout=timeout(meta.get("timeout"), row.shown, f"line {row.number}"),
            metadata=meta,
            source_file=row.shown,
            requires=imported_modules(data["code_context"], data["reference_code"]),
        )
    ]


FORMAT = Format("ds1000", matches, load_row, rank=50, fallback=True)
