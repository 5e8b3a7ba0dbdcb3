"""Scoring a file: the one function ``tooleval score`` and ``evaluate(path)`` call.

:func:`score_file` takes a :class:`FileJob` (the dataset, its kind, the bound
metrics, ``--bind`` columns, workers) and writes one result line per row and
metric to ``out``, in input order, by the fastest path that takes the job:

- JSONL without a judge: every metric the compiled kernel takes in one pass
  of the file (:func:`tooleval.scoring.score_stream_tallied`), counted by the
  kernel itself (the tally, the table's rows, progress);
- otherwise the Python pipeline (:mod:`tooleval.scoring`): JSONL parsed row by
  row (or in worker processes), CSV/TSV/Parquet/JSON and benchmark files read
  into Samples, judged metrics scored ``concurrency`` rows at a time; the
  result lines are read back as they are written when a tally is asked for
  (:class:`~tooleval.evaluation.file_tally.ResultLines`), and each Result is
  handed to ``on_result`` when one is given (``evaluate``'s
  :class:`~tooleval.evaluation.streamed.ScoredColumns`; ``out`` may then be None).

The input is watched as it is read (:class:`~tooleval.evaluation.file_input.InputTap`):
a bound column or a field a metric needs that no row holds is refused, with
the likely key, before any row is scored when the file can be searched first
(:func:`check_fields_first`), else once it is read. An empty input is an
InputError. The caller gives the progress (an object with ``update(rows)``)
and prints what it likes from the returned tally.
"""

from __future__ import annotations

import dataclasses
import os
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tooleval.errors import InputError
from tooleval.evaluation.file_input import (
    ExplainedLines,
    InputTap,
    open_dataset,
    renamed_lines,
    tabular_samples,
)
from tooleval.evaluation.file_tally import (
    TABLE_ROWS,
    KernelCounts,
    ResultLines,
    ScoreTableRows,
    corpus_metrics,
)
from tooleval.stdio import stdin_bytes

__all__ = ["FileJob", "check_fields_first", "score_file"]

_CALL_FIELDS = ("tools_called", "messages")  # a row without either is already an input error


@dataclass
class FileJob:
    """What to score: the dataset (a path, ``-`` for stdin), its kind and the bound metrics.

    ``names`` are the metrics' names as given (their order is the lines' order);
    ``columns`` the ``--bind`` renames; ``workers`` the threads (kernel) or
    processes (Python) asked for, None for the default; ``concurrency`` the
    rows judged at once. ``record``: keep every row's score and verdict (the
    tally's ``scores`` and ``verdicts``) when the compiled kernel takes the
    job; one it does not take goes to the Python path when ``score_file`` is
    given an ``on_result``, else is not scored. ``entry``: who asks (``score``
    or ``evaluate``), for the wording of input errors.
    """

    dataset: str
    kind: str
    benchmark: bool
    metrics: list[Any]
    names: list[str]
    columns: dict[str, str] = field(default_factory=dict)
    data: str | None = None
    workers: int | None = None
    concurrency: int = 4
    record: bool = False
    entry: str = "score"
    tap: InputTap | None = field(default=None, init=False)
    checked: bool = field(default=False, init=False)  # fields checked before scoring
    # per JSONL row, why its bound expected_tools column was empty (see ExplainedLines)
    empty: deque[str | None] | None = field(default=None, init=False)
    noted: dict[int, str] | None = field(default=None, init=False)  # the same, by row number

    @property
    def judged(self) -> bool:
        return any(m.info.needs_judge for m in self.metrics)

    @property
    def fast(self) -> bool:
        """Single-metric JSONL without a judge: the compiled kernel's path (score_stream)."""
        return self.kind == "jsonl" and len(self.metrics) == 1 and not self.judged

    @property
    def streamed(self) -> bool:
        """JSONL without a judge: every metric in one pass of the compiled kernel."""
        return self.kind == "jsonl" and not self.judged

    def needed(self) -> dict[str, tuple[str, ...]]:
        """Per metric, the fields a row must hold besides the agent's calls."""
        return {
            m.info.name: tuple(f for f in m.info.requires if f not in _CALL_FIELDS)
            for m in self.metrics
        }

    def _open(self) -> IO[bytes]:
        return stdin_bytes("the dataset") if self.dataset == "-" else open_dataset(self.dataset)

    def _close(self, source: IO[bytes]) -> None:
        if self.dataset != "-":
            source.close()


