"""``harness validate-problems``: each of our problems breaks exactly in the release its
metadata names (the checks are ``harness.labs.validate``'s), its trials hiding the problem
files as every execution does."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.core import defaults
from harness.core.errors import UsageError
from harness.execute import options as execution_options
from harness.execute.runner import RunOptions
from harness.labs import validate
from harness.matrix import spec
from harness.problems import sets as problemsets

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def validate_problems(
    locations: Sequence[str],
    env_root: Path,
    *,
    libraries: Sequence[str] = (),
    ids: Sequence[str] = (),
    per_library: int | None = None,
    span: str = "full",
    near: Sequence[str] = (),
    jobs: int = 1,
    log: Callable[[str], None] = lambda _m: None,
    write_json: Path | None = None,
    write_table: Path | None = None,
    command: str = "harness validate-problems",
) -> validate.Validation:
    """Validate the problems at ``locations`` (default: ours), chosen by library and id;
    the checks are written as JSON to ``write_json``, and as a table dated today that
    names the ``command`` into the README at ``write_table``."""
    if write_table is not None and not write_table.is_file():
        raise UsageError(f"--write-table {write_table}: no such file")
    paths = problemsets.resolve(locations)
    matrix = spec.load(defaults.MATRIX_FILE) if Path(defaults.MATRIX_FILE).is_file() else None
    options = execution_options.for_problems(
        jobs=jobs,
        timeout=matrix.timeout if matrix else RunOptions().timeout,
        problem_paths=paths,
    )
    result = validate.check_problems(
        problemsets.load_problems(paths),
        env_root,
        libraries=libraries,
        ids=ids,
        per_library=per_library,
        span=span,
        near=near,
        options=options,
        log=log,
    )
    if write_json is not None:
        result.save_json(write_json)
    if write_table is not None:
        result.save_table(write_table, command)
    return result
