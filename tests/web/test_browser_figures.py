"""In real Chromium: a cluster's exact rows with a removable chip, tokens and cost on the
overview, interval bars on the compare pages (light and dark), the state diff of a replayed row."""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact

pytestmark = pytest.mark.browser


def test_a_cluster_count_opens_exactly_its_rows_and_the_chip_removes_the_filter(
    page, viewer_url, seeded
):
    from tooleval.analysis.aggregates import cached_run, run_clusters

    store, run = seeded["store"], seeded["clusters"]
    clusters, _ = run_clusters(store, cached_run(store, run))
    amount = next(c for c in clusters if c.detail == "wrong issue_refund.amount")
    page.goto(viewer_url + f"/runs/{run}")
    row = page.locator("table.clusters tbody tr", has_text="issue_refund.amount")
    with page.expect_navigation():
        row.locator("td.num a").first.click()
    assert page.locator("table.rows tbody tr").count() == amount.count == 3
    chip = page.locator("ul.filter-chips li.filter-chip", has_text="cluster")
    assert chip.is_visible() and "wrong issue_refund.amount" in chip.inner_text()
    # Prev / next and the breadcrumb stay in the cluster.
    with page.expect_navigation():
        page.locator("table.rows tbody tr a").first.click()
    assert "row 1 of 3 in this view" in page.inner_text("main")
    with page.expect_navigation():
        page.keyboard.press("j")
    assert "row 2 of 3 in this view" in page.inner_text("main")
    with page.expect_navigation():
        page.locator("nav.crumbs a").nth(1).click()
    assert page.locator("table.rows tbody tr").count() == 3
    # Applying another filter keeps the cluster; its chip's ✕ removes it.
    with page.expect_navigation():
        page.select_option("select[name=category]", "refund")
    assert "detail=" in page.url and page.locator("table.rows tbody tr").count() == 3
    with page.expect_navigation():
        page.get_by_role("link", name="remove cluster filter").click()
    assert "detail=" not in page.url
    assert page.locator("table.rows tbody tr").count() == 5
    page.goto(
        viewer_url + f"/runs/{run}?failure_class=wrong_argument&detail=wrong+issue_refund.amount"
    )
    page.locator("#rows").scroll_into_view_if_needed()
    page.screenshot(path=artifact("viewer-cluster-rows.png"), full_page=False)


def test_the_overview_shows_tokens_and_cost_when_known(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['usage']}")
    table = page.locator("section.usage table.usage-table")
    agent = table.locator("tr", has_text="agent").inner_text()
    judge = table.locator("tbody tr", has_text="judge").inner_text()
    assert "3,033" in agent and "153" in agent and "cost unknown: no price configured" in agent
    assert "800" in judge and "2 from the cache" in judge
    page.locator("section.run-header").screenshot(path=artifact("viewer-usage.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_compare_draws_interval_bars_in_the_theme(browser, viewer_url, seeded, scheme):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(viewer_url + f"/compare?a={seeded['a']}&b={seeded['b']}")
    table = page.locator("table.intervals")
    assert table.locator("svg.ci-bar").count() >= 4
    deltas = table.locator("svg.delta-bar")
    assert deltas.count() >= 2
    label = deltas.first.get_attribute("aria-label")
    assert label.startswith("Δ") and "MDE" in label
    verdicts = table.locator(".verdict").all_inner_texts()
    assert verdicts and all(
        v in ("regression", "improvement")
        or v.startswith(("inconclusive (MDE", "inconclusive (no variance"))
        for v in verdicts
    )
    band = deltas.first.locator("rect.delta-band")
    fill = band.evaluate("e => getComputedStyle(e).fill")
    track = deltas.first.locator("rect.ci-track").evaluate("e => getComputedStyle(e).fill")
    expected_track = "rgb(226, 232, 240)" if scheme == "light" else "rgb(45, 55, 72)"
    assert track == expected_track and fill.startswith("rgb")
    page.locator("#intervals").scroll_into_view_if_needed()
    if scheme == "light":
        page.locator("table.intervals").screenshot(path=artifact("viewer-compare-intervals.png"))
    page.goto(viewer_url + f"/compare?run={seeded['a']}&run={seeded['b']}&run={seeded['chats']}")
    assert page.locator("table.intervals svg.ci-bar").count() >= 4
    context.close()


def test_a_replayed_rows_card_shows_its_state_diff(page, viewer_url, seeded):
    store, run = seeded["store"], seeded["orders"]
    failed = next(r for r in store.iter_rows(run) if r.result("state_match").passed is False)
    page.goto(viewer_url + f"/runs/{run}/rows/{failed.index}")
    block = page.locator("section.state-diff-block")
    assert block.locator("h2").inner_text() == "State diff · state_match"
    cells = block.locator("table.state-diff tbody tr").first.locator("th, td").all_inner_texts()
    difference = failed.result("state_match").diagnosis.details["differences"][0]
    assert cells[0] == difference["path"]
    assert str(difference["expected"]) in cells[1] and str(difference["actual"]) in cells[2]
    assert "First diverging call: call 1" in block.inner_text()
    block.screenshot(path=artifact("viewer-state-diff.png"))


def test_a_hostile_and_huge_state_diff_runs_nothing_and_stays_in_the_page(browser, tmp_path):
    from tests.web.conftest import served_viewer
    from tests.web.seed import XSS, XSS_IMG

    from tooleval.model import Diagnosis, Result, Sample
    from tooleval.store import open_store
    from tooleval.store.records import MetricSpec, RowRecord

    store = open_store(tmp_path / "runs.db")
    run = store.create_run(
        "hostile state", dataset={}, connector={}, metrics=[MetricSpec("state_match")]
    )
    differences = [
        {"path": f"orders.{XSS}", "expected": XSS_IMG, "actual": "<absent>"},
        {"path": "blob", "expected": {"k": "v" * 200_000}, "actual": ["x" * 50] * 5_000},
        *({"path": f"items[{i}]", "expected": i, "actual": -i} for i in range(300)),
    ]
    result = Result.scored(
        "state_match",
        0.0,
        reason="end states differ",
        diagnosis=Diagnosis(
            details={
                "differences": differences,
                "first_divergence": {"index": 0, "expected": XSS, "actual": None},
            }
        ),
    )
    store.add_rows(run, [RowRecord(run, 0, "hostile", Sample(input="x"), (result,))])
    store.finish_run(run)
    dialogs: list[str] = []

    def on_dialog(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    for width in (390, 1400):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.on("dialog", on_dialog)
        with served_viewer(store) as url:
            page.goto(url + f"/runs/{run}/rows/0")
            block = page.locator("section.state-diff-block")
            assert XSS in block.inner_text()
            assert "the first 100 are listed" in block.inner_text()
            assert "(cut: 200,0" in block.inner_text()
            assert page.evaluate("window.__xss") is None and not dialogs
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        context.close()
    store.close()
