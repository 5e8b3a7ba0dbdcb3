"""Store fixtures: a fresh SQLite file per test and a database on the session's real PostgreSQL server."""

from __future__ import annotations

import uuid

import pytest
from tests.pg_server import create_database


@pytest.fixture(scope="session")
def pg_url(postgres_cluster: str) -> str:
    """A database of the store tests' own on the session's PostgreSQL server."""
    return create_database(postgres_cluster, "tooleval_store")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request, tmp_path):
    """An empty store on a real SQLite file, then on the real PostgreSQL server."""
    from tooleval.store import open_store

    if request.param == "sqlite":
        opened = open_store(tmp_path / "runs.db")
    else:
        opened = open_store(request.getfixturevalue("pg_url"))
    yield opened
    if request.param == "postgresql":
        # One server for the session: drop this test's runs so tests stay independent.
        for run in opened.list_runs():
            opened.delete_run(run.id)
    opened.close()


@pytest.fixture
def run_name() -> str:
    return f"run-{uuid.uuid4().hex[:6]}"
