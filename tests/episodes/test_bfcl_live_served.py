"""BFCL's simulated APIs served over MCP: an agent with the official SDK's client runs an entry.

``tooleval run`` with a ``python`` connector and ``serve: mcp`` hands each row
its own MCP URL bound to fresh instances of that row's entry
(``tooleval.serving.bfcl:multi_turn``); the agent (tests/serving/served_agents.py,
``mcp.client.streamable_http``) plays the calls the public glyphh-ada-1.1
results made for the entry. tooleval records every call, and each answer must
be what BFCL's own execution (``execute_multi_turn_func_call``) answers for
the same calls on the same entry.
"""

from __future__ import annotations

import json

import pytest
from tests.episodes.bfcl_replayer import jsonl

from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip("bfcl_eval", reason="BFCL's simulated APIs: pip install bfcl-eval")
pytest.importorskip("mpmath", reason="BFCL's MathAPI needs mpmath")
pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

from tests.serving import served_agents  # noqa: E402  (needs mcp)

NAME = "BFCL_v4_multi_turn_base"
IDS = ("multi_turn_base_1", "multi_turn_base_2", "multi_turn_base_7")


def _bfcl_answers(entry, calls):
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
        execute_multi_turn_func_call,
    )

    texts = [f"{n}({','.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls]
    answers, _ = execute_multi_turn_func_call(
        texts, entry["initial_config"], entry["involved_classes"], "served_test", entry["id"]
    )
    return answers


def test_an_mcp_agent_runs_bfcl_entries_on_fresh_instances(shared_data, tmp_path):
    root = shared_data / "bfcl"
    questions = {q["id"]: q for q in jsonl(root / "data" / f"{NAME}.json") if q["id"] in IDS}
    results = jsonl(root / "results" / "glyphh-ada-1.1" / f"{NAME}_result.json")
    played = {
        r["id"]: [
            (name, json.loads(args))
            for turn in r["result"]
            for step in turn
            for item in step
            for name, args in item.items()
        ]
        for r in results
        if r["id"] in IDS
    }
    served_agents.SCRIPTS.update({i: (calls, "done") for i, calls in played.items()})
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions.values()))
    plan = plan_from_dict(
        {
            "dataset": "q.jsonl",
            "connector": {
                "type": "python",
                "target": "tests.serving.served_agents:mcp_agent",
                "argument": "sample",
                "serve": "mcp",
            },
            "environment": "tooleval.serving.bfcl:multi_turn",
            "metrics": ["bfcl_multi_turn"],
        },
        base_dir=tmp_path,
    )
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store, concurrency=3)
        rows = {row.row_id: row for row in store.iter_rows(outcome.run_id)}
    assert sorted(rows) == sorted(IDS)
    for entry_id, row in rows.items():
        assert row.error is None, (entry_id, row.error)
        episode = row.sample.metadata["episode"]
        assert episode["transport"] == "mcp"
        calls = [(c["name"], c["args"]) for c in episode["calls"]]
        assert calls == played[entry_id]
        answers = [c["result"] for c in episode["calls"]]
        assert answers == _bfcl_answers(questions[entry_id], played[entry_id]), entry_id
        # BFCL grades turn by turn; over MCP tooleval sees calls, not turns: unscored, saying so
        assert row.results[0].score is None and "BFCL's turns" in row.results[0].reason
