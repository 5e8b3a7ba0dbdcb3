"""A stored run as a :class:`RunInfo`: its tags, metrics and per-metric summaries.

The summaries are aggregated in the database (one GROUP BY per run), so a run
of 100k rows is summarised without reading its rows.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

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
        summaries=metric_summaries(conn, run_id, metrics),
        config=dict(row["config"] or {}),
    )


def metric_summaries(
    conn: sa.Connection, run_id: str, metrics: tuple[MetricSpec, ...]
) -> dict[str, MetricSummary]:
    """One :class:`MetricSummary` per metric: the plan's order first, then any only rows know."""
    r = t.results.c
    summary_rows = conn.execute(
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
