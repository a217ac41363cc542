"""Our own problems: one TOML file per problem (``<root>/<library>/<name>.toml``), each
with its reference, its old idiom and where each should hold (``load``)."""

from harness.benchmarks.base import Benchmark
from harness.benchmarks.ours import audit, load

BENCHMARK = Benchmark(name="ours", title="our TOML problems", layout=load.LAYOUT, audit=audit.AUDIT)
