"""CIBench: data-science sessions graded step by step (Apache-2.0). Here: its JSONL rows
(``load``), its experiments as published (``notebooks``, ``published``: Markdown and
executed notebooks, with their data files), its sessions files (``answers``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.benchmarks.base import Benchmark, Layout, NamedSet
from harness.benchmarks.cibench import answers, load, published

if TYPE_CHECKING:
    from pathlib import Path

    from harness.core.problem import Problem


def _folder(root: Path) -> list[Problem]:
    return published.load_folder(root) if published.experiments_in(root) else []


def _archive(folder: Path) -> list[Problem] | None:
    return published.load_folder(folder) if published.experiments_in(folder) else None


def _alias(problem: Problem) -> str | None:
    """An oracle session answers to its task's id: an answer names the task."""
    if problem.metadata.get("oracle"):
        return problem.id.removesuffix(load.ORACLE_SUFFIX)
    return None


BENCHMARK = Benchmark(
    name="cibench",
    title="CIBench",
    formats=(load.FORMAT,),
    layout=Layout(
        folder=_folder,
        archive=_archive,
        holds="CIBench experiment",
        suffixes=published.SUFFIXES,
        file=published.load_experiment,
    ),
    named=(
        NamedSet(
            name="cibench",
            url="https://github.com/open-compass/opencompass/releases/download/0.2.4.rc1/cibench_dataset.zip",
            sha256=None,
            format="cibench-notebooks",
            licence="Apache-2.0",
            homepage="https://github.com/open-compass/CIBench",
            refused=(
                "get the official cibench_dataset.zip (executed notebooks, with upstream's "
                "outputs) from OpenCompass's release 0.2.4.rc1 and pass that file by path: "
                "--problems /path/to/cibench_dataset.zip; the published Markdown reads too "
                "(its .tar.gz, folder or one .md)"
            ),
        ),
    ),
    shapes=(answers.SHAPE,),
    calls_answer=True,
    environment=published.environment,
    derives=published.DERIVES,
    aliases=_alias,
)
