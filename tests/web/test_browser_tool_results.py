"""Tool results an HTTP agent returned, run for real and read in Chromium: shown, folded, escaped.

A real agent stub on 127.0.0.1 answers with tool-call and tool-result steps;
``run_plan`` calls it through the HTTP connector's ``tool_results`` path and
stores the run in SQLite; a real uvicorn serves the viewer.
"""

from __future__ import annotations

import json

import pytest
import yaml
from tests.agent_stub import AgentStub
from tests.web.conftest import artifact, served_viewer
from tests.web.seed import XSS

pytestmark = pytest.mark.browser

LONG = "\n".join(f"line {n}: order 4471 history entry" for n in range(400)) + "\nNEEDLE-7731"
STEPS = {
    "output": "Order 4471 **could not** be cancelled.",
    "steps": [
        {"type": "tool_call", "id": "c1", "tool": {"name": "lookup_order", "args": {"id": "4471"}}},
        {"type": "tool_result", "call_id": "c1", "content": {"status": "shipped", "note": XSS}},
        {
            "type": "tool_call",
            "id": "c2",
            "tool": {"name": "order_history", "args": {"id": "4471"}},
        },
        {"type": "tool_result", "call_id": "c2", "content": LONG},
        {"type": "tool_call", "id": "c3", "tool": {"name": "cancel_order", "args": {"id": "4471"}}},
        {"type": "tool_result", "call_id": "c3", "error": "order service 503"},
    ],
}


@pytest.fixture(scope="module")
def results_run(tmp_path_factory):
    # Run before the browser starts: Playwright keeps an event loop running on this thread.
    from tooleval.runs.plan import load_plan
    from tooleval.runs.runner import run_plan
    from tooleval.store import open_store

    folder = tmp_path_factory.mktemp("tool-results")
    (folder / "rows.jsonl").write_text(
        json.dumps({"id": "r1", "input": "cancel 4471", "expected_tools": ["cancel_order"]}) + "\n"
    )
    with AgentStub() as stub:
        stub.script("cancel 4471", body=STEPS)
        plan = {
            "name": "results",
            "dataset": "rows.jsonl",
            "connector": {
                "url": stub.url + "/agent",
                "retry": {"retries": 0},
                "response": {
                    "output": "$.output",
                    "tool_calls": "$.steps[?(@.type=='tool_call')]",
                    "tool_results": "$.steps[?(@.type=='tool_result')]",
                },
            },
            "metrics": ["tool_correctness"],
        }
        (folder / "plan.yaml").write_text(yaml.safe_dump(plan, sort_keys=False))
        store = open_store(folder / "runs.db")
        outcome = run_plan(load_plan(folder / "plan.yaml"), store=store)
    assert outcome.run.error_count == 0
    with served_viewer(store) as url:
        yield url, outcome.run.id, store
    store.close()


def test_the_transcript_shows_each_result_under_its_call(results_run, page):
    url, run_id, _ = results_run
    page.goto(f"{url}/runs/{run_id}/rows/0")
    results = page.locator(".transcript li.turn-tool")
    assert results.count() == 3
    links = results.locator(".t-head a").all_inner_texts()
    assert links == ["for call 1", "for call 2", "for call 3"]
    # The first result is short: shown whole, its markup escaped, never run.
    first = results.nth(0).locator("pre").inner_text()
    assert json.loads(first) == {"note": XSS, "status": "shipped"}
    assert page.evaluate("window.__xss") is None and not page.dialogs
    # The long one is folded under its first line and size, and opens in place.
    fold = results.nth(1).locator("details.t-result-fold")
    assert fold.count() == 1 and not fold.get_attribute("open")
    assert "line 0: order 4471 history entry" in fold.locator("summary").inner_text()
    assert "401 lines" in fold.locator("summary").inner_text()
    fold.locator("summary").click()
    assert "NEEDLE-7731" in fold.locator("pre").inner_text()
    # The failed call's result is marked as an error, with the message.
    assert results.nth(2).locator(".badge-error").count() == 1
    assert "order service 503" in results.nth(2).inner_text()
    page.locator("article.row-card").screenshot(path=artifact("viewer-tool-results.png"))


def test_the_row_search_finds_text_inside_a_result(results_run, page):
    url, run_id, _ = results_run
    page.goto(f"{url}/runs/{run_id}?q=NEEDLE-7731")
    assert page.locator("table.rows tbody tr").count() == 1
    page.goto(f"{url}/runs/{run_id}?q=NEEDLE-0000")
    assert page.locator("table.rows tbody tr").count() == 0


def test_assistant_markdown_is_rendered_without_running_anything(results_run, browser):
    from tooleval.model import AssistantMessage, Sample, UserMessage
    from tooleval.store.records import RowRecord

    url, _, store = results_run
    text = (
        "**Cancelled.** Steps:\n\n1. looked up `4471`\n2. cancelled it\n\n"
        f"```python\nprint('<b>')\n```\n{XSS} [docs](javascript:alert(1))"
    )
    run = store.create_run("markdown", dataset={}, connector={}, metrics=[])
    sample = Sample(messages=[UserMessage("cancel"), AssistantMessage(text)])
    store.add_rows(run, [RowRecord(run, 0, "m1", sample, ())])
    store.finish_run(run)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/runs/{run}/rows/0")
    answer = page.locator(".transcript li.turn-assistant .md").first
    assert answer.locator("strong").first.inner_text() == "Cancelled."
    assert answer.locator("ol li").all_inner_texts() == ["looked up 4471", "cancelled it"]
    assert answer.locator("pre.md-code code").inner_text() == "print('<b>')"
    assert XSS in answer.inner_text() and answer.locator("a, script").count() == 0
    assert page.evaluate("window.__xss") is None
    context.close()
