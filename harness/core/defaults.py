"""The embedded default: the matrix and the problem suite that ship inside the package.

``harness run`` in a folder without a ``matrix.toml`` (or a ``problems/``) runs these, and
says so (:func:`notice`). In a wheel they are ``harness/default/``: pyproject.toml's
``force-include`` copies the repository's top-level ``matrix.toml`` and ``problems/``
there. In a clone (or an editable install) they are those very files, so the two never
differ.

"The default" is asked for by leaving ``--matrix`` and ``--problems`` out (or by naming
``matrix.toml`` itself): a file named on purpose that is missing stays an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from harness.core.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

MATRIX_FILE = "matrix.toml"
PROBLEMS_DIR = "problems"
CALLER = "harness-caller.yml"  # docs/examples/: the workflow `harness init --github` writes
_PACKAGE = Path(__file__).resolve().parents[1]


def embedded_root() -> Path:
    """The folder holding the embedded ``matrix.toml`` and ``problems/``."""
    for root in (_PACKAGE / "default", _PACKAGE.parent):  # a wheel's, a clone's
        if (root / MATRIX_FILE).is_file() and (root / PROBLEMS_DIR).is_dir():
            return root
    raise UsageError(
        f"{MATRIX_FILE}: not found here, and this installation of harness has no embedded "
        f"default ({_PACKAGE / 'default'} is missing): give --matrix"
    )


def caller_workflow() -> Path:
    """The caller of our reusable workflow, as the docs show it (a wheel ships it too)."""
    for path in (_PACKAGE / "default" / CALLER, _PACKAGE.parent / "docs" / "examples" / CALLER):
        if path.is_file():
            return path
    raise UsageError(f"{CALLER}: this installation of harness does not ship it")


def matrix(given: str | Path | None = None) -> str:
    """The matrix file to read: ``given``; for the default (None or ``matrix.toml``), the
    one in this folder if there is one, else the embedded one."""
    name = str(given) if given else MATRIX_FILE
    if name != MATRIX_FILE or Path(name).is_file():
        return name
    return str(embedded_root() / MATRIX_FILE)


def problems() -> tuple[str, ...]:
    """The problem sets run when none is given: ``problems/`` here, else the embedded one."""
    if Path(PROBLEMS_DIR).is_dir():
        return (PROBLEMS_DIR,)
    return (str(embedded_root() / PROBLEMS_DIR),)


def notice(matrix_given: str | None, problems_given: Sequence[str] | None) -> str | None:
    """One line saying that the embedded default stands in for a missing ``matrix.toml``
    or ``problems/`` (None when nothing does). Either None: the command does not read it
    (or reads another, such as a run's own)."""
    missing = []
    if matrix_given == MATRIX_FILE and not Path(MATRIX_FILE).is_file():
        missing.append(MATRIX_FILE)
    if problems_given is not None and not problems_given and not Path(PROBLEMS_DIR).is_dir():
        missing.append(f"{PROBLEMS_DIR}/")
    if not missing:
        return None
    return (
        f"no {' or '.join(missing)} here: using the embedded default ({embedded_root()}); "
        "`harness init` writes a matrix.toml to start from"
    )
