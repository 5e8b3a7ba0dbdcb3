"""The run list, the run overview and the rows table in real Chromium: gate verdicts, picking
runs, the matrix of many runs, clusters, the filter notice, search marks, aliases, charts."""

from __future__ import annotations

import dataclasses

import pytest
from tests.web.conftest import artifact, served_viewer
from tests.web.seed import METRICS, seed_support_runs

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """Three runs of one plan (a gate in their config) and a store served for this module."""
    from tooleval.store import open_store

    store = open_store(tmp_path_factory.mktemp("gated") / "runs.db")
    a, b = seed_support_runs(store)
    gate = {"min_pass_rate": 0.9, "max_error_rate": None, "metrics": {}}
    runs = []
    for source in (a, b):
        rows = list(store.iter_rows(source))
        run_id = store.create_run(
            "support-agent nightly",
            dataset={"path": "examples/support_agent.jsonl"},
            connector={"type": "http", "url": "http://127.0.0.1:8000/agent"},
            metrics=METRICS,
            tags=["gated"],
            config={"gate": gate, "prompt": {"version": "v3", "temperature": 0}},
        )
        store.add_rows(run_id, [dataclasses.replace(r, run_id=run_id) for r in rows])
        store.finish_run(run_id)
        runs.append(run_id)
    with served_viewer(store) as url:
        yield {"store": store, "url": url, "a": a, "b": b, "gated": runs}
    store.close()


def test_gate_verdict_on_the_run_list_and_the_overview(page, gated):
    page.goto(gated["url"] + "/")
    newest = page.locator("table.runs tbody tr").first
    cell = newest.locator("td.gate-cell")
    assert "GATE FAILED" in cell.inner_text().upper()
    assert "pass rate" in cell.inner_text() and "< 90.0%" in cell.inner_text()
    page.goto(gated["url"] + f"/runs/{gated['gated'][-1]}")
    block = page.locator("section.gate-block")
    assert block.locator("h2").inner_text() == "Gate failed"
    checks = block.locator("li").all_inner_texts()
    assert any("tool_call_f1: pass rate" in c and "< 90.0%" in c for c in checks)
    # The config is a readable table, nested keys dotted; wall time and latency are shown.
    config = page.locator("table.config")
    assert "prompt.version" in config.inner_text() and "v3" in config.inner_text()
    facts = page.locator("dl.facts").inner_text()
    assert "wall time" in facts and "p50" in facts and "p95" in facts
    page.locator("section.run-header").screenshot(path=artifact("viewer-overview.png"))


def test_compare_with_previous_and_selected_runs_as_a_matrix(page, gated):
    page.goto(gated["url"] + "/")
    newest = page.locator("table.runs tbody tr").first
    with page.expect_navigation():
        newest.get_by_role("link", name="compare with previous").click()
    first, second = gated["gated"]
    assert f"a={first}" in page.url and f"b={second}" in page.url
    # Labels tell runs apart: name, time, short id, tags.
    labels = page.locator("select[name=a] option").all_inner_texts()
    assert any(second.rsplit("-", 1)[-1] in t and "gated" in t for t in labels)
    page.goto(gated["url"] + "/")
    for run_id in (gated["a"], gated["b"], second):
        page.check(f"input.pick[value='{run_id}']")
    with page.expect_navigation():
        page.get_by_role("button", name="compare selected").click()
    assert page.locator("h1").inner_text() == "Compare 3 runs"
    matrix = page.locator("table.matrix")
    assert matrix.locator("thead th.run-col").count() == 3
    changes = matrix.locator("tbody td.change").all_inner_texts()
    # the label says in which run it regressed (PASS -> FAIL -> FAIL is run 2, not the last)
    assert changes[0].startswith("regressed in ")
    order = ["regressed", "changes", "fixed", "not in", "fails", "passes"]
    ranks = [next(i for i, w in enumerate(order) if c.startswith(w)) for c in changes]
    assert ranks == sorted(ranks)
    first_row = matrix.locator("tbody tr").first
    assert first_row.locator("td").nth(2).locator(".badge").inner_text().lower() == "pass"
    assert first_row.locator("td").nth(4).locator(".badge").inner_text().lower() == "fail"
    page.screenshot(path=artifact("viewer-matrix.png"), full_page=True)


