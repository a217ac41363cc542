"""The protocol's commands, as the host starts them with a combo's interpreter:

    __main__.py run BATCH.json     run a batch; one JSON line per finished execution
    __main__.py floor BATCH.json   the same programs without isolation (benchmarks)
    __main__.py probe MODULE...    what the environment imports (one JSON line)
    __main__.py capture BENCHMARK SESSIONS.json  a benchmark's references run once, their
                                   outputs one JSON line each (CIBench's expected outputs)
    __main__.py exec FD PARENT     one execution in a fresh interpreter (internal)
    __main__.py solution FD CONFIG an untrusted solution's process, for the guard (internal)

Standard output belongs to the protocol; anything else printed goes to stderr.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import TextIO

from .isolation import sandbox
from .isolation.processes import child_environment, in_child_environment
from .probe import probe_modules
from .protocol import (
    LAUNCHER,
    PROTOCOL,
    Done,
    ProtocolError,
    Record,
    done_line,
    outcome_line,
    read_batch,
)
from .scheduling.execution import fresh_child_main
from .scheduling.floor import floor
from .scheduling.scheduler import Scheduler


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "exec":
        fresh_child_main(int(argv[2]), int(argv[3]))
        return 0
    if command == "solution":
        from .bridge import solution  # only the guard starts it: not loaded by the others

        solution.main(int(argv[2]), json.loads(argv[3]))
        return 0
    if command == "template":
        from .scheduling import placer

        placer.template_main(int(argv[2]), json.loads(argv[3]))
        return 0
    if command in ("run", "floor", "capture") and not in_child_environment():
        # the host's harness process: if it dies, so does this runner and all below it
        sandbox.die_with_parent(os.getppid())
        # Start over in exactly the environment a fresh execution gets, so forked
        # executions (which inherit ours) see the same: hash seed, backends, threads.
        os.execve(sys.executable, [sys.executable, "-s", LAUNCHER, *argv[1:]], child_environment())
    protocol_fd = os.dup(1)
    protocol = os.fdopen(protocol_fd, "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    if command in ("run", "floor"):
        return run(command, argv[2], protocol)
    if command == "capture":
        # only the derivation of expected outputs runs it: the benchmark's own module
        module = importlib.import_module(f"{__package__}.benchmarks.{argv[2]}.capture")
        return int(module.capture(argv[3], protocol))
    if command == "probe":
        protocol.write(json.dumps(probe_modules(argv[2:])) + "\n")
        return 0
    sys.stderr.write("usage: __main__.py run|floor BATCH.json | probe MODULE... | exec FD PARENT\n")
    return 2


def run(command: str, path: str, protocol: TextIO) -> int:
    """``run`` or ``floor`` a batch file: its outcome lines, then the done line (which
    says why the batch was refused, if it was: then nothing ran)."""
    try:
        with open(path, encoding="utf-8") as fh:
            batch = read_batch(fh.read())
    except OSError as exc:
        refused = "batch: %s" % exc
    except ProtocolError as exc:
        refused = str(exc)
    else:
        refused = ""
    if refused:
        protocol.write(done_line(Done(PROTOCOL, refused=refused)))
        return 2

    def emit(index: int, record: Record) -> None:
        protocol.write(outcome_line(index, record))

    if command == "floor":
        floor(batch, emit)
        protocol.write(done_line(Done(PROTOCOL, isolation="floor")))
        return 0
    scheduler = Scheduler(batch, emit, protocol.fileno(), batch_file=path)
    scheduler.run()
    protocol.write(done_line(scheduler.done()))
    return 0
