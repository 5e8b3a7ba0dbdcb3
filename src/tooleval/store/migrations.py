"""Versioned schema: numbered upgrade steps applied in order, inside one transaction.

Why not an Alembic script directory: a store is opened from an installed
package by every command, so migrations must run without an ``alembic.ini``,
without an ``env.py`` executed at import time (pytest imports every module
for doctests) and without a CLI step the user could forget. Each step below
still writes its DDL through Alembic's :class:`~alembic.operations.Operations`
(portable ``ALTER`` on PostgreSQL, batch table rebuilds on SQLite), and the
applied versions are kept in the ``tooleval_schema`` table. A step, once
released, is never edited: a schema change is a new step with the next number.

>>> [m.version for m in MIGRATIONS]
[1, 2, 3, 4, 5, 6, 7, 8, 9]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = ["MIGRATIONS", "Migration", "SCHEMA_TABLE", "current_version", "upgrade"]

SCHEMA_TABLE = "tooleval_schema"
# Any constant works; it only has to be the same for every process using the store.
_PG_LOCK_KEY = 7_104_225_001


@dataclass(frozen=True)
class Migration:
    """One numbered upgrade step; ``upgrade(op)`` receives Alembic ``Operations``."""

    version: int
    description: str
    upgrade: Callable[[Any], None]


def _json() -> Any:
    import sqlalchemy as sa
    from sqlalchemy.dialects import postgresql

    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _v1_initial(op: Any) -> None:
    import sqlalchemy as sa

    fk_run: dict[str, Any] = {"ondelete": "CASCADE"}
    op.create_table(
        "runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.String(40)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("dataset", _json(), nullable=False),
        sa.Column("connector", _json(), nullable=False),
        sa.Column("config", _json(), nullable=False),
    )
    op.create_index("ix_runs_created_at", "runs", ["created_at"])
    op.create_table(
        "run_tags",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id", **fk_run), primary_key=True),
        sa.Column("tag", sa.String(200), primary_key=True),
    )
    op.create_index("ix_run_tags_tag", "run_tags", ["tag"])
    op.create_table(
        "run_metrics",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id", **fk_run), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("params", _json(), nullable=False),
        sa.Column("threshold", sa.Float),
    )
    op.create_table(
        "rows",
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.id", **fk_run), primary_key=True),
        sa.Column("row_index", sa.Integer, primary_key=True),
        sa.Column("row_id", sa.String(300), nullable=False),
        sa.Column("category", sa.String(200)),
        sa.Column("input", sa.Text),
        sa.Column("sample", _json(), nullable=False),
        sa.Column("output", sa.Text),
        sa.Column("tools_called", _json()),
        sa.Column("error", sa.Text),
        sa.Column("latency_ms", sa.Float),
        sa.Column("raw_response", _json()),
        sa.Column("failure_class", sa.String(40)),
        sa.Column("passed", sa.Boolean),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    op.create_index("ix_rows_category", "rows", ["run_id", "category", "row_index"])
    op.create_index("ix_rows_passed", "rows", ["run_id", "passed", "row_index"])
    op.create_index("ix_rows_failure_class", "rows", ["run_id", "failure_class", "row_index"])
    op.create_index("ix_rows_row_id", "rows", ["run_id", "row_id"])
    op.create_table(
        "results",
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("row_index", sa.Integer, primary_key=True),
        sa.Column("metric", sa.String(200), primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("score", sa.Float),
        sa.Column("passed", sa.Boolean),
        sa.Column("threshold", sa.Float),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("params", _json(), nullable=False),
        sa.Column("diagnosis", _json(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id", "row_index"], ["rows.run_id", "rows.row_index"], ondelete="CASCADE"
        ),
    )
    op.create_index(
        "ix_results_metric_passed", "results", ["run_id", "metric", "passed", "row_index"]
    )


def _v2_summary_index(op: Any) -> None:
    # get_run's per-metric summary reads (metric, passed, score) of every result
    # of a run; with this covering index it never touches the table.
    op.create_index("ix_results_summary", "results", ["run_id", "metric", "passed", "score"])


def _v3_run_aggregates(op: Any) -> None:
    from tooleval.store.aggregates import create_aggregates_table

    create_aggregates_table(op)


def _v4_run_leases(op: Any) -> None:
    import sqlalchemy as sa

    op.create_table(
        "run_leases",
        sa.Column(
            "run_id",
            sa.String(64),
            sa.ForeignKey("runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("acquired_at", sa.Float, nullable=False),
        sa.Column("heartbeat_at", sa.Float, nullable=False),
    )


def _v5_row_read_indexes(op: Any) -> None:
    from tooleval.store.search_index import create_search_index

    # "Lowest score first" (and "highest") walks one of these in order, scored
    # rows first, and joins one page of rows, instead of sorting every result
    # of the metric.
    for name, direction in (("ix_results_score_order", ""), ("ix_results_score_desc", " DESC")):
        op.execute(
            f"CREATE INDEX {name} "
            f"ON results (run_id, metric, (score IS NULL), score{direction}, row_index)"
        )
    create_search_index(op)


def _v6_failure_detail(op: Any) -> None:
    import sqlalchemy as sa

    # Each failed row keeps its cluster key, written with the row, so a finished run's
    # failure clusters are one GROUP BY instead of reading every failed row's results.
    op.add_column("rows", sa.Column("failure_detail", sa.Text))
    op.create_index(
        "ix_rows_failure_detail", "rows", ["run_id", "failure_class", "failure_detail", "row_index"]
    )


def _v7_labels(op: Any) -> None:
    import sqlalchemy as sa

    op.create_table(
        "labels",
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
    op.create_table(
        "judge_calibrations",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("judge_key", sa.String(64), nullable=False),
        sa.Column("metric", sa.String(200), nullable=False),
        sa.Column("model", sa.String(300), nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("source", sa.String(300), nullable=False),
        sa.Column("identity", _json(), nullable=False),
        sa.Column("report", _json(), nullable=False),
    )
    op.create_index("ix_judge_calibrations_key", "judge_calibrations", ["judge_key", "created_at"])
    op.create_index(
        "ix_judge_calibrations_metric", "judge_calibrations", ["metric", "model", "created_at"]
    )


def _v8_viewer_indexes(op: Any) -> None:
    # The run overview's latency percentiles (and "fastest / slowest first") walk
    # the run's latencies in order; a filtered list in the default order ("did not
    # pass first") walks the filter's rows in verdict order, so a deep page of a
    # million-row run skips index entries instead of sorting rows.
    op.create_index("ix_rows_latency", "rows", ["run_id", "latency_ms", "row_index"])
    # That order is "passed NULLS FIRST": SQLite's own for ASC; PostgreSQL puts NULLs
    # last in an ascending index, so there the verdict indexes say it (and
    # ix_rows_passed is rebuilt so), else every page of the run sorts its rows.
    postgres = op.get_bind().dialect.name == "postgresql"
    nulls_first = " NULLS FIRST" if postgres else ""
    if postgres:
        op.drop_index("ix_rows_passed", table_name="rows")
    for name, columns in (
        ("ix_rows_passed", "run_id"),
        ("ix_rows_category_passed", "run_id, category"),
        ("ix_rows_failure_class_passed", "run_id, failure_class"),
    ):
        if postgres or name != "ix_rows_passed":
            op.execute(f"CREATE INDEX {name} ON rows ({columns}, passed{nulls_first}, row_index)")


def _v9_run_counters(op: Any) -> None:
    # A run's counts per category and metric, kept current by every row write, so a
    # live run's overview reads them instead of counting its rows on every view.
    import sqlalchemy as sa

    from tooleval.store import schema
    from tooleval.store.counters import recount

    schema.run_counters.create(op.get_bind(), checkfirst=True)
    for run_id in op.get_bind().execute(sa.select(schema.runs.c.id)).scalars().all():
        recount(op.get_bind(), run_id)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "runs, run_tags, run_metrics, rows, results", _v1_initial),
    Migration(2, "covering index for per-metric run summaries", _v2_summary_index),
    Migration(3, "run_aggregates: per-run histograms and counts", _v3_run_aggregates),
    Migration(4, "run leases: one live process works a run", _v4_run_leases),
    Migration(5, "score-order index and full-text row search index", _v5_row_read_indexes),
    Migration(6, "rows keep their failure cluster key", _v6_failure_detail),
    Migration(7, "human labels per row and metric; judge calibrations", _v7_labels),
    Migration(8, "latency and filtered verdict-order indexes for the viewer", _v8_viewer_indexes),
    Migration(9, "run_counters: a run's counts kept current as rows are written", _v9_run_counters),
)


def _schema_table() -> Any:
    import sqlalchemy as sa

    return sa.Table(
        SCHEMA_TABLE,
        sa.MetaData(),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("description", sa.String(300), nullable=False),
        sa.Column("applied_at", sa.String(40), nullable=False),
    )


def current_version(connection: Any) -> int:
    """The highest applied version (0 for an empty database)."""
    import sqlalchemy as sa

    if not sa.inspect(connection).has_table(SCHEMA_TABLE):
        return 0
    table = _schema_table()
    return int(connection.execute(sa.select(sa.func.max(table.c.version))).scalar() or 0)


def upgrade(connection: Any, *, steps: Sequence[Migration] = MIGRATIONS) -> list[int]:
    """Apply every step newer than the database, in order; return the versions applied.

    ``connection`` must be inside a transaction (``engine.begin()``): on
    PostgreSQL the whole upgrade is atomic and serialised by an advisory lock;
    on SQLite creating the version table first takes the write lock, so two
    processes opening a new store at once do not both migrate it.
    """
    import sqlalchemy as sa
    from alembic.operations import Operations
    from alembic.runtime.migration import MigrationContext

    from tooleval.errors import StoreError

    if connection.dialect.name == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
    table = _schema_table()
    table.create(connection, checkfirst=True)
    have = int(connection.execute(sa.select(sa.func.max(table.c.version))).scalar() or 0)
    known = max((m.version for m in steps), default=0)
    if have > known:
        raise StoreError(
            f"the store's schema is version {have} but this tooleval only knows up to "
            f"version {known}; upgrade tooleval (pip install -U tooleval) or use another --store"
        )
    op = Operations(MigrationContext.configure(connection))
    applied: list[int] = []
    for step in sorted(steps, key=lambda m: m.version):
        if step.version <= have:
            continue
        step.upgrade(op)
        connection.execute(
            table.insert().values(
                version=step.version,
                description=step.description,
                applied_at=datetime.now(UTC).isoformat(timespec="seconds"),
            )
        )
        applied.append(step.version)
    return applied
