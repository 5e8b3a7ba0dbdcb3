"""A progress bar on stderr for long commands, only where a person watches.

Shown when stderr is a terminal and ``$CI`` is unset (or ``0``/``false``), and
not with ``--no-progress``; piped, redirected or under ``CI=true`` nothing at
all is written (no bar, no carriage returns). The bar is transient: it is
gone when the work ends, so tables and verdict lines print on a clean screen.
The rich ``Progress`` (and its refresh thread) starts only when shown.

>>> import io
>>> progress_wanted(io.StringIO(), {})  # not a terminal
False
>>> with RowProgress(None, total=10) as bar:  # hidden: a no-op
...     bar.update(3)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

__all__ = ["LineProgress", "RowProgress", "count_lines", "progress_wanted"]

_OFF = ("", "0", "false", "no")


def progress_wanted(
    stream: IO[str] | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """True when ``stream`` (stderr) is a terminal and ``CI`` is not set to a true value."""
    stream = sys.stderr if stream is None else stream
    environ = os.environ if environ is None else environ
    if environ.get("CI", "").strip().lower() not in _OFF:
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def count_lines(path: Path, limit: int = 1 << 31) -> int | None:
    """About the rows of a JSONL file (its line ends; the bar's total), None past ``limit`` bytes.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write(b'{"a": 1}\\n{"a": 2}')
    >>> count_lines(Path(f.name))
    2
    """
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size > limit:
        return None
    count = 0
    last = b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


class RowProgress:
    """``with RowProgress(console, total=N) as bar: bar.update(rows_done)``; a no-op without a console."""

    def __init__(self, console: Any, *, total: int | None, what: str = "scoring") -> None:
        self._console = console
        self._total = total
        self._what = what
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> RowProgress:
        if self._console is None:
            return self
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn()]
        if self._total is not None:
            columns += [MofNCompleteColumn(), TimeRemainingColumn()]
        else:
            columns += [TextColumn("{task.completed:,} rows")]
        columns.append(TimeElapsedColumn())
        self._progress = Progress(*columns, console=self._console, transient=True)
        self._progress.start()
        self._task = self._progress.add_task(self._what, total=self._total)
        return self

    def update(self, done: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=done)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


#: Seconds between two progress lines off a terminal (a whole number or a decimal).
LINES_EVERY_ENV = "TOOLEVAL_PROGRESS_SECONDS"
_LINES_EVERY = 10.0


class LineProgress:
    """Progress as plain lines on stderr when no terminal shows a bar (CI logs, a pipe).

    Rate-limited: at most one line every ``every`` seconds (default 10,
    ``$TOOLEVAL_PROGRESS_SECONDS``), the first only once that long has gone by, so
    a short run prints nothing; a closing line when any was printed.

    >>> import io
    >>> stream = io.StringIO()
    >>> with LineProgress(stream, total=4, every=0.0) as lines:
    ...     lines.update(2)
    >>> stream.getvalue().splitlines()[0].startswith("tooleval score: 2 of 4 rows (50%)")
    True
    """

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        total: int | None,
        every: float | None = None,
        what: str = "tooleval score",
    ) -> None:
        import time

        self._stream = stream or sys.stderr
        self._total = total
        self._every = _seconds() if every is None else every
        self._what = what
        self._clock = time.monotonic
        self._started = self._clock()
        self._last = self._started
        self._done = 0
        self._printed = False

    def __enter__(self) -> LineProgress:
        return self

    def update(self, done: int) -> None:
        self._done = done
        now = self._clock()
        if now - self._last < self._every:
            return
        self._last = now
        rate = done / max(now - self._started, 1e-9)
        part = f" ({done / self._total:.0%})" if self._total else ""
        of = f" of {self._total:,}" if self._total else ""
        self._print(f"{self._what}: {done:,}{of} rows{part}, {rate:,.0f} rows/s")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._printed and kind is None:
            took = self._clock() - self._started
            self._print(f"{self._what}: {self._done:,} rows in {took:.1f}s")

    def _print(self, line: str) -> None:
        self._printed = True
        print(line, file=self._stream, flush=True)


def _seconds() -> float:
    given = os.environ.get(LINES_EVERY_ENV, "").strip()
    try:
        seconds = float(given) if given else _LINES_EVERY
    except ValueError:
        return _LINES_EVERY
    return seconds if seconds >= 0 else _LINES_EVERY


def stderr_console() -> Any:
    """The rich console the bar draws on (stderr)."""
    from rich.console import Console

    return Console(stderr=True)
