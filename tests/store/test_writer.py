"""RunWriter: the one way runs are written (the runner and the monitor both use it)."""

from __future__ import annotations

import pytest

from tooleval.errors import StoreError
from tooleval.model import Sample
from tooleval.store import RowRecord, RunWriter, open_store


@pytest.fixture
def store():
    opened = open_store("sqlite:///:memory:")
    yield opened
    opened.close()


def _row(run_id: str, index: int) -> RowRecord:
    return RowRecord(run_id, index, f"r{index}", Sample())


def test_rows_are_committed_one_by_one_by_default(store):
    writer = RunWriter.start(store, "one", dataset={}, connector={}, metrics=[])
    writer.add(_row(writer.run_id, 0))
    assert store.count_rows(writer.run_id) == 1
    writer.finish()
    assert store.get_run(writer.run_id).status == "finished"


def test_batches_are_written_when_full_and_at_finish(store):
    writer = RunWriter.start(store, "b", dataset={}, connector={}, metrics=[], batch_size=3)
    for index in range(4):
        writer.add(_row(writer.run_id, index))
    assert store.count_rows(writer.run_id) == 3  # the first batch; the fourth row waits
    writer.finish()
    assert store.row_indexes(writer.run_id) == {0, 1, 2, 3}


def test_a_failed_run_is_marked_without_its_buffered_rows(store):
    writer = RunWriter.start(store, "f", dataset={}, connector={}, metrics=[], batch_size=5)
    writer.add(_row(writer.run_id, 0))
    writer.finish("failed")
    assert store.get_run(writer.run_id).status == "failed"
    assert store.count_rows(writer.run_id) == 0


def test_an_existing_run_is_written_again(store):
    run_id = store.create_run("resumed", dataset={}, connector={}, metrics=[])
    writer = RunWriter(store, run_id)
    writer.add(_row(run_id, 7))
    writer.finish("interrupted")
    assert store.get_run(run_id).status == "interrupted"
    assert store.row_indexes(run_id) == {7}


def test_bad_batch_size_and_unknown_status_are_refused(store):
    with pytest.raises(StoreError, match="batch_size"):
        RunWriter(store, "x", batch_size=0)
    writer = RunWriter.start(store, "s", dataset={}, connector={}, metrics=[])
    with pytest.raises(StoreError, match="unknown run status"):
        writer.finish("done")
