"""Comparisons of two runs for the viewer and the report, computed once and kept in the store.

:func:`tooleval.runs.compare.compare_runs` decides every row's change; it is
fed *lean* rows here (row id, index, category and each result's score and
verdict, read by :func:`tooleval.store.aggregates.verdict_rows` without
decoding any sample or diagnosis JSON), which is what makes two 100k-row runs
comparable in seconds. When both runs have stopped, the comparison is saved
on run B (counts per metric and category, and every row delta except the
``unchanged`` ones) and read back on later views.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> a = store.create_run("a", dataset={}, connector={}, metrics=[])
>>> b = store.create_run("b", dataset={}, connector={}, metrics=[])
>>> stored_comparison(store, a, b).rows
()
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from tooleval.model import Result, Sample
from tooleval.report.summary import FINISHED, cached_run, stamp
from tooleval.store import aggregates as agg
from tooleval.store.records import RowRecord, RunInfo

__all__ = ["lean_rows", "stored_comparison"]

_NAME = "compare/1/"


def lean_rows(store: Any, run: RunInfo) -> Iterator[RowRecord]:
    """The run's rows with only what a comparison reads (no messages, no diagnoses)."""
    thresholds = {m.name: m.threshold for m in run.metrics}
    current: tuple[int, str, str | None] | None = None
    results: list[Result] = []
    for index, row_id, category, metric, score, passed in agg.verdict_rows(store, run.id):
        if current is None or current[0] != index:
            if current is not None:
                yield _lean(run.id, current, results)
            current, results = (index, row_id, category), []
        if metric is not None:
            results.append(Result(metric, score, passed, "", threshold=thresholds.get(metric)))
    if current is not None:
        yield _lean(run.id, current, results)


def _lean(run_id: str, key: tuple[int, str, str | None], results: list[Result]) -> RowRecord:
    index, row_id, category = key
    return RowRecord(run_id, index, row_id, Sample(category=category), tuple(results))


class _LeanStore:
    """The two read calls ``compare_runs`` makes, answered with lean rows."""

    def __init__(self, store: Any, runs: dict[str, RunInfo]) -> None:
        self._store = store
        self._runs = runs

    def get_run(self, run_id: str) -> RunInfo:
        return self._runs[run_id]

    def iter_rows(self, run_id: str) -> Iterator[RowRecord]:
        return lean_rows(self._store, self._runs[run_id])


def _payload(comparison: Any, rows_a: int) -> dict[str, Any]:
    def plain(value: Any) -> dict[str, Any]:
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}

    return {
        "rows_a": rows_a,
        "metrics": {m: plain(c) for m, c in comparison.metrics.items()},
        "categories": {
            cat: {m: plain(c) for m, c in per.items()} for cat, per in comparison.categories.items()
        },
        "rows": [plain(d) for d in comparison.rows if d.change != "unchanged"],
    }


def _from_payload(payload: dict[str, Any], info_a: RunInfo, info_b: RunInfo) -> Any:
    from tooleval.runs.compare import Comparison, DeltaCounts, RowDelta, config_differences

    return Comparison(
        run_a=info_a,
        run_b=info_b,
        differences=tuple(config_differences(info_a, info_b)),
        metrics={m: DeltaCounts(**c) for m, c in payload["metrics"].items()},
        categories={
            cat: {m: DeltaCounts(**c) for m, c in per.items()}
            for cat, per in payload["categories"].items()
        },
        rows=tuple(RowDelta(**d) for d in payload["rows"]),
    )


def stored_comparison(store: Any, run_a: str, run_b: str, *, refresh: bool = False) -> Any:
    """Run B against baseline A (a :class:`~tooleval.runs.compare.Comparison`).

    A comparison read back from the store lists every changed row delta but
    not the ``unchanged`` ones (their counts are kept).
    """
    from tooleval.runs.compare import compare_runs

    info_a, info_b = cached_run(store, run_a), cached_run(store, run_b)
    name = _NAME + info_a.id
    stamps = [stamp(info_a.status, info_a.finished_at), stamp(info_b.status, info_b.finished_at)]
    stopped = info_a.status in FINISHED and info_b.status in FINISHED
    if stopped and not refresh:
        payload = agg.load_aggregate(store, info_b.id, name, row_count=info_b.row_count)
        if (
            payload is not None
            and payload.get("rows_a") == info_a.row_count
            and payload.get("stamps") == stamps
        ):
            try:
                return _from_payload(payload, info_a, info_b)
            except (KeyError, TypeError, ValueError):
                pass  # written by another version: compare again
    lean = _LeanStore(store, {info_a.id: info_a, info_b.id: info_b})
    comparison = compare_runs(lean, info_a.id, info_b.id)
    if stopped:
        agg.save_aggregate(
            store,
            info_b.id,
            name,
            _payload(comparison, info_a.row_count) | {"stamps": stamps},
            row_count=info_b.row_count,
        )
    return comparison
