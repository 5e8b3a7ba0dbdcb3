"""Per-run aggregates kept in the store, so views of a big run never read every row.

A run's histograms, per-category and per-class counts (and whatever else a
view derives once from a finished run) are saved as named JSON documents in
the ``run_aggregates`` table, with the row count they were computed from. A
document whose row count no longer matches the run is stale and is ignored.

The counting queries here are GROUP BYs in the database over the narrow
columns (``category``, ``passed``, ``error``, ``failure_class``; the results'
``metric``, ``passed``, ``score``): no sample or diagnosis JSON is decoded, so
a million-row run is counted in seconds. What needs the full rows (failure
clusters, comparisons) is computed by the callers in ``report`` and saved
here with :meth:`RunAggregates.save_aggregate`.

Everything outside the store reaches them through ``store.aggregates`` (typed
by :class:`tooleval.store.AggregateStore`).

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={}, connector={}, metrics=[])
>>> store.aggregates.save_aggregate(run_id, "note", {"n": 1}, row_count=0)
>>> store.aggregates.load_aggregate(run_id, "note", row_count=0)
{'n': 1}
>>> store.aggregates.load_aggregate(run_id, "note", row_count=5) is None
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa

from tooleval.errors import StoreError
from tooleval.store import codec, counters
from tooleval.store import schema as t
from tooleval.store.queries import results_for
from tooleval.store.records import RowRecord

__all__ = ["AGGREGATES_TABLE", "RunAggregates", "create_aggregates_table"]

AGGREGATES_TABLE = "run_aggregates"


def create_aggregates_table(op: Any) -> None:
    """Migration step 3: the ``run_aggregates`` table (``op`` is Alembic ``Operations``)."""
    op.create_table(
        AGGREGATES_TABLE,
        sa.Column(
            "run_id",
            sa.String(64),
            sa.ForeignKey("runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("row_count", sa.Integer, nullable=False),
        sa.Column("computed_at", sa.String(40), nullable=False),
        sa.Column("payload", t.JSON_TYPE, nullable=False),
    )


def _table() -> sa.Table:
    table = t.metadata.tables.get(AGGREGATES_TABLE)
    if table is None:  # the schema module declares it; this guards a partial upgrade
        raise StoreError("the store has no run_aggregates table; open it again to migrate")
    return table


class RunAggregates:
    """A store's aggregate documents and counting queries; get one as ``store.aggregates``.

    >>> from tooleval.store import open_store
    >>> store = open_store("sqlite:///:memory:")
    >>> run_id = store.create_run("demo", dataset={}, connector={}, metrics=[])
    >>> store.aggregates.category_counts(run_id)
    {}
    """

    def __init__(self, store: Any) -> None:
        self._store = store

    def save_aggregate(self, run_id: str, name: str, payload: Any, *, row_count: int) -> None:
        """Store (or replace) one aggregate document of ``run_id``."""
        table = _table()
        with self._store._write() as conn:
            self._store._require_run(conn, run_id)
            conn.execute(table.delete().where(table.c.run_id == run_id, table.c.name == name))
            conn.execute(
                table.insert().values(
                    run_id=run_id,
                    name=name,
                    row_count=row_count,
                    computed_at=datetime.now(UTC).isoformat(timespec="seconds"),
                    payload=payload,
                )
            )

    def save_aggregates(self, run_id: str, documents: dict[str, Any], *, row_count: int) -> None:
        """Store (or replace) several documents of ``run_id`` in one transaction."""
        table = _table()
        computed = datetime.now(UTC).isoformat(timespec="seconds")
        names = list(documents)
        with self._store._write() as conn:
            self._store._require_run(conn, run_id)
            for start in range(0, len(names), 500):
                conn.execute(
                    table.delete().where(
                        table.c.run_id == run_id, table.c.name.in_(names[start : start + 500])
                    )
                )
            values = [
                {
                    "run_id": run_id,
                    "name": name,
                    "row_count": row_count,
                    "computed_at": computed,
                    "payload": payload,
                }
                for name, payload in documents.items()
            ]
            for start in range(0, len(values), 500):
                conn.execute(table.insert(), values[start : start + 500])

    def load_aggregate(self, run_id: str, name: str, *, row_count: int | None) -> Any:
        """The stored document, or None when absent or computed from another row count.

        ``row_count=None`` skips the row count check (the caller checks a stamp of its own).
        """
        table = _table()
        with self._store._read() as conn:
            found = conn.execute(
                sa.select(table.c.payload, table.c.row_count).where(
                    table.c.run_id == run_id, table.c.name == name
                )
            ).first()
        if found is None or (row_count is not None and found.row_count != row_count):
            return None
        return found.payload

    def delete_aggregates(self, run_id: str, *, prefix: str = "") -> int:
        """Forget the run's stored documents (those whose name starts with ``prefix``)."""
        table = _table()
        with self._store._write() as conn:
            query = table.delete().where(table.c.run_id == run_id)
            if prefix:
                query = query.where(table.c.name.startswith(prefix, autoescape=True))
            return int(conn.execute(query).rowcount or 0)

    def run_stamps(
        self, *, run_id: str | None = None, search: str | None = None, tag: str | None = None
    ) -> list[tuple[str, str, str | None]]:
        """``(id, status, finished_at)`` of runs, newest first, filtered like ``Store.list_runs``.

        Reads only the ``runs`` table: what tells whether a stored document of a
        run is still current (a resumed run is ``running`` again, then finishes
        with a new ``finished_at``).
        """
        from tooleval.store.queries import escape_like

        r = t.runs.c
        query = sa.select(r.id, r.status, r.finished_at).order_by(r.created_at.desc(), r.id.desc())
        if run_id is not None:
            query = query.where(r.id == run_id)
        if search:
            pattern = f"%{escape_like(search.lower())}%"
            query = query.where(
                sa.or_(
                    sa.func.lower(r.name).like(pattern, escape="\\"),
                    sa.func.lower(r.id).like(pattern, escape="\\"),
                )
            )
        if tag:
            query = query.where(
                r.id.in_(sa.select(t.run_tags.c.run_id).where(t.run_tags.c.tag == tag))
            )
        with self._store._read() as conn:
            return [(i, status, finished) for i, status, finished in conn.execute(query)]

    # ------------------------------------------------------------ counting queries

    def score_histograms(self, run_id: str, *, bins: int = 10) -> dict[str, dict[str, Any]]:
        """Per metric: ``counts`` of scores in ``bins`` equal bins over [0, 1) plus one for 1.0.

        Scores are binned in the database (``bins + 1`` counts, the last for
        exactly 1.0), the rule of :func:`tooleval.report.charts.bin_counts`;
        ``unscored`` counts results without a score.
        """
        r = t.results.c
        bucket = sa.case(
            (r.score.is_(None), -1),
            (r.score >= 1.0, bins),
            (r.score >= (bins - 1) / bins, bins - 1),
            (r.score <= 0.0, 0),
            else_=sa.cast(sa.func.floor(r.score * bins), sa.Integer),
        )
        found: dict[str, dict[str, Any]] = {}
        with self._store._read() as conn:
            query = (
                sa.select(r.metric, bucket.label("bucket"), sa.func.count())
                .where(r.run_id == run_id)
                .group_by(r.metric, bucket)
            )
            for metric, position, count in conn.execute(query):
                entry = found.setdefault(metric, {"counts": [0] * (bins + 1), "unscored": 0})
                if position == -1:
                    entry["unscored"] += int(count)
                else:
                    entry["counts"][min(max(int(position), 0), bins)] += int(count)
        return found

    def category_counts(self, run_id: str) -> dict[str, dict[str, int]]:
        """Per category (rows without one left out): rows, passed, failed, errors."""
        with self._store._read() as conn:
            live = counters.live_counts(conn, run_id)
        if live is not None:
            return {
                category: {
                    "rows": sum(c[n] for n in ("passed", "failed", "errors", "unscored")),
                    "passed": c["passed"] + c["err_passed"],
                    "failed": c["failed"] + c["err_failed"],
                    "errors": c["errors"],
                }
                for (category, metric), c in sorted(live.items(), key=lambda kv: str(kv[0][0]))
                if category is not None and metric is None
            }
        r = t.rows.c
        out: dict[str, dict[str, int]] = {}
        query = (
            sa.select(
                r.category,
                sa.func.count(),
                sa.func.sum(sa.case((r.passed.is_(True), 1), else_=0)),
                sa.func.sum(sa.case((r.passed.is_(False), 1), else_=0)),
                sa.func.count(r.error),
            )
            .where(r.run_id == run_id, r.category.is_not(None))
            .group_by(r.category)
            .order_by(r.category)
        )
        with self._store._read() as conn:
            for category, rows, passed, failed, errors in conn.execute(query):
                out[category] = {
                    "rows": int(rows),
                    "passed": int(passed or 0),
                    "failed": int(failed or 0),
                    "errors": int(errors or 0),
                }
        return out

    def category_metric_counts(self, run_id: str) -> dict[str, dict[str, list[int]]]:
        """Per category and metric: ``[passed, failed]`` result counts."""
        with self._store._read() as conn:
            live = counters.live_counts(conn, run_id)
        if live is not None:
            out: dict[str, dict[str, list[int]]] = {}
            for (category, metric), c in live.items():
                if category is not None and metric is not None:
                    counted = [c["passed"] + c["err_passed"], c["failed"] + c["err_failed"]]
                    out.setdefault(category, {})[metric] = counted
            return out
        rows, res = t.rows.c, t.results.c
        query = (
            sa.select(
                rows.category,
                res.metric,
                sa.func.sum(sa.case((res.passed.is_(True), 1), else_=0)),
                sa.func.sum(sa.case((res.passed.is_(False), 1), else_=0)),
            )
            .select_from(
                t.results.join(
                    t.rows, sa.and_(rows.run_id == res.run_id, rows.row_index == res.row_index)
                )
            )
            .where(res.run_id == run_id, rows.category.is_not(None))
            .group_by(rows.category, res.metric)
        )
        out = {}
        with self._store._read() as conn:
            for category, metric, passed, failed in conn.execute(query):
                out.setdefault(category, {})[metric] = [int(passed or 0), int(failed or 0)]
        return out

    def figure_counts(self, run_id: str) -> list[tuple[Any, ...]]:
        """Per category (None: rows without one) and metric, what the read model counts.

        Metric None is the row verdict (every scored metric of the row passed).

        ``(category, metric, passed, failed, errors, unscored, scores, score_sum,
        score_sumsq, nonbinary)``: ``errors`` are results of error rows, ``unscored``
        the other results with no verdict, ``scores`` the results of rows that are
        not errors with a score (``nonbinary`` of them neither 0 nor 1).
        """
        with self._store._read() as conn:
            # A live run's counters (kept as its rows are written); else its rows, counted.
            found = counters.live_counts(conn, run_id)
            if found is None:
                found = counters.grouped_counts(conn, run_id)
        names = ("passed", "failed", "errors", "unscored", "scores", "score_sum", "score_sumsq")
        out = [
            (category, metric, *(c[n] for n in names), c["nonbinary"])
            for (category, metric), c in found.items()
            if metric is not None
        ]
        out.extend(
            (category, None, c["passed"], c["failed"], c["errors"], c["unscored"], 0, 0.0, 0.0, 0)
            for (category, metric), c in found.items()
            if metric is None
        )
        return out

    def latency_percentiles(
        self, run_id: str, shares: Sequence[tuple[str, float]] = (("p50", 0.5), ("p95", 0.95))
    ) -> dict[str, float]:
        """The rows' latency at each share of the rows that have one (nearest rank).

        Rows without a latency are left out; ``{}`` when no row has one. Each
        figure is one step into ``ix_rows_latency`` (a count and an offset on the
        index, no row read), so a million-row run is read in milliseconds.
        """
        rows = t.rows.c
        known = sa.and_(rows.run_id == run_id, rows.latency_ms.is_not(None))
        out: dict[str, float] = {}
        with self._store._read() as conn:
            total = int(conn.execute(sa.select(sa.func.count()).where(known)).scalar() or 0)
            for name, share in shares if total else ():
                place = min(total - 1, int(share * (total - 1) + 0.5))
                value = conn.execute(
                    sa.select(rows.latency_ms)
                    .where(known)
                    .order_by(rows.latency_ms)
                    .offset(place)
                    .limit(1)
                ).scalar()
                if value is not None:
                    out[name] = float(value)
        return out

    def class_counts(self, run_id: str) -> dict[str, int]:
        """How many rows carry each stored failure class (classes with no row left out)."""
        r = t.rows.c
        query = (
            sa.select(r.failure_class, sa.func.count())
            .where(r.run_id == run_id, r.failure_class.is_not(None))
            .group_by(r.failure_class)
        )
        with self._store._read() as conn:
            return {cls: int(n) for cls, n in conn.execute(query)}

    def class_examples(
        self, run_id: str, classes: list[str], *, limit: int = 3
    ) -> dict[str, list[list[Any]]]:
        """Per failure class, the first ``limit`` rows as ``[index, row_id]`` pairs."""
        r = t.rows.c
        out: dict[str, list[list[Any]]] = {}
        with self._store._read() as conn:
            for cls in classes:
                query = (
                    sa.select(r.row_index, r.row_id)
                    .where(r.run_id == run_id, r.failure_class == cls)
                    .order_by(r.row_index)
                    .limit(limit)
                )
                out[cls] = [[int(i), row_id] for i, row_id in conn.execute(query)]
        return out

    def failure_groups(self, run_id: str) -> list[tuple[str, str, str | None, int, int]]:
        """Failed rows grouped by stored class, detail and category, from the rows' columns.

        Each group is ``(failure_class, failure_detail, category, rows, first row index)``.
        Rows with a class but no stored detail (stored by an older tooleval) are counted by
        :meth:`undetailed_failures` instead.
        """
        r = t.rows.c
        query = (
            sa.select(
                r.failure_class,
                r.failure_detail,
                r.category,
                sa.func.count(),
                sa.func.min(r.row_index),
            )
            .where(r.run_id == run_id, r.failure_class.is_not(None), r.failure_detail.is_not(None))
            .group_by(r.failure_class, r.failure_detail, r.category)
        )
        with self._store._read() as conn:
            return [(c, d, cat, int(n), int(first)) for c, d, cat, n, first in conn.execute(query)]

    def undetailed_failures(self, run_id: str) -> int:
        """Rows that did not pass and carry no stored failure class and detail."""
        r = t.rows.c
        query = sa.select(sa.func.count()).where(
            r.run_id == run_id,
            sa.or_(r.passed.is_(None), r.passed.is_(False)),
            sa.or_(r.failure_class.is_(None), r.failure_detail.is_(None)),
        )
        with self._store._read() as conn:
            return int(conn.execute(query).scalar_one())

    def failure_group_examples(
        self, run_id: str, failure_class: str, detail: str, *, limit: int
    ) -> list[tuple[int, str]]:
        """The first ``limit`` rows of one failure group, as ``(row_index, row_id)``."""
        r = t.rows.c
        query = (
            sa.select(r.row_index, r.row_id)
            .where(r.run_id == run_id, r.failure_class == failure_class, r.failure_detail == detail)
            .order_by(r.row_index)
            .limit(limit)
        )
        with self._store._read() as conn:
            return [(int(i), row_id) for i, row_id in conn.execute(query)]

    def verdict_rows(self, run_id: str) -> Any:
        """Every result of the run as ``(row_index, row_id, category, metric, score, passed,
        error)`` (``error`` the row's connector error, or None).

        Ordered by row index then the runner's metric order; streamed from the
        database (no JSON decoded), for comparisons of big runs.
        """
        rows, res = t.rows.c, t.results.c
        query = (
            sa.select(
                rows.row_index,
                rows.row_id,
                rows.category,
                res.metric,
                res.score,
                res.passed,
                rows.error,
            )
            .select_from(
                t.rows.outerjoin(
                    t.results, sa.and_(res.run_id == rows.run_id, res.row_index == rows.row_index)
                )
            )
            .where(rows.run_id == run_id)
            .order_by(rows.row_index, res.position)
        )
        with self._store._read() as conn:
            result = conn.execution_options(stream_results=True, yield_per=5000).execute(query)
            yield from result

    def iter_unpassed_rows(self, run_id: str, *, limit: int | None = None) -> Any:
        """The run's rows whose verdict is not a pass (failed, unscored or errored), by index.

        Full :class:`~tooleval.store.records.RowRecord` values, streamed in chunks
        (keyset on the row index), for clustering and for "failures first" cards.
        """
        for chunk, results in self._unpassed_chunks(run_id, (t.rows,), limit=limit):
            for row in chunk:
                yield codec.row_record(row, results.get(row["row_index"], ()))

    def _unpassed_chunks(
        self, run_id: str, columns: Sequence[Any], *, limit: int | None = None
    ) -> Iterator[tuple[Sequence[Any], dict[int, Any]]]:
        """The unpassed rows' ``columns``, 1000 rows a read by index (keyset), with their Results.

        Each chunk comes with its rows' Results by row index, read in the same
        transaction; at most ``limit`` rows in all when given.
        """
        r = t.rows.c
        last = -1
        left = limit
        while left is None or left > 0:
            size = 1000 if left is None else min(1000, left)
            query = (
                sa.select(*columns)
                .where(
                    r.run_id == run_id,
                    r.row_index > last,
                    sa.or_(r.passed.is_(None), r.passed.is_(False)),
                )
                .order_by(r.row_index)
                .limit(size)
            )
            with self._store._read() as conn:
                chunk = conn.execute(query).mappings().all()
                if not chunk:
                    return
                results = results_for(conn, run_id, [row["row_index"] for row in chunk])
            yield chunk, results
            last = chunk[-1]["row_index"]
            if left is not None:
                left -= len(chunk)
            if len(chunk) < size:
                return

    def iter_unpassed_slim(self, run_id: str) -> Any:
        """Like :meth:`iter_unpassed_rows`, with only what failure clustering reads.

        Each row keeps its id, index, category, error, the calls it made and
        every Result with its diagnosis; the stored sample (messages, expected
        tools, metadata) is decoded only for a row whose calls are not stored
        apart. A third of the work of full rows on a million-row run.
        """
        import json

        from tooleval.model import Sample

        r = t.rows.c
        columns = (
            r.row_index,
            r.row_id,
            r.category,
            r.error,
            r.failure_class,
            r.tools_called,
            # JSON null (no calls stored apart) is SQL NULL or the text 'null'.
            sa.case(
                (
                    sa.or_(r.tools_called.is_(None), sa.cast(r.tools_called, sa.Text) == "null"),
                    sa.cast(r.sample, sa.Text),
                ),
                else_=sa.null(),
            ).label("sample_text"),
        )
        for chunk, results in self._unpassed_chunks(run_id, columns):
            for row in chunk:
                calls: list[Any] | None
                if row["sample_text"]:
                    calls = codec.sample_from_dict(json.loads(row["sample_text"])).actual_calls()
                else:
                    calls = codec.calls_from_list(row["tools_called"])
                yield RowRecord(
                    run_id=run_id,
                    index=row["row_index"],
                    row_id=row["row_id"],
                    sample=Sample(tools_called=calls, category=row["category"]),
                    results=tuple(results.get(row["row_index"], ())),
                    error=row["error"],
                    failure_class=row["failure_class"],
                )
