"""Judge calls and tokens are summed per run: `runs show` and the JSON export."""

from __future__ import annotations

import io
import json

from tooleval.analysis.export import judge_usage, write_json
from tooleval.cli._render import make_console, show_run
from tooleval.model import Diagnosis, Result, Sample
from tooleval.store import MetricSpec, RowRecord, open_store


def judged(score: float, calls: int, cached: int, tin: int, tout: int) -> Result:
    usage = {"calls": calls, "cached_calls": cached, "tokens_in": tin, "tokens_out": tout}
    return Result.scored(
        "task_success",
        score,
        reason="judged",
        diagnosis=Diagnosis(details={"judge": {**usage, "latency_ms": 5.0}}),
    )


def test_usage_is_summed_over_rows_and_shown(tmp_path):
    store = open_store(tmp_path / "runs.db")
    run_id = store.create_run(
        "judged",
        dataset={"path": "x"},
        connector={"type": "python"},
        metrics=[MetricSpec("task_success", {}, None)],
    )
    rows = []
    for i, (calls, cached) in enumerate([(2, 0), (1, 1)]):
        row = RowRecord(
            run_id, i, f"r{i}", Sample(input="q"), (judged(1.0, calls, cached, 100, 10),)
        )
        store.add_row(run_id, row)
        rows.append(row)
    store.finish_run(run_id)
    assert judge_usage(rows) == {
        "calls": 3,
        "cached_calls": 1,
        "tokens_in": 200,
        "tokens_out": 20,
        "latency_ms": 10.0,
    }
    assert (
        judge_usage([RowRecord(run_id, 0, "x", Sample(), (Result.scored("m", 1.0, reason=""),))])
        is None
    )

    out = io.StringIO()
    show_run(make_console(out), store, run_id)
    assert "judge: 3 calls (1 from cache), 200 tokens in, 20 tokens out" in out.getvalue()

    target = write_json(tmp_path / "run.json", store, store.get_run(run_id))
    document = json.loads(target.read_text())
    assert document["judge_usage"]["calls"] == 3
    assert len(document["rows"]) == 2
    store.close()


def test_runs_show_lists_unscored_reasons_even_when_every_row_passes(tmp_path):
    # The judged metric is unscored on every row while the deterministic one passes:
    # the run has no failing row, and the reasons must still be shown, not hidden.
    store = open_store(tmp_path / "runs.db")
    run_id = store.create_run(
        "judged",
        dataset={"path": "x"},
        connector={"type": "python"},
        metrics=[MetricSpec("tool_call_f1", {}, None), MetricSpec("task_success", {}, None)],
    )
    for i in range(3):
        results = (
            Result.scored("tool_call_f1", 1.0, reason="ok", threshold=0.5),
            Result.unscored("task_success", f"judge reply unusable after one re-ask (row {i})"),
        )
        store.add_row(run_id, RowRecord(run_id, i, f"r{i}", Sample(input="q"), results))
    store.finish_run(run_id)
    out = io.StringIO()
    show_run(
        make_console(
            out,
        ),
        store,
        run_id,
    )
    text = " ".join(out.getvalue().split())
    assert "unscored results" in text
    assert (
        "│ task_success │ 3 " in text
        and "judge reply unusable after one re-ask (row N) (3)" in text
    )
    store.close()
