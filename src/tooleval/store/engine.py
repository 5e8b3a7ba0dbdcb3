"""Where the run store lives: store URLs, SQLAlchemy engines and open errors.

SQLite files get WAL journaling and a busy timeout so a viewer can read while
a run writes, and write transactions start with ``BEGIN IMMEDIATE`` so
concurrent writers (two runs on one store) wait their turn instead of failing
with "database is locked" (for at most the 30 s busy timeout); PostgreSQL gets
pre-pinged pooled connections, a 5 s connect timeout, and statement and lock
timeouts (:data:`PG_TIMEOUTS`).

>>> resolve_url("sqlite:///:memory:")
'sqlite:///:memory:'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tooleval._extras import install_hint
from tooleval.errors import StoreError

__all__ = ["DEFAULT_PATH", "WRITE_OPTION", "create_engine", "open_error", "resolve_url"]

DEFAULT_PATH = Path(".tooleval") / "runs.db"
#: Execution option marking a connection that writes (SQLite: BEGIN IMMEDIATE).
WRITE_OPTION = "tooleval_write"


#: PostgreSQL session settings: no statement runs, and no lock is awaited, for good.
PG_TIMEOUTS = "-c statement_timeout=300000 -c lock_timeout=60000"


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


def create_engine(url: sa.engine.URL) -> sa.Engine:
    """An engine for ``url``; a SQLite file's directory is created if missing."""
    dialect = url.get_backend_name()
    if dialect == "sqlite":
        path = _sqlite_file(url)
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
            url,
            json_serializer=_dumps,
            json_deserializer=_loads,
            connect_args={"timeout": 30, "check_same_thread": False},
            **kwargs,
        )
        sa.event.listen(engine, "connect", _sqlite_on_connect)
        sa.event.listen(engine, "begin", _sqlite_on_begin)
        return engine
    if dialect == "postgresql":
        try:
            return sa.create_engine(
                url,
                json_serializer=_dumps,
                json_deserializer=_loads,
                pool_pre_ping=True,
                # Every wait has a deadline: connecting, each statement, each lock wait.
                connect_args={"connect_timeout": 5, "options": PG_TIMEOUTS},
            )
        except ImportError as exc:  # SQLAlchemy imports the driver here
            missing = getattr(exc, "name", None) or "psycopg"
            raise StoreError(
                f"a PostgreSQL store needs the {missing} driver ({missing} is not installed): "
                f"{install_hint('postgres')}",
                field="--store",
            ) from None
    raise StoreError(f"unsupported database {dialect!r}", field="--store")


def open_error(url: sa.engine.URL, exc: Exception) -> StoreError:
    """The StoreError saying why the store at ``url`` could not be opened or read."""
    detail = str(getattr(exc, "orig", exc)).strip().splitlines()[0]
    if url.get_backend_name() == "postgresql":
        where = f"{url.host or 'localhost'}:{url.port or 5432}"
        return StoreError(
            f"cannot open the PostgreSQL store at {where} (database "
            f"{url.database!r}): {detail}; check that the server is running, the "
            "database exists and the user may connect, or pass another --store",
            field="--store",
        )
    return StoreError(
        f"cannot open the SQLite store {url.database}: {detail}; it must be a "
        "tooleval store (or a new file); pass another --store to start fresh",
        field="--store",
    )


def _sqlite_file(url: sa.engine.URL) -> Path | None:
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _dumps(value: Any) -> str:
    import orjson

    # default=str: raw agent responses may hold values JSON has no type for.
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


def _loads(text: str | bytes) -> Any:
    import orjson

    return orjson.loads(text)


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
    # Writes take the write lock up front (BEGIN IMMEDIATE), so the busy timeout
    # applies: a deferred transaction that reads, then writes after another
    # process committed, fails at once with "database is locked" instead.
    if conn.get_execution_options().get(WRITE_OPTION):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.exec_driver_sql("BEGIN")
