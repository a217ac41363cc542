"""GitChameleon 2.0: 328 version-conditioned problems with hidden pytest tests, each in
an environment of its own (Apache-2.0). Here: its dataset and hidden tests (``load``),
its generation files (``answers``) and its grader's verdicts (``verdicts``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.benchmarks.base import Benchmark, Layout, NamedSet
from harness.benchmarks.gitchameleon import answers, audit, load, verdicts

if TYPE_CHECKING:
    from pathlib import Path

    from harness.core.problem import Problem

COMMIT = "630daf9d8b64b2884fe2d0aa165c8a612932885e"
REPOSITORY = "https://github.com/mrcabbage972/GitChameleonBenchmark"


def _archive(folder: Path) -> list[Problem] | None:
    found = load.datasets_in(folder)
    return [p for dataset in found for p in load.load_file(dataset, str(dataset))] or None


BENCHMARK = Benchmark(
    name="gitchameleon",
    title="GitChameleon 2.0",
    audit=audit.AUDIT,
    formats=(load.FORMAT,),
    layout=Layout(
        archive=_archive,
        holds=f"GitChameleon dataset ({load.DATASET} beside {load.HIDDEN_TESTS}/)",
        companion=load.is_companion,
    ),
    named=(
        NamedSet(
            # GitHub's archive of the whole repository at the commit the copy in
            # ../shared/data was taken from (its dataset/ folder, by ``git archive``): GitHub
            # makes no archive of one folder, and the loader finds dataset/ inside. Not
            # fetched from here, so not pinned; GitHub's archives are generated, and their
            # bytes are not promised to stay the same anyway.
            name="gitchameleon",
            url=f"{REPOSITORY}/archive/{COMMIT}.tar.gz",
            sha256=None,
            format="gitchameleon",
            licence="Apache-2.0",
            homepage=REPOSITORY,
        ),
    ),
    shapes=(answers.SHAPE,),
    verdicts=verdicts.FILE,
    calls_answer=True,
)
