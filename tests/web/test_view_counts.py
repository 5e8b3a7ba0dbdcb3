"""The run page's row count: from the stopped run's header when it knows, else the store."""

from __future__ import annotations

import dataclasses
import itertools

from tooleval.analysis.aggregates import cached_run
from tooleval.web.routes import count_view


def test_header_counts_match_the_store_for_every_metric_view(seeded):
    store = seeded["store"]
    for run_id in (seeded["a"], seeded["b"]):
        info = cached_run(store, run_id)
        assert info.status != "running"
        classes = [None, "missing_tool", "wrong_arguments", "no_such_class"]
        for metric, passed, category, failure_class in itertools.product(
            [None, *info.summaries, "no_such_metric"],
            [None, True, False],
            [None, "refund", "no_such_category"],
            classes,
        ):
            where = dict(
                category=category,
                metric=metric,
                passed=passed,
                failure_class=failure_class,
                search=None,
            )
            assert count_view(store, info, where) == store.count_rows(run_id, **where), where


def test_a_running_run_is_always_counted_in_the_store(seeded):
    store = seeded["store"]
    info = cached_run(store, seeded["a"])
    metric = next(iter(info.summaries))
    # A header that no longer matches the rows (a running run grows): the store decides.
    stale = dataclasses.replace(
        info,
        status="running",
        summaries={metric: dataclasses.replace(info.summaries[metric], passed=10**6)},
    )
    where = dict(category=None, metric=metric, passed=True, failure_class=None, search=None)
    assert count_view(store, stale, where) == store.count_rows(info.id, **where) < 10**6


def test_a_search_counts_to_a_thousand_and_pages_on_without_a_last_page(tmp_path):
    """A search of more than SEARCH_COUNT matches says "1,000+", offers next pages while they
    are full and no last page; a page past the end names the exact count."""
    from fastapi.testclient import TestClient

    from tooleval.model import Sample
    from tooleval.store import RowRecord, open_store
    from tooleval.web import create_app
    from tooleval.web.routes import SEARCH_COUNT

    matches = SEARCH_COUNT + 30
    with open_store(tmp_path / "runs.db") as store:
        run_id = store.create_run("wide", dataset={}, connector={}, metrics=[])
        store.add_rows(
            run_id,
            [
                RowRecord(
                    run_id,
                    i,
                    f"r{i}",
                    Sample(input=f"order {'7731' if i % 4 else '1234'} n{i}", id=f"r{i}"),
                )
                for i in range(matches * 4 // 3 + 1)
            ],
        )
        store.finish_run(run_id)
        exact = store.count_rows(run_id, search="7731")
        assert exact > SEARCH_COUNT
        client = TestClient(create_app(store), base_url="http://127.0.0.1")
        first = client.get(f"/runs/{run_id}?q=7731").text
        assert "rows 1–50 of 1,000+" in first
        assert 'rel="next"' in first and "last »" not in first
        # Walking past the counted thousand keeps going, then stops at the last full page.
        last_page = -(-exact // 50)
        deep = client.get(f"/runs/{run_id}?q=7731&page={last_page}").text
        assert f"rows {(last_page - 1) * 50 + 1}–{exact} of {exact}<" in deep
        assert f"page {last_page} of {last_page}" in deep and 'rel="next"' not in deep
        past = client.get(f"/runs/{run_id}?q=7731&page={last_page + 1}")
        assert past.status_code == 404 and f"these filters match {exact} rows" in past.text
        # A search with fewer matches counts them exactly, with a last page.
        few = client.get(f"/runs/{run_id}?q=1234").text
        assert f"of {store.count_rows(run_id, search='1234')}<" in few and "last »" in few
        # The row page in the wide search says where it is against the floor.
        row = client.get(f"/runs/{run_id}/rows/1?q=7731&pos=0").text
        assert "row 1 of 1,000+ in this view" in row
