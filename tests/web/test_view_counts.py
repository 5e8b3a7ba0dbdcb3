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
