"""OpenAIChatConnector against the stub's OpenAI-compatible endpoint."""

from __future__ import annotations

import json

import pytest
from tests.agent_stub import AgentStub

from tooleval.connectors import OpenAIChatConnector, RetryPolicy, connector_from_config
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import AssistantMessage, ToolCall, ToolMessage

TOOLS = [
    {"name": "geo", "description": "find a city", "parameters": {"type": "object"}},
    {"type": "function", "function": {"name": "forecast", "parameters": {"type": "object"}}},
]


def make(stub: AgentStub, **options) -> OpenAIChatConnector:
    options.setdefault("retry", RetryPolicy(retries=2, backoff=0.01, jitter=0))
    return OpenAIChatConnector(
        base_url=stub.url + "/v1", model="stub-model", tools=TOOLS, **options
    )


def test_single_turn_reads_tool_calls(
    agent_stub: AgentStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_stub.script(
        "weather in Paris", tools=[{"name": "geo", "args": {"city": "Paris"}}, "forecast"]
    )
    monkeypatch.setenv("STUB_KEY", "sk-test-123")
    c = make(agent_stub, api_key_env="STUB_KEY", system="Be brief.", params={"temperature": 0})
    r = c.call("weather in Paris")
    c.close()
    assert [str(t) for t in r.tools_called] == ["geo(city='Paris')", "forecast()"]
    assert r.tools_called[0].id == "call_0_0"
    assert r.output is None and r.status == 200
    sent = agent_stub.requests[-1]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test-123"
    assert sent.json["model"] == "stub-model" and sent.json["temperature"] == 0
    assert sent.json["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "weather in Paris"},
    ]
    assert [t["function"]["name"] for t in sent.json["tools"]] == ["geo", "forecast"]
    assert "sk-test-123" not in json.dumps(c.describe())


async def test_tool_executor_loops_and_feeds_results(agent_stub: AgentStub) -> None:
    agent_stub.script("weather", tools=["geo", "forecast"], chat_turns=[1, 1], output="Sunny.")
    executed: list[str] = []

    def run_tool(call: ToolCall) -> dict:
        executed.append(call.name)
        if call.name == "forecast":
            raise ValueError("service down")
        return {"lat": 48.8}

    c = make(agent_stub, tool_executor=run_tool)
    r = await c.acall("weather")
    await c.aclose()
    assert executed == ["geo", "forecast"]
    assert r.output == "Sunny."
    assert [t.name for t in r.tools_called] == ["geo", "forecast"]
    assert r.tools_called[0].result == {"lat": 48.8} and not r.tools_called[0].is_error
    assert r.tools_called[1].is_error and "service down" in r.tools_called[1].result
    assert len(agent_stub.requests) == 3
    second = agent_stub.requests[1].json["messages"]
    assert second[-1] == {"role": "tool", "tool_call_id": "call_0_0", "content": '{"lat": 48.8}'}
    assert isinstance(r.messages[1], AssistantMessage) and isinstance(r.messages[2], ToolMessage)
    assert r.raw["turns"][-1]["choices"][0]["finish_reason"] == "stop"


def test_max_turns_warning(agent_stub: AgentStub) -> None:
    agent_stub.script("loop", tools=["a", "b", "c"], chat_turns=[1, 1, 1])
    r = make(agent_stub, tool_executor=lambda call: "ok", max_turns=2).call("loop")
    assert [t.name for t in r.tools_called] == ["a", "b"]
    assert r.warnings == ("stopped after max_turns=2 with tool calls pending",)


def test_retries_and_bad_reply(agent_stub: AgentStub) -> None:
    agent_stub.script("flaky", tools=["geo"], fail_times=2, fail_status=503)
    r = make(agent_stub).call("flaky")
    assert r.attempts == 3
    agent_stub.script("odd", body={"not": "a completion"})
    with pytest.raises(ConnectorError, match=r"did not return a chat completion"):
        make(agent_stub).call("odd")


def test_missing_api_key_env(agent_stub: AgentStub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_KEY_HERE", raising=False)
    with pytest.raises(ConfigError, match="NO_KEY_HERE is not set") as info:
        make(agent_stub, api_key_env="NO_KEY_HERE").call("x")
    assert info.value.field == "connector.api_key_env"


def test_from_config_with_tools_file(agent_stub: AgentStub, tmp_path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps({"tools": TOOLS}))
    c = connector_from_config(
        {"type": "openai", "base_url": agent_stub.url + "/v1", "model": "m", "tools": "tools.json"},
        base_dir=tmp_path,
    )
    assert c.describe()["tools"] == ["geo", "forecast"]
    with pytest.raises(ConfigError) as info:
        connector_from_config(
            {"type": "openai", "base_url": agent_stub.url, "model": "m", "tools": [3]}
        )
    assert info.value.field == "connector.tools[0]"
    with pytest.raises(ConfigError) as info:
        connector_from_config({"type": "openai", "model": "m"})
    assert info.value.field == "connector.base_url"
