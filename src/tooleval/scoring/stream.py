"""Files and streams through the pipeline: the compiled kernel's threads, or processes.

:func:`score_stream` writes one result line per JSONL line of ``source`` to
``out``, in input order, with the fastest engine :mod:`tooleval.metrics.engine`
offers (blocks of lines on threads with the GIL released), or chunks of lines
in a process pool when Python scores and ``workers > 1``. Every path gives the
same bytes; the first input error stops it after every row before it has been
written. :func:`score_samples` does the same for Samples read elsewhere
(tabular files, benchmark readers).

>>> import io
>>> from tooleval.metrics import bind
>>> out = io.BytesIO()
>>> score_stream(bind("tool_call_f1"), [b'{"id": "a", "tools_called": [], "expected_tools": []}'], out)
1
>>> out.getvalue()[:34]
b'{"id":"a","metric":"tool_call_f1",'
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from tooleval.errors import ToolEvalError
from tooleval.scoring.fields import FieldsWriter
from tooleval.scoring.policy import score_sample
from tooleval.scoring.rows import (
    BOM,
    check_calls_given,
    read_rows,
    result_line,
    row_id,
    row_sample,
    score_line,
    score_line_metrics,
)

__all__ = [
    "MAX_THREADS",
    "cpus",
    "default_threads",
    "read_samples",
    "score_parsed",
    "score_samples",
    "score_stream",
    "score_stream_tallied",
    "StreamTally",
]

MAX_THREADS = 8  # default threads of the compiled kernel: past this, writing is the limit
_CHUNK_LINES = 2000  # big enough that pickling a chunk costs little next to scoring it


def cpus() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_threads() -> int:
    """The compiled kernel's scoring threads when none are asked for: the idle CPUs.

    The CPUs this process may use minus the one-minute load average, rounded,
    at least 1 and at most :data:`MAX_THREADS`. A scoring thread on a CPU
    that is already busy does not finish sooner; it only adds CPU time
    (threads contend for the cores, caches and the writer), so on a busy
    machine the kernel reads, scores and writes on this one thread. Where
    the load is unknown (no ``os.getloadavg``) every CPU counts as idle.

    >>> 1 <= default_threads() <= MAX_THREADS
    True
    """
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows; a system that does not say
        load = 0.0
    return max(1, min(MAX_THREADS, round(cpus() - load)))


def score_stream(
    metric: Any,
    source: Iterable[bytes],
    out: IO[bytes],
    *,
    workers: int = 1,
    threads: int | None = None,
) -> int:
    """Score every JSONL line of ``source`` into ``out``; return the number of rows.

    ``threads``: the compiled kernel's scoring threads (default:
    :func:`default_threads`, the idle CPUs). ``workers > 1`` scores chunks of lines in that
    many processes when Python scores (the kernel then uses ``workers``
    threads instead). Input errors raise after the rows before them are written.
    """
    from tooleval.metrics.engine import fastest_engine

    engine = fastest_engine(metric)  # the compiled kernel when it can take it
    if engine.compiled or workers <= 1:
        count = 0
        threads = threads or (workers if workers > 1 else default_threads())
        reference = functools.partial(score_line, metric)
        rows = engine.score_into(source, out, reference, threads=threads)
        if rows is not None:  # the kernel read, scored and wrote it all
            return rows
        for part in engine.score_lines(source, reference, threads=threads):
            count += out.write(part) > 0  # parts, not rows: "none" matters
        return count
    return _score_in_processes(source, out, metric, workers)


@dataclass(frozen=True, slots=True)
class StreamTally:
    """What the results of a stream said, counted as they were written (no line read back).

    ``metrics``: per metric, ``(rows, passed, failed, unscored, score_sum)``;
    ``statuses``: rows per kind (``failing``: a metric failed, else
    ``unscored``: one could not score, else ``passing``); ``kept``: the first
    rows of each kind as ``(status, row number, input line, result lines)``;
    with ``record``, ``scores`` (float64, NaN when unscored) and ``verdicts``
    (0 failed, 1 passed, 2 none) of every row and metric, row after row.
    """

    metrics: dict[str, tuple[int, int, int, int, float]]
    statuses: dict[str, int]
    kept: list[tuple[str, int, bytes, bytes]]
    scores: bytes | None = None
    verdicts: bytes | None = None


def score_stream_tallied(
    metrics: Sequence[Any],
    source: Iterable[bytes],
    out: IO[bytes],
    *,
    threads: int | None = None,
    keep: int = 0,
    progress: Callable[[int], object] | None = None,
    record: bool = False,
) -> tuple[int, StreamTally] | None:
    """Score JSONL lines with several metrics in one pass of the compiled kernel, counting the results.

    Each row is read once and scored with every metric (one line per row and
    metric, a row's metrics in the order given, the bytes of
    :func:`score_parsed`); metrics and rows the kernel leaves are scored here
    row by row (:func:`~tooleval.scoring.rows.score_line_metrics`). Returns
    ``(rows, tally)``, or None, having read nothing, when the kernel takes none
    of the metrics (then score with :func:`score_parsed`). Input errors raise
    after every row before them is written.

    >>> import io
    >>> from tooleval.metrics import bind
    >>> metrics = [bind("tool_call_f1"), bind("tool_correctness")]
    >>> line = b'{"id": "a", "tools_called": ["f"], "expected_tools": ["g"]}\\n'
    >>> done = score_stream_tallied(metrics, io.BytesIO(line), io.BytesIO(), keep=1)
    >>> done is None or done[1].statuses["failing"] == 1
    True
    """
    from tooleval.metrics.engine import score_metrics_stream

    metrics = list(metrics)

    def fallback(number: int, line: bytes, indices: tuple[int, ...]) -> list[bytes]:
        return score_line_metrics(metrics, number, line, indices)

    fields: tuple[str, ...] = ()
    if type(out) is FieldsWriter:  # the kernel cuts the lines itself, as it writes them
        out, fields = out.target, out.fields
    done = score_metrics_stream(
        metrics,
        source,
        out,
        fallback,
        threads=threads or default_threads(),
        tally=True,
        keep=keep,
        progress=progress,
        record=record,
        fields=fields,
    )
    if done is None:
        return None
    rows, (counts, statuses, kept, scores, verdicts) = done
    names = [metric.info.name for metric in metrics]
    by_metric = {name: tuple(c) for name, c in zip(names, counts, strict=True)}
    return rows, StreamTally(by_metric, dict(statuses), list(kept), scores, verdicts)


def score_samples(
    metric: Any,
    samples: Iterable[tuple[int, Any]],
    out: IO[bytes] | None = None,
    *,
    on_result: Callable[[str, Any, Any], None] | None = None,
) -> int:
    """Score ``(row_number, Sample)`` pairs, writing lines to ``out`` and/or calling ``on_result``.

    ``metric`` is a bound metric or a list of them: each row is scored with
    every metric in the order given, one line per row and metric (the file is
    read once). ``on_result(row_id, sample, result)`` sees every result (a
    table, a summary). Returns the number of rows.
    """
    metrics = list(metric) if isinstance(metric, (list, tuple)) else [metric]
    count = 0
    for number, sample in samples:
        name = row_id(sample, number)
        for each in metrics:
            result = score_sample(each, sample)
            if on_result is not None:
                on_result(name, sample, result)
            if out is not None:
                out.write(result_line(name, result))
        count += 1
    return count


def score_parsed(
    metric: Any,
    source: Iterable[bytes],
    out: IO[bytes] | None = None,
    *,
    on_result: Callable[[str, Any, Any], None] | None = None,
) -> int:
    """Score JSONL lines in Python with one bound metric or a list of them (one read of the lines).

    Input errors raise as in :func:`score_stream`; see :func:`score_samples`.
    """
    metrics = list(metric) if isinstance(metric, (list, tuple)) else [metric]
    return score_samples(metrics, read_samples(metrics, source), out, on_result=on_result)


def read_samples(metrics: Sequence[Any], source: Iterable[bytes]) -> Iterator[tuple[int, Any]]:
    """``(row_number, Sample)`` of each JSONL line, checked for every metric (input errors raise)."""
    for number, row in read_rows(source):
        sample = row_sample(metrics[0], number, row)
        for each in metrics[1:]:  # each metric's own check of what the row must say
            if sample.tools_called is None and not sample.messages:
                check_calls_given(each, number, row)
        yield number, sample


# ---------------------------------------------------------------- processes

_worker_metric: list[Any] = []


def _init_worker(metric: Any) -> None:
    _worker_metric[:] = [metric]


def _score_chunk(chunk: tuple[int, list[bytes]]) -> tuple[bytes, ToolEvalError | None, int]:
    """Score lines numbered from ``start``: the output, the error of a bad row, rows scored."""
    import io

    start, lines = chunk
    metric = _worker_metric[0]
    parts: list[bytes] = []
    try:
        for number, row in read_rows(io.BytesIO(b"".join(lines)), start=start):
            sample = row_sample(metric, number, row)
            parts.append(result_line(row_id(sample, number), score_sample(metric, sample)))
    except ToolEvalError as exc:
        return b"".join(parts), exc, len(parts)
    return b"".join(parts), None, len(parts)


def _chunks(source: Iterable[bytes]) -> Iterator[tuple[int, list[bytes]]]:
    lines: list[bytes] = []
    start = 1
    for number, line in enumerate(source, start=1):
        if number == 1 and line.startswith(BOM):
            line = line[len(BOM) :]
        if not lines:
            start = number
        lines.append(line if line.endswith(b"\n") else line + b"\n")
        if len(lines) == _CHUNK_LINES:
            yield start, lines
            lines = []
    if lines:
        yield start, lines


def _score_in_processes(source: Iterable[bytes], out: IO[bytes], metric: Any, workers: int) -> int:
    """Score chunks of lines in a process pool, writing results in input order.

    No more processes start than there are chunks (a one-chunk file is scored
    in this process). At most ``2 * workers`` chunks are in flight, so memory
    stays flat on large files; the first bad row stops the run after every
    row before it has been written, as in-process scoring does.
    """
    import collections
    import itertools
    import multiprocessing

    chunks = _chunks(source)
    ahead = list(itertools.islice(chunks, workers))
    if len(ahead) <= 1:
        _init_worker(metric)
        count = 0
        for chunk in ahead:
            data, error, rows = _score_chunk(chunk)
            out.write(data)
            count += rows
            if error is not None:
                raise error
        return count
    # A bad row closes and joins the pool, never terminates it: terminating a
    # worker that holds the result queue's lock leaves the pool's task thread
    # waiting on it for ever (a hang seen under load). The bad row stops new
    # chunks; the few in flight (at most ``2 * workers``) finish, unread.
    pool = multiprocessing.get_context().Pool(
        min(workers, len(ahead)), initializer=_init_worker, initargs=(metric,)
    )
    pending: collections.deque[Any] = collections.deque()
    count = 0
    failure: ToolEvalError | None = None
    try:
        for chunk in itertools.chain(ahead, chunks):
            pending.append(pool.apply_async(_score_chunk, (chunk,)))
            while len(pending) >= 2 * workers or (pending and pending[0].ready()):
                data, failure, rows = pending.popleft().get()
                out.write(data)
                count += rows
                if failure is not None:
                    break
            if failure is not None:
                break
        while pending and failure is None:
            data, failure, rows = pending.popleft().get()
            out.write(data)
            count += rows
    except BaseException:  # Ctrl-C, a closed pipe: results still owed would never come
        pool.terminate()
        raise
    pool.close()
    pool.join()
    if failure is not None:
        raise failure
    return count
