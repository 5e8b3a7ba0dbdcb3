"""The tallies of a scored file: per-metric counts, the rows a table shows, kept results.

:func:`tooleval.evaluation.files.score_file` counts each result once, in a
:class:`~tooleval.stats.tally.Tally` per metric (the one tally the read model,
``evaluate()`` and the gate share): :class:`ResultLines` reads the result lines
back as they are written (the Python paths), :class:`KernelCounts` takes the
compiled kernel's own counters. :class:`ScoreTableRows` keeps only what a
table shows (at most ``limit`` rows of each kind: failing, unscored, passing)
and counts the rest, so a file of a million rows costs the memory of the
table, not of the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from tooleval.model import Sample
from tooleval.stats.tally import Tally

__all__ = [
    "TABLE_ROWS",
    "Cell",
    "ResultLines",
    "ScoreTableRows",
    "ShownRow",
    "KernelCounts",
    "corpus_metrics",
    "row_status",
    "stream_table_rows",
]

TABLE_ROWS = 30  # rows a table shows by default (failures first)

#: A row's cell for one metric: (score or None, passed or None, reason).
Cell = tuple[float | None, bool | None, str]


def row_status(cells: Sequence[Cell]) -> str:
    """``failing`` when a metric failed, else ``unscored`` when one could not score, else ``passing``.

    >>> row_status([(1.0, True, ""), (None, None, "no ref")]), row_status([(0.0, False, "")])
    ('unscored', 'failing')
    """
    if any(score is not None and not passed for score, passed, _ in cells):
        return "failing"
    if any(score is None for score, _, _ in cells):
        return "unscored"
    return "passing"


_ORDER = ("failing", "unscored", "passing")


@dataclass(slots=True)
class ShownRow:
    row_id: str
    sample: Sample | None
    cells: list[Cell]


@dataclass
class ScoreTableRows:
    """The rows ``--table`` shows: at most ``limit``, failing first, then unscored, then passing.

    >>> rows = ScoreTableRows(limit=1)
    >>> for i in range(3):
    ...     rows.add(f"r{i}", None, [(0.0 if i else 1.0, not i, "")])
    >>> [r.row_id for r in rows.shown()], rows.left_out()
    (['r1'], {'failing': 1, 'unscored': 0, 'passing': 1})
    """

    limit: int = TABLE_ROWS
    kept: dict[str, list[ShownRow]] = field(default_factory=lambda: {k: [] for k in _ORDER})
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_ORDER, 0))

    def add(
        self, row_id: str, sample: Sample | Callable[[], Sample | None] | None, cells: list[Cell]
    ) -> None:
        """Count a row; keep it when its kind still has room (``sample`` may be a thunk)."""
        status = row_status(cells)
        self.counts[status] += 1
        bucket = self.kept[status]
        if len(bucket) < self.limit:
            found = sample() if callable(sample) else sample
            bucket.append(ShownRow(row_id, found, cells))

    def shown(self) -> list[ShownRow]:
        out: list[ShownRow] = []
        for status in _ORDER:
            out.extend(self.kept[status][: self.limit - len(out)])
        return out

    def left_out(self) -> dict[str, int]:
        shown = self.shown()
        return {
            s: self.counts[s] - sum(1 for r in shown if row_status(r.cells) == s) for s in _ORDER
        }


def stream_table_rows(
    statuses: dict[str, int],
    kept: Sequence[tuple[str, int, bytes, bytes]],
    limit: int,
    sample_of: Callable[[bytes], Sample | None] | None,
) -> ScoreTableRows:
    """The table's rows from what the compiled kernel's stream counted and kept.

    ``kept``: ``(status, row number, input line, the row's result lines)`` of
    the first ``limit`` rows of each kind; only these lines are parsed.
    """
    import orjson

    rows = ScoreTableRows(limit=limit)
    rows.counts.update(statuses)
    for status, _number, line, results in kept:
        found = [orjson.loads(part) for part in results.split(b"\n") if part]
        cells: list[Cell] = [
            (item.get("score"), item.get("passed"), str(item.get("reason") or "")) for item in found
        ]
        sample = sample_of(line.removeprefix(b"\xef\xbb\xbf")) if sample_of else None
        rows.kept[status].append(ShownRow(str(found[0].get("id")), sample, cells))
    return rows


class ResultLines:
    """The results stream of ``tooleval score``: writes through to ``out``, reads every line back.

    Each result line written is counted in :attr:`tallies` (per metric), and
    every ``len(metrics)`` lines (one row) go to ``table`` (a
    :class:`tooleval.cli._table.ScoreTableRows`) with the row's Sample:
    the one ``on_result`` saw last (the Python paths call it before each
    write) or, on the compiled kernel's path, the input line ``lines.pop()``
    hands back (a :class:`tooleval.evaluation.file_input.InputTap`). Memory: the
    counters, the table's rows and the results of ``keep`` metrics (the
    benchmarks' corpus-level numbers need every result).
    """

    def __init__(
        self,
        out: IO[bytes],
        metrics: list[str],
        *,
        table: Any = None,
        progress: Any = None,
        keep: set[str] | frozenset[str] = frozenset(),
        lines: Any = None,
    ) -> None:
        self.out = out
        self.metrics = list(metrics)
        self.tallies: dict[str, Tally] = {name: Tally() for name in metrics}
        self.kept: dict[str, list[Any]] = {name: [] for name in keep}
        self.rows = 0
        self.table = table
        self._progress = progress
        self._lines = lines
        self._sample: Any = None
        self._cells: list[tuple[float | None, bool | None, str]] = []
        self._rest = b""

    def on_result(self, _row_id: str, sample: Any, _result: Any) -> None:
        self._sample = sample

    def write(self, data: bytes) -> int:
        import orjson

        written = self.out.write(data)
        lines = (self._rest + data if self._rest else data).split(b"\n")
        self._rest = lines.pop()
        for line in lines:
            if line:
                self._take(orjson.loads(line))
        return written

    def flush(self) -> None:
        self.out.flush()

    def _take(self, found: dict[str, Any]) -> None:
        metric, score, passed = found.get("metric"), found.get("score"), found.get("passed")
        self.tallies.setdefault(str(metric), Tally()).add(score, passed)
        if metric in self.kept:
            from tooleval.model import Result

            self.kept[metric].append(Result.from_dict(found))
        self._cells.append((score, passed, str(found.get("reason") or "")))
        if len(self._cells) < len(self.metrics):
            return
        sample: Any = self._sample
        if self._lines is not None:
            line = self._lines.pop()
            sample = lambda: self._lines.sample_of(line)  # noqa: E731  (parsed only if shown)
        if self.table is not None:
            self.table.add(str(found.get("id")), sample, self._cells)
        self._cells = []
        self.rows += 1
        if self._progress is not None and self.rows % 128 == 0:
            self._progress.update(self.rows)


class KernelCounts:
    """What the compiled kernel's stream counted, in the shape of :class:`ResultLines`'s figures.

    The kernel counts every result as it writes it (per metric: rows, passed,
    failed, unscored, the score sum in row order: the same sums as
    :class:`~tooleval.stats.tally.Tally` makes; no sum of squares) and keeps the first rows of each kind for the
    table, so no result line is read back.
    """

    def __init__(
        self,
        tallies: dict[str, Tally],
        rows: int,
        table: Any,
        scores: bytes = b"",
        verdicts: bytes = b"",
    ) -> None:
        self.tallies = tallies
        self.rows = rows
        self.table = table
        self.kept: dict[str, list[Any]] = {}  # corpus metrics never take this path
        # a job's ``record``: every row's scores (float64, NaN unscored) and verdicts, row-major
        self.scores = scores
        self.verdicts = verdicts

    @classmethod
    def of(cls, counted: Any, rows: int, *, limit: int | None, sample_of: Any) -> KernelCounts:
        """From a :class:`tooleval.scoring.StreamTally`; the table's rows when ``limit`` is given."""
        tallies = {
            name: Tally(passed, failed, 0, unscored, passed + failed, total, square_sum=None)
            for name, (_n, passed, failed, unscored, total) in counted.metrics.items()
        }
        table = None
        if limit is not None:
            table = stream_table_rows(counted.statuses, counted.kept, limit, sample_of)
        return cls(tallies, rows, table, counted.scores or b"", counted.verdicts or b"")


def corpus_metrics(names: Sequence[str]) -> set[str]:
    """The metrics whose benchmark reports corpus-level numbers (their results are kept)."""
    from tooleval.benchmarks.registry import list_benchmarks

    declared = {name for record in list_benchmarks() for name in record.summaries}
    return {name for name in names if name in declared}
