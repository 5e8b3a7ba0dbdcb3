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

__all__ = ["RowProgress", "count_lines", "progress_wanted"]

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


def stderr_console() -> Any:
    """The rich console the bar draws on (stderr)."""
    from rich.console import Console

    return Console(stderr=True)
