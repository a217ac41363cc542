"""Datasets some problems download at run time, fetched once into a local cache.

Seaborn's ``load_dataset`` and scikit-learn's ``fetch_*`` functions go to the network
unless their data is already in their data home. ``harness fetch-data`` fills that
cache on a machine with internet access; runs point the libraries at it
(``SEABORN_DATA``, ``SCIKIT_LEARN_DATA``) whenever it exists, so the problems work
offline. Without it, those executions fail as ``needs-network``, never as drift.
"""

from __future__ import annotations

import os
import re
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.core import defaults
from harness.core.errors import UsageError
from harness.envs.build import EnvBuilder
from harness.matrix import spec
from harness.matrix.package_index import Index

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.core.problem import Problem
    from harness.envs.build import EnvInfo


SEABORN_URL = "https://raw.githubusercontent.com/mwaskom/seaborn-data/master"
_SEABORN = re.compile(r"""load_dataset\(\s*["']([\w-]+)["']""")
_SKLEARN = re.compile(r"\b(fetch_\w+)\s*\(")


def data_dir() -> Path:
    """The cache: ``$HARNESS_DATA_DIR``, or ``~/.cache/ds-matrix-harness/data``."""
    configured = os.environ.get("HARNESS_DATA_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ds-matrix-harness" / "data"


def environment(root: Path | None = None) -> dict[str, str]:
    """The variables that point the libraries at the cache, for the parts that exist."""
    root = root or data_dir()
    env = {}
    if (root / "seaborn").is_dir():
        env["SEABORN_DATA"] = str(root / "seaborn")
    if (root / "sklearn").is_dir():
        env["SCIKIT_LEARN_DATA"] = str(root / "sklearn")
    return env


@dataclass(frozen=True)
class Needs:
    seaborn: Sequence[str] = field(default_factory=list)  # dataset names
    sklearn: Sequence[str] = field(default_factory=list)  # fetcher function names


def needed(problems: Sequence[Problem]) -> Needs:
    """The datasets the problems' own code (context and reference) loads."""
    seaborn: dict[str, None] = {}
    sklearn: dict[str, None] = {}
    for p in problems:
        text = p.code_context + "\n" + p.reference_code
        seaborn.update(dict.fromkeys(_SEABORN.findall(text)))
        sklearn.update(dict.fromkeys(f for f in _SKLEARN.findall(text) if f != "fetch_file"))
    return Needs(sorted(seaborn), sorted(sklearn))


@dataclass(frozen=True)
class Fetched:
    name: str
    ok: bool
    detail: str


def fetch_seaborn(names: Sequence[str], root: Path, base_url: str = SEABORN_URL) -> list[Fetched]:
    target = root / "seaborn"
    target.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        path = target / f"{name}.csv"
        if path.is_file():
            out.append(Fetched(name, True, "already cached"))
            continue
        url = f"{base_url.rstrip('/')}/{name}.csv"
        try:
            with urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 - configured URL
                data = response.read()
        except (urllib.error.URLError, OSError) as exc:
            out.append(Fetched(name, False, f"{url}: {getattr(exc, 'reason', exc)}"))
            continue
        partial = path.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(path)
        out.append(Fetched(name, True, f"{len(data)} bytes"))
    return out


def fetch_sklearn(fetchers: Sequence[str], root: Path, env: EnvInfo) -> list[Fetched]:
    """Call each fetcher once inside ``env`` so that it fills ``root/sklearn``."""
    target = root / "sklearn"
    target.mkdir(parents=True, exist_ok=True)
    out = []
    for fetcher in fetchers:
        code = f"from sklearn.datasets import {fetcher}; {fetcher}(data_home={str(target)!r})"
        proc = subprocess.run(
            [str(env.python_exe), "-c", code],
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        last = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        out.append(
            Fetched(fetcher, proc.returncode == 0, "cached" if proc.returncode == 0 else last)
        )
    return out


def fetch(
    problems: Sequence[Problem],
    root: Path,
    seaborn_url: str,
    *,
    matrix: str,
    combo: str | None,
    env_root: Path,
) -> list[Fetched]:
    """Download into ``root`` the datasets ``problems`` load at run time;
    scikit-learn's through its own fetchers, in the env of ``combo`` (default: baseline)."""
    needs = needed(problems)
    fetched = fetch_seaborn(needs.seaborn, root, seaborn_url)
    if needs.sklearn:
        loaded = spec.load(defaults.matrix(matrix))
        chosen = loaded.by_id.get(combo or loaded.baseline)
        if chosen is None:
            raise UsageError(f"--combo {combo!r}: no such combo")
        env, _ = EnvBuilder(env_root, Index(loaded.index_url)).build(chosen)
        if not env.ok:
            raise UsageError(f"combo {chosen.id!r} cannot be built: {env.error}")
        fetched += fetch_sklearn(needs.sklearn, root, env)
    return fetched


def fetched_lines(fetched: Sequence[Fetched], root: Path) -> list[str]:
    """What ``harness fetch-data`` prints: each dataset, then the count."""
    lines = [f"{'ok    ' if f.ok else 'FAILED'} {f.name}: {f.detail}" for f in fetched]
    return [*lines, f"{sum(f.ok for f in fetched)}/{len(fetched)} datasets in {root}"]
