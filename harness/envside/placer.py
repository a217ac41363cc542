"""The template and its placers: where a guarded solution's process comes from.

The *template* (``__main__.py template FD CONFIG``) is a new interpreter each zygote
starts before any execution: it imports the library group's modules and never holds a
batch or a check. For each worker of the zygote it forks one *placer*, which lives as
long as the worker: it joins the worker's cgroups once (a cgroup v1 migration waits for
an RCU grace period, ~10 ms, so it is not paid per execution), and then forks each
solution's process the worker's executions ask for. So no solution's process ever holds
the checker's memory, and each is born in its execution's cgroups.

A solution's process is forked into a pid namespace of its own, made ready before it is
asked for: its first process is a ``sleep`` (pid 1 there, which holds it open and ends
by itself), made while the placer has nothing else to do (after the worker has emptied
its cgroups of the execution before; ``resident.next_execution``). The process places
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

from . import phases, resident, sandbox
from .execution import limit_memory
from .solution import main
from .zygote import preload, warm_pyplot

if TYPE_CHECKING:
    from .protocol import Json

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


class _Placer:
    """One worker's placer: in its cgroups, forking its executions' solution processes.

    It signals only processes it has not reaped yet (a reaped pid may be another's)."""

    def __init__(self, fd: int, template: int, trusted: Json) -> None:
        self.socket = socket.socket(fileno=fd)
        self.template = template
        self.trusted = trusted
        self.sandboxed = bool(trusted.get("sandboxed"))
        self.kept: Dict[int, _Kept] = {}
        self.ready: Optional[_Namespace] = None
        self.wake_r, self.wake_w = os.pipe()
        self.own = -1

    def run(self, cgroups: List[str]) -> None:
        sandbox.die_with_parent(self.template)
        os.set_blocking(self.wake_w, False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        self.socket.send(b"pid %d" % os.getpid())  # the worker spares it when it empties
        if self.sandboxed and os.getuid() != 0:
            sandbox.user_namespace()  # root there: it may make pid namespaces
        for cgroup in cgroups:
            with contextlib.suppress(OSError):
                sandbox.join_cgroup(cgroup)
        self.own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self._make_ready()
        try:
            while self._step():
                pass
        finally:
            for kept in self.kept.values():
                if kept.namespace is not None:
                    kept.namespace.end()
            if self.ready is not None:
                self.ready.end()

    def _make_ready(self, timeout: float = 120.0) -> None:
        """A pid namespace ready for the next solution's process that lasts its time limit."""
        if self.sandboxed and (self.ready is None or not self.ready.lasts(timeout)):
            if self.ready is not None:
                self.ready.end()
            self.ready = _Namespace(self.own, timeout + 30 + _AHEAD_S)

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
                self._kill(pid, kept)
        if self.wake_r in events:
            with contextlib.suppress(OSError):
                os.read(self.wake_r, 512)
        return self.socket.fileno() not in events or self._receive()

    def _kill(self, pid: int, kept: _Kept) -> None:
        """End a solution's process not yet reaped, and its pid namespace."""
        if kept.namespace is not None:
            kept.namespace.end()  # and with it all in its namespace
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)

    def _reap(self) -> None:
        """Say how each solution's process that ended did; end its namespace with it."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            namespaces = [k.namespace for k in self.kept.values()] + [self.ready]
            for namespace in namespaces:
                if namespace is not None and namespace.init == pid:
                    namespace.init = -1  # its sleeper: reaped, never to be signalled
            if self.ready is not None and self.ready.init < 0:
                self.ready.end()  # it ended (or the worker's emptying killed it)
                self.ready = None
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
        if data == b"next":  # the worker has emptied its cgroups: for its next execution
            self._make_ready()
        return True

    def _start(self, request: Json, fds: List[int]) -> None:
        """Fork the solution's process into a pid namespace made for it, and say its pid
        (no process, and nothing said, for a request naming no execution's directory)."""
        answering, lifeline, status, out, err, network = fds
        # what the zygote told the template wins over what the request says
        trusted = {k: self.trusted.get(k) for k in ("sandboxed", "hide", "memory_mb")}
        config = dict(request, **trusted)
        workdir = os.path.realpath(str(config.get("workdir", "")))
        if os.path.dirname(workdir) != self.trusted.get("workdirs") or not os.path.basename(
            workdir
        ).startswith("harness_exec_"):
            raise ValueError("not an execution's working directory")
        namespace = None
        if self.sandboxed:
            self._make_ready(float(config.get("timeout", 120)))
            namespace, self.ready = self.ready, None
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        try:
            pid = self._fork(namespace, config, workdir, fds)
        except OSError:
            # its sleeper ended just now, not yet reaped: the kernel lets no one in
            if namespace is None:
                raise
            namespace.end()
            self._make_ready(float(config.get("timeout", 120)))
            namespace, self.ready = self.ready, None
            pid = self._fork(namespace, config, workdir, fds)
        for fd in (answering, out, err, network):
            os.close(fd)
        self.kept[pid] = _Kept(lifeline, status, namespace)
        phases.mark("placer_forked")
        with contextlib.suppress(OSError):
            os.write(status, b"pid %d %s\n" % (pid, phases.said(phases.MARKS).encode()))

    def _fork(
        self, namespace: Optional[_Namespace], config: Json, workdir: str, fds: List[int]
    ) -> int:
        if namespace is not None:
            sandbox.set_pid_namespace(namespace.fd)
        try:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the solution's process
                try:
                    self._child(config, workdir, fds)
                finally:
                    os._exit(70)
        finally:
            if namespace is not None:
                sandbox.set_pid_namespace(self.own)
        return pid

    def _child(self, config: Json, workdir: str, fds: List[int]) -> None:  # pragma: no cover
        """The solution's process places itself like its execution, then serves."""
        answering, lifeline, status, out, err, network = fds
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        del phases.MARKS[:]
        held = [self.socket.fileno(), self.wake_r, self.wake_w, self.own, lifeline, status]
        for kept in self.kept.values():
            held += [kept.lifeline, kept.status]
            held += [kept.namespace.fd] if kept.namespace is not None else []
        for fd in held:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
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
        parent = 0 if sandboxed else os.getppid()
        main(answering, dict(config, parent=parent, proc_mounted=sandboxed))
