"""The indexed row reads (migration 5) on a real SQLite file and a real PostgreSQL server.

Score order walks ``ix_results_score_order`` / ``_desc``, metric + result is a
join, and search goes through the full-text index (FTS5 trigram on SQLite,
pg_trgm on PostgreSQL). Each must keep the meaning of the plain queries it
replaced; these tests pin that meaning, and the SQLite upgrade of a store
written before the index existed.
"""

from __future__ import annotations

import sqlalchemy as sa

from tooleval.model import ExpectedTools, Result, Sample, ToolCall, UserMessage
from tooleval.store import MetricSpec, RowRecord, open_store
from tooleval.store import schema as t
from tooleval.store.migrations import MIGRATIONS
from tooleval.store.search_index import FTS_TABLE, like_condition

METRICS = [MetricSpec("m", {}, 0.5), MetricSpec("other")]


def _record(run_id, index, *, score, other=True, called=(), expected=("lookup",), **fields):
    sample = Sample(
        input=fields.get("input", f"question {index}"),
        messages=[UserMessage(fields.get("input", f"question {index}"))],
        tools_called=list(called),
        expected_tools=ExpectedTools.of(list(expected)),
        output=fields.get("output", f"answer {index}"),
        category=fields.get("category", "a"),
        id=fields.get("row_id", f"row-{index}"),
    )
    results = [
        Result.unscored("m", "could not score")
        if score is None
        else Result.scored("m", score, reason="r", threshold=0.5)
    ]
    if other is not None:
        results.append(Result.scored("other", 1.0 if other else 0.0, reason="o", threshold=0.5))
    return RowRecord(
        run_id=run_id,
        index=index,
        row_id=sample.id,
        sample=sample,
        results=tuple(results),
        error=fields.get("error"),
        latency_ms=1.0,
    )


def _run(store, run_name, records):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    store.add_rows(run_id, [r(run_id) for r in records])
    return run_id


def _indexes(store, run_id, **kw):
    found = [r.index for r in store.iter_rows(run_id, **kw)]
    kw.pop("order_by", None)
    assert store.count_rows(run_id, **kw) == len(found)
    return found


def test_score_order_puts_unscored_last_and_breaks_ties_by_index(store, run_name):
    scores = [0.5, None, 0.1, 0.5, 1.0, None, 0.1]
    run_id = _run(
        store, run_name, [lambda r, i=i, s=s: _record(r, i, score=s) for i, s in enumerate(scores)]
    )
    assert _indexes(store, run_id, metric="m", order_by="score") == [2, 6, 0, 3, 4, 1, 5]
    assert _indexes(store, run_id, metric="m", order_by="-score") == [4, 0, 3, 2, 6, 1, 5]
    # Paged: the same order, page by page.
    pages = [
        [r.index for r in store.iter_rows(run_id, metric="m", order_by="score", offset=o, limit=2)]
        for o in range(0, 8, 2)
    ]
    assert pages == [[2, 6], [0, 3], [4, 1], [5]]
    # With the metric's result filter and another filter.
    assert _indexes(store, run_id, metric="m", passed=True, order_by="score") == [0, 3, 4]
    assert _indexes(store, run_id, metric="m", passed=False, order_by="-score") == [2, 6]


def test_metric_filter_keeps_only_rows_scored_by_that_metric(store, run_name):
    records = [
        lambda r: _record(r, 0, score=0.9, other=True, category="x"),
        lambda r: _record(r, 1, score=0.2, other=None, category="x"),  # no "other" result
        lambda r: _record(r, 2, score=0.2, other=False, category="y"),
        lambda r: _record(r, 3, score=0.2, other=False, category="x"),
    ]
    run_id = _run(store, run_name, records)
    assert _indexes(store, run_id, metric="other") == [0, 2, 3]
    assert _indexes(store, run_id, metric="other", passed=False) == [2, 3]
    assert _indexes(store, run_id, metric="other", passed=False, category="x") == [3]
    assert _indexes(store, run_id, metric="m", passed=False, category="x") == [1, 3]
    # One row each, however many metrics a row has (the join adds no duplicates).
    assert _indexes(store, run_id, metric="m") == [0, 1, 2, 3]
    assert _indexes(store, run_id, metric="nope") == []


