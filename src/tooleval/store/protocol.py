"""The store's public API as typing protocols: what views read and what writers write.

Code above the store (report, web viewer, analysis, runner, CLI, monitor)
types its ``store`` parameters with these instead of ``Any``, so a type
checker sees every method they use, and any object with these methods (the
SQL :class:`~tooleval.store.Store`, or a test double) can stand in.

Both are ``runtime_checkable``: ``isinstance`` checks the method names.

>>> from tooleval.store import open_store
>>> store = open_store("sqlite:///:memory:")
>>> isinstance(store, StoreReader), isinstance(store, StoreWriter)
(True, True)
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from tooleval.store.records import MetricSpec, RowRecord, RunInfo

__all__ = ["RunRowsReader", "StoreReader", "StoreWriter"]


@runtime_checkable
class RunRowsReader(Protocol):
    """The least a run comparison reads: a run and all its rows (every StoreReader is one)."""

    def get_run(self, run_id: str) -> RunInfo:
        """One run with its per-metric summaries."""
        ...

    def iter_rows(self, run_id: str) -> Iterator[RowRecord]:
        """The run's rows with every Result, in index order."""
        ...


@runtime_checkable
class StoreReader(Protocol):
    """The read API: runs, their rows with every Result, and who is writing a run."""

    def list_runs(
        self, *, search: str | None = None, tag: str | None = None, limit: int | None = None
    ) -> list[RunInfo]:
        """Runs, newest first; ``search`` matches id or name, ``tag`` an exact tag."""
        ...

    def get_run(self, run_id: str) -> RunInfo:
        """One run with its per-metric summaries; StoreError if unknown."""
        ...

    def resolve_run_id(self, prefix: str) -> str:
        """The id of the one run whose id starts with ``prefix`` (or equals it)."""
        ...

    def row_indexes(self, run_id: str) -> set[int]:
        """Indexes of the rows already stored for a run."""
        ...

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
        """The run's rows with every Result, filtered and paged."""
        ...

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
        ...

    def get_row(self, run_id: str, index: int) -> RowRecord:
        """One row by its 0-based dataset index; StoreError if absent."""
        ...

    def categories(self, run_id: str) -> list[str]:
        """The distinct row categories of a run, sorted."""
        ...

    def lease_holder(self, run_id: str) -> dict[str, Any] | None:
        """Who holds the run now: ``{pid, host, heartbeat_at, alive}``, or None."""
        ...


@runtime_checkable
class StoreWriter(Protocol):
    """The write API of a run: create it, add its rows, mark how it ended."""

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
        """Record a new run (status ``running``) and return its id."""
        ...

    def add_row(self, run_id: str, record: RowRecord) -> None:
        """Store one row with all its results, committed at once."""
        ...

    def add_rows(self, run_id: str, records: Iterable[RowRecord]) -> int:
        """Store several rows in one transaction; return how many."""
        ...

    def finish_run(self, run_id: str, status: str = "finished") -> None:
        """Mark the run ``finished`` (or ``interrupted`` / ``failed``)."""
        ...
