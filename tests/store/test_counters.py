"""A run's counters, kept as its rows are written, equal what counting its rows gives.

Rows with and without a category, error rows, unscored and non-binary results,
written one at a time and in batches, on SQLite and PostgreSQL: the live run's
counters equal the GROUP BY over its rows, and everything a live overview reads
from them (the run header's summaries, the read model's figures, the category
counts) equals what the same run gives once stopped, counted from its rows.
"""

from __future__ import annotations

import dataclasses

import pytest

from tooleval.analysis.figures import run_figures
from tooleval.model import Result, Sample
from tooleval.store.counters import grouped_counts, live_counts
from tooleval.store.records import MetricSpec, RowRecord

METRICS = [MetricSpec("m", {}, 0.5), MetricSpec("n", {}, 0.5)]


def _record(index: int) -> RowRecord:
    error = "agent down" if index % 9 == 0 else None
    results = []
    for metric, step in (("m", 4), ("n", 3)):
        score = (index % (step + 1)) / step
        if error or (metric == "n" and index % 7 == 0):
            results.append(Result.unscored(metric, error or "no reference"))
        else:
            results.append(Result(metric, score, threshold=0.5, passed=score >= 0.5, reason="r"))
    category = None if index % 5 == 0 else f"c{index % 3}"
    return RowRecord(
        "", index, f"r{index}", Sample(input="x", category=category), tuple(results), error=error
    )


def _approx(counts):
    return {k: {n: pytest.approx(v) for n, v in c.items()} for k, c in counts.items()}


def test_live_counters_equal_the_rows_counted(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    for index in range(10):
        store.add_row(run_id, _record(index))
    store.add_rows(run_id, [_record(i) for i in range(10, 73)])
    with store._read() as conn:
        live, counted = live_counts(conn, run_id), grouped_counts(conn, run_id)
    assert live is not None and set(live) == set(counted)
    assert live == _approx(counted)

    running = store.get_run(run_id)
    figures_live = run_figures(store, running)
    categories_live = store.aggregates.category_counts(run_id)
    per_metric_live = store.aggregates.category_metric_counts(run_id)
    store.finish_run(run_id)
    with store._read() as conn:
        assert live_counts(conn, run_id) is None  # stopped: counted from its rows
    stopped = store.get_run(run_id)
    assert (running.row_count, running.error_count) == (stopped.row_count, stopped.error_count)
    for name, summary in stopped.summaries.items():
        live_summary = running.summaries[name]
        assert dataclasses.replace(live_summary, mean_score=None) == dataclasses.replace(
            summary, mean_score=None
        )
        assert live_summary.mean_score == pytest.approx(summary.mean_score)
    assert store.aggregates.category_counts(run_id) == categories_live
    assert store.aggregates.category_metric_counts(run_id) == per_metric_live
    # The read model over the live counters gives the figures the stopped run stores.
    stopped_figures = run_figures(store, stopped, refresh=True).to_payload()
    assert _rounded(figures_live.to_payload()) == _rounded(stopped_figures)


def _rounded(value):
    """``value`` with floats rounded (sums added in another order differ in the last bits)."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items() if k != "run_id"}
    if isinstance(value, list | tuple):
        return [_rounded(v) for v in value]
    return value


def test_deleting_a_run_drops_its_counters(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    store.add_rows(run_id, [_record(i) for i in range(4)])
    store.delete_run(run_id)
    with store._read() as conn:
        assert grouped_counts(conn, run_id) == {}
        from tooleval.store import schema as t

        left = conn.execute(t.run_counters.select().where(t.run_counters.c.run_id == run_id))
        assert left.first() is None
