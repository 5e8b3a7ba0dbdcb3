"""Pages by key (``after=`` / ``before=`` / ``from_end``) give exactly the rows of the ordered view.

Every order the viewer offers, with filters, on rows whose sort values repeat
and are missing (no latency, no category, no verdict, no score), on SQLite
and PostgreSQL: walking the view page by page by key, forwards and backwards,
yields the same rows in the same order as reading it whole.
"""

from __future__ import annotations

import pytest

from tooleval.errors import InputError
from tooleval.model import Result, Sample
from tooleval.store.records import ROW_ORDERS, MetricSpec, RowRecord

ROWS = 53


def _record(index: int) -> RowRecord:
    # Repeating values (ties broken by row_index) and gaps (NULLs) in every sort column.
    score = None if index % 7 == 0 else (index % 5) / 4
    error = "agent down" if index % 11 == 0 else None
    results = (
        Result.unscored("m", "no reference")
        if score is None or error
        else Result("m", score, threshold=0.5, passed=score >= 0.5, reason="r"),
    )
    return RowRecord(
        run_id="",
        index=index,
        row_id=f"r{index % 9}-{index}",
        sample=Sample(input=f"ask {index}", category=None if index % 4 == 0 else f"c{index % 3}"),
        results=results,
        error=error,
        latency_ms=None if index % 6 == 0 else float(index % 8),
    )


@pytest.fixture
def run_id(store, run_name):
    run = store.create_run(run_name, dataset={}, connector={}, metrics=[MetricSpec("m", {}, 0.5)])
    store.add_rows(run, [_record(i) for i in range(ROWS)])
    return run


VIEWS = [{}, {"passed": False}, {"category": "c1", "metric": "m", "passed": True}]


@pytest.mark.parametrize("order_by", list(ROW_ORDERS))
@pytest.mark.parametrize("where", VIEWS)
def test_pages_by_key_walk_the_whole_view(store, run_id, order_by, where):
    if order_by.lstrip("-") == "score" and "metric" not in where:
        where = dict(where, metric="m")
    whole = [r.index for r in store.iter_rows(run_id, order_by=order_by, **where)]
    assert whole == [
        r.index for r in store.iter_rows(run_id, order_by=order_by, offset=0, limit=10**6, **where)
    ]
    # Forwards: each page follows the last row of the one before.
    walked: list[int] = []
    after = None
    while True:
        page = [
            r.index
            for r in store.iter_rows(run_id, order_by=order_by, after=after, limit=4, **where)
        ]
        walked += page
        if len(page) < 4:
            break
        after = page[-1]
    assert walked == whole
    # Backwards: from the end, each page precedes the first row of the one after.
    back: list[int] = []
    page = [
        r.index for r in store.iter_rows(run_id, order_by=order_by, from_end=True, limit=4, **where)
    ]
    while page:
        back = page + back
        page = [
            r.index
            for r in store.iter_rows(run_id, order_by=order_by, before=page[0], limit=4, **where)
        ]
    assert back == whole
    # The offset pages (old page= links) agree with the key pages.
    for offset in range(0, len(whole), 4):
        assert [
            r.index
            for r in store.iter_rows(run_id, order_by=order_by, offset=offset, limit=4, **where)
        ] == whole[offset : offset + 4]


def test_a_key_that_names_no_row_is_refused(store, run_id):
    with pytest.raises(InputError, match="no row 999"):
        list(store.iter_rows(run_id, after=999, limit=5))


@pytest.mark.parametrize(
    "keys",
    [{"after": 1, "before": 3}, {"after": 1, "offset": 5}, {"after": -1}, {"before": 2}],
)
def test_conflicting_or_bad_keys_are_refused(store, run_id, keys):
    with pytest.raises(InputError):
        list(store.iter_rows(run_id, **keys))
