"""The env side: everything that runs inside a combo's own interpreter.

The host never imports this package to run it: it starts ``__main__.py`` with the
combo's Python (3.8 to 3.13), which loads these modules under the private name
``_harness_envside`` so that no module of the host (or of the program under test)
can shadow them. Every module here uses the standard library only and imports
nothing from the host side (``tests/test_layout.py`` checks both).

    __main__   bootstrap: load this package, hand over to ``entry``
    entry      the protocol's commands: run, floor, probe, exec
    protocol   what crosses the process boundary, declared once: the batch file, the
               outcome and done lines, the statuses, the formats' helper names
    scheduler  a batch into library groups, a zygote per group, what the run did
    pool       the workers that run a group's executions, one at a time each
    supervisor one execution's process: forked or fresh, watched, timed, its outcome
    processes  how the env side forks (children die with us, hold nothing of ours)
    execution  one program in one process: warnings, the verdict, the report
    sandbox    namespaces, read-only mounts, cgroups, resource limits
    guard      untrusted solutions run in a child apart from their checks
    transport  the values a solution sends back, admitted only from an allowlist
    formatlib  helpers the generated contexts of the formats import
    floor      the no-isolation compute floor (benchmarks only)
    probe      what an environment imports, and how fast
"""
