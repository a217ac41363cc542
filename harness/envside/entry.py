"""The protocol's commands, as the host starts them with a combo's interpreter:

    __main__.py run BATCH.json     run a batch; one JSON line per finished execution
    __main__.py floor BATCH.json   the same programs without isolation (benchmarks)
    __main__.py probe MODULE...    what the environment imports (one JSON line)
    __main__.py exec FD PARENT     one execution in a fresh interpreter (internal)
    __main__.py solution FD CONFIG an untrusted solution's process, for the guard (internal)
    __main__.py allowlist FILE     check an allowlist file as the guard reads it

Standard output belongs to the protocol; anything else printed goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys

from . import sandbox
from .allowlist import Allowlist
from .execution import fresh_child_main
from .floor import floor
from .probe import probe_modules
from .protocol import LAUNCHER, PROTOCOL, Json
from .scheduler import Scheduler, child_environment, in_child_environment


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else ""
    if command == "exec":
        fresh_child_main(int(argv[2]), int(argv[3]))
        return 0
    if command == "solution":
        from . import solution  # only the guard starts it: not loaded by the others

        solution.main(int(argv[2]), json.loads(argv[3]))
        return 0
    if command == "template":
        from . import solution

        solution.template_main(int(argv[2]), json.loads(argv[3]))
        return 0
    if command in ("run", "floor") and not in_child_environment():
        # the host's harness process: if it dies, so does this runner and all below it
        sandbox.die_with_parent(os.getppid())
        # Start over in exactly the environment a fresh execution gets, so forked
        # executions (which inherit ours) see the same: hash seed, backends, threads.
        os.execve(sys.executable, [sys.executable, "-s", LAUNCHER, *argv[1:]], child_environment())
    protocol_fd = os.dup(1)
    protocol = os.fdopen(protocol_fd, "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    if command in ("run", "floor"):
        with open(argv[2], encoding="utf-8") as fh:
            batch = json.load(fh)
        batch["path"] = argv[2]

        def emit(index: int, outcome: Json) -> None:
            protocol.write(json.dumps({"seq": index, "outcome": outcome}) + "\n")

        if command == "floor":
            floor(batch, emit)
            protocol.write(json.dumps({"done": True, "protocol": PROTOCOL}) + "\n")
            return 0
        scheduler = Scheduler(batch, emit, protocol_fd)
        scheduler.run()
        protocol.write(json.dumps({"done": True, "protocol": PROTOCOL, **scheduler.info()}) + "\n")
        return 0
    if command == "probe":
        protocol.write(json.dumps(probe_modules(argv[2:])) + "\n")
        return 0
    if command == "allowlist":
        try:
            with open(argv[2], encoding="utf-8") as fh:
                checked = Allowlist.parse(fh.read(), argv[2])
        except (OSError, ValueError) as exc:
            sys.stderr.write("%s\n" % exc)
            return 2
        protocol.write(
            json.dumps({"globals": len(checked.entries), "events": len(checked.events)}) + "\n"
        )
        return 0
    sys.stderr.write(
        "usage: __main__.py run|floor BATCH.json | probe MODULE... | exec FD PARENT"
        " | allowlist FILE\n"
    )
    return 2
