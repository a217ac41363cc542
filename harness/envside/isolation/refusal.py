"""Why this machine refuses the sandbox its namespaces, and what would lift the refusal.

The probe (``sandbox.probe``) says what failed ("[Errno 28] unshare: No space left on
device"); that names a system call, not the setting behind it. An unprivileged process
makes its namespaces through a user namespace, and three switches of the kernel refuse
those: this module reads them and names the one in effect, with the command that turns it
back. Root makes its namespaces directly, so none of them is what refused root.

Standard library only, Python 3.8 grammar: it runs in every combo's interpreter.
"""

from __future__ import annotations

import os
from typing import Callable, Optional, Tuple

# (the sysctl, the value that refuses, the value that allows): each read under /proc/sys
SWITCHES = (
    # Ubuntu 23.10 and later (24.04 is GitHub's ubuntu-latest): AppArmor lets an
    # unconfined program make a user namespace, but with no capabilities in it
    ("kernel.apparmor_restrict_unprivileged_userns", "1", "0"),
    # Debian's own switch (its kernels before Debian 11 default to refusing)
    ("kernel.unprivileged_userns_clone", "0", "1"),
    # every kernel: how many user namespaces each user may make; 0 refuses them all
    # (RHEL 7's default). 15000 is the value Red Hat's documentation sets.
    ("user.max_user_namespaces", "0", "15000"),
)

# root refused its namespaces is a container or a seccomp filter, not a sysctl
ROOT_FIX = "give the harness CAP_SYS_ADMIN (a container: run it with --privileged)"
USER_FIX = "allow this user to make user namespaces (or run as root)"


def _read_sysctl(name: str) -> Optional[str]:
    """The value of sysctl ``name`` (``kernel.x`` is ``/proc/sys/kernel/x``), None when
    this kernel has no such switch."""
    try:
        with open(os.path.join("/proc/sys", *name.split(".")), encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return None


def diagnose(
    reason: str, uid: Optional[int] = None, read: Callable[[str], Optional[str]] = _read_sysctl
) -> Tuple[str, str]:
    """``reason`` (why the probe could not enter the sandbox) with the switch that
    refuses this user its user namespaces named where one does, and the fix: one
    command where a switch is found, else what to change in words.

    ``uid`` is this process's (by default); ``read`` reads a sysctl (tests give their own).
    """
    if uid is None:
        uid = os.getuid()
    if uid == 0:
        return reason, ROOT_FIX
    for name, refusing, allowing in SWITCHES:
        if read(name) == refusing:
            fix = "sudo sysctl -w %s=%s" % (name, allowing)
            return "%s (%s=%s)" % (reason, name, refusing), fix
    return reason, USER_FIX
