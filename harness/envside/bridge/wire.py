"""The messages between the checker and a solution's process, both ways.

- **Reports** (solution → checker), one per request on the pipe the request carried:
  ``<n>\\n<header JSON>`` then ``<n>\\n<pickle>`` for each pickle the header announces. The
  checker reads every byte of them as untrusted: a report cut short or malformed is no
  report (``read_report``), and the guard ends the execution as the process did.
- **Requests** (checker → solution) on a socket: the request's length, with the write end
  of its report's pipe as ancillary data, then the request. A run request carries the
  code, the values the check gives the solution, its modules by name and the global
  random states (``make_request``; the solution's process rebuilds it, ``load_request``).

And one the scheduler reads: **lines** (a pool's worker → its pool, a zygote → the
scheduler), one JSON object a line, read as the pipe's bytes come (``JsonLines``).
"""

from __future__ import annotations

import array
import builtins
import contextlib
import io
import json
import marshal
import os
import pickle
import socket
import struct
import sys
import types
from typing import TYPE_CHECKING, Any, BinaryIO, Callable

if TYPE_CHECKING:
    from ..protocol import Json


_MAX_RESPONSE = 512 * 1024 * 1024
_MAX_BLOBS = 10_000

# -- reports: what the solution's process sends back --------------------------------------

# Bound at import, before any solution runs: a solution that patches json in its own
# process must not garble its report by accident (on purpose it can: the checker reads
# everything in it as untrusted).
_quote = json.encoder.encode_basestring_ascii
_str, _int, _bool, _dict, _list, _isinstance, _len = str, int, bool, dict, list, isinstance, len


def _report_json(value: Any) -> str:
    """JSON for a report header (dicts, lists, strings, ints, None) without ``json``."""
    if value is None:
        return "null"
    if _isinstance(value, _bool):
        return "true" if value else "false"
    if _isinstance(value, _int):
        return _int.__repr__(value)
    if _isinstance(value, _str):
        return _quote(value)
    if _isinstance(value, _dict):
        return "{%s}" % ",".join(
            "%s:%s" % (_quote(_str(k)), _report_json(v)) for k, v in value.items()
        )
    if _isinstance(value, _list):
        return "[%s]" % ",".join(_report_json(v) for v in value)
    return _quote(_str(value))


def _frame(header: Json, blobs: list[bytes]) -> bytes:
    """``<n>\\n<header JSON>`` then ``<n>\\n<pickle>`` for each pickle the header announces."""
    data = _report_json(header).encode("utf-8")
    parts = [b"%d\n" % _len(data), data]
    for blob in blobs:
        parts += [b"%d\n" % _len(blob), blob]
    return b"".join(parts)


def read_report(fh: BinaryIO) -> tuple[Json, list[bytes]] | None:
    """The solution's next report, or None if its process ended before sending a whole one."""
    header = _read_part(fh)
    if header is None:
        return None
    try:
        report = _json_loads(header.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(report, dict):
        return None
    count = 0
    if report.get("kind") == "ok":
        values, figures = report.get("values"), report.get("figures")
        if not isinstance(values, list) or not isinstance(figures, int) or figures < 0:
            return None
        bundle = report.get("bundle")
        if bundle is not None and not isinstance(bundle, list):
            return None
        # values, then the bundle of figures, or else each figure on its own
        count = len(values) + (1 if bundle is not None else figures)
    else:
        # a call's result, a callback, an exception's arguments: as many as it says
        count = report.get("blobs", 0)
        if type(count) is not int or not 0 <= count <= _MAX_BLOBS:
            return None
    blobs = []
    total = len(header)
    for _ in range(count):
        blob = _read_part(fh)
        if blob is None:
            return None
        total += len(blob)
        if total > _MAX_RESPONSE:
            return None
        blobs.append(blob)
    return report, blobs


def _read_part(fh: Any) -> bytes | None:
    line = fh.readline(32)
    if not line.endswith(b"\n") or not line[:-1].isdigit():
        return None
    size = int(line)
    if size > _MAX_RESPONSE:
        return None
    data = fh.read(size)
    return data if len(data) == size else None


def send_report(fd: int, report: Json, blobs: list[bytes]) -> bool:
    """Write a report whole; False if the checker is no longer there to read it."""
    data = _frame(report, blobs)
    try:
        while data:
            data = data[_write(fd, data) :]
    except OSError:
        return False
    return True


_write = os.write  # bound at import, as _quote above
# ...and what the checker reads reports with while a test's patches are active
# (``json.loads`` is what a test patches for the code it tests)
_json_loads = json.loads


# -- requests: what the checker sends the solution's process ------------------------------

_LENGTH = struct.Struct("!Q")


def send_request(requests: socket.socket, request: bytes, report_fd: int) -> None:
    """The request's length, with the write end of its report's pipe (none for a reply
    to a callback), then the request."""
    head = _LENGTH.pack(len(request))
    fds = (
        [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [report_fd]))]
        if report_fd >= 0
        else []
    )
    sent = requests.sendmsg([head], fds, socket.MSG_NOSIGNAL)
    requests.sendall(head[sent:] + request, socket.MSG_NOSIGNAL)


