"""Isolation: namespaces, mounts, limits, the filesystem view, how the env side forks.

sandbox    namespaces, read-only mounts, resource limits: an execution's sandbox
mounts     the kernel calls a sandbox is made of: namespaces, mounts, the root's pivot
view       what an execution sees: a root built from what it may see
cgroups    a worker's cgroups: a cap on tasks, a fair share of CPU, emptied between runs
processes  how the env side forks (children die with us, hold nothing of ours)
refusal    why this machine refuses the sandbox, and what would lift the refusal
"""
