"""The env side: everything that runs inside a combo's own interpreter.

The host never imports this package to run it: it starts ``__main__.py`` with the
combo's Python (3.8 to 3.13), which loads these modules under the private name
``_harness_envside`` so that no module of the host (or of the program under test)
can shadow them. Every module here uses the standard library only and imports
nothing from the host side (``tests/test_layout.py`` checks both).

Its modules live in rooms by concern, each a sub-package whose ``__init__`` lists its
modules. Imports point one way, down this list (``tests/test_layout.py``, ``ROOMS``):

    protocol   what crosses the process boundary, declared once: the batch file, the
               outcome and done lines, the statuses, the formats' helper names
    allowlist  what admission may admit (the one parser of allowlist.txt, shared
               with the host)
    timing/      an execution's clock, and the opt-in marks of its phases
    isolation/   namespaces, mounts, limits, the filesystem view, how the env side forks
    bridge/      an untrusted solution in a process apart from its check: the guard, the
                 solution's process, the wire, transport and admission, the calls across
    checks/      the generic checks every format's context uses (formatlib, witness)
    benchmarks   each benchmark's own checks, from its folder
                 (``harness/benchmarks/<name>/envside/``), as ``benchmarks.<name>``
    scheduling/  a batch into library groups, zygotes, workers, one execution's process
    __main__   bootstrap: load this package, hand over to ``entry``
    entry      the protocol's commands: run, floor, probe, capture, exec
    probe      what an environment imports, and how fast
"""
