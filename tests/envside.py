"""The env side run as the host runs it, on a batch a test wrote: under this interpreter
(it is stdlib-only), its lines read back as the host reads them."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from harness.envs.build import ENVSIDE
from harness.envside import protocol

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


def run_envside(
    tmp_path: Path,
    batch: dict[str, Any],
    *,
    check: bool = False,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
) -> tuple[int, list[Any]]:
    """``envside run`` on ``batch`` (written under ``tmp_path``, again on a later call):
    its exit code and its lines, in the order they arrived (outcome lines as executions
    ended, then the done line). With ``check``, a non-zero exit raises before any line is
    read; ``env`` is its environment (this process's when None)."""
    path = tmp_path / "batch" / "batch.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(batch))
    proc = subprocess.run(
        [sys.executable, "-s", str(ENVSIDE), "run", str(path)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
        env=env,
    )
    return proc.returncode, [protocol.read_line(line) for line in proc.stdout.splitlines()]


def benchmark_side(module: str) -> Any:
    """A benchmark's own env-side module (``"bigcodebench.check"``), imported as the env
    side imports it: ``harness.envside.benchmarks.bigcodebench.check`` on the host (its
    folder, ``harness/benchmarks/bigcodebench/envside``, made a package of that name)."""
    return importlib.import_module(f"harness.envside.benchmarks.{module}")
