"""The template and its placers: where a guarded solution's process comes from.

The *template* (``__main__.py template FD CONFIG``) is a new interpreter each zygote
starts before any execution: it imports the library group's modules and never holds a
batch or a check. For each worker that runs a guarded execution it forks one *placer*,
which lives as long as the worker: it joins the worker's cgroups once (a cgroup v1 migration waits for
an RCU grace period, ~10 ms, so it is not paid per execution), and then forks each
solution's process the worker's executions ask for. So no solution's process ever holds
the checker's memory, and each is born in its execution's cgroups.

A solution's process is forked ahead, as its guarded execution starts (after the worker
has emptied its cgroups of the execution before; ``resident.next_execution``), into a
pid namespace made for it, whose first process is a ``sleep`` (pid 1 there, which holds
it open and ends by itself); it waits there to be told where it is placed. It places
itself like its execution (the same working directory, hidden paths, limits, environment
and standard streams; mount, network, IPC and UTS namespaces of its own, the network
being the execution's; a ``/proc`` of its own pid namespace) before any of the
solution's code runs. The placer ends it, and its pid namespace with all in it, when the
checker closes its lifeline or goes, and says on its status pipe how it ended.
"""

from __future__ import annotations

import array
import contextlib
import gc
import json
import os
import select
import signal
import socket
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from ..bridge import resident
from ..bridge.solution import main
from ..isolation import cgroups, sandbox
from ..timing import phases
from .execution import limit_memory
from .zygote import preload, warm_pyplot

if TYPE_CHECKING:
    from ..protocol import Json

_FDS = 6  # a request's descriptors: answering, lifeline, status, stdout, stderr, network
# How long a pid namespace made ahead may wait for its solution: its sleeper ends by
# itself after this (plus the time limit of the execution that takes it).
_AHEAD_S = 600.0


def template_main(fd: int, config: Json) -> None:
    """``__main__.py template FD CONFIG``: import the library group's modules, then fork a
    placer for each worker that asks on the socket ``fd`` until every worker and the
    zygote have closed it.

    What the zygote put in ``config`` (whether to sandbox, what to hide, the memory cap,
    where working directories may be) is what the placers enforce, whatever a request
    says: a request comes from a process that forked from the zygote after it."""
    sandbox.die_with_parent(int(config.get("parent", 0)))
    preload([str(m) for m in config.get("modules", [])])
    warm_pyplot()
    gc.collect()
    gc.freeze()  # pages the children share are left alone by their cycle collectors
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # its children reap themselves
    template = socket.socket(fileno=fd)
    me = os.getpid()
    while True:
        try:
            data, ancillary, _, _ = template.recvmsg(1 << 16, socket.CMSG_SPACE(8 * 4))
        except InterruptedError:
            continue
        if not data:
            break
        fds = _descriptors(ancillary)
        if len(fds) == 1:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            if os.fork() == 0:  # pragma: no cover - the placer
                try:
                    template.close()
                    _Placer(fds[0], me, config).run(_cgroups(data))
                finally:
                    os._exit(70)
        for received in fds:
            os.close(received)
    os._exit(0)


def _descriptors(ancillary: List[Any]) -> List[int]:
    fds = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    for fd in fds:
        os.set_inheritable(fd, False)
    return list(fds)


def _cgroups(data: bytes) -> List[str]:
    """The worker's cgroups a placer may join: ours (``harness-``) only."""
    with contextlib.suppress(ValueError, AttributeError, TypeError):
        named = json.loads(data.decode("utf-8")).get("cgroups") or []
        found = [os.path.realpath(str(n)) for n in named]
        return [
            c
            for c in found
            if c.startswith("/sys/fs/cgroup/") and os.path.basename(c).startswith("harness-")
        ]
    return []


class _Namespace:
    """A pid namespace for one solution's process: its sleeper (pid 1) and a way in."""

    def __init__(self, own: int, lifetime: float) -> None:
        self.made = time.monotonic()
        self.lifetime = lifetime
        self.init = -1
        self.fd = -1
        sandbox.unshare_pid()
        try:
            self.init = os.posix_spawn(
                *resident.sleeper(lifetime), {}, file_actions=resident.no_descriptors()
            )
            self.fd = os.open("/proc/%d/ns/pid" % self.init, os.O_RDONLY | os.O_CLOEXEC)
        finally:
            sandbox.set_pid_namespace(own)

    def lasts(self, seconds: float) -> bool:
        """Whether its sleeper is there and outlives ``seconds`` more (and a margin)."""
        return self.init > 0 and self.made + self.lifetime - time.monotonic() > seconds + 30

    def end(self) -> None:
        """Its pid 1 killed (not yet reaped: its pid is still its own): the kernel kills
        all in it."""
        if self.init > 0:
            with contextlib.suppress(OSError):
                os.kill(self.init, signal.SIGKILL)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _Kept:
    """A solution's process the placer started: how to end it and whom to tell."""

    def __init__(self, lifeline: int, status: int, namespace: Optional[_Namespace]) -> None:
        self.lifeline = lifeline
        self.status = status
        self.namespace = namespace


