"""The messages between the checker and a solution's process (harness/envside/bridge/wire.py):
the reports it sends back, read as a hostile solution could write them, and the requests
the checker sends it; and the JSON lines a worker and a zygote write for the scheduler.
"""

from __future__ import annotations

import os
import socket
import struct
from typing import Any

import pytest

from harness.envside.bridge import wire


def read(data: bytes) -> tuple[dict[str, Any], list[bytes]] | None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, data)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as reports:
        return wire.read_report(reports)


def test_a_report_travels_whole() -> None:
    header = {"kind": "ok", "values": ["a", "b"], "figures": 1, "skipped": {}, "unchanged": []}
    blobs = [b"one", b"", b"three\n"]
    assert read(wire._frame(header, blobs)) == (header, blobs)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"12\n{}",  # shorter than announced
        b"2\n[]",  # not an object
        b"x\n{}",  # no length
        b'38\n{"kind": "ok", "values": ["a"], "figures": 0}',  # announces a pickle, sends none
        b'41\n{"kind": "ok", "values": "a", "figures": 0}  ',
        b'40\n{"kind": "ok", "values": [], "figures": -1}',
    ],
)
def test_an_incomplete_or_malformed_report_is_no_report(data: bytes) -> None:
    assert read(data) is None


def test_a_request_travels_with_the_pipe_its_report_goes_back_on() -> None:
    asking, answering = socket.socketpair()
    read_fd, write_fd = os.pipe()
    try:
        wire.send_request(asking, b"x" * 100_000, write_fd)
        received = wire.receive_request(answering)
        assert received is not None
        request, report_fd = received
        assert request == b"x" * 100_000
        os.write(report_fd, b"ok")
        os.close(report_fd)
        assert os.read(read_fd, 2) == b"ok"
        wire.send_request(asking, b"reply", -1)  # a reply to a callback: no pipe
        assert wire.receive_request(answering) == (b"reply", -1)
    finally:
        for fd in (read_fd, write_fd):
            os.close(fd)
        asking.close()
        answering.close()


@pytest.mark.parametrize(
    "sent",
    [b"", b"\x00\x00\x00", struct.pack("!Q", 10) + b"short"],
    ids=["nothing", "part of a length", "part of a request"],
)
def test_a_request_cut_short_is_no_request(sent: bytes) -> None:
    # the checker went while it sent: the solution's process ends, as when it is done
    asking, answering = socket.socketpair()
    try:
        asking.sendall(sent)
        asking.close()
        assert wire.receive_request(answering) is None
    finally:
        answering.close()


def test_read_exactly_is_none_at_an_early_end() -> None:
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, b"abcdef")

        def read(size: int) -> bytes:
            return os.read(read_fd, min(size, 2))  # the stream hands out little at a time

        assert wire.read_exactly(read, 4, b">") == b">abcd"
        os.close(write_fd)
        write_fd = -1
        assert wire.read_exactly(read, 4) is None  # two bytes left, then the end
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)


def test_json_lines_are_read_whole_however_the_pipe_splits_them() -> None:
    lines = wire.JsonLines()
    assert lines.feed(b'{"a": 1}\n{"b": "\xc3') == [{"a": 1}]  # cut within the "é"
    assert lines.feed(b'\xa9"') == []  # no newline yet: the line goes on
    assert lines.feed(b'}\n{"c": 3}\n{"d": [4]}\n') == [{"b": "é"}, {"c": 3}, {"d": [4]}]
    assert lines.feed(b"") == []  # the end of the pipe, nothing left over


def test_a_json_line_cut_short_or_not_an_object_is_skipped() -> None:
    lines = wire.JsonLines()
    sent = b'{"a": 1\nnot json\n[1, 2]\n"text"\n\n\xff\n{"b": 2}\n{"c": '
    assert lines.feed(sent) == [{"b": 2}]  # the lines after a bad one are still read
    # the end of the pipe completes the last line: cut short, it is skipped too
    assert lines.feed(b"") == []
    assert lines.feed(b'{"d": 4}') == []
    assert lines.feed(b"") == [{"d": 4}]  # a last line needs no newline


def test_a_run_request_carries_values_modules_and_functions_as_code() -> None:
    local: dict[str, Any] = {}
    exec("def double(v):\n    return 2 * v\n", local)
    env: dict[str, Any] = {"values": [1, 2], "os": os, "double": local["double"]}
    request, why = wire.make_request("result = double(values[0])", env)
    assert request is not None, why
    there: dict[str, Any] = {"offset": 10}
    code, values, modules, _ = wire.load_request(request, there)
    assert (code, values["values"], modules) == ("result = double(values[0])", [1, 2], {"os": "os"})
    # the check's function travels as its code, bound to the solution's globals
    assert values["double"](3) == 6
    assert values["double"].__globals__ is there


def test_builtins_of_the_checks_own_are_not_sent() -> None:
    request, why = wire.make_request("pass", {"__builtins__": {"len": len, "spy": print, "x": 1}})
    assert request is None
    assert "builtins of its own" in why
