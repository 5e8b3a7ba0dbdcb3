"""The viewer and the static report in real Chromium: flows, escaping, screenshots."""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact
from tests.web.seed import XSS

from tooleval.report import write_report

pytestmark = pytest.mark.browser


def test_runs_list_filter_failures_open_row_see_chips(page, viewer_url, seeded):
    page.goto(viewer_url + "/")
    page.get_by_role("link", name="support-agent baseline").click()
    page.wait_for_selector("table.rows")
    # The result select submits itself (the viewer's only script).
    with page.expect_navigation():
        page.select_option("select[name=result]", "fail")
    assert "result=fail" in page.url
    verdicts = page.locator("table.rows tbody tr td:nth-child(3)").all_inner_texts()
    assert verdicts and all(v.strip().lower() in ("fail", "error", "unscored") for v in verdicts)
    page.screenshot(path=artifact("viewer-run-failures.png"), full_page=True)
    page.locator("table.rows").get_by_role("link", name="refund-0", exact=True).click()
    page.wait_for_selector("article.row-card")
    missing = page.locator("article.row-card .chip-missing")
    extra = page.locator("article.row-card .chip-extra")
    assert missing.count() == 1 and "issue_refund" in missing.inner_text()
    assert extra.count() == 1 and "search_orders" in extra.inner_text()
    assert "MISSING" in missing.inner_text().upper() and "EXTRA" in extra.inner_text().upper()
    page.locator("article.row-card").screenshot(path=artifact("viewer-row-card.png"))
    assert not page.dialogs and not page.csp_errors


def test_compare_two_runs(page, viewer_url, seeded):
    page.goto(viewer_url + "/compare")
    page.select_option("select[name=a]", seeded["a"])
    page.select_option("select[name=b]", seeded["b"])
    with page.expect_navigation():
        page.get_by_role("button", name="compare").click()
    page.wait_for_selector("table.deltas")
    assert page.locator("svg.chart").count() == 1
    first = page.locator("table.deltas tbody tr").first.inner_text()
    assert "regressed" in first and "cancel-4" in first
    page.screenshot(path=artifact("viewer-compare.png"), full_page=True)
    assert not page.csp_errors


def test_nothing_from_a_row_executes_in_the_viewer(page, viewer_url, seeded):
    run = seeded["xss"]
    for path in ("/", f"/runs/{run}", f"/runs/{run}/rows/0", f"/runs/{run}/rows/1"):
        page.goto(viewer_url + path)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__xss") is None, path
        assert page.locator("iframe").count() == 0
        # Only the viewer's own chart images exist; no injected <img> made it into the DOM.
        for src in page.locator("img").evaluate_all("els => els.map(e => e.getAttribute('src'))"):
            assert src.startswith("/runs/"), src
    assert XSS in page.inner_text("body")  # shown as text
    page.screenshot(path=artifact("viewer-xss-row.png"), full_page=True)
    assert not page.dialogs


def test_static_report_in_chromium(page, seeded, tmp_path):
    store = seeded["store"]
    report = write_report(store, seeded["b"], artifact("report.html"), compare_with=seeded["a"])
    page.goto(report.as_uri())
    assert page.locator("article.row-card").count() == 22
    assert page.locator("article .chip-args").count() >= 2
    page.screenshot(path=artifact("report.png"), full_page=True)
    xss = write_report(store, seeded["xss"], tmp_path / "xss.html")
    page.goto(xss.as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("window.__xss") is None and not page.dialogs
    assert XSS in page.inner_text("body")
    page.screenshot(path=artifact("report-xss.png"), full_page=True)
