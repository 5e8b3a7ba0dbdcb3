"""`score` and `rescore` with the local judge decode several rows' replies as one batch.

The real SmolLM2 judges a few short rows twice: one row at a time, then with
several rows at once. The batch is held together without timing: the test holds
the model's lock until every row has asked for its reply (the rows wait in the
batcher), so the rows are decoded as one batch when it lets go. The verdicts,
their order and the written lines are the same either way; a rescore stores each
row as it is judged (a row waiting for a free slot starts only once a row before
it is stored), holds its lease and reports its progress as before.
"""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from tests.judge_server import conversation

from tooleval.cli.main import main
from tooleval.formats.rows import sample_from_row
from tooleval.llm import LocalJudge
from tooleval.llm.local import load_local_model
from tooleval.runs.progress import LineProgress
from tooleval.runs.rescore import parse_metric_specs, rescore_run
from tooleval.store import MetricSpec, RowRecord, open_store

pytestmark = pytest.mark.llm

ROWS = [
    ("ok", "cancelled", "Order 4471 is cancelled."),
    ("declined", "ERROR: card declined", "Order 4471 is cancelled."),
    ("missing", "ERROR: no such order", "I could not find order 4471."),
    ("late", "cancelled at 10:02", "Done, it is cancelled."),
    ("wrong", "cancelled order 4417", "Order 4471 is cancelled."),
]
DEADLINE = 300.0
REPLY_TOKENS = "24"


@pytest.fixture(scope="module")
def loaded():
    LocalJudge(cache=False).load()
    return load_local_model()


def _wait(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < end, f"gave up waiting: {what}"
        time.sleep(0.05)


@contextmanager
def _rows_held_together(loaded: Any, rows: int) -> Iterator[Callable[[], None]]:
    """Hold the model until ``rows`` rows wait in the batcher; the body starts the work.

    Yields ``release_when_waiting``: the body calls it once the work is started.
    """
    batcher = loaded.batcher
    batcher.largest_batch = 0
    loaded.lock.acquire()
    released = False

    def release_when_waiting() -> None:
        nonlocal released
        try:
            # The first row leads the batch and waits for the model; the rest queue behind it.
            _wait(lambda: len(batcher._waiting) >= rows, f"{rows} rows asking at once")
        finally:
            released = True
            loaded.lock.release()

    try:
        yield release_when_waiting
    finally:
        if not released:
            loaded.lock.release()
    assert batcher.largest_batch == rows  # decoded as one batch


class _Watching:
    """The local judge, noting how many rows the new run had stored when each call began."""

    def __init__(self, judge: LocalJudge, store: Any, source: str) -> None:
        self.judge, self.store, self.source = judge, store, source
        self.stored_before: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.judge, name)

    def complete(self, messages, *, schema=None):
        return self.judge.complete(messages, schema=schema)

    async def acomplete(self, messages, *, schema=None):
        (new,) = [
            r for r in self.store.list_runs() if r.id != self.source and r.status == "running"
        ]
        self.stored_before.append(self.store.count_rows(new.id))
        return await self.judge.acomplete(messages, schema=schema)


def _source_run(store: Any) -> str:
    source = store.create_run(
        "recorded", dataset={}, connector={}, metrics=[MetricSpec("tool_correctness")]
    )
    for index, (row_id, result, final) in enumerate(ROWS):
        sample = sample_from_row(conversation(row_id, result, final))
        store.add_row(source, RowRecord(source, index, row_id, sample))
    store.finish_run(source)
    return source


def _verdicts(store: Any, run_id: str) -> list[tuple[str, Any, Any, str]]:
    out = []
    for row in store.iter_rows(run_id):
        (result,) = row.results
        out.append((row.row_id, result.score, result.passed, result.reason))
    return out


def test_rescore_judges_rows_as_one_batch_with_the_same_verdicts(loaded, tmp_path):
    store = open_store(tmp_path / "runs.db")
    source = _source_run(store)
    specs = parse_metric_specs(["task_success"])

    alone = _Watching(LocalJudge(max_new_tokens=int(REPLY_TOKENS), cache=False), store, source)
    one_by_one = rescore_run(store, source, specs, judge=alone, concurrency=1)
    # One row at a time: every row is stored before the next one is judged.
    assert alone.stored_before == [0, 1, 2, 3, 4]

    together = _Watching(LocalJudge(max_new_tokens=int(REPLY_TOKENS), cache=False), store, source)
    lines = io.StringIO()
    found: dict[str, str] = {}
    with _rows_held_together(loaded, 3) as release_when_waiting:
        worker = threading.Thread(
            target=lambda: found.setdefault(
                "id",
                rescore_run(
                    store,
                    source,
                    specs,
                    judge=together,
                    concurrency=3,
                    progress=LineProgress(lines, every=1),
                ),
            ),
            daemon=True,
        )
        worker.start()
        release_when_waiting()
        worker.join(DEADLINE)
        assert not worker.is_alive()
    # Three rows asked at once; the others only once a row before them was stored.
    assert together.stored_before[:3] == [0, 0, 0]
    assert together.stored_before[3] >= 1 and together.stored_before[4] >= 2
    batched = found["id"]
    assert _verdicts(store, batched) == _verdicts(store, one_by_one)
    assert all(v[2] is not None for v in _verdicts(store, batched))  # every row judged
    run = store.get_run(batched)
    assert run.status == "finished" and run.row_count == len(ROWS)
    holder = store.lease_holder(batched)
    assert holder is None or not holder.get("alive")
    assert lines.getvalue().strip().splitlines()[-1] == f"run {batched}: 5/5 rows, 0 errors"
    store.close()


def test_score_judges_rows_as_one_batch_and_writes_the_same_lines(loaded, tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_text(
        "".join(json.dumps(conversation(*row)) + "\n" for row in ROWS), encoding="utf-8"
    )
    command = [
        "score",
        str(data),
        "--metric",
        "task_success",
        "--judge",
        "local",
        "--judge-option",
        f"max_new_tokens={REPLY_TOKENS}",
        "--judge-option",
        "cache=false",
        "--no-progress",
    ]
    assert main([*command, "--concurrency", "1", "--output", str(tmp_path / "alone.jsonl")]) == 0
    codes: list[int] = []
    with _rows_held_together(loaded, len(ROWS)) as release_when_waiting:
        # No --concurrency: the local judge's batch (8) rows at once, here all five (the
        # default of other judges is 4).
        worker = threading.Thread(
            target=lambda: codes.append(main([*command, "--output", str(tmp_path / "b.jsonl")])),
            daemon=True,
        )
        worker.start()
        release_when_waiting()
        worker.join(DEADLINE)
        assert not worker.is_alive()
    assert codes == [0]
    alone = [json.loads(line) for line in (tmp_path / "alone.jsonl").read_text().splitlines()]
    batched = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    keys = ("id", "metric", "score", "passed", "reason")
    assert [[r.get(k) for k in keys] for r in batched] == [[r.get(k) for k in keys] for r in alone]
    assert [r["id"] for r in batched] == [row[0] for row in ROWS]  # input order
    assert all(r["passed"] is not None for r in batched)
