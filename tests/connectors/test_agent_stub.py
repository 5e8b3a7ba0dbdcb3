"""The agent stub itself behaves as documented (other areas rely on it)."""

from __future__ import annotations

import httpx
from tests.agent_stub import AgentStub, Behaviour


def test_agent_endpoint_returns_scripted_steps(agent_stub: AgentStub) -> None:
    agent_stub.script(
        "cancel 4471",
        tools=["lookup_order", {"name": "cancel_order", "args": {"id": "4471"}}],
        output="ok",
    )
    reply = httpx.post(agent_stub.url + "/agent", json={"input": "cancel 4471", "id": "r1"}).json()
    assert [s["tool"]["name"] for s in reply["steps"] if s["type"] == "tool_call"] == [
        "lookup_order",
        "cancel_order",
    ]
    assert reply["tool_calls"][1] == {"name": "cancel_order", "arguments": '{"id": "4471"}'}
    assert reply["output"] == "ok" and reply["id"] == "r1"
    assert agent_stub.requests[0].json == {"input": "cancel 4471", "id": "r1"}


def test_failures_then_success_and_retry_after(agent_stub: AgentStub) -> None:
    agent_stub.script("flaky", fail_times=2, fail_status=429, retry_after=1)
    first = httpx.post(agent_stub.url + "/agent", json={"input": "flaky"})
    second = httpx.post(agent_stub.url + "/agent", json={"input": "flaky"})
    third = httpx.post(agent_stub.url + "/agent", json={"input": "flaky"})
    assert [first.status_code, second.status_code, third.status_code] == [429, 429, 200]
    assert first.headers["retry-after"] == "1"
    assert agent_stub.attempts("flaky") == 3


def test_default_behaviour_raw_and_body(agent_stub: AgentStub) -> None:
    agent_stub.default = Behaviour(body={"answer": 42})
    assert httpx.post(agent_stub.url + "/x", json={"input": "?"}).json() == {"answer": 42}
    agent_stub.script("text", raw="not json")
    assert httpx.post(agent_stub.url + "/x", json={"input": "text"}).text == "not json"
    assert httpx.get(agent_stub.url + "/health").json() == {"ok": True}


def test_chat_completions_turns(agent_stub: AgentStub) -> None:
    agent_stub.script("weather", tools=["geo", "forecast"], chat_turns=[1, 1], output="sunny")
    url = agent_stub.url + "/v1/chat/completions"
    messages = [{"role": "user", "content": "weather"}]
    reply = httpx.post(url, json={"model": "m", "messages": messages}).json()
    assert reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "geo"
    messages += [
        reply["choices"][0]["message"],
        {"role": "tool", "tool_call_id": "call_0_0", "content": "x"},
    ]
    reply = httpx.post(url, json={"model": "m", "messages": messages}).json()
    assert reply["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "forecast"
    messages += [reply["choices"][0]["message"]]
    reply = httpx.post(url, json={"model": "m", "messages": messages}).json()
    assert reply["choices"][0]["message"]["content"] == "sunny"
    assert reply["choices"][0]["finish_reason"] == "stop"