def check_fields_first(job: FileJob) -> None:
    """Refuse, before any row is scored, a bound column or a needed field no row of the file has.

    A regular JSONL file is searched once for the keys (a byte search, as the
    scorer's own watch does); standard input, read once, is checked after it
    is scored.
    """
    if job.kind != "jsonl" or job.dataset == "-":
        return
    needed = job.needed()
    if not job.columns and not any(needed.values()):
        return
    tap = InputTap(None, job.columns, keep_lines=False)
    with open_dataset(job.dataset) as source:
        tap.over(source).watched(needed, job.columns)
        while tap.read(1 << 20):
            pass
    tap.check(needed, job.columns)
    job.checked = True


def score_file(
    job: FileJob,
    out: IO[bytes] | None,
    *,
    tally: bool = False,
    table_rows: int | None = None,
    progress: Any = None,
    on_result: Callable[[str, Any, Any], None] | None = None,
) -> ResultLines | KernelCounts | None:
    """Score ``job`` into ``out``; its tally when ``tally`` (or a table) is asked for.

    ``table_rows``: keep that many rows of each kind for a table (the tally's
    ``table``), and the results of metrics whose benchmark reports corpus-level
    numbers (its ``kept``). ``progress``: an object whose ``update(rows)`` is
    called as rows are scored. ``on_result(row_id, sample, result)``: called
    with each Result of the Python path, in input order (a row's reason for an
    empty bound ``expected_tools`` cell made specific when ``out`` is None); the
    compiled kernel's path calls it for none (``record`` keeps its scores).
    """
    table = table_rows is not None
    if "expected_tools" in job.columns or (job.kind != "jsonl" and not job.benchmark):
        job.empty = deque()
        job.noted = {} if table else None
    found: ResultLines | KernelCounts | None = _score_streamed(
        job, out, table_rows=table_rows, progress=progress
    )
    if found is None and job.record and on_result is None:
        return None  # only the compiled kernel's stream keeps every score
    if found is None:
        if (tally or table) and out is not None:
            found = _result_tally(job, out, table_rows=table_rows, progress=progress)
        sink: Any = out
        if found is None and progress is not None and out is not None:  # counting lines is enough
            sink = _Counted(out, len(job.metrics), progress.update)
        count = _score(job, found if found is not None else sink, found, on_result)
    else:
        count = found.rows
    if count == 0:
        if job.entry == "evaluate":
            what = (
                "is empty or holds only blank lines" if job.kind == "jsonl" else "has no data rows"
            )
            raise InputError(f"no rows to evaluate: the file {what}", file=job.dataset)
        raise InputError(
            "no rows to score: the input is empty or holds only blank lines", field="DATASET"
        )
    if job.tap is not None and not job.checked:
        job.tap.check(job.needed(), job.columns, entry=job.entry)
    return found if (tally or table or job.record) else None


