"""``harness init``: a benchmark's repository adopts the harness.

Writes a starter ``matrix.toml`` into the project and, with ``github``, the workflow that
calls our reusable one (``docs/examples/harness-caller.yml``, pinned to this version).
Nothing is ever overwritten: when one of the files exists, none is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.core import defaults
from harness.core.errors import UsageError
from harness.matrix import spec

STARTER = Path(__file__).resolve().parents[1] / "data" / "init" / "matrix.toml"
WORKFLOW = Path(".github") / "workflows" / "harness.yml"


@dataclass(frozen=True)
class Initialised:
    """What ``harness init`` wrote, relative to the project."""

    root: Path
    written: tuple[Path, ...]

    def lines(self) -> list[str]:
        out = [f"wrote {path}" for path in self.written]
        out.append("next: `harness combos` lists the combos; `harness run` runs them")
        if WORKFLOW in self.written:
            out.append(
                f"commit {WORKFLOW} and matrix.toml: the workflow runs nightly and opens an "
                "issue with what changed (its inputs: docs/github-actions.md)"
            )
        return out


def files(*, github: bool) -> dict[Path, str]:
    """The files ``harness init`` writes (relative paths) and their text."""
    chosen = {Path(defaults.MATRIX_FILE): STARTER.read_text(encoding="utf-8")}
    if github:
        chosen[WORKFLOW] = defaults.caller_workflow().read_text(encoding="utf-8")
    return chosen


def init(root: Path, *, github: bool = False) -> Initialised:
    """Write the starter files into ``root``; refuse (writing nothing) where one exists."""
    if not root.is_dir():
        raise UsageError(f"{root}: no such directory")
    chosen = files(github=github)
    present = [path for path in chosen if (root / path).exists()]
    if present:
        names = ", ".join(str(root / path) for path in present)
        raise UsageError(
            f"{names}: already exists; harness init never overwrites (nothing written)"
        )
    for path, text in chosen.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8") as out:  # "x": never over a file made meanwhile
            out.write(text)
    spec.load(root / defaults.MATRIX_FILE)  # what we wrote parses: a broken starter is our bug
    return Initialised(root, tuple(chosen))
