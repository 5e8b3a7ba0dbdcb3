"""A search of more than a thousand matches in Chromium: "1,000+", next pages, no last page.

The viewer counts a search's matches only up to 1,000 (each match is checked
against the row's text); the pager then offers the next page while pages are
full, no last page, and the last page it reaches is counted exactly.
"""

from __future__ import annotations

from tests.web.conftest import served_viewer

from tooleval.model import Sample
from tooleval.store import RowRecord, open_store
from tooleval.web.routes import SEARCH_COUNT


def test_a_wide_search_pages_on_to_its_end_in_the_browser(page, tmp_path):
    matches = SEARCH_COUNT + 30
    with open_store(tmp_path / "runs.db") as store:
        run_id = store.create_run("wide search", dataset={}, connector={}, metrics=[])
        store.add_rows(
            run_id,
            [
                RowRecord(run_id, i, f"r{i}", Sample(input=f"order 7731 n{i}", id=f"r{i}"))
                for i in range(matches)
            ],
        )
        store.finish_run(run_id)
        with served_viewer(store) as url:
            page.goto(f"{url}/runs/{run_id}?q=7731&per_page=200")
            pager = page.locator("nav.pager").first
            assert "rows 1–200 of 1,000+" in pager.inner_text()
            assert pager.locator("text=last »").count() == 0
            # Next, page after page, to the end: the last page says exactly how many.
            for number in range(2, 7):
                page.locator('nav.pager a[rel="next"]').first.click()
                page.wait_for_url(f"**page={number}**", timeout=30_000)
            text = page.locator("nav.pager").first.inner_text()
            assert f"rows 1001–{matches} of {matches}" in text
            assert "page 6 of 6" in text
            assert page.locator('nav.pager a[rel="next"]').count() == 0
            assert page.locator("table.rows tbody tr, tr[id^=row-]").count() >= 1
