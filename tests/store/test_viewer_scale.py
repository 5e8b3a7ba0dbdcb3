"""The viewer's million-row reads (migration 8) keep the meaning of the plain queries.

On a real SQLite file and the real PostgreSQL server: a page read by its keys
first (``_keyed_page``: the page's ``row_index`` values from an index, then the
rows by key) is the page ``OFFSET`` gives, for every filter and order the
viewer uses; the latency percentiles the read model stores are the ones
counted from every row, for a finished run, for a live run as rows arrive and
after a resume; and a store written at schema 7 opens, gains the indexes, and
its stored figures (written without percentiles) are computed again.
"""

from __future__ import annotations

import itertools

import pytest
import sqlalchemy as sa

from tooleval.analysis.aggregates import aggregate_run, clusters_exact
from tooleval.analysis.figures import run_figures
from tooleval.model import ExpectedTools, Result, Sample, UserMessage
from tooleval.report.overview import latency_percentiles
from tooleval.store import MetricSpec, RowRecord, open_store
from tooleval.store.counters import grouped_counts, live_counts
from tooleval.store.migrations import MIGRATIONS
from tooleval.store.queries import RowFilters, rows_query

METRICS = [MetricSpec("m", {}, 0.5), MetricSpec("other")]
CLASSES = ("missing_tool", "wrong_arguments", None)
V8_INDEXES = ("ix_rows_latency", "ix_rows_category_passed", "ix_rows_failure_class_passed")


def _latency(index: int) -> float | None:
    """Latencies with ties, gaps (None) and an order unlike the row order."""
    return None if index % 11 == 3 else float((index * 37) % 53)


def _record(run_id: str, index: int) -> RowRecord:
    category = ("refund", "status", None)[index % 3]
    sample = Sample(
        input=f"question {index} order {5500 + index % 7}",
        messages=[UserMessage(f"question {index}")],
        expected_tools=ExpectedTools.of(["lookup"]),
        output=f"answer {index}",
        category=category,
        id=f"row-{index}",
    )
    score = (index * 13 % 10) / 10
    results: tuple[Result, ...] = (
        Result.unscored("m", "no reference")
        if index % 17 == 5
        else Result.scored("m", score, reason="r", threshold=0.5),
        Result.scored("other", float(index % 4 != 0), reason="o", threshold=0.5),
    )
    error = "HTTP 503" if index % 19 == 7 else None
    passed = all(r.passed for r in results if r.passed is not None) and error is None
    return RowRecord(
        run_id=run_id,
        index=index,
        row_id=sample.id,
        sample=sample,
        results=() if error else results,
        error=error,
        latency_ms=_latency(index),
        failure_class=None if passed else CLASSES[index % 3],
    )


def _run(store, name: str, rows: range) -> str:
    run_id = store.create_run(name, dataset={}, connector={}, metrics=METRICS)
    store.add_rows(run_id, [_record(run_id, i) for i in rows])
    return run_id


def _offset_page(store, run_id: str, filters: RowFilters, order: str, offset: int, limit: int):
    """The page as a plain ``OFFSET`` gives it (what the keyed read replaced)."""
    query = rows_query(run_id, filters, order_by=order).offset(offset).limit(limit)
    with store._read() as conn:
        return [r.row_index for r in conn.execute(query)]


VIEWS = [
    {},
    {"passed": False},
    {"category": "refund"},
    {"failure_class": "missing_tool"},
    {"metric": "m", "passed": False},
    {"category": "status", "metric": "other", "passed": True},
    {"search": "order 5503"},
    {"search": "5501", "failure_class": "wrong_arguments"},
]
ORDERS = ["failures", "index", "-latency", "latency", "score", "-score", "category"]


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: ",".join(v) or "all")
def test_keyed_pages_equal_offset_pages(store, run_name, view):
    run_id = _run(store, run_name, range(120))
    for order in ORDERS:
        kw = dict(view)
        if order.lstrip("-") == "score" and "metric" not in kw:
            kw["metric"] = "m"
        filters = RowFilters(**kw)
        total = store.count_rows(run_id, **kw)
        assert total > 0, (view, order)
        for offset, limit in itertools.product((0, 1, total - 1), (1, 50)):
            got = [
                r.index
                for r in store.iter_rows(run_id, **kw, order_by=order, offset=offset, limit=limit)
            ]
            assert got == _offset_page(store, run_id, filters, order, offset, limit), (
                view,
                order,
                offset,
                limit,
            )
        # The whole view, page by page, is every row it counts, each once.
        walked = [
            r.index
            for start in range(0, total, 50)
            for r in store.iter_rows(run_id, **kw, order_by=order, offset=start, limit=50)
        ]
        assert sorted(walked) == sorted(set(walked)) and len(walked) == total


