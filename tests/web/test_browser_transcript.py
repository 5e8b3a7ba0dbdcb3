"""The row card's transcript in real Chromium: turns in order, calls linked, spans of a trace."""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact

pytestmark = pytest.mark.browser


def test_transcript_shows_every_turn_and_where_the_missing_call_belonged(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['chats']}/rows/0")
    turns = page.locator("ol.transcript > li")
    roles = [t.split("\n")[0].strip().lower() for t in turns.all_inner_texts()]
    assert roles[:3] == ["system", "user", "missing"]
    assert roles[3:] == ["assistant", "tool result", "assistant", "tool result", "assistant"]
    missing = page.locator("ol.transcript li.turn-missing")
    assert "lookup_order" in missing.inner_text() and "never made" in missing.inner_text()
    # The failed tool result is marked as an error, and says which call it answers.
    error = page.locator("ol.transcript li.turn-error")
    assert error.count() == 1 and "payment service unavailable" in error.inner_text()
    assert error.get_by_role("link", name="for call 1").count() == 1
    # Each expected call links to the call that made it.
    made = page.get_by_role("link", name="made as call 2")
    made.click()
    page.wait_for_function("location.hash === '#call-2'", timeout=10_000)  # same-document
    assert page.url.endswith("#call-2")
    assert page.locator("#call-2").evaluate("e => e.matches(':target')")
    assert '"amount": 30' in page.locator("#call-2").inner_text()
    # The raw response is there, collapsed.
    raw = page.locator("details.raw-response")
    assert raw.count() == 1 and not raw.evaluate("e => e.open")
    raw.locator("summary").click()
    assert '"total": 91' in raw.inner_text()
    assert "Done." in page.locator(".text-block").filter(has_text="Final answer").inner_text()
    page.locator("article.row-card").screenshot(path=artifact("viewer-transcript.png"))
    assert not page.csp_errors


def test_a_row_without_messages_gets_a_transcript_from_its_calls(page, viewer_url, seeded):
    store, run = seeded["store"], seeded["a"]
    index = next(r.index for r in store.iter_rows(run) if r.row_id == "cancel-1")
    page.goto(viewer_url + f"/runs/{run}/rows/{index}")
    text = page.locator("ol.transcript").inner_text()
    assert "Please cancel order 4401" in text and "lookup_order" in text
    missing = page.locator("ol.transcript li.turn-missing")
    assert missing.count() == 1 and "cancel_order" in missing.inner_text()
    # The missing call comes after the call it should have followed, before the answer.
    order = page.locator("ol.transcript > li").evaluate_all(
        "els => els.map(e => e.className.split(' ')[1])"
    )
    assert order == ["turn-user", "turn-assistant", "turn-missing", "turn-assistant"]


def test_a_monitored_session_shows_its_span_tree(page, viewer_url, seeded):
    page.goto(viewer_url + f"/runs/{seeded['traces']}/rows/0")
    spans = page.locator("table.spans tbody tr")
    assert spans.count() == 5
    cells = [row.split("\t") for row in spans.all_inner_texts()]
    # The agent span first, its model and tool spans nested under it in time order.
    assert [c[0] for c in cells] == ["agent", "llm", "tool", "tool", "llm"]
    assert cells[0][1].startswith("invoke_agent support-bot")
    assert [c[1].split()[-1] for c in cells[1:]] == [
        "gpt-x",
        "lookup_order",
        "issue_refund",
        "gpt-x",
    ]
    assert page.locator("table.spans tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.depth)"
    ) == ["0", "1", "1", "1", "1"]
    names = page.locator("td.t-span-name").evaluate_all(
        "els => els.map(e => e.querySelector('code').getBoundingClientRect().left)"
    )
    assert all(left > names[0] for left in names[1:])  # indented under the agent
    assert cells[1][3] == "400 ms" and cells[1][4] == "120 in / 18 out"
    assert cells[4][2] == "+910 ms" and cells[0][3] == "1250 ms"
    # The failed tool span says so, with its message; the others carry no status.
    assert cells[3][5].lower() == "error order service 503"
    assert [c[5] for c in cells[:3]] == ["", "", ""]
    bars = page.locator("table.spans .t-bar").evaluate_all(
        "els => els.map(e => [e.getBoundingClientRect().left, e.getBoundingClientRect().width])"
    )
    # On one time axis: the agent spans the session; later spans start further right.
    assert bars[0][1] > bars[1][1] > bars[2][1] and bars[4][0] > bars[3][0] > bars[2][0]
    # The trace's tool results are kept: the failed call's error is its result turn.
    failed = page.locator(".transcript li.turn-tool.turn-error")
    assert failed.count() == 1 and "order service 503" in failed.inner_text()
    # A session has no reference: no call is labelled "not expected".
    assert page.locator(".transcript .t-extra").count() == 0
    page.locator("article.row-card").screenshot(path=artifact("viewer-trace-spans.png"))
