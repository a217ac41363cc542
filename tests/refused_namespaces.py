"""Run a command where the kernel refuses it every namespace, without changing the machine.

This is how GitHub's hosted ``ubuntu-latest`` treats an unprivileged user (AppArmor's
``kernel.apparmor_restrict_unprivileged_userns=1``), made here by a switch any kernel has,
set where only the command sees it. As root (``available()`` says why not otherwise):

1. A child process makes a new user namespace (``unshare(CLONE_NEWUSER)``) and its parent,
   root of the machine, writes it the identity map of every uid and gid: files keep their
   owners, and nothing else about the child changes yet.
2. The child, root of that namespace, writes 0 to its ``/proc/sys/user/max_user_namespaces``.
   That sysctl exists once per user namespace and bounds only the namespaces made below it:
   the machine's own value is untouched, and this one dies with the namespace.
3. ``setpriv`` makes it uid and gid 65534 (nobody) with no capability but CAP_DAC_OVERRIDE
   and CAP_DAC_READ_SEARCH (the interpreter and the uv cache live under root's home here,
   mode 700), none it can regain (bounding set, no_new_privs), and runs the command.

The command is then an unprivileged process: the env side enters its sandbox through a user
namespace, which the kernel refuses (``unshare: No space left on device``), and it holds no
CAP_SYS_ADMIN to make the namespaces directly as root does.

Run as a script: ``python tests/refused_namespaces.py COMMAND [ARG...]``; its exit status
is the command's.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from pathlib import Path

CLONE_NEWUSER = 0x10000000
NOBODY = 65534
# what the command keeps: reading and writing files whatever their mode (as root would)
KEPT = "-all,+dac_override,+dac_read_search"
LIMIT = "/proc/sys/user/max_user_namespaces"


def available() -> str:
    """'' when this machine can run a command so, else why not (a reason to skip)."""
    if os.geteuid() != 0:
        return "needs root: only root may map every uid into a user namespace"
    if shutil.which("setpriv") is None:
        return "needs setpriv (util-linux) on PATH"
    return ""


def refusing(*argv: str) -> list[str]:
    """The command line that runs ``argv`` where every namespace is refused."""
    return [sys.executable, str(Path(__file__).resolve()), *argv]


def interpreter(path: Path, python: str = sys.executable) -> Path:
    """An executable at ``path`` that runs ``python`` with its arguments where every
    namespace is refused: a combo's interpreter, as the host starts the env side."""
    command = " ".join(f"'{part}'" for part in refusing(python))
    path.write_text(f'#!/bin/sh\nexec {command} "$@"\n', encoding="utf-8")
    path.chmod(0o755)
    return path


def _child(told: int, go: int, argv: list[str]) -> None:  # pragma: no cover - a child
    """Steps 1 (its half), 2 and 3 of the module's docstring, then the command."""
    if ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWUSER) != 0:
        os.write(2, f"unshare: {os.strerror(ctypes.get_errno())}\n".encode())
        os._exit(125)
    os.write(told, b"u")
    if os.read(go, 1) != b"m":  # the parent could not map it
        os._exit(125)
    Path(LIMIT).write_text("0", encoding="ascii")
    ids = [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    caps = [f"--inh-caps={KEPT}", f"--ambient-caps={KEPT}", f"--bounding-set={KEPT}"]
    os.execvp("setpriv", ["setpriv", *ids, *caps, "--no-new-privs", "--", *argv])


def main(argv: list[str]) -> int:
    told_r, told_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(told_r)
        os.close(go_w)
        try:
            _child(told_w, go_r, argv)
        finally:
            os._exit(125)
    os.close(told_w)
    os.close(go_r)
    try:
        if os.read(told_r, 1) == b"u":
            for name in ("uid_map", "gid_map"):  # each written once, whole
                Path(f"/proc/{pid}/{name}").write_text("0 0 4294967295", encoding="ascii")
            os.write(go_w, b"m")
    finally:
        os.close(go_w)  # unmapped, the child reads the end of the pipe and gives up
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