def _nearest_rank(values: list[float | None]) -> dict[str, float]:
    known = sorted(v for v in values if v is not None)
    if not known:
        return {}
    n = len(known)
    return {
        name: known[min(n - 1, int(share * (n - 1) + 0.5))]
        for name, share in (("p50", 0.5), ("p95", 0.95))
    }


def test_latency_percentiles_are_the_rows_own(store, run_name):
    run_id = _run(store, run_name, range(0))
    expected_all: list[float | None] = []
    # Live: every view counts the rows there are so far.
    for batch in (range(0, 1), range(1, 40), range(40, 120)):
        store.add_rows(run_id, [_record(run_id, i) for i in batch])
        expected_all += [_latency(i) for i in batch]
        live = store.get_run(run_id)
        assert live.status == "running"
        assert run_figures(store, live).latency == _nearest_rank(expected_all)
        assert latency_percentiles(store, live) == _nearest_rank(expected_all)
    # Finished: stored with the run's figures, and read back from there.
    store.finish_run(run_id)
    aggregate_run(store, run_id)
    done = store.get_run(run_id)
    stored = store.aggregates.load_aggregate(run_id, "figures/1", row_count=done.row_count)
    assert stored["latency"] == _nearest_rank(expected_all)
    assert run_figures(store, done).latency == _nearest_rank(expected_all)
    # And whether its clusters are exact, so no view counts the unpassed rows again.
    exact = store.aggregates.load_aggregate(run_id, "clusters-exact/1", row_count=done.row_count)
    assert exact["exact"] is (store.aggregates.undetailed_failures(run_id) == 0)
    assert clusters_exact(store, done) is exact["exact"]
    # Resumed: live again, then finished with more rows; the stored copy follows.
    store.reopen_run(run_id)
    store.add_rows(run_id, [_record(run_id, i) for i in range(120, 200)])
    expected_all += [_latency(i) for i in range(120, 200)]
    assert run_figures(store, store.get_run(run_id)).latency == _nearest_rank(expected_all)
    store.finish_run(run_id)
    again = store.get_run(run_id)
    assert run_figures(store, again).latency == _nearest_rank(expected_all)
    stored = store.aggregates.load_aggregate(run_id, "figures/1", row_count=again.row_count)
    assert stored["latency"] == _nearest_rank(expected_all)


def test_a_run_without_latencies_has_no_percentiles(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=METRICS)
    store.add_rows(
        run_id,
        [
            RowRecord(run_id, i, f"r{i}", Sample(input="q", id=f"r{i}"), latency_ms=None)
            for i in range(5)
        ],
    )
    store.finish_run(run_id)
    info = store.get_run(run_id)
    assert run_figures(store, info).latency == {}
    assert latency_percentiles(store, info) is None


def test_a_schema_7_store_opens_with_the_viewer_indexes(tmp_path):
    path = tmp_path / "runs.db"
    with open_store(path) as store:
        run_id = _run(store, "old", range(60))
        store.finish_run(run_id)
        aggregate_run(store, run_id)
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        for index in V8_INDEXES:
            conn.exec_driver_sql(f"DROP INDEX {index}")
        conn.exec_driver_sql("DROP TABLE run_counters")  # migration 9
        conn.exec_driver_sql("DELETE FROM tooleval_schema WHERE version >= 8")
        # Figures stored by a version that had no percentiles in them.
        payload = conn.exec_driver_sql(
            "SELECT payload FROM run_aggregates WHERE name = 'figures/1'"
        ).scalar()
        assert '"latency"' in payload
        conn.exec_driver_sql(
            "UPDATE run_aggregates SET payload = json_remove(payload, '$.latency') "
            "WHERE name = 'figures/1'"
        )
    engine.dispose()
    with open_store(path) as store:
        assert store.applied_migrations == [8, 9]
        names = {i["name"] for i in sa.inspect(store._engine).get_indexes("rows")}
        assert set(V8_INDEXES) <= names
        info = store.get_run(run_id)
        assert run_figures(store, info).latency == _nearest_rank([_latency(i) for i in range(60)])
        with store._read() as conn:
            version = conn.exec_driver_sql("SELECT max(version) FROM tooleval_schema").scalar()
        assert version == MIGRATIONS[-1].version == 9
        # Migration 9 counted the run's counters from its rows.
        store.reopen_run(run_id)
        with store._read() as conn:
            assert live_counts(conn, run_id) == grouped_counts(conn, run_id) != {}


