"""The one way a run is written: create it, add its rows, finish it with how it ended.

The plan runner (:mod:`tooleval.runs.runner`) and the monitor
(:mod:`tooleval.monitor.run`) both write their runs through :class:`RunWriter`,
so a monitor pass and an evaluation run are stored the same way. Rows are
added one at a time (committed at once, ``batch_size=1``, what the runner
does so a crash loses nothing) or buffered and written ``batch_size`` at a
time in one transaction (what the monitor does over many sessions).

>>> from tooleval.store import RowRecord, open_store
>>> from tooleval.model import Sample
>>> store = open_store("sqlite:///:memory:")
>>> writer = RunWriter.start(store, "demo", dataset={}, connector={}, metrics=[], batch_size=2)
>>> writer.add(RowRecord(writer.run_id, 0, "r0", Sample(), ()))
>>> store.count_rows(writer.run_id)
0
>>> writer.finish()
>>> store.count_rows(writer.run_id), store.get_run(writer.run_id).status
(1, 'finished')
>>> store.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.errors import StoreError
from tooleval.store.protocol import StoreWriter
from tooleval.store.records import MetricSpec, RowRecord

__all__ = ["RunWriter"]


class RunWriter:
    """Writes the rows of one stored run and marks how the run ended.

    ``batch_size`` rows are buffered and stored in one transaction; with the
    default 1 every row is committed as it is added. :meth:`finish` with
    ``"finished"`` writes what is still buffered first; another status
    (``"failed"``, ``"interrupted"``) only marks the run, as the rows of a
    run that stopped halfway are not all there anyway.
    """

    def __init__(self, store: StoreWriter, run_id: str, *, batch_size: int = 1) -> None:
        if batch_size < 1:
            raise StoreError(f"batch_size must be at least 1, got {batch_size}")
        self.store = store
        self.run_id = run_id
        self.batch_size = batch_size
        self._pending: list[RowRecord] = []

    @classmethod
    def start(
        cls,
        store: StoreWriter,
        name: str,
        *,
        dataset: dict[str, Any],
        connector: dict[str, Any],
        metrics: Sequence[MetricSpec],
        tags: Sequence[str] = (),
        config: dict[str, Any] | None = None,
        batch_size: int = 1,
    ) -> RunWriter:
        """Create a new run (status ``running``) and return its writer."""
        run_id = store.create_run(
            name, dataset=dataset, connector=connector, metrics=metrics, tags=tags, config=config
        )
        return cls(store, run_id, batch_size=batch_size)

    def add(self, record: RowRecord) -> None:
        """Add one row; stored now (``batch_size=1``) or once the batch is full."""
        if self.batch_size == 1:
            self.store.add_row(self.run_id, record)
            return
        self._pending.append(record)
        if len(self._pending) >= self.batch_size:
            self.flush()

    def flush(self) -> int:
        """Store the buffered rows in one transaction; return how many."""
        if not self._pending:
            return 0
        batch, self._pending = self._pending, []
        return self.store.add_rows(self.run_id, batch)

    def finish(self, status: str = "finished") -> None:
        """Mark the run ended with ``status`` (buffered rows stored first when finished)."""
        if status == "finished":
            self.flush()
        else:
            self._pending = []
        self.store.finish_run(self.run_id, status)
