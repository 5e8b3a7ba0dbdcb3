"""Call and row numbers are 1-based and the same on every surface that shows one row.

One stored row (row 11 of 12) whose second call is the wrong one is rendered through
the metrics' reasons, the viewer's row page (badge, "row N of M", state-diff panel),
the static report's row card and the compare pages; every number read back agrees.
"""

from __future__ import annotations

import re

import pytest
from tests.environments.test_environments import _make

import tooleval
from tooleval.environments import state_match
from tooleval.model import Result, Sample, ToolCall
from tooleval.store import RowRecord, open_store
from tooleval.store.records import MetricSpec
from tooleval.store.writer import RunWriter

ROWS = 12
ODD = 10  # store index of the row under test: row 11 of 12

GOLD = [ToolCall("cancel", {"order_id": "W1"}), ToolCall("cancel", {"order_id": "W2"})]
WRONG = [ToolCall("cancel", {"order_id": "W1"}), ToolCall("tag", {"order_id": "W2", "tags": ["x"]})]


def _results(actual: list[ToolCall]) -> tuple[Result, ...]:
    sample = Sample(expected_tools=GOLD, tools_called=actual)
    return (
        tooleval.score_sample("tool_call_accuracy", sample),
        state_match(GOLD, actual, environment=_make),
    )


def _store(db, name: str, wrong_at: int | None) -> str:
    with open_store(db) as store:
        writer = RunWriter.start(
            store,
            name,
            dataset={"path": "cases.jsonl"},
            connector={},
            metrics=[MetricSpec("tool_call_accuracy"), MetricSpec("state_match")],
            config={},
        )
        for i in range(ROWS):
            actual = WRONG if i == wrong_at else GOLD
            sample = Sample(id=f"q{i}", input=f"cancel W1 and W2 ({i})", tools_called=actual)
            writer.add(RowRecord(writer.run_id, i, f"q{i}", sample, _results(actual)))
        writer.finish()
        return writer.run_id


@pytest.fixture(scope="module")
def numbered(tmp_path_factory):
    db = tmp_path_factory.mktemp("numbering") / "runs.db"
    good = _store(db, "good", None)
    bad = _store(db, "bad", ODD)
    store = open_store(db)
    yield store, good, bad
    store.close()


def _text(markup: str) -> str:
    import html

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", markup)).split())


def test_one_row_has_the_same_numbers_on_every_surface(numbered):
    from fastapi.testclient import TestClient

    from tooleval.report.static import build_report
    from tooleval.web import create_app

    store, good, bad = numbered
    row = store.get_row(bad, ODD)
    accuracy, state = row.result("tool_call_accuracy"), row.result("state_match")
    # the metrics' reasons: the second call (index 1) is call 2
    assert state.diagnosis.details["first_divergence"]["index"] == 1
    assert "first diverging call: call 2:" in state.reason
    assert "sequence differs at #2 " in accuracy.reason
    with TestClient(create_app(store), base_url="http://127.0.0.1:8765") as client:
        page = _text(client.get(f"/runs/{bad}/rows/{ODD}").text)
        compared = _text(
            client.get("/compare/row", params={"a": good, "b": bad, "ia": ODD, "ib": ODD}).text
        )
    # the viewer's row page: badge, place in the run and state-diff panel agree
    assert f"row {ODD + 1} of {ROWS}" in page and f"#{ODD + 1}" in page
    assert f"#{ODD} " not in page
    assert "First diverging call: call 2" in page and "first diverging call: call 2:" in page
    assert "sequence differs at #2 " in page
    # the compare row page shows the same reasons, and B's state diff with the same call
    assert "first diverging call: call 2:" in compared and "sequence differs at #2 " in compared
    assert "State diff in A (baseline)" in compared and "The end states agree" in compared
    assert "State diff in B (new)" in compared
    assert "First diverging call: call 2" in compared and "orders.W2.status" in compared
    # the static report's card of the row
    report = build_report(store, bad, compare_with=good)
    card = report[report.index(f'id="row-{ODD}"') :]
    card = _text(card[: card.index("</article>")] if "</article>" in card else card[:20_000])
    assert f"#{ODD + 1}" in card and "first diverging call: call 2:" in card
