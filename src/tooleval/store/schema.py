"""The run store's tables as they are at the current schema version.

Queries are built from these :class:`sqlalchemy.Table` objects. The DDL that
creates them lives in :mod:`tooleval.store.migrations` (frozen per version);
``tests/store`` checks that a freshly migrated database matches this module.

Every table is keyed by ``run_id`` first, so filtering and paging one run's
rows is an index range scan however many runs the store holds.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

__all__ = [
    "metadata",
    "results",
    "rows",
    "run_aggregates",
    "run_counters",
    "run_metrics",
    "run_tags",
    "runs",
    "JSON_TYPE",
    "judge_calibrations",
    "labels",
]

# JSONB on PostgreSQL (compact, indexable); JSON text elsewhere.
JSON_TYPE = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

metadata = sa.MetaData()

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(300), nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("finished_at", sa.String(40)),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("dataset", JSON_TYPE, nullable=False),
    sa.Column("connector", JSON_TYPE, nullable=False),
    sa.Column("config", JSON_TYPE, nullable=False),
    sa.Index("ix_runs_created_at", "created_at"),
)

run_tags = sa.Table(
    "run_tags",
    metadata,
    sa.Column(
        "run_id", sa.String(64), sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("tag", sa.String(200), primary_key=True),
    sa.Index("ix_run_tags_tag", "tag"),
)

run_metrics = sa.Table(
    "run_metrics",
    metadata,
    sa.Column(
        "run_id", sa.String(64), sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("params", JSON_TYPE, nullable=False),
    sa.Column("threshold", sa.Float),
)

rows = sa.Table(
    "rows",
    metadata,
    sa.Column(
        "run_id", sa.String(64), sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("row_index", sa.Integer, primary_key=True),
    sa.Column("row_id", sa.String(300), nullable=False),
    sa.Column("category", sa.String(200)),
    sa.Column("input", sa.Text),
    sa.Column("sample", JSON_TYPE, nullable=False),
    sa.Column("output", sa.Text),
    sa.Column("tools_called", JSON_TYPE),
    sa.Column("error", sa.Text),
    sa.Column("latency_ms", sa.Float),
    sa.Column("raw_response", JSON_TYPE),
    sa.Column("failure_class", sa.String(40)),
    sa.Column("failure_detail", sa.Text),
    sa.Column("passed", sa.Boolean),
    sa.Column("created_at", sa.String(40), nullable=False),
    # Each index ends with row_index so a filtered page comes out of the index in order.
    sa.Index("ix_rows_category", "run_id", "category", "row_index"),
    sa.Index("ix_rows_passed", "run_id", "passed", "row_index"),
    sa.Index("ix_rows_failure_class", "run_id", "failure_class", "row_index"),
    sa.Index("ix_rows_failure_detail", "run_id", "failure_class", "failure_detail", "row_index"),
    sa.Index("ix_rows_row_id", "run_id", "row_id"),
    # Migration 8: latency order (overview percentiles) and the filtered default order.
    sa.Index("ix_rows_latency", "run_id", "latency_ms", "row_index"),
    sa.Index("ix_rows_category_passed", "run_id", "category", "passed", "row_index"),
    sa.Index("ix_rows_failure_class_passed", "run_id", "failure_class", "passed", "row_index"),
)

results = sa.Table(
    "results",
    metadata,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("row_index", sa.Integer, primary_key=True),
    sa.Column("metric", sa.String(200), primary_key=True),
    # The order the runner produced the results in (the plan's metric order).
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("score", sa.Float),
    sa.Column("passed", sa.Boolean),
    sa.Column("threshold", sa.Float),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("params", JSON_TYPE, nullable=False),
    sa.Column("diagnosis", JSON_TYPE, nullable=False),
    sa.ForeignKeyConstraint(
        ["run_id", "row_index"], ["rows.run_id", "rows.row_index"], ondelete="CASCADE"
    ),
    sa.Index("ix_results_metric_passed", "run_id", "metric", "passed", "row_index"),
    sa.Index("ix_results_summary", "run_id", "metric", "passed", "score"),
)

# Lowest / highest score first: scored rows in score order, unscored last (migration 5).
for _name, _score in (
    ("ix_results_score_order", results.c.score),
    ("ix_results_score_desc", results.c.score.desc()),
):
    sa.Index(
        _name,
        results.c.run_id,
        results.c.metric,
        results.c.score.is_(None),
        _score,
        results.c.row_index,
    )

# The row search's full-text index (SQLite FTS5 table and triggers, PostgreSQL
# pg_trgm indexes) is dialect-specific: see tooleval.store.search_index.

# Per-run aggregates (histograms, counts, clusters) as named JSON documents: see
# tooleval.store.aggregates, which reads and writes them.
run_aggregates = sa.Table(
    "run_aggregates",
    metadata,
    sa.Column(
        "run_id", sa.String(64), sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("row_count", sa.Integer, nullable=False),
    sa.Column("computed_at", sa.String(40), nullable=False),
    sa.Column("payload", JSON_TYPE, nullable=False),
)

# A run's counts per category and metric, kept current as rows are written: see
# tooleval.store.counters (migration 9).
run_counters = sa.Table(
    "run_counters",
    metadata,
    sa.Column(
        "run_id", sa.String(64), sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("slot", sa.String(500), primary_key=True),  # JSON [category, metric]
    sa.Column("category", sa.String(200)),
    sa.Column("metric", sa.String(200)),  # NULL: the row verdict
    *(
        sa.Column(name, sa.Integer, nullable=False, default=0)
        for name in ("passed", "failed", "errors", "unscored", "scores")
    ),
    sa.Column("score_sum", sa.Float, nullable=False, default=0.0),
    sa.Column("score_sumsq", sa.Float, nullable=False, default=0.0),
    *(
        sa.Column(name, sa.Integer, nullable=False, default=0)
        for name in ("nonbinary", "err_passed", "err_failed", "err_scores")
    ),
    sa.Column("err_score_sum", sa.Float, nullable=False, default=0.0),
    sa.Column("nulls", sa.Integer, nullable=False, default=0),
)

# Who works a run now (see tooleval.store.leases): one row per run being worked.
run_leases = sa.Table(
    "run_leases",
    metadata,
    sa.Column(
        "run_id", sa.String(64), sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("holder", sa.String(64), nullable=False),
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("host", sa.String(255), nullable=False),
    sa.Column("acquired_at", sa.Float, nullable=False),
    sa.Column("heartbeat_at", sa.Float, nullable=False),
)

# Human verdicts on a row's metric (see tooleval.store.labels): beside the results,
# never in them, so a label never changes a stored result (migration 7).
labels = sa.Table(
    "labels",
    metadata,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("row_index", sa.Integer, primary_key=True),
    sa.Column("metric", sa.String(200), primary_key=True),
    sa.Column("passed", sa.Boolean, nullable=False),
    sa.Column("note", sa.Text),
    sa.Column("labeller", sa.String(200)),
    sa.Column("labelled_at", sa.String(40), nullable=False),
    sa.ForeignKeyConstraint(
        ["run_id", "row_index"], ["rows.run_id", "rows.row_index"], ondelete="CASCADE"
    ),
)

# A judge measured against labels, keyed by its identity (model, metric, prompt
# version, options), independent of any run: deleting the labelled run keeps it.
judge_calibrations = sa.Table(
    "judge_calibrations",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("judge_key", sa.String(64), nullable=False),
    sa.Column("metric", sa.String(200), nullable=False),
    sa.Column("model", sa.String(300), nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("source", sa.String(300), nullable=False),
    sa.Column("identity", JSON_TYPE, nullable=False),
    sa.Column("report", JSON_TYPE, nullable=False),
    sa.Index("ix_judge_calibrations_key", "judge_key", "created_at"),
    sa.Index("ix_judge_calibrations_metric", "metric", "model", "created_at"),
)
