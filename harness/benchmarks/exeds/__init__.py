"""ExeDS: notebook cells whose printed output is the answer (MIT; notebooks from JuICe).
Its rows (``load``); published as a Google Drive folder, so listed, not fetched."""

from harness.benchmarks.base import Benchmark, NamedSet
from harness.benchmarks.exeds import load

BENCHMARK = Benchmark(
    name="exeds",
    title="ExeDS",
    formats=(load.FORMAT,),
    named=(
        NamedSet(
            name="exeds",
            url="https://drive.google.com/drive/folders/1gX07Uxawj5ch7mvlFKxlDTzAsopZPIxn",
            sha256=None,
            format="exeds-notebooks",
            licence="MIT (code); notebooks from JuICe",
            homepage="https://github.com/Jun-jie-Huang/ExeDS",
            refused=(
                "published as a Google Drive folder (exeds_test.json, answers.csv and the "
                "notebooks with their data), not one file; build ExeDS JSONL rows "
                "(problem_id, cells, reference, expected_output) and pass that file by path"
            ),
        ),
    ),
)