def receive_request(requests: socket.socket) -> tuple[bytes, int] | None:
    """The next request and the descriptor its report goes to; None once the checker is
    done (the socket closed) or sends something else."""
    start, ancillary, _, _ = requests.recvmsg(_LENGTH.size, socket.CMSG_SPACE(4))
    fds = array.array("i")
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
    if len(fds) > 1 or not start:
        return None
    head = read_exactly(requests.recv, _LENGTH.size - len(start), start)
    if head is None:
        return None
    request = read_exactly(requests.recv, _LENGTH.unpack(head)[0])
    if request is None:
        return None  # the checker went while it sent the request
    # a reply to the solution's callback carries no pipe: its answer is the request itself
    return request, fds[0] if fds else -1


def read_exactly(read: Callable[[int], bytes], size: int, data: bytes = b"") -> bytes | None:
    """``data`` and then ``size`` bytes more from ``read`` (a socket's ``recv``, or
    ``os.read`` of a descriptor); None if the stream ends before them: a message cut
    short is no message, whoever reads it."""
    chunks = [data]
    while size > 0:
        chunk = read(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


# -- lines: what a worker reports to its pool, and a zygote to the scheduler --------------


class JsonLines:
    """The JSON objects of one pipe of lines, read as its bytes come: a read may end in
    the middle of a line, or of a character. A line cut short (its writer died while it
    wrote it) or anything not a JSON object is skipped and the lines after it are read:
    to the reader, a report not sent whole was not sent."""

    def __init__(self) -> None:
        self._buffer = b""  # the start of a line whose end has not come yet

    def feed(self, data: bytes) -> list[Json]:
        """The objects of the lines ``data`` completes, in order. ``b""``, the end of the
        pipe, completes the last line, newline or not (a pool never feeds it: a worker's
        unfinished line goes with the worker)."""
        lines = (self._buffer + data).split(b"\n")
        self._buffer = lines.pop() if data else b""
        found: list[Json] = []
        for line in lines:
            with contextlib.suppress(ValueError):  # cut short, or not JSON (nor UTF-8)
                value = json.loads(line.decode("utf-8"))
                if isinstance(value, dict):
                    found.append(value)
        return found


# -- a run request: what the check gives the solution ---------------------------------------


def make_request(code: Any, env: dict[str, Any]) -> tuple[bytes | None, str]:
    """What the solution's process needs to run ``code`` in ``env`` as this process
    would: the code, the values (in one pickle, so that values that share an array still
    share it), the modules by name, and the global random states a fork would inherit.

    ``(None, why)`` when something cannot travel: builtins of the check's own choosing,
    an object of a class the check defined (pickle finds classes by name), a closure.
    Other functions that pickle cannot name (a notebook's, a check's helper) travel as
    their code, bound to the copy of ``env`` there. Only values the check hands the
    solution are sent, and only the (untrusted) solution's process reads them.
    """
    values: dict[str, Any] = {}
    modules: dict[str, str] = {}
    for name, value in env.items():
        if name == "__builtins__":
            # put there by an earlier exec() of the check's: the solution gets its own
            if value is builtins or (isinstance(value, dict) and set(value) <= _BUILTIN_NAMES):
                continue
            return None, "the check gives the solution builtins of its own"
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
        else:
            values[name] = value
    buffer = io.BytesIO()
    try:
        _RequestPickler(buffer, env).dump((code, values, modules, _random_states()))
    except Exception as exc:
        return None, "%s: %s" % (type(exc).__name__, str(exc)[:300])
    return buffer.getvalue(), ""


_BUILTIN_NAMES = frozenset(builtins.__dict__)


class _RequestPickler(pickle.Pickler):
    def __init__(self, file: BinaryIO, env: dict[str, Any]) -> None:
        super().__init__(file, protocol=4)
        self.env = env

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is types.FunctionType and obj.__closure__ is None and not _named(obj):
            # A function the check or the notebook defined, which pickle cannot find by
            # name: its code, bound there to the solution's globals (its own, for a
            # notebook's; never the check's, which hold the expected values).
            code = marshal.dumps(obj.__code__)
            return _function, (code, obj.__name__, obj.__defaults__, obj.__kwdefaults__)
        return NotImplemented


def _named(function: types.FunctionType) -> bool:
    """Whether pickle finds ``function`` by its module and qualified name."""
    found: Any = sys.modules.get(function.__module__ or "")
    if found is None or function.__module__ == "__main__":
        return False  # the program's namespace is not the __main__ module
    for part in function.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is function


_GLOBALS: list[dict[str, Any]] = []  # the env functions are rebuilt into, while loading


def load_request(request: bytes, env: dict[str, Any]) -> Any:
    """A request as ``make_request`` made it; functions it carries are bound to ``env``."""
    _GLOBALS[:] = [env]
    try:
        return pickle.loads(request)
    finally:
        del _GLOBALS[:]


def _function(code: bytes, name: str, defaults: Any, kwdefaults: Any) -> types.FunctionType:
    function = types.FunctionType(marshal.loads(code), _GLOBALS[0], name, defaults)
    function.__kwdefaults__ = kwdefaults
    return function


def _random_states() -> dict[str, Any]:
    """The states of the libraries' global generators here, which a process forked now
    would start from. (Not ``random``'s: it reseeds itself in a forked process.)"""
    states: dict[str, Any] = {}
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        with contextlib.suppress(Exception):
            states["numpy"] = numpy.random.get_state()
    torch = sys.modules.get("torch")
    if torch is not None:
        with contextlib.suppress(Exception):
            states["torch"] = torch.get_rng_state()
    return states
