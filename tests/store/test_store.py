"""The run store against a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import pytest

from tooleval.errors import InputError, StoreError
from tooleval.model import (
    ArgumentCheck,
    Diagnosis,
    ExpectedTools,
    Result,
    Sample,
    ToolCall,
    UserMessage,
)
from tooleval.store import MetricSpec, RowRecord

METRICS = [MetricSpec("tool_correctness", {"order": "strict"}, 0.5), MetricSpec("f1")]


def _row(run_id, index, *, category="refund", passed=True, error=None, latency=10.0, called=None):
    sample = Sample(
        input=f"request {index}",
        messages=[UserMessage(f"request {index}")],
        tools_called=called if called is not None else [ToolCall("lookup", {"id": index})],
        expected_tools=ExpectedTools.of([ToolCall("lookup", {"id": index}), "refund"]),
        output=f"answer {index}",
        category=category,
        id=f"row-{index}",
        metadata={"n": index},
    )
    if error:
        results = (
            Result.unscored("tool_correctness", f"connector error: {error}"),
            Result.unscored("f1", f"connector error: {error}"),
        )
    else:
        diagnosis = Diagnosis(
            missing=[] if passed else [{"name": "refund", "args": None, "index": 1}],
            arguments=[ArgumentCheck("lookup", "id", index, index, 1.0, 0, 0)],
            details={"precision": 1.0},
        )
        results = (
            Result.scored(
                "tool_correctness",
                1.0 if passed else 0.25,
                reason="ok" if passed else "missing refund",
                params={"order": "strict"},
                threshold=0.5,
                diagnosis=diagnosis,
            ),
            Result.scored("f1", 1.0 if passed else 0.5, reason="f1"),
        )
    return RowRecord(
        run_id=run_id,
        index=index,
        row_id=f"row-{index}",
        sample=sample,
        results=results,
        error=error,
        latency_ms=latency,
        raw_response={"steps": [{"type": "tool_call"}], "index": index},
        failure_class=None if passed and not error else ("error" if error else "missing_tool"),
    )


def _filled(store, run_name, n=10):
    run_id = store.create_run(
        run_name,
        dataset={"path": "d.jsonl", "bind": {"expected_tools": "gold"}},
        connector={"type": "http", "url": "http://127.0.0.1:1/agent"},
        metrics=METRICS,
        tags=("nightly", "ci"),
        config={"concurrency": 4},
    )
    for i in range(n):
        store.add_row(
            run_id,
            _row(
                run_id,
                i,
                category="refund" if i % 2 else "cancel",
                passed=i % 3 != 0,
                error="HTTP 503" if i == 7 else None,
                latency=float(100 - i),
            ),
        )
    return run_id


def test_round_trip_keeps_every_field(store, run_name):
    run_id = store.create_run(run_name, dataset={"path": "d"}, connector={}, metrics=METRICS)
    record = _row(run_id, 3, passed=False)
    store.add_row(run_id, record)
    back = store.get_row(run_id, 3)
    assert back == record
    assert back.sample.expected_tools.calls[1].args is None
    assert back.result("tool_correctness").diagnosis.arguments[0].key == "id"
    assert back.passed is False


def test_get_run_summarises_per_metric(store, run_name):
    run_id = _filled(store, run_name)
    store.finish_run(run_id)
    run = store.get_run(run_id)
    assert run.status == "finished" and run.finished_at is not None
    assert run.name == run_name
    assert run.tags == ("ci", "nightly")
    assert run.metrics == tuple(METRICS)
    assert run.dataset["bind"] == {"expected_tools": "gold"}
    assert run.config == {"concurrency": 4}
    assert (run.row_count, run.error_count) == (10, 1)
    summary = run.summaries["tool_correctness"]
    # rows 0, 3, 6, 9 fail; row 7 is a connector error (unscored)
    assert (summary.scored, summary.passed, summary.failed, summary.unscored) == (9, 5, 4, 1)
    assert summary.mean_score == pytest.approx((5 * 1.0 + 4 * 0.25) / 9)
    # the one rule (docs/runs.md): the error row counts as not passed
    assert run.pass_rate("tool_correctness") == pytest.approx(5 / 10)
    assert list(run.summaries) == ["tool_correctness", "f1"]


def test_filters_paging_and_counts_agree(store, run_name):
    run_id = _filled(store, run_name)
    cases = [
        ({}, list(range(10))),
        ({"category": "refund"}, [1, 3, 5, 7, 9]),
        ({"passed": False}, [0, 3, 6, 9]),
        ({"passed": True}, [1, 2, 4, 5, 8]),
        ({"metric": "tool_correctness", "passed": False}, [0, 3, 6, 9]),
        ({"metric": "f1"}, list(range(10))),
        ({"metric": "nope"}, []),
        ({"failure_class": "error"}, [7]),
        ({"error": True}, [7]),
        ({"error": False, "category": "refund"}, [1, 3, 5, 9]),
        ({"failure_class": "missing_tool", "category": "cancel"}, [0, 6]),
        ({"search": "ROW-1"}, [1]),
        ({"search": "answer 4"}, [4]),
        ({"search": "503"}, [7]),
        ({"search": "100%"}, []),
    ]
    for filters, expected in cases:
        got = [r.index for r in store.iter_rows(run_id, **filters)]
        assert got == expected, filters
        assert store.count_rows(run_id, **filters) == len(expected), filters
    page = [r.index for r in store.iter_rows(run_id, offset=2, limit=3)]
    assert page == [2, 3, 4]
    assert [r.index for r in store.iter_rows(run_id, order_by="-index", limit=2)] == [9, 8]
    assert [r.index for r in store.iter_rows(run_id, order_by="latency", limit=2)] == [9, 8]
    by_score = [
        r.index for r in store.iter_rows(run_id, metric="tool_correctness", order_by="score")
    ]
    assert by_score[:4] == [0, 3, 6, 9] and by_score[-1] == 7  # unscored last
    assert store.categories(run_id) == ["cancel", "refund"]


def test_iter_rows_streams_past_one_chunk(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    store.add_rows(run_id, [_row(run_id, i, passed=i % 2 == 0) for i in range(2500)])
    indexes = [r.index for r in store.iter_rows(run_id, passed=False)]
    assert indexes == list(range(1, 2500, 2))
    assert len(list(store.iter_rows(run_id, offset=1200, limit=1500))) == 1300
    assert all(len(r.results) == 2 for r in store.iter_rows(run_id, offset=990, limit=20))


def test_streaming_a_run_that_is_still_being_written(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    # Concurrent workers commit rows out of order; a reader streaming meanwhile
    # must see each stored row once.
    store.add_rows(run_id, [_row(run_id, i) for i in range(0, 3000, 2)])
    stream = store.iter_rows(run_id)
    first = [next(stream).index for _ in range(1000)]
    store.add_rows(run_id, [_row(run_id, i) for i in range(1, 1200, 2)])
    rest = [r.index for r in stream]
    seen = first + rest
    assert len(seen) == len(set(seen))
    assert set(range(0, 3000, 2)) <= set(seen)


def test_list_runs_newest_first_with_search_and_tag(store, run_name):
    first = store.create_run(run_name + "-a", dataset={}, connector={}, metrics=[], tags=["x"])
    second = store.create_run(run_name + "-b", dataset={}, connector={}, metrics=[], tags=["y"])
    ids = [r.id for r in store.list_runs()]
    assert ids.index(second) < ids.index(first)
    assert [r.id for r in store.list_runs(tag="x")] == [first]
    assert [r.id for r in store.list_runs(search=run_name.upper() + "-B")] == [second]
    assert len(store.list_runs(limit=1)) == 1


def test_write_errors_are_store_errors(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    store.add_row(run_id, _row(run_id, 0))
    with pytest.raises(StoreError, match="already stored"):
        store.add_row(run_id, _row(run_id, 0))
    assert store.count_rows(run_id) == 1
    with pytest.raises(StoreError, match="no run 'missing'"):
        store.add_row("missing", _row("missing", 1))
    with pytest.raises(StoreError, match="no run"):
        store.get_run("missing")
    with pytest.raises(StoreError, match="has no row 5"):
        store.get_row(run_id, 5)
    with pytest.raises(StoreError, match="unknown run status"):
        store.finish_run(run_id, "done")
    with pytest.raises(StoreError, match="already exists"):
        store.create_run("again", dataset={}, connector={}, metrics=[], run_id=run_id)
    twice = _row(run_id, 2)
    twice = RowRecord(
        **{**{f: getattr(twice, f) for f in twice.__slots__}, "results": twice.results * 2}
    )
    with pytest.raises(StoreError, match="two results"):
        store.add_row(run_id, twice)
    with pytest.raises(InputError, match="unknown order"):
        store.iter_rows(run_id, order_by="bogus")  # raised on the call, before iterating
    with pytest.raises(StoreError, match="no run"):
        store.iter_rows("missing")
    with pytest.raises(InputError, match="needs metric"):
        list(store.iter_rows(run_id, order_by="score"))
    with pytest.raises(InputError, match="offset must be"):
        list(store.iter_rows(run_id, offset=-1))


def test_status_resume_prefix_and_failure_class(store, run_name):
    run_id = _filled(store, run_name, n=4)
    store.finish_run(run_id, "interrupted")
    assert store.get_run(run_id).status == "interrupted"
    store.reopen_run(run_id)
    run = store.get_run(run_id)
    assert run.status == "running" and run.finished_at is None
    assert store.row_indexes(run_id) == {0, 1, 2, 3}
    assert store.resolve_run_id(run_id[:-2]) == run_id
    with pytest.raises(StoreError, match="no run"):
        store.resolve_run_id("zz")
    assert store.set_failure_class(run_id, [0, 3], "plumbing") == 2
    assert [r.index for r in store.iter_rows(run_id, failure_class="plumbing")] == [0, 3]
    store.delete_run(run_id)
    assert run_id not in {r.id for r in store.list_runs()}


def test_an_over_wide_row_id_is_an_error_row_not_a_refused_write(store, run_name):
    # varchar(300) is enforced by PostgreSQL only; both stores keep the row, say why.
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    record = _row(run_id, 0)
    long_id = RowRecord(
        **{**{f: getattr(record, f) for f in record.__slots__}, "row_id": "x" * 400}
    )
    store.add_row(run_id, long_id)
    stored = store.get_row(run_id, 0)
    assert len(stored.row_id) == 300
    assert "row_id was 400 characters long (truncated to 300)" in stored.error


def test_nul_characters_from_an_agent_are_stored(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    record = _row(run_id, 0)
    fields = {f: getattr(record, f) for f in record.__slots__}
    fields["raw_response"] = {"output": "a\x00b", "steps": ["\x00"]}
    fields["sample"].output = "done\x00"
    store.add_row(run_id, RowRecord(**fields))
    back = store.get_row(run_id, 0)
    # PostgreSQL cannot hold NUL: it becomes U+FFFD there; SQLite keeps it.
    nul = "\ufffd" if store.dialect == "postgresql" else "\x00"
    assert back.raw_response == {"output": f"a{nul}b", "steps": [nul]}
    assert back.sample.output == f"done{nul}"
