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

__all__ = ["AggregateStore", "RunRowsReader", "StoreReader", "StoreWriter"]


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
class AggregateStore(Protocol):
    """A run's stored aggregate documents and the counting queries views need (``store.aggregates``).

    Documents are JSON values saved under a name with the row count they were
    computed from; ``load_aggregate`` gives None for a stale one. The queries
    count in the database without decoding any row's JSON.
    """

    def save_aggregate(self, run_id: str, name: str, payload: Any, *, row_count: int) -> None:
        """Store (or replace) one aggregate document of ``run_id``."""
        ...

    def save_aggregates(self, run_id: str, documents: dict[str, Any], *, row_count: int) -> None:
        """Store (or replace) several documents of ``run_id`` in one transaction."""
        ...

    def load_aggregate(self, run_id: str, name: str, *, row_count: int | None) -> Any:
        """The stored document, or None when absent or computed from another row count."""
        ...

    def delete_aggregates(self, run_id: str, *, prefix: str = "") -> int:
        """Forget the run's stored documents whose name starts with ``prefix``."""
        ...

    def run_stamps(
        self, *, run_id: str | None = None, search: str | None = None, tag: str | None = None
    ) -> list[tuple[str, str, str | None]]:
        """``(id, status, finished_at)`` of runs, newest first."""
        ...

    def score_histograms(self, run_id: str, *, bins: int = 10) -> dict[str, dict[str, Any]]:
        """Per metric: score counts in ``bins`` bins plus one for 1.0, and ``unscored``."""
        ...

    def category_counts(self, run_id: str) -> dict[str, dict[str, int]]:
        """Per category: rows, passed, failed, errors."""
        ...

    def category_metric_counts(self, run_id: str) -> dict[str, dict[str, list[int]]]:
        """Per category and metric: ``[passed, failed]`` result counts."""
        ...

    def figure_counts(self, run_id: str) -> list[tuple[Any, ...]]:
        """Per category and metric: passed, failed, errors, unscored, and the scores' moments."""
        ...

    def latency_percentiles(
        self, run_id: str, shares: Sequence[tuple[str, float]] = (("p50", 0.5), ("p95", 0.95))
    ) -> dict[str, float]:
        """The rows' latency at each ``(name, share)`` of the rows that have one."""
        ...

    def class_counts(self, run_id: str) -> dict[str, int]:
        """How many rows carry each stored failure class."""
        ...

    def class_examples(
        self, run_id: str, classes: list[str], *, limit: int = 3
    ) -> dict[str, list[list[Any]]]:
        """Per failure class, the first ``limit`` rows as ``[index, row_id]`` pairs."""
        ...

    def failure_groups(self, run_id: str) -> list[tuple[str, str, str | None, int, int]]:
        """Failed rows as ``(class, detail, category, rows, first index)`` groups."""
        ...

    def undetailed_failures(self, run_id: str) -> int:
        """Rows that did not pass and carry no stored failure class and detail."""
        ...

    def failure_group_examples(
        self, run_id: str, failure_class: str, detail: str, *, limit: int
    ) -> list[tuple[int, str]]:
        """The first ``limit`` rows of one failure group, as ``(row_index, row_id)``."""
        ...

    def verdict_rows(self, run_id: str) -> Any:
        """Every result as ``(row_index, row_id, category, metric, score, passed, error)``."""
        ...

    def iter_unpassed_rows(self, run_id: str, *, limit: int | None = None) -> Any:
        """The rows that did not pass (failed, unscored or errored), by index."""
        ...

    def iter_unpassed_slim(self, run_id: str) -> Any:
        """Like ``iter_unpassed_rows`` with only what failure clustering reads."""
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
        """The run a reference names: ``latest``, ``-N``, an id or a unique id prefix."""
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
        failure_detail: str | None = None,
        offset: int = 0,
        limit: int | None = None,
        order_by: str = "index",
        after: int | None = None,
        before: int | None = None,
        from_end: bool = False,
    ) -> Iterator[RowRecord]:
        """The run's rows with every Result, filtered and paged (by offset or by key)."""
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
        failure_detail: str | None = None,
        at_most: int | None = None,
    ) -> int:
        """How many rows :meth:`iter_rows` would yield with the same filters (at most ``at_most``)."""
        ...

    def get_row(self, run_id: str, index: int) -> RowRecord:
        """One row by its 0-based dataset index; StoreError if absent."""
        ...

    def get_rows(self, run_id: str, indexes: Sequence[int]) -> dict[int, RowRecord]:
        """The rows of these indexes that exist, by index, in one read."""
        ...

    def categories(self, run_id: str) -> list[str]:
        """The distinct row categories of a run, sorted."""
        ...

    def lease_holder(self, run_id: str) -> dict[str, Any] | None:
        """Who holds the run now: ``{pid, host, heartbeat_at, alive}``, or None."""
        ...

    @property
    def aggregates(self) -> AggregateStore:
        """The run aggregates kept in this store (see :class:`AggregateStore`)."""
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
