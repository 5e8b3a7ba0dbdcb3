"""OpenAI-compatible connector: ${VAR} in base_url, ids for id-less calls, attempts, plan imports."""

from __future__ import annotations

import json

import pytest
import yaml

from tooleval.connectors import connector_from_config
from tooleval.errors import ConfigError
from tooleval.model import Sample
from tooleval.runs.plan import load_plan
from tooleval.runs.runner import run_plan
from tooleval.store import open_store

NO_IDS = {
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"type": "function", "function": {"name": "lookup", "arguments": "{}"}}
                ],
            },
            "finish_reason": "tool_calls",
        }
    ]
}


def test_base_url_reads_var_at_call_time(agent_stub, monkeypatch):
    agent_stub.script("hello", tools=["search"], output="hi")
    config = {"type": "openai", "base_url": "${CI13_AGENT_URL}/v1", "model": "m"}
    connector = connector_from_config(config)
    try:
        monkeypatch.delenv("CI13_AGENT_URL", raising=False)
        with pytest.raises(ConfigError, match="CI13_AGENT_URL is not set"):
            connector.call("hello")
        monkeypatch.setenv("CI13_AGENT_URL", "ftp://nowhere")
        with pytest.raises(ConfigError, match="http"):
            connector.call("hello")
        monkeypatch.setenv("CI13_AGENT_URL", agent_stub.url)
        response = connector.call("hello")
    finally:
        connector.close()
    assert [c.name for c in response.tools_called] == ["search"]
    assert "${CI13_AGENT_URL}" in connector.describe()["base_url"]  # never the value


def test_calls_without_ids_get_ids_and_turns_are_not_attempts(agent_stub):
    agent_stub.script("find it", body=NO_IDS)
    config = {
        "type": "openai",
        "base_url": agent_stub.url + "/v1",
        "model": "m",
        "tool_executor": "json:dumps",
        "max_turns": 3,
    }
    connector = connector_from_config(config)
    try:
        response = connector.call(Sample(input="find it", id="r1"))
    finally:
        connector.close()
    assert len(agent_stub.requests) == 3 and response.attempts == 1
    sent = agent_stub.requests[1].json["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_0_0"
    assert sent[2] == {"role": "tool", "tool_call_id": "call_0_0", "content": sent[2]["content"]}
    for request in agent_stub.requests:
        for message in request.json["messages"]:
            assert message.get("tool_call_id", "set") is not None
    assert [c.id for c in response.tools_called] == ["call_0_0", "call_1_0", "call_2_0"]


def test_tool_executor_imports_from_the_plans_folder(tmp_path, agent_stub):
    folder = tmp_path / "eval"
    folder.mkdir()
    (folder / "ci13_tools.py").write_text(
        "def run(call):\n    return {'order': call.args.get('order_id'), 'status': 'shipped'}\n"
    )
    agent_stub.script(
        "where is 4471",
        tools=[{"name": "lookup_order", "args": {"order_id": "4471"}}],
        output="shipped",
    )
    (folder / "cases.jsonl").write_text(
        json.dumps({"id": "a", "input": "where is 4471", "expected_tools": ["lookup_order"]}) + "\n"
    )
    plan = {
        "dataset": "cases.jsonl",
        "connector": {
            "type": "openai",
            "base_url": agent_stub.url + "/v1",
            "model": "m",
            "tool_executor": "ci13_tools:run",
        },
        "metrics": ["tool_correctness"],
    }
    (folder / "plan.yaml").write_text(yaml.safe_dump(plan))
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(load_plan(folder / "plan.yaml"), store=store)
        row = store.get_row(outcome.run_id, 0)
    assert outcome.run.pass_rate("tool_correctness") == 1.0
    assert row.sample.actual_calls()[0].result == {"order": "4471", "status": "shipped"}
    tool_message = agent_stub.requests[-1].json["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_0_0"
