"""In Chromium: a run made with ``--repeat 3`` shows pass^k / pass@k per k, per category, flaky rows.

The run is stored as the runner stores repeats (attempt ``a`` of row ``ID`` at
index ``(a-1)*stride + i``, id ``ID#a``, ``config.repeat = {n, stride}``):
attempts 1 and 3 are the baseline agent, attempt 2 the prompt-fixed one, and
one attempt is a connector error, so some rows flip between attempts.
"""

from __future__ import annotations

import dataclasses

import pytest
from tests.web.conftest import artifact, served_viewer
from tests.web.seed import METRICS, XSS, _cases, _record

from tooleval.analysis.repeats import analyse_repeats

pytestmark = pytest.mark.browser

N = 3


def _attempts() -> tuple[list, int]:
    base = _cases("a")
    stride = len(base)
    records = []
    for attempt, variant in enumerate(("a", "b", "a"), start=1):
        for i, case in enumerate(_cases(variant)):
            case = case | {"id": case["id"].replace("cancel-2", XSS)}
            error = "HTTP 504 from the agent" if attempt == N and i == 0 else None
            record = _record((attempt - 1) * stride + i, case, error=error)
            row_id = case["id"] if attempt == 1 else f"{case['id']}#{attempt}"
            meta = {"attempt": attempt, "dataset_row_id": case["id"]}
            sample = dataclasses.replace(record.sample, metadata=meta)
            records.append(dataclasses.replace(record, row_id=row_id, sample=sample))
    return records, stride


@pytest.fixture(scope="module")
def repeat_viewer(tmp_path_factory):
    """A viewer over a store with a run repeated 3 times and a run made once."""
    from tooleval.store import open_store

    store = open_store(tmp_path_factory.mktemp("repeats") / "runs.db")
    records, stride = _attempts()
    repeated = store.create_run(
        "flaky agent x3",
        dataset={"path": "cases.jsonl", "rows": stride},
        connector={"type": "http", "url": "http://127.0.0.1:8000/agent"},
        metrics=METRICS,
        config={"repeat": {"n": N, "stride": stride}},
    )
    store.add_rows(repeated, records)
    store.finish_run(repeated)
    once = store.create_run("once", dataset={}, connector={}, metrics=METRICS)
    store.add_rows(once, records[:stride])
    store.finish_run(once)
    summary = analyse_repeats(records, N, stride)
    with served_viewer(store) as url:
        yield url, repeated, once, summary
    store.close()


def _pct(value):
    return "–" if value is None else f"{value:.1%}"


def test_repeated_run_shows_pass_k_per_k_category_and_flaky_rows(page, repeat_viewer):
    url, run_id, _, summary = repeat_viewer
    page.goto(url + f"/runs/{run_id}")
    section = page.locator("section.repeats")
    assert section.locator("h2").inner_text() == "Repeats: 3 attempts per row"
    rows = section.locator("table.repeats-k tbody tr")
    assert rows.count() == N
    for k in range(1, N + 1):
        cells = rows.nth(k - 1).locator("td").all_inner_texts()
        assert cells == [str(k), _pct(summary.pass_hat(k)), _pct(summary.pass_at(k))]
    # pass^k never rises with k, pass@k never falls; the agent is flaky, so they differ at k=3.
    hat = [summary.pass_hat(k) for k in range(1, N + 1)]
    at = [summary.pass_at(k) for k in range(1, N + 1)]
    assert hat == sorted(hat, reverse=True) and at == sorted(at) and hat[-1] < at[-1]
    categories = section.locator("table.repeats-categories tbody tr td:first-child")
    assert categories.all_inner_texts() == summary.categories
    flaky = section.locator("table.repeats-flaky tbody tr")
    assert flaky.count() == len(summary.flaky) > 0
    cancel_1 = section.locator("table.repeats-flaky tr", has_text="cancel-1")
    # cancel-1 misses cancel_order on the baseline attempts, passes on the fixed one.
    assert cancel_1.locator("td").nth(2).inner_text() == "1/3"
    marks = cancel_1.locator("td.verdicts .badge")
    assert marks.all_inner_texts() == ["F", "P", "F"]
    assert marks.nth(1).get_attribute("title") == f"attempt 2 of {N}: passed"
    # The row id from the agent's data is text, never markup; its link searches the rows.
    assert page.evaluate("window.__xss") is None and not page.dialogs
    assert section.locator("a", has_text=XSS).count() == 1
    page.screenshot(path=artifact("viewer-repeats.png"), full_page=True)
    with page.expect_navigation():
        cancel_1.locator("td.rowid a").click()
    assert "q=cancel-1" in page.url
    ids = page.locator("#rows ~ table tbody td.rowid, #rows ~ * td.rowid").all_inner_texts()
    assert ids and all("cancel-1" in i for i in ids)


def test_an_error_attempt_is_marked_and_a_run_made_once_has_no_section(page, repeat_viewer):
    url, run_id, once, summary = repeat_viewer
    errored = next(r for r in summary.rows if None in r.verdicts)
    page.goto(url + f"/runs/{run_id}")
    if errored.flaky:
        row = page.locator("table.repeats-flaky tr", has_text=errored.row_id).first
        assert "E" in row.locator("td.verdicts .badge").all_inner_texts()
    assert errored.errors == 1
    page.goto(url + f"/runs/{once}")
    assert page.locator("h1").count() >= 1
    assert page.locator("section.repeats").count() == 0


def test_repeats_fit_a_phone(browser, repeat_viewer):
    url, run_id, _, _ = repeat_viewer
    context = browser.new_context(viewport={"width": 390, "height": 844})
    phone = context.new_page()
    phone.goto(url + f"/runs/{run_id}")
    assert phone.locator("section.repeats").is_visible()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    context.close()


def test_attempt_badges_link_each_attempt_and_attempts_link_each_other(page, repeat_viewer):
    url, run_id, _, summary = repeat_viewer
    flaky = next(r for r in summary.rows if r.flaky and None not in r.verdicts)
    page.goto(url + f"/runs/{run_id}")
    assert "count attempts" in page.locator("section.repeats").inner_text()
    row = page.locator("table.repeats-flaky tr", has_text=flaky.row_id).first
    badges = row.locator("td.verdicts a.attempt")
    assert badges.count() == N
    assert badges.nth(1).get_attribute("aria-label").startswith(f"attempt 2 of {N}")
    with page.expect_navigation():
        badges.nth(1).click()
    nav = page.locator("nav.attempts")
    assert nav.locator("strong").inner_text() == f"attempt 2 of {N}"
    assert flaky.row_id in page.locator("h1").inner_text()
    with page.expect_navigation():
        nav.get_by_role("link", name="attempt 3").click()
    assert page.locator("nav.attempts strong").inner_text() == f"attempt 3 of {N}"
    assert page.locator("h1").inner_text() == f"Row {flaky.row_id}#3"
    with page.expect_navigation():
        page.locator("nav.attempts").get_by_role("link", name="attempt 1").click()
    assert page.locator("h1").inner_text() == f"Row {flaky.row_id}"
