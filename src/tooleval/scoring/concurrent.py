"""Rows with judged metrics: scored concurrently on an event loop, written in input order.

A judged metric waits on its judge (an HTTP endpoint, a local model), so rows
are scored ``concurrency`` at a time; deterministic metrics of the same row are
scored with them. Every sample is read before the first judge call, so an
input error costs no judge call; a judge that fails on a row leaves that
row's metric unscored with the reason (:func:`tooleval.scoring.ascore_sample`),
as in runs. The metrics' judges are closed when the rows are done.

>>> import io
>>> from tooleval.metrics import bind
>>> from tooleval.model import Sample
>>> out = io.BytesIO()
>>> score_concurrently([bind("tool_call_f1")], [(1, Sample(id="a", tools_called=[], expected_tools=[]))], out)
1
>>> out.getvalue()[:34]
b'{"id":"a","metric":"tool_call_f1",'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

from tooleval.errors import ConfigError
from tooleval.scoring.policy import ascore_sample
from tooleval.scoring.rows import result_line, row_id

__all__ = ["score_concurrently"]


def score_concurrently(
    metrics: Sequence[Any],
    samples: Iterable[tuple[int, Any]],
    out: IO[bytes] | None = None,
    *,
    concurrency: int = 4,
    on_result: Callable[[str, Any, Any], None] | None = None,
    on_row: Callable[[], None] | None = None,
) -> int:
    """Score ``(row_number, Sample)`` pairs with ``metrics``, ``concurrency`` rows at a time.

    Lines (one per row and metric) are written in input order; ``on_result``
    sees each result, ``on_row`` is called as each row finishes (progress).
    Returns the number of rows.
    """
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ConfigError(f"expected a whole number >= 1, got {concurrency!r}", field="concurrency")
    import asyncio  # here: asyncio pulls in ssl, too slow for every `tooleval score`

    rows = list(samples)  # every input error before the first judge call
    return asyncio.run(_score_all(list(metrics), rows, out, concurrency, on_result, on_row))


async def _score_all(
    metrics: list[Any],
    rows: list[tuple[int, Any]],
    out: IO[bytes] | None,
    concurrency: int,
    on_result: Callable[[str, Any, Any], None] | None,
    on_row: Callable[[], None] | None,
) -> int:
    import asyncio

    gate = asyncio.Semaphore(concurrency)

    async def one(sample: Any) -> list[Any]:
        async with gate:
            found = [await ascore_sample(metric, sample) for metric in metrics]
        if on_row is not None:
            on_row()
        return found

    tasks = [asyncio.ensure_future(one(sample)) for _, sample in rows]
    try:
        for (number, sample), task in zip(rows, tasks, strict=True):
            name = row_id(sample, number)
            for result in await task:
                if on_result is not None:
                    on_result(name, sample, result)
                if out is not None:
                    out.write(result_line(name, result))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await _close_judges(metrics)
    return len(rows)


async def _close_judges(metrics: list[Any]) -> None:
    """Close each judge on the loop its clients were made on (the loop ends next)."""
    seen: list[Any] = []
    for metric in metrics:
        judge = getattr(metric, "judge", None)
        if judge is None or any(judge is other for other in seen):
            continue
        seen.append(judge)
        close = getattr(judge, "aclose", None)
        if close is not None:
            await close()
