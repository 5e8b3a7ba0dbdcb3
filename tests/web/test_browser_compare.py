"""Comparing runs in real Chromium: which side is right, walking the deltas, picking runs."""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact

pytestmark = pytest.mark.browser


def test_compare_row_shows_input_and_where_each_side_made_the_expected_calls(
    page, viewer_url, seeded
):
    a, b = seeded["a"], seeded["b"]
    page.goto(viewer_url + f"/compare?a={a}&b={b}&change=fixed")
    with page.expect_navigation():
        page.locator("table.deltas").get_by_role("link", name="cancel-1").first.click()
    table = page.locator("table.side-by-side")
    assert "Please cancel order 4401" in table.locator("tr").filter(has_text="input").inner_text()
    lines = table.locator("tr").filter(has=page.locator("th.expected-call"))
    assert lines.count() == 2
    first, second = lines.nth(0).inner_text(), lines.nth(1).inner_text()
    assert "lookup_order" in first and first.count("call 1: lookup_order") == 2
    # A never cancelled; B did: the line says which side is right.
    assert "missing in a" in second.lower() and "call 2: cancel_order" in second
    page.screenshot(path=artifact("viewer-compare-row.png"), full_page=True)


def test_prev_next_walk_the_filtered_deltas_and_the_breadcrumb_keeps_the_filter(
    page, viewer_url, seeded
):
    a, b = seeded["a"], seeded["b"]
    page.goto(viewer_url + f"/compare?a={a}&b={b}&change=fixed")
    listed = page.locator("table.deltas tbody td.rowid").all_inner_texts()
    assert len(listed) >= 2
    with page.expect_navigation():
        page.locator("table.deltas tbody td.rowid a").first.click()
    seen = [page.locator("h1").inner_text()]
    assert f"1 of {len(listed)}" in page.inner_text("nav.pager")
    while page.locator("#row-next").count():
        with page.expect_navigation():
            page.click("#row-next")
        seen.append(page.locator("h1").inner_text())
    assert seen == [f"Row {r}: A vs B" for r in listed]
    with page.expect_navigation():
        page.click("#row-prev")
    assert page.locator("h1").inner_text() == seen[-2]
    page.goto(viewer_url + f"/compare?a={a}&b={b}&change=regressed")
    with page.expect_navigation():
        page.locator("table.deltas tbody td.rowid a").first.click()
    crumb = page.locator("nav.crumbs")
    assert "regressed" in crumb.inner_text()
    with page.expect_navigation():
        crumb.get_by_role("link", name="Compare").click()
    assert "change=regressed" in page.url
    assert set(page.locator("table.deltas tbody td.change").all_inner_texts()) == {"regressed"}
