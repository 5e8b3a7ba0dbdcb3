"""Opening stores: URLs, defaults, bad stores, and the versioned schema."""

from __future__ import annotations

import socket
import sqlite3

import pytest
import sqlalchemy as sa

from tooleval.errors import StoreError
from tooleval.store import open_store, schema
from tooleval.store.migrations import MIGRATIONS, Migration, current_version, upgrade
from tooleval.store.search_index import FTS_TABLE, SEARCHED_COLUMNS


def test_default_is_a_wal_sqlite_file_under_dot_tooleval(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open_store() as store:
        run_id = store.create_run("d", dataset={}, connector={}, metrics=[])
    path = tmp_path / ".tooleval" / "runs.db"
    assert path.is_file()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # Reopening (by path and by URL) finds the run again and migrates nothing.
    for url in (path, f"sqlite:///{path}"):
        with open_store(url) as store:
            assert store.applied_migrations == []
            assert store.get_run(run_id).name == "d"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "unsupported store URL scheme 'mysql'"),
        ("   ", "empty store URL"),
    ],
)
def test_bad_urls(url, message):
    with pytest.raises(StoreError, match=message):
        open_store(url)


def test_a_file_that_is_not_a_database(tmp_path):
    bogus = tmp_path / "notes.db"
    bogus.write_text("just some text, not SQLite " * 100)
    with pytest.raises(StoreError, match="must be a tooleval store") as info:
        open_store(bogus)
    assert "--store" in str(info.value)


def test_a_directory_or_unwritable_parent(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        open_store(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the store directory"):
        open_store(blocker / "sub" / "runs.db")


def test_unreachable_postgres_says_what_to_do():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once closed
    with pytest.raises(StoreError, match=f"127.0.0.1:{port}") as info:
        open_store(f"postgresql://nobody@127.0.0.1:{port}/evals")
    assert "check that the server is running" in str(info.value)


@pytest.mark.postgres
def test_missing_postgres_database(pg_url):
    with pytest.raises(StoreError, match="database exists"):
        open_store(pg_url.rsplit("/", 1)[0] + "/no_such_db")


def test_a_version_1_store_is_upgraded_in_place(tmp_path):
    path = tmp_path / "runs.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        assert upgrade(conn, steps=MIGRATIONS[:1]) == [1]
        conn.execute(
            sa.text(
                "INSERT INTO runs (id, name, created_at, status, dataset, connector, config) "
                "VALUES ('old', 'old run', '2026-01-01', 'finished', '{}', '{}', '{}')"
            )
        )
    engine.dispose()
    with open_store(path) as store:
        assert store.applied_migrations == [m.version for m in MIGRATIONS[1:]]
        assert store.get_run("old").name == "old run"
    with sqlite3.connect(path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "ix_results_summary" in names


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "runs.db"
    open_store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO tooleval_schema (version, description, applied_at) VALUES (99, 'x', 'now')"
        )
    with pytest.raises(StoreError, match="schema is version 99.*upgrade tooleval"):
        open_store(path)


SEARCH_INDEXES = {f"ix_rows_search_{c}" for c in SEARCHED_COLUMNS}


def _index_names(engine):
    # By name: expression indexes (ix_results_score_order) do not reflect as columns.
    sql = (
        "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' "
        "AND name NOT LIKE 'sqlite_autoindex%'"
        if engine.dialect.name == "sqlite"
        else "SELECT tablename, indexname FROM pg_indexes WHERE schemaname = 'public' "
        "AND indexname NOT LIKE '%%_pkey'"
    )
    with engine.connect() as conn:
        found: dict[str, list[str]] = {}
        for table, name in conn.exec_driver_sql(sql):
            found.setdefault(table, []).append(name)
    return found


def _reflect(engine):
    """The migrated tables, less the dialect-specific search index (checked apart)."""
    inspector = sa.inspect(engine)
    indexes = _index_names(engine)
    return {
        name: (
            sorted(c["name"] for c in inspector.get_columns(name)),
            sorted(set(indexes.get(name, [])) - SEARCH_INDEXES),
        )
        for name in inspector.get_table_names()
        if name != "tooleval_schema" and not name.startswith(FTS_TABLE)
    }


def _declared():
    return {
        table.name: (
            sorted(c.name for c in table.columns),
            sorted(i.name for i in table.indexes),
        )
        for table in schema.metadata.sorted_tables
    }


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def test_migrated_schema_matches_the_declared_tables(backend, tmp_path, request):
    url = f"sqlite:///{tmp_path}/s.db" if backend == "sqlite" else request.getfixturevalue("pg_url")
    open_store(url).close()
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        assert _reflect(engine) == _declared()
        tables = sa.inspect(engine).get_table_names()
        if backend == "sqlite":
            assert FTS_TABLE in tables
        else:
            assert set(_index_names(engine)["rows"]) >= SEARCH_INDEXES
        with engine.connect() as conn:
            assert current_version(conn) == MIGRATIONS[-1].version
    finally:
        engine.dispose()


def test_an_upgrade_step_runs_once_and_keeps_data(tmp_path):
    path = tmp_path / "runs.db"
    with open_store(path) as store:
        run_id = store.create_run("old", dataset={}, connector={}, metrics=[])

    def add_note(op):
        op.add_column("runs", sa.Column("note", sa.Text))

    steps = (*MIGRATIONS, Migration(99, "runs.note", add_note))
    engine = sa.create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            assert upgrade(conn, steps=steps) == [99]
        with engine.begin() as conn:
            assert upgrade(conn, steps=steps) == []
            assert current_version(conn) == 99
            assert conn.execute(sa.text("SELECT name, note FROM runs")).one() == ("old", None)
            assert run_id
    finally:
        engine.dispose()


def test_a_failing_step_leaves_the_store_unchanged(tmp_path):
    path = tmp_path / "runs.db"
    open_store(path).close()

    def broken(op):
        op.add_column("runs", sa.Column("half", sa.Text))
        raise RuntimeError("step failed halfway")

    from tooleval.store.sql import Store

    store = Store(f"sqlite:///{path}")
    try:
        with pytest.raises(RuntimeError), store._engine.begin() as conn:
            upgrade(conn, steps=(*MIGRATIONS, Migration(99, "broken", broken)))
        with store._engine.connect() as conn:
            assert current_version(conn) == MIGRATIONS[-1].version
            columns = {c["name"] for c in sa.inspect(conn).get_columns("runs")}
            assert "half" not in columns
    finally:
        store.close()
