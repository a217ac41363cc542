"""Scheduling: a batch into groups, zygotes, workers and executions, and what ran.

scheduler  a batch into library groups, a zygote per group, what the run did
zygote     what a zygote does before it forks: preload, check the forks
placer     the template and its placers: where a solution's process comes from
pool       the workers that run a group's executions, one at a time each
cores      how many workers the pool runs: more while cores sit idle
supervisor one execution's process: forked or fresh, watched, timed, its outcome
execution  one program in one process: its sandbox, its verdict, its report
floor      the no-isolation compute floor (benchmarks only)
"""
