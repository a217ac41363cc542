"""Timing: an execution's clock, and the opt-in marks of its phases.

Both the bridge and the scheduling rooms read them, so they sit below both.

    clock      an execution's wall time, less the time it waited for a CPU
    phases     opt-in marks of an execution's phases, for the benchmarks
"""
