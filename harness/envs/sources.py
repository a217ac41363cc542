"""A combo's sourcing (:mod:`harness.matrix.indexes`) as uv takes it.

uv's ``pip`` interface has no option sending one package to one index; a project file
does (``[[tool.uv.index]]`` with ``explicit = true`` and ``[tool.uv.sources]``), and
``uv pip compile`` and ``uv pip sync`` both read one. So a combo with sources resolves
from a small ``pyproject.toml`` of its requirements, and installs from another of its
lock's pins: the same sources, nothing left to resolve. ``torch_backend`` is an option of
both commands. The lock then says which index each package came from (``# from URL``),
and the env's record keeps those that are not the main index.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from harness.matrix.spec import Combo

PROJECT = "harness-combo"  # the project file's own name: never a package anyone installs
_ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==")
_FROM = re.compile(r"^\s+# from (\S+)")


def sourced(combo: Combo) -> bool:
    """Whether ``combo`` says where any package comes from."""
    return bool(combo.sourcing.sources or combo.sourcing.torch_backend)


def uv_options(combo: Combo) -> list[str]:
    """Options for both ``uv pip compile`` and ``uv pip sync``."""
    backend = combo.sourcing.torch_backend
    return ["--torch-backend", backend] if backend else []


def compile_options(combo: Combo) -> list[str]:
    """``uv pip compile``'s options: the lock names each package's index when it matters."""
    return [*uv_options(combo), "--emit-index-annotation"] if sourced(combo) else []


def project(combo: Combo, requirements: Iterable[str]) -> str:
    """A ``pyproject.toml`` asking for ``requirements``, each source's package from its
    index (and only those: explicit indexes)."""
    lines = [
        "# written by harness: which index serves which package (uv reads [tool.uv])",
        "[project]",
        f'name = "{PROJECT}"',
        'version = "0"',
        f"dependencies = {json.dumps(list(requirements))}",
    ]
    indexes = {s.index: s.url for s in combo.sourcing.sources}
    for name, url in indexes.items():
        lines += ["", "[[tool.uv.index]]", f"name = {json.dumps(name)}"]
        lines += [f"url = {json.dumps(url)}", "explicit = true"]
    if combo.sourcing.sources:
        lines += ["", "[tool.uv.sources]"]
        lines += [
            f"{json.dumps(s.package)} = {{ index = {json.dumps(s.index)} }}"
            for s in combo.sourcing.sources
        ]
    return "\n".join(lines) + "\n"


def pinned_project(combo: Combo, pins: Mapping[str, str]) -> str:
    """:func:`project` of exactly a lock's ``pins``: what ``uv pip sync`` installs."""
    return project(combo, [f"{name}=={version}" for name, version in pins.items()])


def indexes_of(lock: str, main: str) -> dict[str, str]:
    """Package → the index it came from, for those the lock says came from another index
    than ``main`` (``uv pip compile --emit-index-annotation``'s ``# from URL``)."""
    found: dict[str, str] = {}
    package = None
    for line in lock.splitlines():
        entry = _ENTRY.match(line)
        if entry:
            package = re.sub(r"[-_.]+", "-", entry.group(1)).lower()
            continue
        origin = _FROM.match(line)
        if origin and package and origin.group(1).rstrip("/") != main.rstrip("/"):
            found[package] = origin.group(1)
    return found
