"""A monitor pass and a plan run are written by the same RunWriter: same shape of records."""

from __future__ import annotations

import json

from tests.runs.support import CASES, write_dataset

from tooleval.connectors import CallableConnector
from tooleval.monitor.run import monitor
from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store


def _conversation(session_id: str, calls: list[str]) -> dict:
    messages: list[dict] = [{"role": "user", "content": "hi"}]
    for i, name in enumerate(calls):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": "{}"},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": '{"ok": true}'})
    messages.append({"role": "assistant", "content": "done"})
    return {"id": session_id, "messages": messages}


def _shape(store, run_id: str) -> dict:
    info = store.get_run(run_id)
    rows = list(store.iter_rows(run_id))
    specs = [spec.name for spec in info.metrics]
    return {
        "status": info.status,
        "row_count_matches": info.row_count == len(rows) == store.count_rows(run_id),
        "indexes_contiguous": [r.index for r in rows] == list(range(len(rows))),
        "every_row_has_one_result_per_metric": all(
            [res.metric for res in r.results] == specs for r in rows
        ),
        "row_ids_set": all(r.row_id for r in rows),
        "run_id_on_rows": {r.run_id for r in rows} == {run_id},
        "summaries_cover_metrics": {s.name for s in info.metrics} == set(specs),
        "record_fields": sorted(type(rows[0]).__dataclass_fields__),
    }


def test_monitor_and_plan_runs_store_the_same_shape(tmp_path):
    traces = tmp_path / "t.jsonl"
    traces.write_text(
        "\n".join(json.dumps(_conversation(f"s{i}", ["lookup_order"] * (i + 1))) for i in range(3))
        + "\n"
    )
    write_dataset(tmp_path / "cases.jsonl")
    expected = {text: tools for _, _, text, tools in CASES}

    async def agent(text: str) -> dict:
        return {"output": "ok", "tools_called": expected[text]}

    plan = plan_from_dict(
        {"name": "p", "dataset": "cases.jsonl", "connector": {}, "metrics": ["tool_correctness"]},
        base_dir=tmp_path,
    )
    with open_store(tmp_path / "r.db") as store:
        monitored = monitor(traces, store=store).run_id
        planned = run_plan(plan, store=store, connector=CallableConnector(agent)).run_id
        assert monitored is not None
        assert store.count_rows(monitored) == 3
        assert store.count_rows(planned) == len(CASES)
        shape = _shape(store, planned)
        assert _shape(store, monitored) == shape
        assert shape["status"] == "finished" and all(v for v in shape.values())
