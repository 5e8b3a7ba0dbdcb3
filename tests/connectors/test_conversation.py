"""Multi-turn conversations over HTTP against the real agent stub on 127.0.0.1."""

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

RESPONSE = {"output": "$.output", "tools_called": "$.steps[?(@.type=='tool_call')].tool.name"}


def _plan(tmp_path, stub, conversation, *, body=None, rows=None, metrics=("tool_correctness",)):
    rows = rows or [
        {"id": "t1", "turns": ["hi, order 4471", "cancel it"], "expected_tools": ["lookup_order", "cancel_order"]},
        {"id": "t2", "turns": ["where is 7777"], "expected_tools": ["lookup_order"]},
    ]  # fmt: skip
    with (tmp_path / "convs.jsonl").open("w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    plan = {
        "name": "conv",
        "dataset": "convs.jsonl",
        "connector": {
            "type": "http",
            "url": stub.url + "/agent",
            "timeout": 5,
            "retry": {"retries": 0},
            "body": body or {"id": "{{metadata.session_id}}", "input": "{{input}}"},
            "response": RESPONSE,
            "conversation": conversation,
        },
        "metrics": list(metrics),
        "concurrency": 2,
    }
    path = tmp_path / "conv.yaml"
    path.write_text(yaml.safe_dump(plan, sort_keys=False))
    return load_plan(path)


def _script(stub):
    stub.script("hi, order 4471", tools=["lookup_order"], output="found 4471")
    stub.script("cancel it", tools=["cancel_order"], output="cancelled")
    stub.script("where is 7777", tools=["lookup_order"], output="on its way")


def test_turns_carry_the_session_and_collect_every_call(tmp_path, agent_stub):
    _script(agent_stub)
    plan = _plan(tmp_path, agent_stub, {"carry": "session"})
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
        assert outcome.run.error_count == 0
        assert outcome.run.pass_rate("tool_correctness") == 1.0
        assert outcome.run.connector["conversation"]["carry"] == "session"
        row = store.get_row(outcome.run_id, 0)
    assert [c.name for c in row.sample.actual_calls()] == ["lookup_order", "cancel_order"]
    assert row.sample.output == "cancelled"
    assert [m.role for m in row.sample.messages] == ["user", "assistant", "user", "assistant"]
    assert len(row.raw_response["turns"]) == 2
    t1 = [r.json for r in agent_stub.requests if r.json["input"] in ("hi, order 4471", "cancel it")]
    # one session id for both turns of the conversation, a fresh one per conversation
    assert t1[0]["id"] == t1[1]["id"] and t1[0]["id"].startswith("t1-")
    other = next(r.json for r in agent_stub.requests if r.json["input"] == "where is 7777")
    assert other["id"] != t1[0]["id"]


def test_the_session_id_the_agent_returns_is_carried(tmp_path, agent_stub):
    first = {"session_id": "S-42", "output": "found", "steps": [
        {"type": "tool_call", "tool": {"name": "lookup_order", "args": {}}}]}  # fmt: skip
    agent_stub.script("hi, order 4471", body=first)
    _script_rest = agent_stub.script("cancel it", tools=["cancel_order"])
    assert _script_rest is not None
    agent_stub.script("where is 7777", tools=["lookup_order"])
    plan = _plan(tmp_path, agent_stub, {"session_path": "$.session_id"})
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
    assert outcome.run.pass_rate("tool_correctness") == 1.0
    second = next(r.json for r in agent_stub.requests if r.json["input"] == "cancel it")
    assert second["id"] == "S-42"


def test_history_carry_sends_the_whole_conversation(tmp_path, agent_stub):
    _script(agent_stub)
    body = {"messages": "{{messages}}", "turn": "{{metadata.turn}}"}
    plan = _plan(tmp_path, agent_stub, {"carry": "history"}, body=body)
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
    assert outcome.run.pass_rate("tool_correctness") == 1.0
    last = next(
        r.json for r in agent_stub.requests if r.json["messages"][-1]["content"] == "cancel it"
    )
    assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user"]
    assert last["messages"][1]["content"] == "found 4471" and last["turn"] == 2


