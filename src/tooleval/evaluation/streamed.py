"""``evaluate(path, ...)`` of a JSONL file through the compiled kernel's one-pass stream.

The kernel reads the file by blocks, scores every metric it takes (Python the
rest, in their places) and hands back, per row and metric, only the score and
the verdict (a float64 and a byte): no Result, Sample or dict per row, so
memory stays flat in the number of rows and the collector has nothing to walk.
Everything else a row's result holds (id, reason, diagnosis, params) is
decoded when first read, by scoring the file again (the metrics are pure and
deterministic: the same bytes); the file is checked to be unchanged first.

>>> import tempfile, tooleval
>>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
...     _ = f.write(b'{"id": "a", "tools_called": ["f"], "expected_tools": ["f", "g"]}\\n')
>>> result = tooleval.evaluate(f.name, ["tool_call_f1", "tool_correctness"])
>>> result["tool_correctness"], result.rows[0].row_id
([0.5], 'a')
"""

from __future__ import annotations

import io
import os
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from tooleval.errors import InputError
from tooleval.evaluation.result import MetricSummary, RowResult

__all__ = ["RowResultLines", "StreamedRows", "evaluate_jsonl", "evaluate_lines"]


def _stamp(path: Path) -> tuple[int, int, int]:
    found = path.stat()
    return found.st_size, found.st_mtime_ns, found.st_ino


class StreamedRows(Sequence[RowResult]):
    """Every row's result for every metric of a scored JSONL file, kept as scores and verdicts.

    A sequence of :class:`RowResult` (row-major: a row's metrics in order)
    whose objects are made on first access (the file scored again, once);
    :meth:`scores`, :meth:`summary` and :meth:`jsonl` never make them.
    """

    def __init__(
        self, path: Path, metrics: list[Any], rows: int, scores: bytes, verdicts: bytes
    ) -> None:
        self.path = path
        self.metrics = metrics
        self.row_count = rows
        self._scores = array("d")
        self._scores.frombytes(scores)
        self._verdicts = verdicts
        self._stamp = _stamp(path)
        self._decoded: list[RowResult] | None = None

    def __len__(self) -> int:
        return self.row_count * len(self.metrics)

    @overload
    def __getitem__(self, index: int) -> RowResult: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[RowResult]: ...

    def __getitem__(self, index: int | slice) -> RowResult | Sequence[RowResult]:
        return self._rows()[index]

    def __iter__(self) -> Iterator[RowResult]:
        return iter(self._rows())

    def _column(self, metric: str) -> tuple[array[float], bytes]:
        names = [m.name for m in self.metrics]
        at, step = names.index(metric), len(names)
        return self._scores[at::step], self._verdicts[at::step]

    def scores(self, metric: str) -> list[float | None]:
        """The scores of ``metric`` in row order, None where unscored."""
        column, _ = self._column(metric)
        return [None if score != score else score for score in column]

    def summary(self, metric: str) -> MetricSummary:
        """The one tally of ``metric`` (:class:`~tooleval.stats.tally.Tally`), from the columns."""
        from tooleval.stats.tally import Tally

        column, verdicts = self._column(metric)
        scores = [score for score in column if score == score]
        passed = verdicts.count(1)
        tally = Tally(
            passed,
            len(scores) - passed,
            0,
            len(column) - len(scores),
            len(scores),
            sum(scores),
            sum(score * score for score in scores),
            sum(1 for score in scores if score not in (0.0, 1.0)),
        )
        return MetricSummary.of(metric, tally)

    def jsonl(self) -> bytes:
        """The lines ``tooleval score`` writes for the file (scored again in the kernel)."""
        if _stamp(self.path) != self._stamp:
            raise InputError(
                "the dataset file changed after it was evaluated; its results are read from "
                "it again when asked for (evaluate it again)",
                file=str(self.path),
            )
        from tooleval.scoring import score_parsed

        out = io.BytesIO()
        with self.path.open("rb") as source:
            if _stream(self.metrics, source, out, record=False) is None:
                score_parsed(self.metrics, source, out)  # the kernel was turned off since
        return out.getvalue()

    def _rows(self) -> list[RowResult]:
        if self._decoded is None:
            import orjson

            from tooleval.model import Result

            decoded = []
            for line in self.jsonl().splitlines():
                found = orjson.loads(line)
                decoded.append(RowResult(str(found.pop("id")), Result.from_dict(found)))
            self._decoded = decoded
        return self._decoded


