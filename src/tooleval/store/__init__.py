"""The run store: every evaluation run, row and Result, in SQLite or PostgreSQL.

``open_store()`` opens (and creates or migrates) ``.tooleval/runs.db`` in the
current directory; pass a file path, ``sqlite:///FILE`` or
``postgresql://USER@HOST:PORT/DB`` for another store. Everything that reads
runs (CLI, report, web viewer, comparison) goes through the read API of
:class:`Store` (typed as :class:`StoreReader`; writers as :class:`StoreWriter`)
and gets the plain records of :mod:`tooleval.store.records`; runs are written
through :class:`RunWriter` (the runner and the monitor alike).

>>> store = open_store("sqlite:///:memory:")
>>> run_id = store.create_run("demo", dataset={"path": "d.jsonl"}, connector={}, metrics=[])
>>> store.get_run(run_id).status
'running'
>>> store.close()
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from tooleval._extras import require
from tooleval.store.label_files import (
    LABEL_COLUMNS,
    LabelLine,
    labels_text,
    parse_labels,
    read_label_file,
    resolve_labels,
)
from tooleval.store.protocol import AggregateStore, RunRowsReader, StoreReader, StoreWriter
from tooleval.store.records import (
    CalibrationRecord,
    Label,
    MetricSpec,
    MetricSummary,
    RowRecord,
    RunInfo,
)
from tooleval.store.writer import RunWriter

if TYPE_CHECKING:
    from tooleval.store.labels import judge_key
    from tooleval.store.leases import HEARTBEAT_SECONDS, RunBusyError
    from tooleval.store.sql import Store

__all__ = [
    "HEARTBEAT_SECONDS",
    "AggregateStore",
    "CalibrationRecord",
    "Label",
    "LabelLine",
    "MetricSpec",
    "MetricSummary",
    "RowRecord",
    "RunInfo",
    "RunBusyError",
    "RunRowsReader",
    "RunWriter",
    "Store",
    "StoreReader",
    "StoreWriter",
    "judge_key",
    "LABEL_COLUMNS",
    "labels_text",
    "open_store",
    "parse_labels",
    "read_label_file",
    "resolve_labels",
    "resolve_store_url",
]


def open_store(url: str | os.PathLike[str] | None = None, *, create: bool = True) -> Store:
    """Open a run store; None means the SQLite file ``.tooleval/runs.db``.

    ``create=False`` is for readers (listing, reports, the viewer): a SQLite
    store file that does not exist is a :class:`~tooleval.errors.StoreError`
    naming the path, instead of a new empty store (and folders) made by a typo.
    Raises :class:`tooleval.errors.StoreError` with what to do when the store
    cannot be reached, is not a tooleval store, or has a newer schema.

    >>> open_store("/no/such/folder/runs.db", create=False)
    Traceback (most recent call last):
    ...
    tooleval.errors.StoreError: field --store: no run store at /no/such/folder/runs.db: ...
    """
    require("runs", "sqlalchemy", "alembic")  # the records and protocols import without it
    from tooleval.store.engine import resolve_url
    from tooleval.store.sql import Store

    resolved = resolve_url(url)
    if not create:
        _require_existing_file(resolved)
    return Store(resolved)


def resolve_store_url(url: str | os.PathLike[str] | None) -> str:
    """The SQLAlchemy URL of a store given as None, a path or a URL (what ``open_store`` opens).

    >>> resolve_store_url("sqlite:///ci/runs.db")
    'sqlite:///ci/runs.db'
    """
    require("runs", "sqlalchemy", "alembic")
    from tooleval.store.engine import resolve_url

    return resolve_url(url)


def _require_existing_file(url: str) -> None:
    from pathlib import Path

    import sqlalchemy as sa

    from tooleval.errors import StoreError

    parsed = sa.engine.make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return
    if database.startswith("file:") or Path(database).exists():
        return
    raise StoreError(
        f"no run store at {database}: the file does not exist; point --store "
        "(or $TOOLEVAL_STORE) at the store `tooleval run` wrote to",
        field="--store",
    )


def __getattr__(name: str) -> Any:
    # SQLAlchemy loads only when a store is actually used.
    if name == "Store":
        require("runs", "sqlalchemy", "alembic")
        from tooleval.store.sql import Store

        return Store
    if name == "judge_key":
        from tooleval.store.labels import judge_key

        return judge_key
    if name in ("HEARTBEAT_SECONDS", "RunBusyError"):  # the lease rules, for the runner
        from tooleval.store import leases

        return getattr(leases, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
