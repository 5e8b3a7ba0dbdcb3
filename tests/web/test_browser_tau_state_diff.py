"""A tau-bench row scored by replay shows which records and fields of the database differ.

Replays the airline domain from ../shared/data/tau_bench/source (skips when absent):
the gold actions cancel a reservation, the agent changed its baggage instead.
"""

from __future__ import annotations

import pytest
from tests.web.conftest import artifact, served_viewer

pytestmark = pytest.mark.browser

GOLD = [("cancel_reservation", {"reservation_id": "Z7GOZK"})]
AGENT = [
    (
        "update_reservation_baggages",
        {
            "reservation_id": "Z7GOZK",
            "total_baggages": 3,
            "nonfree_baggages": 0,
            "payment_id": "gift_card_2200803",
        },
    )
]


@pytest.fixture(scope="module")
def airline(shared_data):
    from tooleval.benchmarks.tau_bench.replay_source import load_domain

    return load_domain("airline", shared_data / "tau_bench" / "source")


def _replayed(airline, agent):
    from tooleval.benchmarks.tau_bench.replay import Action, replay_reward, reward_result

    actions = [Action(name, kwargs) for name, kwargs in agent]
    return reward_result(replay_reward(airline, [Action(n, k) for n, k in GOLD], [], actions))


def test_a_failing_replay_keeps_the_records_and_fields_that_differ(airline):
    result = _replayed(airline, AGENT)
    assert result.score == 0.0
    paths = {
        d["path"]: (d["expected"], d["actual"]) for d in result.diagnosis.details["differences"]
    }
    assert paths["reservations.Z7GOZK.status"] == ("cancelled", "<absent>")
    assert paths["reservations.Z7GOZK.total_baggages"] == (0, 3)
    assert "reservations.Z7GOZK.payment_history[1]" in paths
    # A passing replay carries no diff; the same call twice changes nothing it did not before.
    assert "differences" not in _replayed(airline, GOLD).diagnosis.details


def test_the_row_page_shows_the_database_diff(airline, browser, tmp_path):
    from tooleval.model import Sample
    from tooleval.store import open_store
    from tooleval.store.records import MetricSpec, RowRecord

    result = _replayed(airline, AGENT)
    store = open_store(tmp_path / "runs.db")
    run = store.create_run(
        "tau airline", dataset={}, connector={}, metrics=[MetricSpec(result.metric)]
    )
    store.add_rows(run, [RowRecord(run, 0, "task-1", Sample(input="cancel Z7GOZK"), (result,))])
    store.finish_run(run)
    try:
        with served_viewer(store) as url:
            for width in (1400, 390):
                context = browser.new_context(viewport={"width": width, "height": 900})
                page = context.new_page()
                page.goto(url + f"/runs/{run}/rows/0")
                block = page.locator("section.state-diff-block")
                assert block.locator("h2").inner_text() == f"State diff · {result.metric}"
                records = block.locator("p.state-records").inner_text()
                assert "reservations.Z7GOZK" in records and "total_baggages" in records
                rows = block.locator("table.state-diff tbody tr").all_inner_texts()
                status = next(r for r in rows if r.startswith("reservations.Z7GOZK.status"))
                assert status.split("\t")[1:] == ["cancelled", "absent"]
                assert page.evaluate("document.documentElement.scrollWidth") <= width
                if width == 1400:
                    block.screenshot(path=artifact("viewer-tau-state-diff.png"))
                context.close()
    finally:
        store.close()
