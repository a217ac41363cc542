"""BigCodeBench: 1,140 tasks whose ``unittest`` suites call the answer's function
(Apache-2.0). Here: its rows (``load``), its sample files and sanitising (``answers``,
``sanitize``), its grader's verdicts (``verdicts``), and its repaired releases
(``release``, with the reviewed hand fixes ``fixes`` and ``fixes.toml``)."""

from harness.benchmarks.base import Benchmark, NamedSet, Repairs
from harness.benchmarks.bigcodebench import answers, audit, fixes, load, verdicts

RELEASE = "https://github.com/bigcode-project/bigcodebench-annotation/releases/download/v0.1.5"
BIGCODEBENCH_RELEASE = RELEASE

BENCHMARK = Benchmark(
    name="bigcodebench",
    title="BigCodeBench",
    audit=audit.AUDIT,
    formats=(load.FORMAT,),
    named=(
        NamedSet(
            # The release asset bigcodebench's own loader falls back to
            # (bigcodebench/data/utils.py, get_dataset_metadata); its bytes could not be
            # fetched to pin them, and the copy in ../shared/data was rebuilt, not downloaded.
            name="bigcodebench",
            url=f"{BIGCODEBENCH_RELEASE}/BigCodeBench.jsonl.gz",
            sha256=None,
            format="bigcodebench",
            licence="Apache-2.0",
            homepage="https://github.com/bigcode-project/bigcodebench",
        ),
        NamedSet(
            name="bigcodebench-hard",
            url=f"{BIGCODEBENCH_RELEASE}/BigCodeBench-Hard.jsonl.gz",
            sha256=None,
            format="bigcodebench",
            licence="Apache-2.0",
            homepage="https://huggingface.co/datasets/bigcode/bigcodebench-hard",
        ),
    ),
    shapes=(answers.SHAPE,),
    verdicts=verdicts.FILE,
    calls_answer=True,
    repairs=Repairs(
        tests_of=load.tests_of,
        split=load.split_solution,
        context_of=load.context_of,
        fixes=fixes.load,
        unfixed=fixes.load_unfixed,
        apply_fixes=fixes.apply,
    ),
    release="harness.benchmarks.bigcodebench.release:WRITER",
)
