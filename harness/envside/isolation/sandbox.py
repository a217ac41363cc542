"""The sandbox of an execution: namespaces, its filesystem, limits, and its checker confined.

Runs under the combo's interpreter (standard library only, Linux, Python 3.8+). The
execution's process gets its own mount, network, IPC and UTS namespaces and a session
keyring of its own; its filesystem is a new root built from what it may see (``view``),
read-only but its working directory and its own ``/tmp``; its network is a loopback of
its own. Root creates the namespaces directly; anyone else through a user namespace,
where the kernel allows it. The execution's process, the checker, is then confined
(``confine_checker``): not the machine's root, no capability on the machine, not
dumpable. Untrusted solutions go further, in a process of their own (``guard``), which
drops every capability and, where the harness runs as root, becomes the unprivileged
user in a user namespace of its own (``drop_privileges``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import signal
import sys

from . import view
from .mounts import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUSER,
    CLONE_NEWUTS,
    MS_BIND,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    MS_PRIVATE,
    MS_RDONLY,
    MS_REC,
    SandboxError,
    check,
    libc,
    mount_points,
    read_only,
)
from .mounts import mount as _mount

__all__ = ["SandboxError", "libc"]

PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 24, 28, 38
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
# SECBIT_NOROOT | _LOCKED | SECBIT_NO_SETUID_FIXUP | _LOCKED | SECBIT_KEEP_CAPS_LOCKED
_SECUREBITS = 0x1 | 0x2 | 0x4 | 0x8 | 0x20
_CAPSET = {"x86_64": 126, "aarch64": 91}  # syscall numbers of capset
_check = check


def set_subreaper() -> None:
    """Orphans of our descendants become our children, so none can outlive its execution."""
    with contextlib.suppress(Exception):
        libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def die_with_parent(parent: int) -> None:
    """Be killed when ``parent`` (our parent's pid, read before we were forked) dies.

    Chained from the host's runner down to each solution, this means that killing the
    run (even with SIGKILL) ends every execution it started, however it was going. A
    process whose parent is outside its pid namespace sees its parent as pid 0 (and, once
    the parent has died, the namespace's first process: never 0 again).
    """
    with contextlib.suppress(Exception):
        libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() not in (parent, 0):  # it died before we asked
        os._exit(70)


# -- entering the sandbox -------------------------------------------------------------


def enter(
    workdir: str,
    hide: list[str] | None = None,
    shm_mb: int = 256,
    tmp_mb: int = 256,
    network: int = -1,
    own_proc: bool = False,
    protect_proc: bool = True,
) -> None:
    """Put this process in its own mount, network, IPC and UTS namespaces, with a root
    built from what it may see (``view``), read-only but ``workdir``, an empty /tmp of
    its own holding it and a private /dev/shm (``own_proc``: and a /proc of its own pid
    namespace).

    ``hide`` names files and directories the execution must not even read (the problems
    with their reference solutions, the results of other runs): the view shows none of
    them unless one lies inside what it binds, and those are covered by an empty directory
    or an empty file. ``network``: a network namespace to join instead of a new one (an
    execution's, for its solution's process), where this process may. ``protect_proc``:
    cover /proc's writable and revealing parts (``False`` for a checker about to be
    confined, which may not write or read them anyway: a /proc with nothing covered is
    what a user namespace may mount again, as its solution's new interpreter does).
    """
    workdir = os.path.realpath(workdir)
    joined = network >= 0 and libc().setns(network, CLONE_NEWNET) == 0
    flags = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (0 if joined else CLONE_NEWNET)
    uid = os.getuid()
    # root of the machine, not of a user namespace made for this process's parent (a
    # placer's, where the devices below could not be made)
    machine_root = uid == 0 and not _in_user_namespace()
    if uid != 0:
        user_namespace(flags)
    else:
        _check(libc().unshare(flags), "unshare")
    if not joined:
        with contextlib.suppress(OSError):
            _loopback_up()
    own_keyring()
    view.enter(workdir, tmp_mb, proc="own" if own_proc else "bind", devices=not machine_root)
    if machine_root:
        _minimal_dev()
    needed = [
        workdir,
        sys.prefix,
        sys.base_prefix,
        sys.executable,
        view.HERE,
        *view.BENCHMARK_SIDES,
    ]
    directories, files = view.cover(list(hide or []), needed)
    for directory in directories:
        _mount("tmpfs", directory, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k")
    for path in files:
        _mount("/dev/null", path, None, MS_BIND)
    # Every mount read-only but the working directory, /proc (its writable parts are
    # protected below), /dev, whose device nodes read-only would not stop a write, and
    # the private /tmp itself (what is bound inside it is read-only again).
    keep = (workdir, "/proc", "/dev")
    for point in sorted(set(mount_points()), key=len):
        if point == "/tmp" or any(point == k or point.startswith(k + "/") for k in keep):
            continue
        with contextlib.suppress(OSError):
            read_only(point)
    if protect_proc:
        _protect_proc()
    with contextlib.suppress(SandboxError):
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=%dm" % shm_mb)
    os.chdir(workdir)


def user_namespace(flags: int = 0, root: bool = True) -> None:
    """Become root (``root``; else ourselves) in a new user namespace (with ``flags``'
    other namespaces), mapped to ourselves outside: what an unprivileged process may make
    namespaces through."""
    uid, gid = os.getuid(), os.getgid()
    _check(libc().unshare(CLONE_NEWUSER | flags), "unshare")
    with open("/proc/self/setgroups", "w") as fh:
        fh.write("deny")
    with open("/proc/self/uid_map", "w") as fh:
        fh.write("%d %d 1" % (0 if root else uid, uid))
    with open("/proc/self/gid_map", "w") as fh:
        fh.write("%d %d 1" % (0 if root else gid, gid))


_KEYCTL = {"x86_64": 250, "aarch64": 219}  # syscall numbers (glibc has no wrapper)
KEYCTL_JOIN_SESSION_KEYRING = 1


def own_keyring() -> None:
    """A new, empty session keyring of this process's own: the kernel's keys of whoever
    started the run (a service's session keyring, its credentials) are out of reach."""
    number = _KEYCTL.get(platform.machine())
    if number is None or libc().syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        raise SandboxError(ctypes.get_errno(), "a session keyring of its own")


def _in_user_namespace() -> bool:
    """Whether this process is in a user namespace below the machine's."""
    try:
        with open("/proc/self/uid_map") as fh:
            return fh.read().split() != ["0", "0", "4294967295"]
    except OSError:
        return False


def cover_tmp(workdir: str, tmp_mb: int = 256) -> None:
    """For a process that shares its parent's mounts (a solution's new interpreter,
    started by its checker): a mount namespace of its own, whose /tmp is a new empty
    tmpfs, so that what the checker keeps in its /tmp stays out of reach."""
    _check(libc().unshare(CLONE_NEWNS), "unshare mount")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    needed = [workdir, sys.prefix, sys.base_prefix, view.HERE, *view.BENCHMARK_SIDES]
    needed += [*sys.path, *view.data_paths()]
    _private_tmp(needed, tmp_mb)


def _private_tmp(needed: list[str], size_mb: int) -> bool:
    """Cover /tmp with an empty, writable tmpfs of this execution's own.

    Programs write to /tmp by name (BigCodeBench's tests do; upstream runs each task with
    a writable temporary directory), and what they write there must reach neither the
    machine nor a later execution: the tmpfs lives and dies with this mount namespace.
    It covers whatever the machine's /tmp holds, other runs' files included. What the
    execution needs from under /tmp (its working directory; its environment, interpreter
    or this runner when they live there, as in a test suite's temporary directories) is
    bound back at its own path, through a descriptor opened before the cover."""
    if not os.path.isdir("/tmp"):
        return False
    under = sorted({os.path.realpath(p) for p in needed if p}, key=len)
    under = [p for p in under if p.startswith("/tmp/") and os.path.exists(p)]
    opened = [(p, os.open(p, os.O_PATH)) for p in under]
    try:
        _mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=%dm,mode=1777" % size_mb)
        for path, fd in opened:
            if os.path.isdir("/proc/self/fd/%d" % fd):
                os.makedirs(path, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "a").close()
            _mount("/proc/self/fd/%d" % fd, path, None, MS_BIND | MS_REC)
    finally:
        for _, fd in opened:
            os.close(fd)
    return True


SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def _loopback_up() -> None:
    """The new network namespace has one interface, ``lo``, and it is down: bring it up,
    so that a problem's own server on localhost works as anywhere. Nothing leaves the
    namespace: it has no other interface, and its loopback is not the machine's."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


# The devices a program may use; a root process keeps write access to every other
# node it owns (disks, loop devices) even without capabilities, so they are left out.
_DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9)}
_DEV_LINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
}


def _minimal_dev() -> None:
    import stat

    _mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=755")
    for name, (major, minor) in _DEVICES.items():
        os.mknod("/dev/" + name, stat.S_IFCHR | 0o666, os.makedev(major, minor))
        os.chmod("/dev/" + name, 0o666)  # (the umask took some: every user's, not root's)
    for name, target in _DEV_LINKS.items():
        os.symlink(target, "/dev/" + name)
    os.mkdir("/dev/shm")
    os.chmod("/dev/shm", 0o1777)
    os.mkdir("/dev/pts", 0o755)


def set_pid_namespace(fd: int) -> None:
    """Children started from now on are born in the pid namespace ``fd`` refers to (this
    process's own, or one below it)."""
    _check(libc().setns(fd, CLONE_NEWPID), "setns pid")


def into_own_pid_namespace() -> None:
    """Go on in a new pid namespace, where this process sees and signals only what it
    starts: this process unshares one and forks its first process (pid 1 there, which
    holds it: ``hold_namespace``) and then a child that returns (pid 2, signalled as any
    process: pid 1 of a namespace ignores what its own processes send it); this one,
    holding nothing but its standard streams, waits for the child and ends as it did.
    Made by the process itself, so it needs no capability but in its own user namespace
    (a confined checker's new interpreter for its solution)."""
    parent = os.getpid()
    unshare_pid()
    first = os.fork()
    if first == 0:  # pragma: no cover - pid 1: never returns
        try:
            die_with_parent(parent)
            hold_namespace()
        finally:
            os._exit(0)
    pid = os.fork()
    if pid == 0:
        die_with_parent(parent)
        os.setpgid(0, 0)  # kill(0, …) reaches what it starts, never the process waiting for it
        return
    os.closerange(3, 1 << 16)  # the request socket is the child's: closed when it ends
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    with contextlib.suppress(OSError):
        os.kill(first, signal.SIGKILL)  # and with it, whatever the child left running
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        with contextlib.suppress(Exception):
            signal.signal(number, signal.SIG_DFL)
        with contextlib.suppress(Exception):
            os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def hold_namespace() -> None:  # pragma: no cover - pid 1 of a namespace
    """The first process of a pid namespace: hold it open and reap what ends in it, until
    killed (then the kernel ends the namespace, and everything still in it)."""
    undumpable()
    os.closerange(3, 1 << 16)
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    while True:
        with contextlib.suppress(ChildProcessError, OSError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        signal.sigwait({signal.SIGCHLD})


def unshare_pid() -> None:
    """Every child this process starts from now on is born in one new pid namespace
    (the first of them is its pid 1): they cannot see or signal anything outside it, and
    when its pid 1 ends, the kernel ends them all."""
    _check(libc().unshare(CLONE_NEWPID), "unshare pid")


# Parts of /proc that reach the kernel or other machines' state: read-only, or hidden. A
# process without capabilities but with uid 0 could still write most of /proc/sys.
_PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs")
_PROC_HIDDEN = ("kcore", "keys", "timer_list", "sched_debug", "kmsg")


def _protect_proc() -> None:
    for name in _PROC_READ_ONLY:
        path = "/proc/" + name
        if os.path.exists(path):
            with contextlib.suppress(OSError):
                _mount(path, path, None, MS_BIND | MS_REC)
                read_only(path)
    for name in _PROC_HIDDEN:
        path = "/proc/" + name
        if os.path.exists(path):
            with contextlib.suppress(SandboxError):
                _mount("/dev/null", path, None, MS_BIND)


def own_proc() -> None:
    """A /proc of this process's pid namespace, in a mount namespace of its own: a
    solution, born in its execution's pid namespace, sees there its own processes alone —
    not the checker, not another execution's solution or what that one started (a program
    it starts is dumpable again, and readable through ``/proc/PID/mem`` by anyone of the
    same user without capabilities: another answer, if it could name it)."""
    _check(libc().unshare(CLONE_NEWNS), "unshare mount")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _protect_proc()


def undumpable() -> None:
    """No process without CAP_SYS_PTRACE may read this one's memory (``/proc/PID/mem``),
    nor trace it: not another execution's solution, running as the same user."""
    _check(libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "undumpable")


def drop_privileges(become: int | None = None) -> None:
    """No capabilities, now or after any exec; no setuid gains. ``become``: a user (and
    group) this process, the machine's root, turns into first, owning nothing of the
    machine's: a file only root may read is then closed to it too."""
    c = libc()
    _check(c.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    for cap in range(_last_capability() + 1):
        c.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    c.prctl(PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0)
    if become is not None:
        _become(become)  # (the securebits keep the capabilities: the capset clears them)
        # and a user namespace of its own, as that user still: the kernel keeps a user's
        # keyring per user namespace, so no other process of that user (another answer)
        # shares one with it (dumpable just long enough to write the maps)
        _check(c.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
        user_namespace(root=False)
    number = _CAPSET.get(platform.machine())
    if number is None:
        raise SandboxError(0, "cannot drop capabilities on %s" % platform.machine())
    header = ctypes.create_string_buffer(b"\x22\x05\x08\x20" + b"\x00" * 4)  # v3, this pid
    data = ctypes.create_string_buffer(24)
    _check(c.syscall(number, header, data), "capset")


# The user an execution's processes become where the harness runs as the machine's root.
NOBODY = 65534


def machine_root() -> bool:
    """Whether this process is root of the machine (not of a user namespace)."""
    return os.getuid() == 0 and not _in_user_namespace()


def _become(user: int) -> None:
    os.setgroups([])
    os.setresgid(user, user, user)
    os.setresuid(user, user, user)


def confine_checker(workdir: str) -> None:
    """The checker, once its sandbox is made and before its program: what a future
    escape of an answer into it could reach is its own verdict, nothing of the machine.

    Where the harness runs as root, it becomes ``NOBODY`` (its working directory becomes
    that user's, for it and its solution's process), which holds no capability on the
    machine, then root of a user namespace of its own: there it may make the pid and mount
    namespaces its solution's process needs (a new interpreter it starts), and nothing
    else. Whoever it runs as: no setuid gains, and not dumpable (no process of the same
    user may read its memory or trace it). Its pid namespace is its worker's
    (``processes.PidNamespace``): it sees no process of the machine."""
    c = libc()
    _check(c.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if machine_root():
        os.chown(workdir, NOBODY, NOBODY)  # (``execution.prepare`` made it so already)
        _become(NOBODY)
        # the change of user left it undumpable, which hands its /proc files to the
        # machine's root: dumpable just long enough to write its user namespace's maps
        _check(c.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
        user_namespace()
    undumpable()


def warm() -> None:
    """Look up, once, what every execution's sandbox needs, so that forks inherit it
    (and import it: each child would otherwise import it again)."""
    import encodings.unicode_escape  # noqa: F401 - _mount_points decodes with it
    import fcntl  # noqa: F401 - _loopback_up
    import resource  # noqa: F401 - limits
    import socket  # noqa: F401
    import struct  # noqa: F401

    libc()
    _last_capability()
    platform.machine()


_LAST_CAP: list[int] = []


def _last_capability() -> int:
    """The kernel's highest capability number (read once; 63 if it will not say)."""
    if not _LAST_CAP:
        try:
            with open("/proc/sys/kernel/cap_last_cap") as fh:
                _LAST_CAP.append(int(fh.read()))
        except (OSError, ValueError):
            _LAST_CAP.append(63)
    return _LAST_CAP[0]


def limit(fsize_mb: int, nproc: int, nofile: int = 4096) -> None:
    import resource

    limits = [
        ("RLIMIT_FSIZE", fsize_mb * 1024 * 1024),
        ("RLIMIT_NOFILE", nofile),
        ("RLIMIT_CORE", 0),
    ]
    if nproc > 0:
        limits.append(("RLIMIT_NPROC", nproc))
    for name, value in limits:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(getattr(resource, name), (value, value))


def tasks_of_this_user() -> int:
    """Processes and threads of our real user: what RLIMIT_NPROC counts."""
    uid = str(os.getuid())
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, ValueError), open("/proc/%s/status" % entry) as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
                if fields.get("Uid", "").split()[:1] == [uid]:
                    count += int(fields.get("Threads", "1"))
    return count


def probe(workdir: str) -> str | None:
    """None when the sandbox can be entered here, else the reason it cannot."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        os.close(read_fd)
        message = b""
        try:
            enter(workdir)
            # a namespace for children, entered and left around a fork (a worker's for its
            # executions: processes.PidNamespace)
            own = os.open("/proc/self/ns/pid", os.O_RDONLY)
            unshare_pid()
            inner = os.fork()
            if inner == 0:
                drop_privileges()
                os._exit(0)
            set_pid_namespace(own)
            _, status = os.waitpid(inner, 0)
            if status != 0:
                message = b"pid namespace: the first process failed"
        except BaseException as exc:
            message = str(exc).encode()[:500]
        os.write(write_fd, message)
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as fh:
        reason = fh.read().decode("utf-8", "replace")
    os.waitpid(pid, 0)
    return reason or None
