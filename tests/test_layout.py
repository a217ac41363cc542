"""The two sides of the process boundary stay apart.

The env side (``harness/envside/``) runs on every combo's interpreter, Python 3.8 to
3.13, with nothing installed but the libraries under test: it must parse as Python 3.8
and import only the standard library and its own modules. The host never imports it to
run it (it starts its launcher with another interpreter), so no host module may import
it either.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

ENVSIDE = ROOT / "harness" / "envside"
HOST = [p for p in (ROOT / "harness").rglob("*.py") if ENVSIDE not in p.parents]
ENV_FILES = sorted(ENVSIDE.glob("*.py"))


def imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    """(absolute module name or '.relative', level) of every import in ``tree``."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.module or "", node.level))
    return found


def test_the_env_side_is_one_folder_of_modules() -> None:
    assert {p.name for p in ENV_FILES} >= {
        "__init__.py",
        "__main__.py",
        "entry.py",
        "protocol.py",
        "scheduler.py",
        "execution.py",
        "sandbox.py",
        "guard.py",
        "transport.py",
        "formatlib.py",
    }
    assert not list(ENVSIDE.glob("*/*.py")), "the env side is flat: one module per concept"


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_env_side_parses_as_python_38(path: Path) -> None:
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 8))


@pytest.mark.parametrize("path", ENV_FILES, ids=lambda p: p.name)
def test_env_side_imports_only_the_standard_library(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    foreign = [
        name
        for name, level in imported_modules(tree)
        if level == 0 and name != "__future__" and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert foreign == []


def test_host_modules_never_import_the_env_side() -> None:
    offenders = []
    for path in HOST:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, level in imported_modules(tree):
            resolved = name if level == 0 else f"(relative){name}"
            if name.startswith("harness.envside") or "envside" in resolved.split("."):
                offenders.append(f"{path.relative_to(ROOT)}: {name}")
    assert offenders == []


def test_a_constant_of_the_protocol_is_defined_once() -> None:
    definitions = [
        path.name
        for path in ENV_FILES + HOST
        if 'RUNS_SOLUTION = "' in path.read_text(encoding="utf-8")
    ]
    assert definitions == ["protocol.py"]
