"""A fake uv for the env builder's tests: it records each call and plays the part of
each command (``pip compile`` writes a lock, ``venv`` makes a directory)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.envs import interpreters
from harness.envs.build import EnvBuilder

FULL = "3.11.7"  # the interpreter version the fake interpreter reports
LOCK = "# uv pip compile\nnumpy==1.26.4\n    # via -r in\nsix==1.16.0\n"


class FakeUv:
    """Plays uv: records each call; ``pip compile`` writes ``lock`` or fails with ``error``."""

    def __init__(self, lock: str = LOCK) -> None:
        self.lock = lock
        self.error: str | None = None  # what uv prints when it fails
        self.sync_error = ""
        # uv's message when the request holds a requirement starting with a key here
        self.no_wheels: dict[str, str] = {}
        # the env's interpreter: by default this one, which has none of the libraries
        self.python = f'#!/bin/sh\nexec "{sys.executable}" "$@"\n'
        self.calls: list[tuple[str, ...]] = []

    def commands(self) -> list[str]:
        return [
            " ".join(a for a in call[:2] if not a.startswith(("/", "-"))) for call in self.calls
        ]

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        self.calls.append(args)
        if args[:2] == ("pip", "compile"):
            if self.error is not None:
                return subprocess.CompletedProcess(args, 1, "", self.error)
            request = Path(args[2]).read_text().splitlines()
            for start, message in self.no_wheels.items():
                if any(line.startswith(start) for line in request):
                    return subprocess.CompletedProcess(args, 1, "", message)
            Path(args[args.index("-o") + 1]).write_text(self.lock)
        elif args[0] == "venv":
            python = Path(args[1]) / "bin" / "python"
            python.parent.mkdir(parents=True)
            python.write_text(self.python)
            python.chmod(0o755)
        elif args[:2] == ("pip", "sync") and self.sync_error:
            return subprocess.CompletedProcess(args, 2, "", self.sync_error)
        return subprocess.CompletedProcess(args, 0, "", "")


def install(monkeypatch: pytest.MonkeyPatch) -> FakeUv:
    """Put a :class:`FakeUv` in uv's place, and this interpreter in every combo's."""
    fake = FakeUv()
    monkeypatch.setattr(EnvBuilder, "_uv", lambda _builder, *args, timeout=0: fake(*args))
    monkeypatch.delenv("UV_INDEX_URL", raising=False)
    here = interpreters.Interpreter(Path(sys.executable), FULL)
    monkeypatch.setattr(interpreters, "find", lambda _wanted: here)
    return fake