def test_a_scripted_user_in_the_plans_folder(tmp_path, agent_stub):
    _script(agent_stub)
    (tmp_path / "sim_user_ci13.py").write_text(
        "def next_message(conversation, sample):\n"
        "    said = [m['content'] for m in conversation if m['role'] == 'user']\n"
        "    if not said:\n"
        "        return 'hi, order 4471'\n"
        "    if len(said) == 1 and 'found' in conversation[-1]['content']:\n"
        "        return 'cancel it'\n"
        "    return None\n"
    )
    rows = [{"id": "u1", "input": "(scripted)", "expected_tools": ["lookup_order", "cancel_order"]}]
    plan = _plan(tmp_path, agent_stub, {"user": "sim_user_ci13:next_message"}, rows=rows)
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
        row = store.get_row(outcome.run_id, 0)
    assert outcome.run.pass_rate("tool_correctness") == 1.0
    assert [m.content for m in row.sample.messages if m.role == "user"] == [
        "hi, order 4471",
        "cancel it",
    ]


def test_a_failing_turn_is_the_rows_error_naming_the_turn(tmp_path, agent_stub):
    _script(agent_stub)
    agent_stub.script("cancel it", fail_times=5, fail_status=503)
    plan = _plan(tmp_path, agent_stub, {})
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
        row = store.get_row(outcome.run_id, 0)
    assert outcome.run.error_count == 1
    assert row.error.startswith("connector error:") and "turn 2:" in row.error
    assert "503" in row.error
    assert row.result("tool_correctness").score is None


def test_max_turns_stops_the_conversation_with_a_warning(tmp_path, agent_stub):
    _script(agent_stub)
    plan = _plan(tmp_path, agent_stub, {"max_turns": 1})
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
        row = store.get_row(outcome.run_id, 0)
    # the second turn is never sent; the row is scored on what happened, not an error
    assert row.error is None and agent_stub.attempts("cancel it") == 0
    assert any("max_turns=1" in w for w in row.sample.metadata["connector_warnings"])
    assert row.result("tool_correctness").score == pytest.approx(0.5)


def test_an_unreadable_body_on_a_later_turn_is_a_row_error(tmp_path, agent_stub):
    _script(agent_stub)
    agent_stub.script("cancel it", tools=["cancel_order"], garbage_times=9)
    plan = _plan(tmp_path, agent_stub, {})
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store)
        row = store.get_row(outcome.run_id, 0)
        other = store.get_row(outcome.run_id, 1)
    assert "turn 2:" in row.error and other.error is None
    assert outcome.run.error_count == 1


def test_bad_turns_fail_the_preflight_naming_the_row(tmp_path, agent_stub):
    _script(agent_stub)
    rows = [
        {"id": "a", "turns": "hi, order 4471", "expected_tools": ["lookup_order"]},
        {"id": "b", "turns": ["x", 2], "expected_tools": ["lookup_order"]},
        {"id": "c", "expected_tools": ["lookup_order"]},
    ]
    plan = _plan(tmp_path, agent_stub, {}, rows=rows)
    with open_store(tmp_path / "runs.db") as store, pytest.raises(ConfigError) as info:
        run_plan(plan, store=store)
    assert "item 1 is int (row 2)" in str(info.value) and "1 more problem" in str(info.value)
    assert agent_stub.requests == []


@pytest.mark.parametrize(
    "conversation,field",
    [
        ({"carry": "everything"}, "connector.conversation.carry"),
        ({"max_turns": 0}, "connector.conversation.max_turns"),
        ({"session_path": "$[["}, "connector.conversation.session_path"),
        ({"user": "no_such_module_xyz:f"}, "connector.conversation.user"),
        ({"turn": "x"}, "connector.conversation.turn"),
        ("yes", "connector.conversation"),
    ],
)
def test_bad_conversation_config_names_the_field(conversation, field):
    config = {"type": "http", "url": "http://127.0.0.1:9/a", "conversation": conversation}
    with pytest.raises(ConfigError) as info:
        connector_from_config(config)
    assert info.value.context["field"] == field


def test_the_connector_alone(agent_stub):
    _script(agent_stub)
    config = {
        "type": "http",
        "url": agent_stub.url + "/agent",
        "response": RESPONSE,
        "conversation": {},
    }
    connector = connector_from_config(config)
    try:
        response = connector.call(
            Sample(id="x", metadata={"turns": ["hi, order 4471", "cancel it"]})
        )
    finally:
        connector.close()
    assert [c.name for c in response.tools_called] == ["lookup_order", "cancel_order"]
    assert response.attempts == 1 and response.output == "cancelled"
    assert connector.describe()["conversation"]["max_turns"] == 20