def _stream(metrics: list[Any], source: Any, out: Any, *, record: bool) -> Any:
    from tooleval.scoring import score_stream_tallied

    return score_stream_tallied(metrics, source, out, record=record)


def evaluate_jsonl(path: Path, metrics: list[Any]) -> StreamedRows | None:
    """Score a JSONL file with ``metrics`` in one pass of the kernel; None when it takes none.

    The file goes through :func:`tooleval.evaluation.files.score_file`, as
    ``tooleval score``'s does, keeping every score and verdict. Input errors
    raise as :func:`tooleval.evaluate` raises them (naming the row, and the
    file); a field a metric needs that no row has is a DatasetError worded for
    ``bind=``. A metric that no row could be scored with is left to the caller
    (None): the Python path then names the field every row left empty.
    """
    from tooleval.evaluation.file_tally import KernelCounts
    from tooleval.evaluation.files import FileJob, score_file

    job = FileJob(
        dataset=str(path),
        kind="jsonl",
        benchmark=False,
        metrics=metrics,
        names=[m.name for m in metrics],
        record=True,
        entry="evaluate",
    )
    with open(os.devnull, "wb") as nowhere:
        try:
            done = score_file(job, nowhere)
        except InputError as exc:
            if "file" in exc.context:
                raise
            raise exc.with_context(file=str(path)) from None
    if not isinstance(done, KernelCounts):
        return None
    if any(tally.scores == 0 for tally in done.tallies.values()):
        return None  # every row unscored: maybe a field every row leaves empty (Python names it)
    return StreamedRows(path, metrics, done.rows, done.scores, done.verdicts)


class RowResultLines:
    """A results stream that keeps each line as a :class:`RowResult` (its id, its Result).

    What :func:`evaluate_lines` hands :func:`~tooleval.evaluation.files.score_file`
    for ``out``: the lines ``tooleval score`` writes, read back in order.
    """

    def __init__(self) -> None:
        self.rows: list[RowResult] = []
        self._rest = b""

    def write(self, data: bytes) -> int:
        import orjson

        from tooleval.model import Result

        lines = (self._rest + data if self._rest else data).split(b"\n")
        self._rest = lines.pop()
        for line in lines:
            if line:
                found = orjson.loads(line)
                self.rows.append(RowResult(str(found.pop("id")), Result.from_dict(found)))
        return len(data)

    def flush(self) -> None:
        return None


def evaluate_lines(
    path: Path, metrics: list[Any], bind: dict[str, str], concurrency: int
) -> tuple[RowResult, ...]:
    """Score a JSONL file by the Python path of :func:`~tooleval.evaluation.files.score_file`.

    Every row's Result, with its id, in input order (``bind``: field -> key,
    as ``--bind``; judged metrics scored ``concurrency`` rows at a time).
    """
    from tooleval.evaluation.files import FileJob, score_file

    job = FileJob(
        dataset=str(path),
        kind="jsonl",
        benchmark=False,
        metrics=metrics,
        names=[m.name for m in metrics],
        columns=dict(bind),
        concurrency=concurrency,
        entry="evaluate",
    )
    out = RowResultLines()
    try:
        score_file(job, out)  # type: ignore[arg-type]  # a stream of bytes, as IO[bytes] is
    except InputError as exc:
        if "file" in exc.context:
            raise
        raise exc.with_context(file=str(path)) from None
    return tuple(out.rows)