def test_clusters_say_what_failed_and_filter_by_tool_or_argument(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['b']}")
    table = page.locator("table.clusters")
    whats = table.locator("td.what").all_inner_texts()
    assert any("cancel_order.order_id" in w for w in whats)
    page.fill("input[name=what]", "order_id")
    with page.expect_navigation():
        page.get_by_role("button", name="filter clusters").click()
    kept = page.locator("table.clusters td.what").all_inner_texts()
    assert kept and all("order_id" in w for w in kept)
    assert "clusters mention 'order_id'" in page.inner_text("main")
    # A cluster's count opens its rows.
    with page.expect_navigation():
        page.locator("table.clusters td.num a").first.click()
    assert "failure_class=wrong_argument" in page.url
    assert page.locator("table.rows tbody tr").count() >= 1


def test_sort_notice_states_what_narrows_the_rows(page, viewer_url, seeded):
    store, run = seeded["store"], seeded["a"]
    page.goto(viewer_url + f"/runs/{run}?result=fail&sort=score")
    note = page.locator("p.note").inner_text()
    wide = store.count_rows(run, passed=False)
    kept = store.count_rows(run, metric="tool_correctness", passed=False)
    assert f"{kept} of the {wide} rows that failed any metric" in note
    assert page.locator("table.rows tbody tr").count() == kept


def test_failures_come_first_and_search_matches_are_marked(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['a']}")
    verdicts = [
        v.strip().lower()
        for v in page.locator("table.rows tbody td:nth-child(3)").all_inner_texts()
    ]
    first_pass = verdicts.index("pass")
    assert "pass" not in verdicts[:first_pass] and set(verdicts[first_pass:]) == {"pass"}
    page.fill("#search", "refund")
    with page.expect_navigation():
        page.get_by_role("button", name="apply").click()
    marks = page.locator("table.rows mark").all_inner_texts()
    assert marks and all(m.lower() == "refund" for m in marks)


def test_run_aliases_in_urls_and_head_and_favicon(page, viewer_url, seeded):
    import urllib.request

    page.goto(viewer_url + "/runs/latest")
    newest = seeded["store"].list_runs(limit=1)[0]
    assert page.url.endswith(f"/runs/{newest.id}")
    page.goto(viewer_url + f"/runs/{seeded['a'][:-2]}/rows/0")
    assert f"/runs/{seeded['a']}/rows/0" in page.url
    response = page.goto(viewer_url + "/runs/-99")
    assert response.status == 404 and "99th newest" in page.inner_text("main")
    icon = page.goto(viewer_url + "/favicon.ico")
    assert icon.status == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    request = urllib.request.Request(viewer_url + f"/runs/{seeded['a']}", method="HEAD")
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 200 and answer.read() == b""
        assert "default-src 'self'" in answer.headers["Content-Security-Policy"]


def test_charts_follow_the_dark_theme_and_the_axis_label_fits(context_for_dark, viewer_url, seeded):
    from tooleval.report.charts import histogram_svg

    page = context_for_dark
    page.goto(viewer_url + f"/runs/{seeded['a']}/charts/scores.svg?metric=tool_call_f1")
    fill = page.evaluate("getComputedStyle(document.querySelector('text')).fill")
    assert fill == "rgb(226, 232, 240)"
    page.goto(viewer_url + f"/runs/{seeded['a']}")
    box = page.evaluate("getComputedStyle(document.querySelector('.chart-box')).backgroundColor")
    assert box == "rgb(27, 33, 43)"
    page.screenshot(path=artifact("viewer-run-dark.png"), full_page=False)
    page.set_content(str(histogram_svg(counts=[15571, 3, 0, 0, 0, 0, 0, 0, 0, 0, 40])))
    left = page.evaluate(
        "Math.min(...[...document.querySelectorAll('text')].map(t => t.getBBox().x))"
    )
    assert left >= 0  # "15571" is drawn whole, not cut to "5571"


@pytest.fixture
def context_for_dark(browser):
    context = browser.new_context(color_scheme="dark")
    yield context.new_page()
    context.close()
