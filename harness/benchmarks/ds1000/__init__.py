"""DS-1000: 1,000 Stack Overflow problems over seven libraries (CC BY-SA 4.0), its rows
already the shape the executor runs (``load``), its models' answers files
(``answers``)."""

from harness.benchmarks.base import Benchmark, NamedSet
from harness.benchmarks.ds1000 import answers, audit, load

COMMIT = "b39aab71da6d23ef8d3cac59a7c5f834516ab334"
URL = f"https://raw.githubusercontent.com/xlang-ai/DS-1000/{COMMIT}/data/ds1000.jsonl.gz"

BENCHMARK = Benchmark(
    name="ds1000",
    title="DS-1000",
    audit=audit.AUDIT,
    formats=(load.FORMAT,),
    named=(
        NamedSet(
            name="ds1000",
            url=URL,
            # 418,089 bytes; the same digest is listed by other projects for this commit
            sha256="e8c6daa9d7223976bce0296644f3933f78d7f47830669ff05cd61da62c6ba9b3",
            format="ds1000",
            licence="CC BY-SA 4.0",
            homepage="https://github.com/xlang-ai/DS-1000",
        ),
    ),
    shapes=(answers.SHAPE,),
    release="harness.benchmarks.ds1000.release:WRITER",
)
