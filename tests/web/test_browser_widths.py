"""Reading at any width, in real Chromium: no run page is wider than a 1280 px window, a failing
row stays compact at 1400 px, and at 390 px
the essential cells (row, verdict, why, expected and called tools) are on screen without
sideways scrolling; "compare selected" with one run ticked gives a hint."""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact

pytestmark = pytest.mark.browser

ESSENTIAL = ("td.rowid", "td.verdict", "td.why", "td.expected", "td.called")


def _failing_rows(page):
    return page.locator("table.rows tbody tr").filter(has=page.locator("td.why .tag"))


def test_a_failing_row_is_compact_at_1400_px(browser, viewer_url, seeded):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(viewer_url + f"/runs/{seeded['b']}")
    failing = _failing_rows(page)
    assert failing.count() >= 2
    heights = failing.evaluate_all("rows => rows.map(r => r.getBoundingClientRect().height)")
    why = page.locator("table.rows tbody td.why").first.evaluate(
        "e => e.getBoundingClientRect().width"
    )
    # The reason is cut at three lines on screen; the whole of it is the span's title.
    reason = page.locator("table.rows tbody td.why .why-text").first
    assert reason.get_attribute("title")
    assert max(heights) <= 110, heights
    assert why >= 300
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    page.locator("table.rows").screenshot(path=artifact("viewer-rows-1400.png"))
    context.close()


def test_the_essential_cells_fit_a_390_px_phone(browser, viewer_url, seeded):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(viewer_url + f"/runs/{seeded['b']}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    row = _failing_rows(page).first
    for cell in ESSENTIAL:
        box = row.locator(cell).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, cell
        assert row.locator(cell).is_visible()
    assert row.locator("td.why .tag").inner_text().strip()  # the failure class, at a glance
    page.screenshot(path=artifact("viewer-rows-390.png"))
    context.close()


def test_compare_selected_with_one_run_gives_a_hint(browser, viewer_url, seeded):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(viewer_url + "/")
    page.locator(f"input.pick[value='{seeded['a']}']").check()
    page.get_by_role("button", name="compare selected").click()
    hint = page.locator("#pick-hint")
    assert "tick a second run" in hint.inner_text()
    assert page.url == viewer_url + "/"
    page.locator(f"input.pick[value='{seeded['b']}']").check()
    page.get_by_role("button", name="compare selected").click()
    page.wait_for_url("**/compare?**")
    assert page.locator("h1").count() == 1
    context.close()


def test_compare_run_pickers_tell_runs_apart(browser, viewer_url, seeded):
    import re

    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(viewer_url + f"/compare?a={seeded['a']}&b={seeded['b']}")
    labels = page.locator("form.pick-runs select[name=a] option").all_inner_texts()[1:]
    assert len(labels) == len(set(labels)) >= 2
    for run in (seeded["a"], seeded["b"]):
        label = next(t for t in labels if run.rsplit("-", 1)[-1] in t)
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", label)  # the start, to the second
    # The picker is as wide as its longest label: nothing is cut.
    widths = page.locator("form.pick-runs select").evaluate_all(
        "els => els.map(e => [e.getBoundingClientRect().width, e.scrollWidth])"
    )
    assert all(shown >= needed for shown, needed in widths)
    context.close()


WIDEST = """() => [...document.querySelectorAll('body *')]
  .map(e => [e.getBoundingClientRect().right, e.tagName + '.' + e.className])
  .filter(([right]) => right > document.documentElement.clientWidth)
  .sort((a, b) => b[0] - a[0]).slice(0, 5)"""


@pytest.mark.parametrize(
    "which", ["a", "b", "names", "chats", "traces", "clusters", "usage", "orders"]
)
def test_the_run_page_fits_1280_px(browser, viewer_url, seeded, which):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(viewer_url + f"/runs/{seeded[which]}")
    wide = page.evaluate(WIDEST)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280, wide
    context.close()
