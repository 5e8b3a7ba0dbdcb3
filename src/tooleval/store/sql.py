"""The run store on SQLAlchemy Core: SQLite file by default, PostgreSQL by URL.

Writes are committed row by row (a killed run loses at most the rows in
flight); reads hand out the plain records of :mod:`tooleval.store.records`.
The store never scores: it keeps what the runner computed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tooleval.errors import InputError, StoreError
from tooleval.model import Diagnosis, Result
from tooleval.store import schema as t
from tooleval.store.codec import calls_from_list, sample_from_dict
from tooleval.store.records import MetricSpec, MetricSummary, RowRecord, RunInfo

__all__ = ["DEFAULT_PATH", "ORDER_BY", "Store", "resolve_url"]

DEFAULT_PATH = Path(".tooleval") / "runs.db"
RUN_STATUSES = ("running", "finished", "interrupted", "failed")
# order_by name -> (column, descending); every order ends with row_index for stable pages.
ORDER_BY = {
    "index": ("row_index", False),
    "-index": ("row_index", True),
    "row_id": ("row_id", False),
    "-row_id": ("row_id", True),
    "category": ("category", False),
    "-category": ("category", True),
    "latency": ("latency_ms", False),
    "-latency": ("latency_ms", True),
    "score": ("score", False),
    "-score": ("score", True),
}
_CHUNK = 1000


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    import orjson

    # default=str: raw agent responses may hold values JSON has no type for.
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def _loads(text: str | bytes) -> Any:
    import orjson

    return orjson.loads(text)


def resolve_url(url: str | os.PathLike[str] | None) -> str:
    """Turn what the user gave (None, a path, a URL) into a SQLAlchemy URL.

    >>> resolve_url("postgresql://me@127.0.0.1:5433/evals")
    'postgresql+psycopg://me@127.0.0.1:5433/evals'
    >>> resolve_url("sqlite:///runs.db")
    'sqlite:///runs.db'
    """
    if url is None:
        url = DEFAULT_PATH
    text = os.fspath(url)
    if not text.strip():
        raise StoreError("empty store URL; give a file path, sqlite:///FILE or postgresql://...")
    scheme, sep, rest = text.partition("://")
    if not sep:
        return "sqlite:///" + str(Path(text).expanduser().resolve())
    scheme = scheme.lower()
    if scheme in ("postgresql", "postgres", "postgresql+psycopg"):
        return "postgresql+psycopg://" + rest
    if scheme in ("sqlite", "sqlite+pysqlite"):
        return "sqlite://" + rest
    raise StoreError(
        f"unsupported store URL scheme {scheme!r}; use a file path, sqlite:///FILE "
        "or postgresql://USER@HOST:PORT/DATABASE",
        field="--store",
    )


def _sqlite_file(url: sa.engine.URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


class Store:
    """A run store. Open it with :func:`tooleval.store.open_store`.

    Write API: :meth:`create_run`, :meth:`add_row` (one committed transaction
    per row), :meth:`finish_run`. Read API: :meth:`list_runs`,
    :meth:`get_run`, :meth:`iter_rows`, :meth:`count_rows`, :meth:`get_row`,
    :meth:`categories`. Use it as a context manager or call :meth:`close`.
    """

    def __init__(self, url: str) -> None:
        from tooleval.store.migrations import upgrade

        self._url = sa.engine.make_url(url)
        self.url = self._url.render_as_string(hide_password=True)
        self.dialect = self._url.get_backend_name()
        self._engine = self._create_engine()
        try:
            with self._engine.begin() as conn:
                self.applied_migrations = upgrade(conn)
        except StoreError:
            self._engine.dispose()
            raise
        except sa.exc.SQLAlchemyError as exc:
            self._engine.dispose()
            raise self._open_error(exc) from None

    # ------------------------------------------------------------ engine
    def _create_engine(self) -> sa.Engine:
        if self.dialect == "sqlite":
            path = _sqlite_file(self._url)
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreError(
                        f"cannot create the store directory {path.parent}: {exc.strerror}; "
                        "pass --store with a writable path",
                        path=str(path),
                    ) from None
                if path.is_dir():
                    raise StoreError(
                        "the store path is a directory; give a file such as runs.db",
                        path=str(path),
                    )
            kwargs: dict[str, Any] = {}
            if path is None:
                kwargs["poolclass"] = sa.pool.StaticPool
            engine = sa.create_engine(
                self._url,
                json_serializer=_dumps,
                json_deserializer=_loads,
                connect_args={"timeout": 30, "check_same_thread": False},
                **kwargs,
            )
            sa.event.listen(engine, "connect", _sqlite_on_connect)
            sa.event.listen(engine, "begin", _sqlite_on_begin)
            return engine
        if self.dialect == "postgresql":
            return sa.create_engine(
                self._url,
                json_serializer=_dumps,
                json_deserializer=_loads,
                pool_pre_ping=True,
                connect_args={"connect_timeout": 5},
            )
        raise StoreError(f"unsupported database {self.dialect!r}", field="--store")

    def _open_error(self, exc: Exception) -> StoreError:
        detail = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
        if self.dialect == "postgresql":
            where = f"{self._url.host or 'localhost'}:{self._url.port or 5432}"
            return StoreError(
                f"cannot open the PostgreSQL store at {where} (database "
                f"{self._url.database!r}): {detail}; check that the server is running, the "
                "database exists and the user may connect, or pass another --store",
                field="--store",
            )
        return StoreError(
            f"cannot open the SQLite store {self._url.database}: {detail}; it must be a "
            "tooleval store (or a new file); pass another --store to start fresh",
            field="--store",
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
            with self._engine.begin() as conn:
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
            raise self._open_error(exc) from None

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
        for record in records:
            row_values.append(_row_values(run_id, record, created))
            result_values.extend(_result_values(run_id, record))
        if not row_values:
            return 0
        if self.dialect == "postgresql":
            # PostgreSQL text and JSONB cannot hold NUL characters; agents do send them.
            row_values = [_without_nul(v) for v in row_values]
            result_values = [_without_nul(v) for v in result_values]
        try:
            with self._write() as conn:
                self._require_run(conn, run_id)
                conn.execute(t.rows.insert(), row_values)
                if result_values:
                    conn.execute(t.results.insert(), result_values)
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
        self, run_id: str, indexes: Iterable[int], failure_class: str | None
    ) -> int:
        """Store ``failure_class`` on the given rows (clustering decides it); return how many."""
        wanted = list(indexes)
        changed = 0
        with self._write() as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                changed += conn.execute(
                    t.rows.update()
                    .where(t.rows.c.run_id == run_id, t.rows.c.row_index.in_(chunk))
                    .values(failure_class=failure_class)
                ).rowcount
        return changed

    def delete_run(self, run_id: str) -> None:
        """Remove a run and everything stored under it."""
        with self._write() as conn:
            self._require_run(conn, run_id)
            for table in (t.results, t.rows, t.run_metrics, t.run_tags):
                conn.execute(table.delete().where(table.c.run_id == run_id))
            conn.execute(t.runs.delete().where(t.runs.c.id == run_id))

    # ------------------------------------------------------------ read API
    def list_runs(
        self, *, search: str | None = None, tag: str | None = None, limit: int | None = None
    ) -> list[RunInfo]:
        """Runs, newest first; ``search`` matches id or name, ``tag`` an exact tag."""
        query = sa.select(t.runs).order_by(t.runs.c.created_at.desc(), t.runs.c.id.desc())
        if search:
            pattern = f"%{_escape_like(search.lower())}%"
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
            query = query.limit(_non_negative(limit, "limit"))
        with self._read() as conn:
            return [self._run_info(conn, row) for row in conn.execute(query).mappings()]

    def get_run(self, run_id: str) -> RunInfo:
        """One run with its per-metric :class:`MetricSummary`; StoreError if unknown."""
        with self._read() as conn:
            row = conn.execute(sa.select(t.runs).where(t.runs.c.id == run_id)).mappings().first()
            if row is None:
                raise self._unknown_run(conn, run_id)
            return self._run_info(conn, row)

    def resolve_run_id(self, prefix: str) -> str:
        """The id of the one run whose id starts with ``prefix`` (or equals it)."""
        with self._read() as conn:
            exact = conn.execute(sa.select(t.runs.c.id).where(t.runs.c.id == prefix)).first()
            if exact:
                return exact[0]
            found = (
                conn.execute(
                    sa.select(t.runs.c.id)
                    .where(t.runs.c.id.like(f"{_escape_like(prefix)}%", escape="\\"))
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
        offset: int = 0,
        limit: int | None = None,
        order_by: str = "index",
    ) -> Iterator[RowRecord]:
        """The run's rows with every Result, filtered and paged.

        ``metric`` alone keeps rows scored by that metric; with ``passed`` it
        keeps rows whose result for that metric passed (True) or failed
        (False). ``passed`` alone uses the row's verdict (every scored result
        passed). ``search`` matches row id, input, output or error text,
        case-insensitively; ``error=True`` keeps rows the agent could not be
        called for (or whose cells could not be read), ``False`` the others. ``order_by``: ``index``, ``row_id``, ``category``,
        ``latency``, ``score`` (needs ``metric``), each with ``-`` for descending.
        """
        offset = _non_negative(offset, "offset")
        if limit is not None:
            limit = _non_negative(limit, "limit")
        with self._read() as conn:
            self._require_run(conn, run_id)
        query = self._rows_query(
            run_id,
            category=category,
            metric=metric,
            passed=passed,
            failure_class=failure_class,
            search=search,
            error=error,
            order_by=order_by,
        )
        # Checked above, before the first row is asked for; rows stream lazily.
        return self._stream(query, run_id, offset, limit, by_index=order_by == "index")

    def _stream(
        self, query: sa.Select, run_id: str, offset: int, limit: int | None, *, by_index: bool
    ) -> Iterator[RowRecord]:
        # Chunks, so a 100k-row run streams instead of loading at once. In index
        # order, later chunks continue after the last index seen (keyset), so rows
        # committed meanwhile by a running run neither repeat nor go missing.
        position = offset
        remaining = limit
        last_index: int | None = None
        while remaining is None or remaining > 0:
            size = _CHUNK if remaining is None else min(_CHUNK, remaining)
            if by_index and last_index is not None:
                page = query.where(t.rows.c.row_index > last_index).limit(size)
            else:
                page = query.offset(position).limit(size)
            with self._read() as conn:
                chunk = conn.execute(page).mappings().all()
                if not chunk:
                    return
                results = self._results_for(conn, run_id, [r["row_index"] for r in chunk])
            for row in chunk:
                yield _row_record(row, results.get(row["row_index"], ()))
            position += len(chunk)
            last_index = chunk[-1]["row_index"]
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
    ) -> int:
        """How many rows :meth:`iter_rows` would yield with the same filters."""
        query = self._rows_query(
            run_id,
            category=category,
            metric=metric,
            passed=passed,
            failure_class=failure_class,
            search=search,
            error=error,
            order_by=None,
        )
        with self._read() as conn:
            self._require_run(conn, run_id)
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(query.subquery())).scalar()
            )

    def get_row(self, run_id: str, index: int) -> RowRecord:
        """One row by its 0-based dataset index; StoreError if absent."""
        with self._read() as conn:
            self._require_run(conn, run_id)
            row = (
                conn.execute(
                    sa.select(t.rows).where(t.rows.c.run_id == run_id, t.rows.c.row_index == index)
                )
                .mappings()
                .first()
            )
            if row is None:
                raise StoreError(f"run {run_id} has no row {index}", row=index)
            results = self._results_for(conn, run_id, [index])
        return _row_record(row, results.get(index, ()))

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

    def _run_info(self, conn: sa.Connection, row: Any) -> RunInfo:
        run_id = row["id"]
        tags = conn.execute(
            sa.select(t.run_tags.c.tag)
            .where(t.run_tags.c.run_id == run_id)
            .order_by(t.run_tags.c.tag)
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
            # The plan's metric order first, then any metric only the rows know.
            summaries={s.name: summaries[s.name] for s in metrics}
            | {k: v for k, v in summaries.items() if k not in {s.name for s in metrics}},
            config=dict(row["config"] or {}),
        )

    def _rows_query(
        self,
        run_id: str,
        *,
        category: str | None,
        metric: str | None,
        passed: bool | None,
        failure_class: str | None,
        search: str | None,
        error: bool | None,
        order_by: str | None,
    ) -> sa.Select:
        rows, res = t.rows.c, t.results.c
        query = sa.select(t.rows).where(rows.run_id == run_id)
        if category is not None:
            query = query.where(rows.category == category)
        if failure_class is not None:
            query = query.where(rows.failure_class == failure_class)
        if error is not None:
            query = query.where(rows.error.is_not(None) if error else rows.error.is_(None))
        if metric is not None:
            match = sa.select(res.row_index).where(
                res.run_id == run_id, res.metric == metric, res.row_index == rows.row_index
            )
            if passed is not None:
                match = match.where(res.passed.is_(passed))
            query = query.where(match.exists())
        elif passed is not None:
            query = query.where(rows.passed.is_(passed))
        if search:
            pattern = f"%{_escape_like(search.lower())}%"
            query = query.where(
                sa.or_(
                    *(
                        sa.func.lower(column).like(pattern, escape="\\")
                        for column in (rows.row_id, rows.input, rows.output, rows.error)
                    )
                )
            )
        if order_by is None:
            return query
        if order_by not in ORDER_BY:
            raise InputError(
                f"unknown order {order_by!r}; expected one of {', '.join(ORDER_BY)}",
                field="order_by",
            )
        column_name, descending = ORDER_BY[order_by]
        if column_name == "score":
            if metric is None:
                raise InputError("ordering by score needs metric=...", field="order_by")
            column: Any = (
                sa.select(res.score)
                .where(res.run_id == run_id, res.metric == metric, res.row_index == rows.row_index)
                .scalar_subquery()
            )
        else:
            column = rows[column_name]
        key = column.desc() if descending else column.asc()
        # Rows without a value (no latency, no category, unscored) always come last.
        key = key.nulls_last()
        return query.order_by(key, rows.row_index.asc())

    def _results_for(
        self, conn: sa.Connection, run_id: str, indexes: list[int]
    ) -> dict[int, list[Result]]:
        found: dict[int, list[Result]] = {}
        if not indexes:
            return found
        res = t.results.c
        query = sa.select(t.results).where(res.run_id == run_id)
        low, high = min(indexes), max(indexes)
        # A contiguous page is a range scan; a scattered one (filtered) an IN list.
        if high - low + 1 <= 2 * len(indexes):
            query = query.where(res.row_index.between(low, high))
        else:
            query = query.where(res.row_index.in_(indexes))
        wanted = set(indexes)
        query = query.order_by(res.row_index, res.position)
        for row in conn.execute(query).mappings():
            if row["row_index"] not in wanted:
                continue
            found.setdefault(row["row_index"], []).append(
                Result(
                    metric=row["metric"],
                    score=row["score"],
                    passed=row["passed"],
                    reason=row["reason"],
                    params=dict(row["params"] or {}),
                    threshold=row["threshold"],
                    diagnosis=Diagnosis.from_dict(row["diagnosis"]),
                )
            )
        return found


# ---------------------------------------------------------------- row codecs


def _row_values(run_id: str, record: RowRecord, created: str) -> dict[str, Any]:
    sample = record.sample
    data = sample.to_dict()
    # The agent's side is kept in its own columns (shown and searched apart).
    tools_called = data.pop("tools_called", None)
    output = data.pop("output", None)
    return {
        "run_id": run_id,
        "row_index": int(record.index),
        "row_id": str(record.row_id),
        "category": sample.category,
        "input": sample.user_input(),
        "sample": data,
        "output": output,
        "tools_called": tools_called,
        "error": record.error,
        "latency_ms": record.latency_ms,
        "raw_response": record.raw_response,
        "failure_class": record.failure_class,
        "passed": record.passed,
        "created_at": created,
    }


def _result_values(run_id: str, record: RowRecord) -> list[dict[str, Any]]:
    seen: set[str] = set()
    values = []
    for position, result in enumerate(record.results):
        if result.metric in seen:
            raise StoreError(
                f"row {record.index} has two results for metric {result.metric!r}",
                row=record.index,
            )
        seen.add(result.metric)
        values.append(
            {
                "run_id": run_id,
                "row_index": int(record.index),
                "metric": result.metric,
                "position": position,
                "score": result.score,
                "passed": result.passed,
                "threshold": result.threshold,
                "reason": result.reason,
                "params": dict(result.params),
                "diagnosis": result.diagnosis.to_dict(),
            }
        )
    return values


def _row_record(row: Any, results: Sequence[Result]) -> RowRecord:
    data = dict(row["sample"] or {})
    data["tools_called"] = row["tools_called"]
    data["output"] = row["output"]
    sample = sample_from_dict(data)
    if sample.tools_called is None and row["tools_called"] is not None:
        sample.tools_called = calls_from_list(row["tools_called"])
    return RowRecord(
        run_id=row["run_id"],
        index=row["row_index"],
        row_id=row["row_id"],
        sample=sample,
        results=tuple(results),
        error=row["error"],
        latency_ms=row["latency_ms"],
        raw_response=row["raw_response"],
        failure_class=row["failure_class"],
    )


def _without_nul(value: Any) -> Any:
    """``value`` with every NUL character in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_nul(v) for v in value]
    return value


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _non_negative(value: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{name} must be a non-negative integer, got {value!r}", field=name)
    return value


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy's "begin" event emit BEGIN itself, so DDL is transactional too.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        mode = cursor.execute("PRAGMA journal_mode=WAL").fetchone()
        # WAL + NORMAL: a commit survives a killed process; only power loss can undo the last ones.
        if mode and str(mode[0]).lower() == "wal":
            cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def _sqlite_on_begin(conn: sa.Connection) -> None:
    conn.exec_driver_sql("BEGIN")
