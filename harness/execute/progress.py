"""Progress while envs build and problems run: live in a terminal, plain lines in CI logs."""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from harness.core.results import Outcome, Status

if TYPE_CHECKING:
    from types import TracebackType

    from harness.envs.build import EnvInfo


class Reporter:
    """Receives the run's events; prints them as plain lines."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.counts: Counter[str] = Counter()
        self.total = 0
        self.done = 0
        self.combo = ""
        self._last = 0.0

    def __enter__(self) -> Reporter:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def log(self, message: str) -> None:
        print(f"[harness] {message}", file=self.stream, flush=True)

    def env_ready(self, info: EnvInfo) -> None:
        if info.ok:
            how = "reused" if info.reused else f"built in {info.build_s:.0f} s"
            versions = ", ".join(f"{k} {v}" for k, v in info.library_versions().items())
            self.log(f"{info.combo}: environment {how} (Python {info.python}; {versions})")
        else:
            first = info.error.strip().splitlines()[0] if info.error.strip() else ""
            self.log(f"{info.combo}: env_error at {info.stage}: {first}")

    def combo_started(self, combo: str, total: int) -> None:
        self.combo, self.total, self.done = combo, total, 0
        self.counts.clear()
        self.log(f"{combo}: running {total} executions")

    def outcome(self, outcome: Outcome) -> None:
        self.done += 1
        self.counts[outcome.status.value] += 1
        now = time.monotonic()
        if now - self._last > 10 or self.done == self.total:
            self._last = now
            self.log(f"{self.combo}: {self.done}/{self.total} {self._counts()}")

    def _counts(self) -> str:
        return " ".join(f"{s.value}={self.counts[s.value]}" for s in Status if self.counts[s.value])


class LiveReporter(Reporter):
    """The same events, as a live progress bar."""

    def __init__(self) -> None:
        super().__init__()
        self.console = Console(stderr=True)
        self.bar = Progress(
            TextColumn("[bold]{task.fields[combo]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> LiveReporter:
        self.bar.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.bar.stop()

    def log(self, message: str) -> None:
        self.bar.console.print(f"[dim][harness][/dim] {message}", highlight=False, markup=False)

    def combo_started(self, combo: str, total: int) -> None:
        self.combo, self.total, self.done = combo, total, 0
        self.counts.clear()
        self.task = self.bar.add_task("", total=total, combo=combo, counts="")

    def outcome(self, outcome: Outcome) -> None:
        self.done += 1
        self.counts[outcome.status.value] += 1
        if self.task is not None:
            self.bar.update(self.task, advance=1, counts=self._counts())


class QuietReporter(Reporter):
    """``--quiet``: the events, unprinted."""

    def log(self, message: str) -> None:
        pass


def reporter(quiet: bool = False) -> Reporter:
    if quiet:
        return QuietReporter()
    return LiveReporter() if sys.stderr.isatty() else Reporter()