class _Counted:
    """The results stream, counting rows (``metrics`` lines each) for progress as they go by."""

    def __init__(self, out: IO[bytes], metrics: int, update: Any) -> None:
        self._out, self._metrics, self._update = out, metrics, update
        self._lines = 0

    def write(self, data: bytes) -> int:
        self._lines += data.count(b"\n")
        self._update(self._lines // self._metrics)
        return self._out.write(data)

    def flush(self) -> None:
        self._out.flush()


def _score_streamed(
    job: FileJob, out: IO[bytes] | None, *, table_rows: int | None, progress: Any
) -> KernelCounts | None:
    """One pass of the compiled kernel over a JSONL file; None (nothing read) when it takes none."""
    from tooleval.scoring import score_stream_tallied

    table = table_rows is not None
    if not job.streamed or (table and corpus_metrics(job.names)):
        return None  # a benchmark's corpus numbers need every Result
    limit = table_rows or TABLE_ROWS
    if out is None:  # nothing asks for the lines: the kernel writes them to nowhere
        with open(os.devnull, "wb") as nowhere:
            return _score_streamed(job, nowhere, table_rows=table_rows, progress=progress)
    source = job._open()
    try:
        workers = job.workers if job.workers and job.workers > 1 else 1
        done = score_stream_tallied(
            job.metrics,
            _tapped(job, source),
            _explained(job, out),
            threads=workers if job.workers else None,
            keep=limit if table else 0,
            progress=progress.update if progress is not None else None,
            record=job.record,
        )
    finally:
        job._close(source)
    if done is None:
        job.tap = None  # nothing was read: the Python path taps the file afresh
        return None
    rows, counted = done
    if job.noted:  # the table's rows as written: an empty bound cell named
        kept = [
            (status, number, line, _explain_all(results, job.noted.get(number)))
            for status, number, line, results in counted.kept
        ]
        counted = dataclasses.replace(counted, kept=kept)
    tap = job.tap
    return KernelCounts.of(
        counted,
        rows,
        limit=limit if table else None,
        sample_of=tap.sample_of if tap is not None else None,
    )


def _explain_all(results: bytes, why: str | None) -> bytes:
    from tooleval.scoring import explain_unbound_line

    if why is None:
        return results
    return b"\n".join(explain_unbound_line(line, why) for line in results.split(b"\n"))


def _result_tally(
    job: FileJob, out: IO[bytes], *, table_rows: int | None, progress: Any
) -> ResultLines:
    table = table_rows is not None
    rows = ScoreTableRows(limit=table_rows or TABLE_ROWS) if table else None
    keep = corpus_metrics(job.names) if table else set()
    if job.fast and table:
        job.tap = InputTap(None, job.columns, keep_lines=True)  # the source comes in _score
    return ResultLines(out, job.names, table=rows, progress=progress, keep=keep, lines=job.tap)


def _samples(job: FileJob) -> Iterable[tuple[int, Any]]:
    """The rows of a benchmark's file or a CSV/TSV/Parquet/JSON file, as Samples."""
    from tooleval.benchmarks.score_format import benchmark_samples

    if job.benchmark:
        return benchmark_samples(Path(job.dataset), job.kind, data=job.data)
    return tabular_samples(
        Path(job.dataset),
        job.kind,
        job.metrics,
        bind=job.columns,
        needed=job.needed(),
        empty=job.empty,
        entry=job.entry,
    )


def _score(job: FileJob, out: Any, tally: ResultLines | None, given: Any = None) -> int:
    """Score the rows of ``job`` into ``out`` (and ``given``'s on_result); the number of rows."""
    from tooleval.scoring import score_parsed, score_samples, score_stream

    on_result = tally.on_result if tally is not None else None
    if given is not None:
        if out is None and job.empty is not None:
            given = _ExplainedResults(given, len(job.metrics), job.empty)
        on_result = given if on_result is None else _both(on_result, given)
    metric = job.metrics[0] if len(job.metrics) == 1 else job.metrics
    out = _explained(job, out)
    if job.judged:
        return _score_judged(job, out, on_result)
    if job.kind != "jsonl":
        return score_samples(metric, _samples(job), out, on_result=on_result)
    source = job._open()
    try:
        lines = _tapped(job, source)
        if not job.fast or given is not None:
            return score_parsed(metric, lines, out, on_result=on_result)
        workers = job.workers if job.workers and job.workers > 1 else 1
        threads = workers if job.workers else None
        return score_stream(metric, lines, out, workers=workers, threads=threads)
    finally:
        job._close(source)


def _tapped(job: FileJob, source: IO[bytes]) -> Iterable[bytes]:
    """The JSONL lines as the scorer reads them: watched by an InputTap, keys renamed by --bind."""
    tap = job.tap or InputTap(None, job.columns, keep_lines=False)
    job.tap = tap.over(source).watched(job.needed(), job.columns)
    if not job.columns:
        return job.tap
    return renamed_lines(job.tap, job.columns, job.empty, job.noted)


def _explained(job: FileJob, out: Any) -> Any:
    """``out``, with a bound expected_tools column's empty cells named in the rows' reasons."""
    if job.empty is None or out is None:
        return out
    return ExplainedLines(out, len(job.metrics), job.empty)


def _both(first: Callable[..., None], second: Callable[..., None]) -> Callable[..., None]:
    def each(row_id: str, sample: Any, result: Any) -> None:
        first(row_id, sample, result)
        second(row_id, sample, result)

    return each


class _ExplainedResults:
    """``on_result`` with each row's "no expected_tools bound" reason made specific.

    The Results' twin of :class:`~tooleval.evaluation.file_input.ExplainedLines`:
    rows come ``metrics`` results each, in input order, and ``empty`` holds
    per row why its bound column was empty (filled as the input is read).
    """

    def __init__(self, on_result: Callable[..., None], metrics: int, empty: deque[str | None]):
        self._on_result, self._metrics, self._empty = on_result, metrics, empty
        self._seen = 0
        self._why: str | None = None

    def __call__(self, row_id: str, sample: Any, result: Any) -> None:
        from tooleval.scoring import explain_unbound

        if self._seen % self._metrics == 0:
            self._why = self._empty.popleft() if self._empty else None
        self._seen += 1
        self._on_result(row_id, sample, explain_unbound(result, self._why))


def _score_judged(job: FileJob, out: Any, on_result: Any) -> int:
    """Rows with a judged metric: read every row first, then judge them concurrently."""
    from tooleval.scoring import read_samples, score_concurrently

    samples: Iterable[tuple[int, Any]]
    if job.kind != "jsonl" or job.benchmark:
        samples = _samples(job)
    else:
        source = job._open()
        try:
            samples = list(read_samples(job.metrics, _tapped(job, source)))
        finally:
            job._close(source)
    return score_concurrently(
        job.metrics, samples, out, concurrency=job.concurrency, on_result=on_result
    )