def test_a_dense_search_walks_the_run_and_keeps_the_pages(store, run_name):
    """A search most rows match reads its pages from an index walk: the same pages, in order."""
    from tooleval.store.search_index import DENSE_CANDIDATES, dense_search

    size = DENSE_CANDIDATES + 100
    run_id = _run(store, run_name, range(size))
    other = _run(store, run_name + "-other", range(300))  # matches too, in another run
    with store._read() as conn:
        dense = dense_search(conn, run_id, "order 550")
        assert dense is (store.dialect == "sqlite")
        assert not dense_search(conn, other, "order 550")  # 300 candidates in that run
        assert not dense_search(conn, run_id, "55")  # too short for the index: scanned
    for order, kw in [
        ("failures", {}),
        ("index", {}),
        ("-latency", {}),
        ("score", {"metric": "m"}),
    ]:
        kw = {"search": "order 5503", **kw} if order == "index" else {"search": "order 550", **kw}
        total = store.count_rows(run_id, **kw)
        assert total == sum(1 for _ in store.iter_rows(run_id, **kw))
        for offset in (0, 49, total - 10, total):
            got = [
                r.index
                for r in store.iter_rows(run_id, **kw, order_by=order, offset=offset, limit=50)
            ]
            assert got == _offset_page(store, run_id, RowFilters(**kw), order, offset, 50), (
                order,
                offset,
            )
    # Counting can stop early, and never says more than there is.
    everything = store.count_rows(run_id, search="order 550")
    assert everything == size
    assert store.count_rows(run_id, search="order 550", at_most=1001) == 1001
    assert store.count_rows(run_id, search="order 5503", at_most=10**6) == store.count_rows(
        run_id, search="order 5503"
    )
    assert store.count_rows(run_id, search="nothing like it", at_most=5) == 0
    with pytest.raises(Exception, match="at_most"):
        store.count_rows(run_id, at_most=-1)


def test_the_matrix_is_stored_once_its_runs_stop_and_its_pages_are_the_computed_ones(
    store, run_name, monkeypatch
):
    """Pages read from the stored matrix are the computed matrix's; a resumed run recomputes."""
    from tooleval.report import matrix

    monkeypatch.setattr(matrix, "CHUNK", 7)  # pages that straddle chunks
    ids = [_run(store, f"{run_name}-{n}", range(k, k + 40)) for n, k in ((1, 0), (2, 5), (3, 3))]
    for run_id in ids:
        store.finish_run(run_id)
    runs = [store.get_run(r) for r in ids]
    computed = matrix.run_matrix(store, runs)
    first = matrix.matrix_rows(store, runs, offset=0, limit=10)  # computes, then stores
    name = "matrix/1/" + ",".join(ids[:2])
    head = store.aggregates.load_aggregate(ids[2], name, row_count=None)
    assert head["total"] == len(computed) == first.total == 45
    assert first.rows == computed[:10]
    calls = []
    monkeypatch.setattr(matrix, "run_matrix", lambda *a: calls.append(a) or [])
    for offset, limit in ((0, 10), (5, 9), (40, 50), (44, 1), (45, 10)):
        stored = matrix.matrix_rows(store, runs, offset=offset, limit=limit)
        assert stored.rows == computed[offset : offset + limit], (offset, limit)
        assert stored.total == len(computed) and stored.counts == first.counts
    assert calls == []  # every page above was read from the stored matrix
    assert sum(first.counts.values()) == len(computed)
    # A run resumed and finished again has a new stamp: the matrix is computed again.
    store.reopen_run(ids[0])
    store.add_rows(ids[0], [_record(ids[0], i) for i in range(40, 42)])
    store.finish_run(ids[0])
    monkeypatch.undo()
    again = [store.get_run(r) for r in ids]
    fresh = matrix.matrix_rows(store, again, offset=0, limit=100)
    assert fresh.rows == matrix.run_matrix(store, again) and fresh.total == 45


def test_get_rows_reads_the_rows_get_row_reads_and_leaves_out_absent_ones(store, run_name):
    from tooleval.errors import StoreError

    run_id = _run(store, run_name, range(30))
    wanted = [29, 0, 7, 7, 12, 400, -1]
    found = store.get_rows(run_id, wanted)
    assert sorted(found) == [0, 7, 12, 29]
    for index, row in found.items():
        assert row == store.get_row(run_id, index)
    assert store.get_rows(run_id, []) == {}
    with pytest.raises(StoreError, match="no run"):
        store.get_rows("no-such-run", [1])
