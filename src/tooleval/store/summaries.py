"""A stored run as a :class:`RunInfo`: its tags, metrics and per-metric summaries.

The summaries are aggregated in the database (one GROUP BY per run), so a run
of 100k rows is summarised without reading its rows.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from tooleval.store import counters
from tooleval.store import schema as t
from tooleval.store.records import MetricSpec, MetricSummary, RunInfo

__all__ = ["metric_summaries", "run_info"]


def run_info(conn: sa.Connection, row: Any) -> RunInfo:
    """The :class:`RunInfo` of one ``runs`` table row."""
    run_id = row["id"]
    tags = conn.execute(
        sa.select(t.run_tags.c.tag).where(t.run_tags.c.run_id == run_id).order_by(t.run_tags.c.tag)
    ).scalars()
    metric_rows = conn.execute(
        sa.select(t.run_metrics)
        .where(t.run_metrics.c.run_id == run_id)
        .order_by(t.run_metrics.c.position)
    ).mappings()
    metrics = tuple(
        MetricSpec(m["name"], dict(m["params"] or {}), m["threshold"]) for m in metric_rows
    )
    live = counters.live_counts(conn, run_id) if row["status"] == "running" else None
    if live is not None:
        # A running run: its counters, kept as its rows are written (store.counters).
        verdicts = [c for (_, metric), c in live.items() if metric is None]
        counts: Any = (
            sum(c[n] for c in verdicts for n in ("passed", "failed", "errors", "unscored")),
            sum(c["errors"] for c in verdicts),
        )
    else:
        counts = conn.execute(
            sa.select(
                sa.func.count(),
                sa.func.count(t.rows.c.error),
            ).where(t.rows.c.run_id == run_id)
        ).one()
    return RunInfo(
        id=run_id,
        name=row["name"],
        created_at=row["created_at"],
        status=row["status"],
        finished_at=row["finished_at"],
        dataset=dict(row["dataset"] or {}),
        connector=dict(row["connector"] or {}),
        metrics=metrics,
        tags=tuple(tags),
        row_count=int(counts[0]),
        error_count=int(counts[1]),
        summaries=metric_summaries(conn, run_id, metrics, live=live),
        config=dict(row["config"] or {}),
    )


def _from_counters(live: dict[Any, dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The summary rows of a live run, summed over its categories' counters."""
    totals: dict[str, dict[str, Any]] = {}
    for (_, metric), c in live.items():
        if metric is None:
            continue
        into = totals.setdefault(metric, {"scored": 0, "passed": 0, "failed": 0, "nulls": 0})
        into["scored"] += c["scores"] + c["err_scores"]
        into["passed"] += c["passed"] + c["err_passed"]
        into["failed"] += c["failed"] + c["err_failed"]
        into["nulls"] += c["nulls"]
        into["sum"] = into.get("sum", 0.0) + c["score_sum"] + c["err_score_sum"]
    return [
        (
            m,
            v["scored"],
            v["passed"],
            v["failed"],
            v["nulls"],
            v["sum"] / v["scored"] if v["scored"] else None,
        )
        for m, v in sorted(totals.items())
    ]


def metric_summaries(
    conn: sa.Connection,
    run_id: str,
    metrics: tuple[MetricSpec, ...],
    *,
    live: dict[Any, dict[str, Any]] | None = None,
) -> dict[str, MetricSummary]:
    """One :class:`MetricSummary` per metric: the plan's order first, then any only rows know.

    ``live``: a running run's counters (:func:`tooleval.store.counters.live_counts`),
    read instead of summing its results.
    """
    r = t.results.c
    summary_rows = (
        _from_counters(live)
        if live is not None
        else conn.execute(
            sa.select(
                r.metric,
                sa.func.count(r.score),
                sa.func.sum(sa.case((r.passed.is_(True), 1), else_=0)),
                sa.func.sum(sa.case((r.passed.is_(False), 1), else_=0)),
                sa.func.sum(sa.case((r.score.is_(None), 1), else_=0)),
                sa.func.avg(r.score),
            )
            .where(r.run_id == run_id)
            .group_by(r.metric)
        ).all()
    )
    summaries = {
        metric: MetricSummary(
            metric=metric,
            scored=int(scored or 0),
            passed=int(passed or 0),
            failed=int(failed or 0),
            unscored=int(unscored or 0),
            mean_score=None if mean is None else float(mean),
        )
        for metric, scored, passed, failed, unscored, mean in summary_rows
    }
    # Metrics configured but with no row yet still get an (empty) summary.
    for spec in metrics:
        summaries.setdefault(spec.name, MetricSummary(metric=spec.name))
    planned = {s.name for s in metrics}
    return {s.name: summaries[s.name] for s in metrics} | {
        k: v for k, v in summaries.items() if k not in planned
    }
