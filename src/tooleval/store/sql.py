"""The run store on SQLAlchemy Core: SQLite file by default, PostgreSQL by URL.

Writes are committed row by row (a killed run loses at most the rows in
flight); reads hand out the plain records of :mod:`tooleval.store.records`.
The store never scores: it keeps what the runner computed.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from tooleval.errors import InputError, StoreError
from tooleval.store import codec, counters, leases, storable
from tooleval.store import schema as t
from tooleval.store.aggregates import RunAggregates
from tooleval.store.engine import (
    DEFAULT_PATH,
    WRITE_OPTION,
    create_engine,
    open_error,
    resolve_url,
)
from tooleval.store.labels import RunLabels
from tooleval.store.queries import (
    ORDER_BY,
    RowFilters,
    escape_like,
    non_negative,
    results_for,
    rows_query,
)
from tooleval.store.records import MetricSpec, RowRecord, RunInfo
from tooleval.store.row_reads import anchor_value, get_row, get_rows, keyed_page, keyset_page
from tooleval.store.search_index import dense_search
from tooleval.store.summaries import run_info

__all__ = ["DEFAULT_PATH", "ORDER_BY", "Store", "resolve_url"]

RUN_STATUSES = ("running", "finished", "interrupted", "failed")
# Rows read or updated per statement: big runs stream in pages of this size.
_CHUNK = 1000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """A run store. Open it with :func:`tooleval.store.open_store`.

    Write API: :meth:`create_run`, :meth:`add_row` (one committed transaction
    per row), :meth:`finish_run`; :meth:`acquire_lease` / :meth:`renew_lease` /
    :meth:`release_lease` so one live process works a run at a time. Read API: :meth:`list_runs`,
    :meth:`get_run`, :meth:`iter_rows`, :meth:`count_rows`, :meth:`get_row`,
    :meth:`categories`. Use it as a context manager or call :meth:`close`.
    """

    def __init__(self, url: str) -> None:
        from tooleval.store.migrations import MIGRATIONS, current_version, upgrade

        self._url = sa.engine.make_url(url)
        self.url = self._url.render_as_string(hide_password=True)
        self.dialect = self._url.get_backend_name()
        self._engine = create_engine(self._url)
        # Same pool; on SQLite its transactions start with BEGIN IMMEDIATE.
        self._writer = self._engine.execution_options(**{WRITE_OPTION: True})
        try:
            self.applied_migrations = []
            # Up to date (the usual case): no write lock is taken, so a read-only
            # store opens and many readers never queue behind one another.
            with self._engine.connect() as conn:
                up_to_date = current_version(conn) == MIGRATIONS[-1].version
            if not up_to_date:
                with self._writer.begin() as conn:
                    self.applied_migrations = upgrade(conn)
        except StoreError:
            self._engine.dispose()
            raise
        except sa.exc.SQLAlchemyError as exc:
            self._engine.dispose()
            raise open_error(self._url, exc) from None

    @property
    def in_memory(self) -> bool:
        """A ``sqlite:///:memory:`` store: one connection, no other process can see it."""
        database = self._url.database
        return self.dialect == "sqlite" and (
            not database or database == ":memory:" or "mode=memory" in database
        )

    def close(self) -> None:
        """Release every database connection."""
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """A write transaction; database failures become StoreError (never a traceback)."""
        try:
            with self._writer.begin() as conn:
                yield conn
        except (StoreError, sa.exc.IntegrityError):
            raise
        except sa.exc.SQLAlchemyError as exc:
            detail = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
            raise StoreError(f"the store refused the write: {detail}", field="--store") from None

    def _read(self):  # noqa: ANN202 - a SQLAlchemy connection context
        try:
            return self._engine.connect()
        except sa.exc.SQLAlchemyError as exc:
            raise open_error(self._url, exc) from None

    # ------------------------------------------------------------ write API
    def create_run(
        self,
        name: str,
        *,
        dataset: dict[str, Any],
        connector: dict[str, Any],
        metrics: Sequence[MetricSpec],
        tags: Sequence[str] = (),
        config: dict[str, Any] | None = None,
        run_id: str | None = None,
    ) -> str:
        """Record a new run (status ``running``) and return its id.

        Ids look like ``20261129-184115-3fa2c1``: sortable by time, unique by
        the random tail, short enough to type.
        """
        created = datetime.now(UTC)
        run_id = run_id or f"{created:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        with self._write() as conn:
            # Runs are ordered by created_at (milliseconds): one made in the same millisecond
            # as the newest is stamped a millisecond later, so "latest" and -N never tie.
            newest = conn.execute(sa.select(sa.func.max(t.runs.c.created_at))).scalar()
            stamp = created.isoformat(timespec="milliseconds")
            if isinstance(newest, str) and stamp <= newest:
                try:
                    later = datetime.fromisoformat(newest) + timedelta(milliseconds=1)
                except ValueError:
                    later = created
                created = max(created, later)
            if conn.execute(sa.select(t.runs.c.id).where(t.runs.c.id == run_id)).first():
                raise StoreError(f"a run with id {run_id!r} already exists", field="run_id")
            conn.execute(
                t.runs.insert().values(
                    id=run_id,
                    name=name,
                    created_at=created.isoformat(timespec="milliseconds"),
                    status="running",
                    dataset=dict(dataset),
                    connector=dict(connector),
                    config=dict(config or {}),
                )
            )
            if tags:
                conn.execute(
                    t.run_tags.insert(),
                    [{"run_id": run_id, "tag": tag} for tag in dict.fromkeys(tags)],
                )
            if metrics:
                conn.execute(
                    t.run_metrics.insert(),
                    [
                        {
                            "run_id": run_id,
                            "position": i,
                            "name": m.name,
                            "params": dict(m.params),
                            "threshold": m.threshold,
                        }
                        for i, m in enumerate(metrics)
                    ],
                )
        return run_id

    def add_row(self, run_id: str, record: RowRecord) -> None:
        """Store one row with all its results, committed at once.

        A row index can be stored once per run: adding it again raises
        :class:`StoreError` (a resumed run skips the rows already stored).
        """
        self.add_rows(run_id, [record])

    def add_rows(self, run_id: str, records: Iterable[RowRecord]) -> int:
        """Store several rows in one transaction (bulk import); return how many."""
        row_values: list[dict[str, Any]] = []
        result_values: list[dict[str, Any]] = []
        created = _now()
        nul = self.dialect == "postgresql"  # PostgreSQL text and JSONB cannot hold NUL
        for record in records:
            # One row's content never stops the write: what cannot be stored as it is
            # makes that row an error row saying why (storable.fit_row).
            row, results = storable.fit_row(
                codec.row_values(run_id, record, created),
                codec.result_values(run_id, record),
                nul=nul,
            )
            row_values.append(row)
            result_values.extend(results)
        if not row_values:
            return 0
        if nul:
            # Kernel diagnoses are written as encoded; any other NUL the walk left.
            row_values = [codec.without_nul(v) for v in row_values]
            result_values = [codec.without_nul(v) for v in result_values]
        try:
            with self._write() as conn:
                self._require_run(conn, run_id)
                conn.execute(t.rows.insert(), row_values)
                if result_values:
                    conn.execute(t.results.insert(), result_values)
                # The run's counts, in the same transaction as its rows (store.counters).
                counters.add_counts(conn, run_id, counters.deltas(row_values, result_values))
        except sa.exc.IntegrityError:
            indexes = ", ".join(str(v["row_index"]) for v in row_values[:5])
            raise StoreError(
                f"row {indexes} is already stored in run {run_id}; each row is stored once",
                row=row_values[0]["row_index"] if len(row_values) == 1 else None,
            ) from None
        return len(row_values)

    def finish_run(self, run_id: str, status: str = "finished") -> None:
        """Mark the run ``finished`` (or ``interrupted`` / ``failed``)."""
        if status not in RUN_STATUSES:
            raise StoreError(f"unknown run status {status!r}; expected one of {RUN_STATUSES}")
        with self._write() as conn:
            self._require_run(conn, run_id)
            finished = None if status == "running" else _now()
            conn.execute(
                t.runs.update()
                .where(t.runs.c.id == run_id)
                .values(status=status, finished_at=finished)
            )

    def reopen_run(self, run_id: str) -> None:
        """Set a stopped run back to ``running`` (used by ``--resume``)."""
        self.finish_run(run_id, "running")

    def set_failure_class(
        self,
        run_id: str,
        indexes: Iterable[int],
        failure_class: str | None,
        *,
        detail: str | None = None,
    ) -> int:
        """Store ``failure_class`` (and its ``detail``) on the given rows; return how many."""
        wanted = list(indexes)
        changed = 0
        with self._write() as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                changed += conn.execute(
                    t.rows.update()
                    .where(t.rows.c.run_id == run_id, t.rows.c.row_index.in_(chunk))
                    .values(failure_class=failure_class, failure_detail=detail)
                ).rowcount
        return changed

    def delete_run(self, run_id: str) -> None:
        """Remove a run and everything stored under it."""
        with self._write() as conn:
            self._require_run(conn, run_id)
            for table in (
                t.labels,
                t.results,
                t.rows,
                t.run_metrics,
                t.run_tags,
                t.run_leases,
                t.run_counters,
            ):
                conn.execute(table.delete().where(table.c.run_id == run_id))
            conn.execute(t.runs.delete().where(t.runs.c.id == run_id))

    # ------------------------------------------------------------ leases
    def acquire_lease(self, run_id: str, *, ttl: float = leases.LEASE_TTL_SECONDS) -> leases.Lease:
        """Hold the run for this process (see :mod:`tooleval.store.leases`).

        Raises :class:`~tooleval.store.leases.RunBusyError` (a StoreError) when
        a live process holds it; a dead holder's lease is taken over.
        """
        for attempt in range(3):
            try:
                with self._write() as conn:
                    self._require_run(conn, run_id)
                    return leases.acquire(conn, run_id, ttl=ttl, dialect=self.dialect)
            except sa.exc.IntegrityError:
                # PostgreSQL: another process inserted the lease row first; read it again.
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def renew_lease(self, lease: leases.Lease) -> bool:
        """Refresh the lease's heartbeat; False when another process took the run over."""
        with self._write() as conn:
            return leases.renew(conn, lease)

    def release_lease(self, lease: leases.Lease) -> None:
        """Give the run up (nothing happens if another process took it over)."""
        with self._write() as conn:
            leases.release(conn, lease)

    @property
    def aggregates(self) -> RunAggregates:
        """The run aggregates kept in this store (documents and counting queries)."""
        return RunAggregates(self)

    @property
    def labels(self) -> RunLabels:
        """Human labels of rows and judge calibrations (see :mod:`tooleval.store.labels`)."""
        return RunLabels(self)

    def lease_holder(self, run_id: str) -> dict[str, Any] | None:
        """Who holds the run now: ``{pid, host, heartbeat_at, alive}``, or None."""
        with self._read() as conn:
            holder = leases.read(conn, run_id)
        if holder is None:
            return None
        return {
            "pid": holder["pid"],
            "host": holder["host"],
            "acquired_at": holder["acquired_at"],
            "heartbeat_at": holder["heartbeat_at"],
            "alive": leases.holder_alive(holder),
        }

    # ------------------------------------------------------------ read API
    def list_runs(
        self, *, search: str | None = None, tag: str | None = None, limit: int | None = None
    ) -> list[RunInfo]:
        """Runs, newest first; ``search`` matches id or name, ``tag`` an exact tag."""
        query = sa.select(t.runs).order_by(t.runs.c.created_at.desc(), t.runs.c.id.desc())
        if search:
            pattern = f"%{escape_like(search.lower())}%"
            query = query.where(
                sa.or_(
                    sa.func.lower(t.runs.c.name).like(pattern, escape="\\"),
                    sa.func.lower(t.runs.c.id).like(pattern, escape="\\"),
                )
            )
        if tag:
            query = query.where(
                t.runs.c.id.in_(sa.select(t.run_tags.c.run_id).where(t.run_tags.c.tag == tag))
            )
        if limit is not None:
            query = query.limit(non_negative(limit, "limit"))
        with self._read() as conn:
            return [run_info(conn, row) for row in conn.execute(query).mappings()]

    def get_run(self, run_id: str) -> RunInfo:
        """One run with its per-metric :class:`MetricSummary`; StoreError if unknown."""
        with self._read() as conn:
            row = conn.execute(sa.select(t.runs).where(t.runs.c.id == run_id)).mappings().first()
            if row is None:
                raise self._unknown_run(conn, run_id)
            return run_info(conn, row)

    def resolve_run_id(self, prefix: str) -> str:
        """The run a reference names: ``latest``, ``-N``, an id or a unique id prefix.

        See :mod:`tooleval.store.aliases` for the references.
        """
        from tooleval.store.aliases import resolve_run_ref

        return resolve_run_ref(
            prefix, newest=self._newest_ids, by_prefix=self._by_prefix, where=str(self.url)
        )

    def _newest_ids(self, count: int) -> list[str]:
        query = (
            sa.select(t.runs.c.id)
            .order_by(t.runs.c.created_at.desc(), t.runs.c.id.desc())
            .limit(count)
        )
        with self._read() as conn:
            return list(conn.execute(query).scalars())

    def _by_prefix(self, prefix: str) -> str:
        with self._read() as conn:
            exact = conn.execute(sa.select(t.runs.c.id).where(t.runs.c.id == prefix)).first()
            if exact:
                return exact[0]
            found = (
                conn.execute(
                    sa.select(t.runs.c.id)
                    .where(t.runs.c.id.like(f"{escape_like(prefix)}%", escape="\\"))
                    .limit(6)
                )
                .scalars()
                .all()
            )
        if len(found) == 1:
            return found[0]
        if not found:
            raise StoreError(
                f"no run {prefix!r} in {self.url}; `tooleval runs list` shows the runs", field="run"
            )
        raise StoreError(
            f"run id prefix {prefix!r} is ambiguous ({', '.join(found[:5])}"
            f"{', ...' if len(found) > 5 else ''}); type more of it",
            field="run",
        )

    def row_indexes(self, run_id: str) -> set[int]:
        """Indexes of the rows already stored for a run (what ``--resume`` skips)."""
        with self._read() as conn:
            self._require_run(conn, run_id)
            return set(
                conn.execute(
                    sa.select(t.rows.c.row_index).where(t.rows.c.run_id == run_id)
                ).scalars()
            )

    def iter_rows(
        self,
        run_id: str,
        *,
        category: str | None = None,
        metric: str | None = None,
        passed: bool | None = None,
        failure_class: str | None = None,
        search: str | None = None,
        error: bool | None = None,
        failure_detail: str | None = None,
        offset: int = 0,
        limit: int | None = None,
        order_by: str = "index",
        after: int | None = None,
        before: int | None = None,
        from_end: bool = False,
    ) -> Iterator[RowRecord]:
        """The run's rows with every Result, filtered and paged.

        ``metric`` alone keeps rows scored by that metric; with ``passed`` it
        keeps rows whose result for that metric passed (True) or failed
        (False). ``passed`` alone uses the row's verdict (every scored result
        passed). ``search`` matches row id, input, output or error text,
        case-insensitively; ``error=True`` keeps rows the agent could not be
        called for (or whose cells could not be read), ``False`` the others.
        ``failure_detail`` keeps the failed rows stored with that cluster key
        (``wrong cancel_order.order_id``; see :mod:`tooleval.analysis.clusters`). ``order_by``: ``index``, ``row_id``, ``category``,
        ``latency``, ``score`` (needs ``metric``), each with ``-`` for descending.

        Pages by key (:mod:`tooleval.store.row_reads`): ``after=i`` yields the
        rows that follow row ``i`` in this order, ``before=i`` the ``limit``
        rows that precede it, ``from_end`` the view's last ``limit`` rows, each
        read from an index range instead of skipping ``offset`` rows.
        """
        offset = non_negative(offset, "offset")
        if limit is not None:
            limit = non_negative(limit, "limit")
        keys = [k for k in (after, before) if k is not None]
        for key in keys:
            non_negative(key, "after" if key is after else "before")
        if len(keys) + from_end > 1 or (keys or from_end) and offset:
            raise InputError("page by one of offset, after, before or from_end", field="after")
        backward = before is not None or from_end
        if backward and limit is None:
            raise InputError("before / from_end read a page: give its limit", field="limit")
        filters = RowFilters(category, metric, passed, failure_class, search, error, failure_detail)
        with self._read() as conn:
            self._require_run(conn, run_id)
            # A search most rows match walks the run in order (see dense_search).
            walk = dense_search(conn, run_id, search)
            query = rows_query(run_id, filters, order_by=order_by, walk=walk)
            anchor = None
            if keys:
                anchor = (anchor_value(conn, run_id, order_by, keys[0], metric), keys[0])
        if backward:
            return self._page_back(query, run_id, order_by, anchor, int(limit or 0))
        # Checked above, before the first row is asked for; rows stream lazily.
        return self._stream(query, run_id, offset, limit, order_by, anchor, metric)

    def _page_back(
        self, query: sa.Select, run_id: str, order_by: str, anchor: Any, size: int
    ) -> Iterator[RowRecord]:
        with self._read() as conn:
            chunk = keyset_page(conn, query, run_id, order_by, anchor, size, backward=True)
            results = results_for(conn, run_id, [r["row_index"] for r in chunk])
        return iter([codec.row_record(r, results.get(r["row_index"], ())) for r in chunk])

    def _stream(
        self,
        query: sa.Select,
        run_id: str,
        offset: int,
        limit: int | None,
        order_by: str,
        anchor: tuple[Any, int] | None,
        metric: str | None,
    ) -> Iterator[RowRecord]:
        # Chunks, so a 100k-row run streams instead of loading at once. Later chunks
        # continue after the last row seen (keyset), so rows committed meanwhile by a
        # running run neither repeat nor go missing, and no chunk skips rows by offset.
        remaining = limit
        while remaining is None or remaining > 0:
            size = _CHUNK if remaining is None else min(_CHUNK, remaining)
            with self._read() as conn:
                if anchor is None:
                    # The first chunk in the query's own order (the spelling its index
                    # was built for); every later one by key from the last row read.
                    chunk = keyed_page(conn, query, run_id, offset, size)
                else:
                    chunk = keyset_page(conn, query, run_id, order_by, anchor, size)
                if not chunk:
                    return
                results = results_for(conn, run_id, [r["row_index"] for r in chunk])
                last = chunk[-1]["row_index"]
                if len(chunk) == size:
                    anchor = (anchor_value(conn, run_id, order_by, last, metric), last)
            for row in chunk:
                yield codec.row_record(row, results.get(row["row_index"], ()))
            if remaining is not None:
                remaining -= len(chunk)
            if len(chunk) < size:
                return

    def count_rows(
        self,
        run_id: str,
        *,
        category: str | None = None,
        metric: str | None = None,
        passed: bool | None = None,
        failure_class: str | None = None,
        search: str | None = None,
        error: bool | None = None,
        failure_detail: str | None = None,
        at_most: int | None = None,
    ) -> int:
        """How many rows :meth:`iter_rows` would yield with the same filters.

        ``at_most``: stop counting there (the answer is then ``min(count,
        at_most)``): a search that half a million rows match counts a
        thousand and says "1,000+".
        """
        filters = RowFilters(category, metric, passed, failure_class, search, error, failure_detail)
        query = rows_query(run_id, filters, order_by=None)
        if at_most is not None:
            query = query.limit(non_negative(at_most, "at_most"))
        with self._read() as conn:
            self._require_run(conn, run_id)
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(query.subquery())).scalar()
            )

    def get_row(self, run_id: str, index: int) -> RowRecord:
        """One row by its 0-based dataset index; StoreError if absent."""
        with self._read() as conn:
            self._require_run(conn, run_id)
            return get_row(conn, run_id, index)

    def get_rows(self, run_id: str, indexes: Sequence[int]) -> dict[int, RowRecord]:
        """The rows of these 0-based indexes that exist, by index, in one read.

        A page that shows rows picked elsewhere (a comparison's deltas) reads
        them at once instead of one query per row; absent indexes are left out.
        """
        with self._read() as conn:
            self._require_run(conn, run_id)
            return get_rows(conn, run_id, indexes)

    def categories(self, run_id: str) -> list[str]:
        """The distinct row categories of a run, sorted (rows without one are left out)."""
        with self._read() as conn:
            self._require_run(conn, run_id)
            return sorted(
                conn.execute(
                    sa.select(t.rows.c.category)
                    .where(t.rows.c.run_id == run_id, t.rows.c.category.is_not(None))
                    .distinct()
                ).scalars()
            )

    # ------------------------------------------------------------ helpers
    def _require_run(self, conn: sa.Connection, run_id: str) -> None:
        if conn.execute(sa.select(t.runs.c.id).where(t.runs.c.id == run_id)).first() is None:
            raise self._unknown_run(conn, run_id)

    def _unknown_run(self, conn: sa.Connection, run_id: str) -> StoreError:
        return StoreError(
            f"no run {run_id!r} in {self.url}; `tooleval runs list` shows the runs", field="run"
        )
