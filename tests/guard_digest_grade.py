"""An answer graded as the guard grades it, without the processes: run as the answer's
process runs it (what it assigned, pickled by ``transport``), admitted and digested as
the checker does. Stdlib-only, so an env's Python runs it too (tests/test_guard_digest.py
runs it beside NumPy and pandas)."""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, Optional, Tuple

from harness.envside.bridge import guard, transport
from harness.envside.scheduling.execution import _crossed


def grade(
    code: str, given: Optional[Dict[str, Any]] = None
) -> Tuple[Dict[str, str], Dict[str, Any]]:
    """``code``'s digests by label, and the check's namespace after it."""
    given = dict(given or {})
    before = transport.snapshot(given)
    env = dict(given)
    exec(code, env)
    header, blobs = transport.outputs(env, before)
    apart = guard.Guard(code, close_fds=[], sandboxed=False, limits={})
    apart.engaged = True
    seen = dict(given)
    apart._apply(header, blobs, seen)
    return _crossed(apart, ""), seen


def main() -> None:
    """Pairs of answers on stdin (name → [one, other]): their digests on stdout."""
    cases = json.loads(sys.stdin.read())
    found = {name: [grade(one)[0], grade(other)[0]] for name, (one, other) in cases.items()}
    print(json.dumps(found))


if __name__ == "__main__":
    main()