class _Spare:
    """A solution's process forked ahead, in its pid namespace, waiting to be placed."""

    def __init__(self, pid: int, control: socket.socket, namespace: Optional[_Namespace]) -> None:
        self.pid = pid
        self.control = control
        self.namespace = namespace


class _Placer:
    """One worker's placer: in its cgroups, forking its executions' solution processes.

    It signals only processes it has not reaped yet (a reaped pid may be another's)."""

    def __init__(self, fd: int, template: int, trusted: Json) -> None:
        self.socket = socket.socket(fileno=fd)
        self.template = template
        self.trusted = trusted
        self.sandboxed = bool(trusted.get("sandboxed"))
        self.kept: Dict[int, _Kept] = {}
        self.spare: Optional[_Spare] = None
        self.wake_r, self.wake_w = os.pipe()
        self.own = -1
        self.placer_pid = os.getpid()

    def run(self, groups: List[str]) -> None:
        sandbox.die_with_parent(self.template)
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        self.socket.send(b"pid %d" % os.getpid())  # the worker spares it when it empties
        if self.sandboxed and os.getuid() != 0:
            sandbox.user_namespace()  # root there: it may make pid namespaces
        for cgroup in groups:
            with contextlib.suppress(OSError):
                cgroups.join_cgroup(cgroup)
        self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        try:
            while self._step():
                pass
        finally:
            for kept in self.kept.values():
                if kept.namespace is not None:
                    kept.namespace.end()
            self._drop_spare()

    def _step(self) -> bool:
        """Wait for something to do and do it; False once the worker has gone."""
        poller = select.poll()
        poller.register(self.socket.fileno(), select.POLLIN)
        poller.register(self.wake_r, select.POLLIN)
        for kept in self.kept.values():
            if kept.lifeline >= 0:
                poller.register(kept.lifeline, select.POLLIN)
        try:
            events = dict(poller.poll())
        except InterruptedError:
            return True
        self._reap()
        for pid, kept in list(self.kept.items()):
            if kept.lifeline >= 0 and kept.lifeline in events:
                # the checker is done with it, or gone: it ends, with all it started
                os.close(kept.lifeline)
                kept.lifeline = -1
                if kept.namespace is not None:
                    kept.namespace.end()  # and with it all in its namespace
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if self.wake_r in events:
            with contextlib.suppress(OSError):
                os.read(self.wake_r, 512)
        return self.socket.fileno() not in events or self._receive()

    def _reap(self) -> None:
        """Say how each solution's process that ended did; end its namespace with it."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            spare = self.spare
            for namespace in [k.namespace for k in self.kept.values()] + [
                spare.namespace if spare is not None else None
            ]:
                if namespace is not None and namespace.init == pid:
                    namespace.init = -1  # its sleeper: reaped, never to be signalled
            if spare is not None and (
                spare.pid == pid or (spare.namespace and spare.namespace.init < 0)
            ):
                if spare.pid == pid:
                    spare.pid = -1
                self._drop_spare()  # it ended (the worker's emptying killed it)
            kept = self.kept.pop(pid, None)
            if kept is None:
                continue
            if kept.namespace is not None:
                kept.namespace.end()
            with contextlib.suppress(OSError):
                os.write(kept.status, b"status %d\n" % status)
            os.close(kept.status)
            if kept.lifeline >= 0:
                os.close(kept.lifeline)

    def _receive(self) -> bool:
        """One message on the worker's socket; False once the worker and its executions
        have all closed it."""
        try:
            data, ancillary, _, _ = self.socket.recvmsg(1 << 22, socket.CMSG_SPACE(8 * _FDS))
        except InterruptedError:
            return True
        if not data:
            return False
        fds = _descriptors(ancillary)
        if len(fds) == _FDS:
            phases.mark("placer")
            try:
                self._start(json.loads(data.decode("utf-8")), fds)
            except Exception:  # a request it cannot serve gets no process, and no word
                for fd in fds:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            del phases.MARKS[:]
            return True
        for fd in fds:
            os.close(fd)
        if data == b"next":  # a guarded execution starts: its process, forked ahead
            self._fork_spare()
        return True

    def _fork_spare(self, timeout: float = 120.0) -> None:
        """Fork the next solution's process now, into a pid namespace made for it, to
        wait for where it is to be placed (``_start``)."""
        spare = self.spare
        if spare is not None and _closed(spare.control):
            self._drop_spare()  # killed as the worker emptied its cgroups
        elif spare is not None and (spare.namespace is None or spare.namespace.lasts(timeout)):
            return
        self._drop_spare()
        namespace = _Namespace(self.own, timeout + 30 + _AHEAD_S) if self.sandboxed else None
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        if namespace is not None:
            sandbox.set_pid_namespace(namespace.fd)
        try:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the solution's process
                try:
                    mine.close()
                    if namespace is not None:
                        os.close(namespace.fd)  # (it may not use it, holding no privilege)
                    self._wait(theirs)
                finally:
                    os._exit(70)
        finally:
            if namespace is not None:
                sandbox.set_pid_namespace(self.own)
            theirs.close()
        self.spare = _Spare(pid, mine, namespace)

    def _drop_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is None:
            return
        spare.control.close()  # it ends when its control socket closes
        if spare.namespace is not None:
            spare.namespace.end()

    def _start(self, request: Json, fds: List[int]) -> None:
        """Place the spare like the execution that asks (forked now if there is none),
        and say its pid (no process, and nothing said, for a request naming no
        execution's directory)."""
        answering, lifeline, status, out, err, network = fds
        # what the zygote told the template wins over what the request says
        trusted = {k: self.trusted.get(k) for k in ("sandboxed", "hide", "memory_mb")}
        config = dict(request, **trusted)
        workdir = os.path.realpath(str(config.get("workdir", "")))
        if os.path.dirname(workdir) != self.trusted.get("workdirs") or not os.path.basename(
            workdir
        ).startswith("harness_exec_"):
            raise ValueError("not an execution's working directory")
        config["workdir"] = workdir
        message = [json.dumps(config).encode("utf-8")]
        handed = [answering, out, err, network]
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", handed))]
        spare = self._hand(float(config.get("timeout", 120)), message, rights)
        for fd in handed:
            os.close(fd)
        self.kept[spare.pid] = _Kept(lifeline, status, spare.namespace)
        phases.mark("placer_forked")
        with contextlib.suppress(OSError):
            os.write(status, b"pid %d %s\n" % (spare.pid, phases.said(phases.MARKS).encode()))

    def _hand(self, timeout: float, message: List[bytes], rights: List[Any]) -> _Spare:
        """Send the spare where it is to be placed (one forked now if it has gone)."""
        for _ in (1, 2):
            self._fork_spare(timeout)
            spare = self.spare
            if spare is None:
                break
            try:
                spare.control.sendmsg(message, rights)
            except OSError:
                self._drop_spare()  # gone, not yet reaped: a new one
                continue
            self.spare = None
            spare.control.close()
            return spare
        raise OSError("no solution's process could be forked")

    def _wait(self, control: socket.socket) -> None:  # pragma: no cover - the spare
        """The spare: hold nothing of the placer's, then wait to be placed."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        sandbox.die_with_parent(0 if self.sandboxed else self.placer_pid)
        held = [self.socket.fileno(), self.wake_r, self.wake_w, self.own]
        for kept in self.kept.values():
            held += [kept.lifeline, kept.status]
            held += [kept.namespace.fd] if kept.namespace is not None else []
        for fd in held:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        try:
            data, ancillary, _, _ = control.recvmsg(1 << 22, socket.CMSG_SPACE(8 * 4))
        except OSError:
            return
        fds = _descriptors(ancillary)
        if not data or len(fds) != 4:
            return
        control.close()
        del phases.MARKS[:]
        phases.mark("solution_placing")
        self._child(json.loads(data.decode("utf-8")), fds)

    def _child(self, config: Json, fds: List[int]) -> None:  # pragma: no cover
        """The solution's process places itself like its execution, then serves."""
        answering, out, err, network = fds
        workdir = str(config["workdir"])
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in (devnull, out, err):
            os.close(fd)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in dict(config.get("environ") or {}).items()})
        sandboxed = bool(config.get("sandboxed"))
        if sandboxed:
            # its /proc is its pid namespace's: it sees what its own process starts
            sandbox.enter(workdir, list(config.get("hide") or []), network=network, own_proc=True)
        else:
            os.chdir(workdir)
        os.close(network)
        phases.mark("solution_placed")
        tempfile.tempdir = workdir
        limit_memory(config.get("memory_mb"))
        os.setpgid(0, 0)  # kill(0, …) reaches only what the solution starts
        # a process whose parent is outside its pid namespace sees it as pid 0
        parent = 0 if sandboxed else self.placer_pid
        main(answering, dict(config, parent=parent, proc_mounted=sandboxed))


def _closed(control: socket.socket) -> bool:
    """Whether the other end of ``control`` has gone."""
    poller = select.poll()
    poller.register(control.fileno(), select.POLLIN)
    return any(event & (select.POLLHUP | select.POLLERR) for _, event in poller.poll(0))
