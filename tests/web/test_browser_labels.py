"""Labels entered in a real Chromium: keys p / f and a note, a reload, an export, a calibration.

A viewer started with ``allow_labels`` shows the label form on a row page and
stores what is entered; a second viewer over the same store without the flag
shows no form and answers a posted label with 403. A label never changes the
row's stored result.
"""

from __future__ import annotations

import json

import pytest
from tests.web.conftest import served_viewer

from tooleval.cli.main import main
from tooleval.model import Result, Sample
from tooleval.store import MetricSpec, RowRecord, open_store

# (row id, the judge's stored verdict, what the person says)
ROWS = [("a", True, True), ("b", True, False), ("c", False, False), ("d", True, True)]


@pytest.fixture
def labelled_store(tmp_path):
    store = open_store(tmp_path / "runs.db")
    run_id = store.create_run(
        "judged",
        dataset={},
        connector={},
        metrics=[MetricSpec("task_success")],
        config={"judge": {"type": "openai", "model": "judge-m"}},
    )
    for index, (row_id, verdict, _) in enumerate(ROWS):
        result = Result.scored("task_success", float(verdict), reason="stored verdict")
        store.add_row(
            run_id, RowRecord(run_id, index, row_id, Sample(input=f"q {row_id}"), results=(result,))
        )
    store.finish_run(run_id)
    yield store, run_id, str(tmp_path / "runs.db")
    store.close()


def _label(page, url: str, run_id: str, index: int, key: str, note: str | None = None) -> None:
    page.goto(f"{url}/runs/{run_id}/rows/{index}")
    if note is not None:
        page.fill("#label-note", note)
        page.locator("h1").click()  # leave the field: keys act on the page again
    with page.expect_navigation():
        page.keyboard.press(key)


def test_label_rows_reload_export_and_calibrate(browser, labelled_store, tmp_path):
    store, run_id, db = labelled_store
    before = [store.get_row(run_id, i).results for i in range(len(ROWS))]
    context = browser.new_context()
    page = context.new_page()
    with served_viewer(store, allow_labels=True) as url:
        for index, (_, _, label) in enumerate(ROWS):
            note = "order still open" if index == 1 else None
            _label(page, url, run_id, index, "p" if label else "f", note)
            assert page.url.endswith(f"/rows/{index}#labels"), page.content()[-1500:]
        page.reload()
        shown = page.locator("#row-labels li").inner_text()
        assert "task_success: pass" in shown
        page.goto(f"{url}/runs/{run_id}/rows/1")
        assert "task_success: fail" in page.locator("#row-labels li").inner_text()
        assert "order still open" in page.locator("#row-labels li").inner_text()
        # A post without the page's token, or from another origin, stores nothing.
        refused = page.request.post(
            f"{url}/runs/{run_id}/rows/0/labels",
            form={"metric": "task_success", "verdict": "fail", "token": "guess"},
        )
        assert refused.status == 403
        token = page.locator("#label-form input[name=token]").get_attribute("value")
        foreign = page.request.post(
            f"{url}/runs/{run_id}/rows/0/labels",
            form={"metric": "task_success", "verdict": "fail", "token": token},
            headers={"Origin": "http://evil.example"},
        )
        assert foreign.status == 403
        wrong_metric = page.request.post(
            f"{url}/runs/{run_id}/rows/0/labels",
            form={"metric": "nope", "verdict": "fail", "token": token},
        )
        assert wrong_metric.status == 400
        assert "unknown metric &#x27;nope&#x27; for row 0" in wrong_metric.text()
    context.close()

    labels = {label.row_id: label.passed for label in store.labels.get_labels(run_id)}
    assert labels == {row_id: label for row_id, _, label in ROWS}
    # A label never changes a stored result.
    assert [store.get_row(run_id, i).results for i in range(len(ROWS))] == before

    out = tmp_path / "labels.jsonl"
    assert main(["judge", "labels", "export", run_id, "--store", db, "-o", str(out),
                 "--format", "jsonl"]) == 0  # fmt: skip
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["row_id"], r["label"]) for r in exported] == [
        ("a", "pass"),
        ("b", "fail"),
        ("c", "fail"),
        ("d", "pass"),
    ]
    assert exported[1]["note"] == "order still open"
    assert exported[1]["labeller"].endswith("(viewer)")

    code = main(["judge", "calibrate", run_id, "--metric", "task_success", "--store", db, "--json"])
    assert code == 0
    (found,) = store.labels.calibrations(metric="task_success")
    assert found.report["confusion"] == {"tp": 2, "fn": 0, "fp": 1, "tn": 1}


def test_a_viewer_without_the_flag_cannot_write(browser, labelled_store):
    store, run_id, _ = labelled_store
    store.labels.set_labels(run_id, [])
    context = browser.new_context()
    page = context.new_page()
    with served_viewer(store) as url:
        page.goto(f"{url}/runs/{run_id}/rows/0")
        assert page.locator("#label-form").count() == 0
        page.keyboard.press("p")  # no form: nothing is sent
        assert page.url.endswith("/rows/0")
        refused = page.request.post(
            f"{url}/runs/{run_id}/rows/0/labels",
            form={"metric": "task_success", "verdict": "pass", "token": "x"},
        )
        assert refused.status == 403
        assert "--allow-labels" in refused.text()
    context.close()
    assert store.labels.get_labels(run_id) == []


def test_allow_labels_is_refused_off_loopback(labelled_store, capsys):
    _, _, db = labelled_store
    code = main(["view", "--allow-labels", "--host", "0.0.0.0", "--port", "0", "--store", db])
    assert code == 2
    err = capsys.readouterr().err
    assert "--allow-labels" in err and "loopback" in err and "viewer on" not in err
