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
    resident   that child: started, asked and ended by the checker
    wire       the messages between the checker and that child
    callstate  what the checker keeps of its calls across the boundary
    transport  the values the child sends back, pickled one by one
    admission  how the checker admits them: default-deny, only from an allowlist
    allowlist  what it may admit (the one parser of allowlist.txt, shared with the host)
    formatlib  helpers the generated contexts of the formats import
    floor      the no-isolation compute floor (benchmarks only)
    probe      what an environment imports, and how fast
"""
