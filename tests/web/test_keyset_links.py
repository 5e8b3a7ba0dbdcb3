"""The run page's pager links carry the page's key (``after=``, ``before=``, ``end=1``).

Following "next ›" from the first page to the last, then "‹ prev" back, and
"last »", shows every row of the view once, in the view's order, with the
same page numbers an old ``page=N`` link gives; a row page's neighbours are
the rows before and after it in its view.
"""

from __future__ import annotations

import html
import re

import pytest

PER_PAGE = 25
ROWS = 131


@pytest.fixture(scope="module")
def viewer(tmp_path_factory):
    from fastapi.testclient import TestClient

    from tooleval.model import Result, Sample
    from tooleval.store import RowRecord, open_store
    from tooleval.store.records import MetricSpec
    from tooleval.web import create_app

    store = open_store(tmp_path_factory.mktemp("keyset") / "runs.db")
    run_id = store.create_run(
        "keyset", dataset={}, connector={}, metrics=[MetricSpec("m", {}, 0.5)]
    )
    rows = []
    for i in range(ROWS):
        score = (i * 7 % 5) / 4
        rows.append(
            RowRecord(
                run_id,
                i,
                f"r{i}",
                Sample(input=f"ask {i}", id=f"r{i}", category=f"c{i % 3}"),
                (Result("m", score, threshold=0.5, passed=score >= 0.5, reason="r"),),
                latency_ms=None if i % 5 == 0 else float(i % 4),
            )
        )
    store.add_rows(run_id, rows)
    store.finish_run(run_id)
    with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
        yield store, run_id, client
    store.close()


def _shown(page: str) -> list[int]:
    return [int(i) for i in dict.fromkeys(re.findall(r'id="row-(\d+)"', page))]


def _link(page: str, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}"', page)
    return html.unescape(found.group(1)) if found else None


@pytest.mark.parametrize("view", ["", "sort=-latency", "result=fail", "sort=score&metric=m"])
def test_next_and_prev_links_walk_the_view_by_key(viewer, view):
    store, run_id, client = viewer
    where = {"": {}, "result=fail": {"passed": False}}.get(view, {})
    sort = {"sort=-latency": "-latency", "sort=score&metric=m": "score"}.get(view, "failures")
    if sort == "score":
        where = {"metric": "m"}
    whole = [r.index for r in store.iter_rows(run_id, order_by=sort, **where)]
    address = f"/runs/{run_id}?per_page={PER_PAGE}&{view}"
    pages = [client.get(address).text]
    while (following := _link(pages[-1], "next")) is not None:
        assert "after=" in following and "offset" not in following
        pages.append(client.get(following).text)
    assert [i for page in pages for i in _shown(page)] == whole
    for number, page in enumerate(pages, start=1):
        # The same page as an old page= link shows the same rows.
        old = client.get(f"{address}&page={number}").text
        assert _shown(old) == _shown(page)
    # Back from the last page by "‹ prev" (before=), page for page.
    back = [pages[-1]]
    while (preceding := _link(back[-1], "prev")) is not None:
        back.append(client.get(preceding).text)
    assert [_shown(p) for p in reversed(back)] == [_shown(p) for p in pages]
    # "last »" (end=1) from the first page: the last page's rows, numbered as the last.
    last = re.search(r'<a href="([^"]+)">last »', pages[0])
    if len(pages) > 1:
        assert last is not None and "end=1" in last.group(1)
        final = client.get(html.unescape(last.group(1))).text
        assert _shown(final) == _shown(pages[-1])
        assert f"page {len(pages)} of {len(pages)}" in final


def test_row_neighbours_are_the_rows_around_it_in_the_view(viewer):
    store, run_id, client = viewer
    whole = [r.index for r in store.iter_rows(run_id, order_by="-latency")]
    at = 30
    page = client.get(f"/runs/{run_id}/rows/{whole[at]}?sort=-latency&pos={at}").text
    assert f"/rows/{whole[at - 1]}?" in _link(page, "prev")
    assert f"/rows/{whole[at + 1]}?" in _link(page, "next")


def test_a_key_naming_no_row_is_a_clear_400(viewer):
    _, run_id, client = viewer
    response = client.get(f"/runs/{run_id}?after=999999")
    assert response.status_code == 400 and "no row 999999" in response.text
