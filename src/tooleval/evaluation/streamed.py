"""``evaluate(path, ...)``: a dataset file scored by ``score_file``, kept as scores and verdicts.

Every format (JSONL, CSV, TSV, a JSON array, Parquet) goes through
:func:`~tooleval.evaluation.files.score_file`, as ``tooleval score`` does. The
compiled kernel reads a JSONL file by blocks and hands back, per row and
metric, only the score and the verdict (a float64 and a byte); the Python path
hands each Result to a :class:`ScoredColumns`, which keeps the same two. No
Result, Sample or dict per row is kept, so memory stays flat in the number of
rows and the collector has nothing to walk. Everything else a row's result
holds (id, reason, diagnosis, params) is decoded when first read, by scoring
the file again (the metrics are pure and deterministic: the same bytes); the
file is checked to be unchanged first. Judged metrics keep their Results
(a judge is never asked twice).

>>> import tempfile, tooleval
>>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
...     _ = f.write(b'{"id": "a", "tools_called": ["f"], "expected_tools": ["f", "g"]}\\n')
>>> result = tooleval.evaluate(f.name, ["tool_call_f1", "tool_correctness"])
>>> result["tool_correctness"], result.rows[0].row_id
([0.5], 'a')
"""

from __future__ import annotations

import io
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

from tooleval.errors import InputError
from tooleval.evaluation.result import MetricSummary, RowResult

__all__ = ["ScoredColumns", "StreamedRows", "evaluate_file"]


def _stamp(path: Path) -> tuple[int, int, int]:
    found = path.stat()
    return found.st_size, found.st_mtime_ns, found.st_ino


class StreamedRows(Sequence[RowResult]):
    """Every row's result for every metric of a scored file, kept as scores and verdicts.

    A sequence of :class:`RowResult` (row-major: a row's metrics in order)
    whose objects are made on first access (the file scored again, once, by
    the same :func:`~tooleval.evaluation.files.score_file` job);
    :meth:`scores`, :meth:`summary` and :meth:`jsonl` never make them.
    """

    def __init__(self, job: Any, rows: int, scores: bytes, verdicts: bytes) -> None:
        self.path = Path(job.dataset)
        self.metrics = job.metrics
        self.row_count = rows
        self._job = job
        self._scores = array("d")
        self._scores.frombytes(scores)
        self._verdicts = verdicts
        self._stamp = _stamp(self.path)
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
        """The lines ``tooleval score`` writes for the file (the file scored again)."""
        if _stamp(self.path) != self._stamp:
            raise InputError(
                "the dataset file changed after it was evaluated; its results are read from "
                "it again when asked for (evaluate it again)",
                file=str(self.path),
            )
        from tooleval.evaluation.files import FileJob, score_file

        job = self._job
        again = FileJob(job.dataset, job.kind, False, job.metrics, job.names, columns=job.columns)
        out = io.BytesIO()
        score_file(again, out)
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


class ScoredColumns:
    """What :func:`evaluate_file` keeps of each result ``score_file`` hands its ``on_result``.

    A float64 and a byte per row and metric (the score, NaN when unscored; the
    verdict, 0 failed, 1 passed, 2 none), as the compiled kernel's stream
    keeps them; with ``keep`` (judged metrics, which are never asked twice)
    every :class:`RowResult` too.
    """

    def __init__(self, *, keep: bool) -> None:
        self.scores = array("d")
        self.verdicts = bytearray()
        self.kept: list[RowResult] | None = [] if keep else None

    def on_result(self, row_id: str, sample: Any, result: Any) -> None:
        score = result.score
        self.scores.append(_NAN if score is None else score)
        self.verdicts.append(2 if result.passed is None else 1 if result.passed else 0)
        if self.kept is not None:
            self.kept.append(RowResult(row_id, result))


_NAN = float("nan")


def evaluate_file(
    path: Path, kind: str, metrics: list[Any], bind: dict[str, str], concurrency: int
) -> Sequence[RowResult]:
    """Score a JSONL, CSV, TSV, JSON-array or Parquet file as ``tooleval score`` scores it.

    One :func:`~tooleval.evaluation.files.score_file` job: the compiled
    kernel's one pass of a JSONL file when it takes the metrics (its compact
    scores and verdicts), else the Python path, whose results go to a
    :class:`ScoredColumns` (no line is written or read back). Rows of
    deterministic metrics come back as :class:`StreamedRows` (decoded when
    read); judged ones as every :class:`RowResult`. Input errors raise as
    :func:`tooleval.evaluate` raises them (naming the row, and the file).
    """
    from tooleval.evaluation.file_tally import KernelCounts
    from tooleval.evaluation.files import FileJob, score_file

    job = FileJob(
        dataset=str(path),
        kind=kind,
        benchmark=False,
        metrics=metrics,
        names=[m.name for m in metrics],
        columns=dict(bind),
        concurrency=concurrency,
        record=True,
        entry="evaluate",
    )
    sink = ScoredColumns(keep=job.judged)
    try:
        done = score_file(job, None, on_result=sink.on_result)
    except InputError as exc:
        if "file" in exc.context:
            raise
        raise exc.with_context(file=str(path)) from None
    if sink.kept is not None:
        return tuple(sink.kept)
    if isinstance(done, KernelCounts):
        return StreamedRows(job, done.rows, done.scores, done.verdicts)
    rows = len(sink.verdicts) // len(metrics)
    return StreamedRows(job, rows, sink.scores.tobytes(), bytes(sink.verdicts))
