"""The benchmarks: one folder each, behind one declaration.

    base       what a benchmark declares (``Benchmark``) and the pieces it is built of:
               JSONL formats, its own layouts, named sets, answers shapes, verdict files
    registry   which benchmarks there are: the folders here, and other packages' entry
               points (group ``harness.benchmarks``)
    ds1000/  ours/  bigcodebench/  gitchameleon/  cibench/  exeds/
               each ``__init__`` defines ``BENCHMARK``; the rest of the house reads that
               and never imports the folder's modules (``tests/test_layout.py``)

How to add one: ``docs/adding-a-benchmark.md``.
"""
