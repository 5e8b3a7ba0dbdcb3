"""Progress while a run goes: a rich bar on a terminal, plain lines otherwise.

>>> import io
>>> out = io.StringIO()
>>> p = LineProgress(out, every=2)
>>> p.start(total=4, done=0, run_id="r1")
>>> for error in (False, True, False, False):
...     p.advance(error=error)
>>> p.close()
>>> print(out.getvalue().strip().splitlines()[-1])
run r1: 4/4 rows, 1 error
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any, Protocol

__all__ = ["LineProgress", "Progress", "RichProgress", "make_progress"]


class Progress(Protocol):
    def start(self, *, total: int, done: int, run_id: str) -> None: ...

    def advance(self, *, error: bool) -> None: ...

    def close(self) -> None: ...


class LineProgress:
    """One plain line every ``every`` rows (or every 10 %) and at the end: for CI logs."""

    def __init__(self, stream: IO[str] | None = None, *, every: int | None = None) -> None:
        self.stream = stream or sys.stderr
        self.every = every
        self.total = self.done = self.errors = 0
        self.run_id = ""
        self._started = 0.0

    def start(self, *, total: int, done: int, run_id: str) -> None:
        self.total, self.done, self.run_id = total, done, run_id
        self._started = time.monotonic()
        self._first = done
        if self.every is None:
            self.every = max(1, (total - done) // 10)
        resumed = f" ({done} already stored)" if done else ""
        self._write(f"run {run_id}: {total - done} rows to run{resumed}")

    def advance(self, *, error: bool) -> None:
        self.done += 1
        self.errors += int(error)
        if self.every and (self.done - self._first) % self.every == 0 and self.done < self.total:
            self._write(self._line() + self._eta())

    def close(self) -> None:
        self._write(self._line())

    def _line(self) -> str:
        plural = "" if self.errors == 1 else "s"
        return f"run {self.run_id}: {self.done}/{self.total} rows, {self.errors} error{plural}"

    def _eta(self) -> str:
        ran = self.done - self._first
        if ran <= 0:
            return ""
        elapsed = time.monotonic() - self._started
        return f", ETA {(self.total - self.done) * elapsed / ran:.0f}s"

    def _write(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


class RichProgress:
    """A rich progress bar: rows done, errors, elapsed and ETA."""

    def __init__(self, console: Any = None) -> None:
        self.console = console
        self._progress: Any = None
        self._task: Any = None
        self.errors = 0

    def start(self, *, total: int, done: int, run_id: str) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("rows"),
            TextColumn("[red]{task.fields[errors]} errors"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(f"run {run_id}", total=total, completed=done, errors=0)

    def advance(self, *, error: bool) -> None:
        self.errors += int(error)
        self._progress.update(self._task, advance=1, errors=self.errors)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def make_progress(stream: IO[str] | None = None) -> Progress:
    """A rich bar when ``stream`` (stderr by default) is a terminal, plain lines otherwise."""
    stream = stream or sys.stderr
    if stream.isatty():
        from rich.console import Console

        return RichProgress(Console(file=stream))
    return LineProgress(stream)
