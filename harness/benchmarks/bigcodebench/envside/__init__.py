"""BigCodeBench on the env side (standard library only): its ``unittest`` suites run in
the check's process against the answer in a process of its own.

    check   the ``unittest`` runner across the boundary: the task's tests, the answer's
            functions called through the bridge, the parts and the verdict
"""