SEARCH_ROWS = [
    lambda r: _record(r, 0, score=1.0, called=[ToolCall("refund_order", {"amount": 1200})]),
    lambda r: _record(r, 1, score=1.0, expected=[ToolCall("cancel_Booking", {"ref": "QX-77"})]),
    lambda r: _record(r, 2, score=1.0, error="HTTP 503 from agent"),
    lambda r: _record(r, 3, score=1.0, input="Wie spät ist es? 100% sicher_x"),
    lambda r: _record(r, 4, score=1.0, row_id="case-ÄBC-9", output='He said "hi" (AND) NEAR*'),
    lambda r: _record(r, 5, score=1.0),
]


def test_search_reaches_tool_names_argument_values_and_text(store, run_name):
    run_id = _run(store, run_name, SEARCH_ROWS)
    cases = {
        "1200": [0],  # an argument value of a call made
        "REFUND_ORDER": [0],  # a tool name, any ASCII case
        "cancel_booking": [1],  # an expected tool (the sample), any ASCII case
        "qx-77": [1],  # an expected argument value
        "503": [2],  # error text
        "100%": [3],  # LIKE wildcards are literal
        "r_x": [3],
        "1%0": [],  # ... and match only themselves
        "spät": [3],
        "SPÄT": [3],  # the searched text is lowered like the LIKE pattern
        '"hi" (and) near*': [4],  # FTS syntax is literal text
        "(": [4],
        "question": [0, 1, 2, 4, 5],
        "qu": [0, 1, 2, 4, 5],  # shorter than a trigram: scanned
        "ROW-5": [5],
        "no such text": [],
    }
    hostile = ["\x00abc", "a\x00b", "\x01\x02\x03", "😀😀😀", "x" * 5000, "   ", "'; --"]
    hostile += ["NEAR(a b)", "*", "^abc", "\\\\\\", '"', '""""', "\n\t\r", "\ufeffq"]
    for text in [*cases, *hostile]:
        found = _indexes(store, run_id, search=text)
        if text in cases:
            assert found == cases[text], text
        # The index changes nothing: the plain LIKE test finds the same rows.
        with store._read() as conn:
            plain = conn.execute(
                sa.select(t.rows.c.row_index)
                .where(t.rows.c.run_id == run_id, like_condition(text))
                .order_by(t.rows.c.row_index)
            ).scalars()
            assert list(plain) == found, repr(text)
    assert _indexes(store, run_id, search="question", metric="m", order_by="-score") == [
        0,
        1,
        2,
        4,
        5,
    ]


def test_search_index_follows_updates_and_deletes(store, run_name):
    keep = _run(store, run_name, SEARCH_ROWS)
    gone = _run(store, run_name + "-gone", SEARCH_ROWS)
    assert _indexes(store, gone, search="1200") == [0]
    store.set_failure_class(keep, [0, 1], "missing_tool")
    store.delete_run(gone)
    assert _indexes(store, keep, search="1200") == [0]
    assert _indexes(store, keep, search="1200", failure_class="missing_tool") == [0]
    if store.dialect == "sqlite":
        with store._read() as conn:
            conn.exec_driver_sql(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('integrity-check')")


def test_a_store_from_before_the_index_is_upgraded_and_its_rows_found(tmp_path):
    path = tmp_path / "runs.db"
    with open_store(path) as store:
        run_id = _run(store, "old", SEARCH_ROWS)
    # Back to schema 4: no search index, no score indexes.
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        for trigger in ("rows_fts_insert", "rows_fts_delete", "rows_fts_update"):
            conn.exec_driver_sql(f"DROP TRIGGER {trigger}")
        conn.exec_driver_sql(f"DROP TABLE {FTS_TABLE}")
        conn.exec_driver_sql("DROP INDEX ix_results_score_order")
        conn.exec_driver_sql("DROP INDEX ix_results_score_desc")
        conn.exec_driver_sql("DROP INDEX ix_rows_failure_detail")
        conn.exec_driver_sql("ALTER TABLE rows DROP COLUMN failure_detail")
        conn.exec_driver_sql("DROP TABLE labels")  # schema 7
        conn.exec_driver_sql("DROP TABLE judge_calibrations")
        for index in ("ix_rows_latency", "ix_rows_category_passed", "ix_rows_failure_class_passed"):
            conn.exec_driver_sql(f"DROP INDEX {index}")  # schema 8
        conn.exec_driver_sql("DELETE FROM tooleval_schema WHERE version >= 5")
    engine.dispose()
    with open_store(path) as store:
        assert _indexes(store, run_id, search="1200") == [0]
        assert _indexes(store, run_id, search="cancel_booking") == [1]
        with store._read() as conn:
            latest = conn.exec_driver_sql("SELECT max(version) FROM tooleval_schema").scalar()
            assert latest == MIGRATIONS[-1].version
