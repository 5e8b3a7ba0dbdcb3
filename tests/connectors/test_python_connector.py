"""CallableConnector: sync/async functions and every accepted return shape."""

from __future__ import annotations

import asyncio
import sys
import types

import pytest

from tooleval.connectors import AgentResponse, CallableConnector, connector_from_config
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample, ToolCall


def test_sync_function_dict_keys() -> None:
    def agent(text: str) -> dict:
        return {
            "output": f"done: {text}",
            "tools_called": ["lookup_order", {"name": "cancel_order", "args": {"id": "4471"}}],
        }

    r = CallableConnector(agent).call(Sample(input="cancel 4471", id="r1"))
    assert r.output == "done: cancel 4471"
    assert [str(c) for c in r.tools_called] == ["lookup_order()", "cancel_order(id='4471')"]
    assert r.latency_ms >= 0 and r.raw["output"] == "done: cancel 4471"


async def test_async_function_via_acall_runs_concurrently() -> None:
    started: list[str] = []

    async def agent(text: str) -> AgentResponse:
        started.append(text)
        await asyncio.sleep(0.01)
        return AgentResponse(text, [ToolCall("search")], None, 0.0)

    c = CallableConnector(agent)
    results = await asyncio.gather(*(c.acall(f"q{i}") for i in range(5)))
    assert [r.output for r in results] == [f"q{i}" for i in range(5)]
    assert all(r.latency_ms > 0 for r in results)


def test_async_function_via_sync_call() -> None:
    async def agent(text: str) -> str:
        return text[::-1]

    r = CallableConnector(agent).call("abc")
    assert r.output == "cba" and r.tools_called is None


async def test_sync_call_inside_running_loop_is_clear_error() -> None:
    async def agent(text: str) -> str:
        return text

    with pytest.raises(ConnectorError, match="use 'await connector.acall"):
        CallableConnector(agent).call("x")


async def test_sync_function_through_acall_runs_in_thread() -> None:
    r = await CallableConnector(lambda text: {"output": "ok", "tool_calls": []}).acall("x")
    assert r.output == "ok" and r.tools_called == []


def test_list_of_openai_messages() -> None:
    def agent(text: str) -> list:
        return [
            {"role": "user", "content": text},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
            {"role": "assistant", "content": "It is sunny."},
        ]

    r = CallableConnector(agent).call("weather in Paris")
    assert r.output == "It is sunny."
    (call,) = r.tools_called
    assert call.name == "get_weather" and call.args == {"city": "Paris"} and call.result == "sunny"
    assert len(r.messages) == 4


def test_dict_with_jsonpath_mapping() -> None:
    def agent(text: str) -> dict:
        return {"result": {"answer": "ok", "trace": [{"kind": "tool", "tool": "search"}]}}

    c = CallableConnector(
        agent,
        response={
            "output": "$.result.answer",
            "tools_called": "$.result.trace[?(@.kind=='tool')].tool",
        },
    )
    r = c.call("x")
    assert r.output == "ok" and [t.name for t in r.tools_called] == ["search"]
    bad = CallableConnector(agent, response={"tools_called": "$.result.trace[*]"})
    with pytest.raises(ConnectorError, match="resolved to objects with keys"):
        bad.call(Sample(input="x", id="r5"))


def test_argument_sample_and_row() -> None:
    seen = []
    CallableConnector(lambda s: seen.append(s) or "x", argument="sample").call(
        Sample(input="a", id="1")
    )
    CallableConnector(lambda r: seen.append(r) or "x", argument="row").call(
        Sample(input="b", id="2")
    )
    assert isinstance(seen[0], Sample) and seen[1] == {"id": "2", "input": "b"}


def test_agent_exception_becomes_connector_error_with_row() -> None:
    def agent(text: str) -> str:
        raise RuntimeError("model overloaded")

    with pytest.raises(ConnectorError) as info:
        CallableConnector(agent).call(Sample(input="x", id="r9"))
    assert "raised RuntimeError: model overloaded" in str(info.value)
    assert info.value.row == "r9"


def test_unreadable_return_value() -> None:
    with pytest.raises(ConnectorError, match="neither an AgentResponse"):
        CallableConnector(lambda text: 42).call("x")


def test_config_python_target(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("my_agent_for_tests")

    def run(text: str) -> dict:
        return {"output": text, "tools_called": ["echo"]}

    module.run = run
    monkeypatch.setitem(sys.modules, "my_agent_for_tests", module)
    c = connector_from_config({"type": "python", "target": "my_agent_for_tests:run"})
    assert c.call("hi").tools_called[0].name == "echo"
    assert c.describe() == {
        "type": "python",
        "target": "my_agent_for_tests:run",
        "argument": "input",
    }
    with pytest.raises(ConfigError) as info:
        connector_from_config({"type": "python", "target": "my_agent_for_tests:nope"})
    assert info.value.field == "connector.target"
    with pytest.raises(ConfigError, match="cannot import module 'no_such_mod_x'"):
        connector_from_config({"target": "no_such_mod_x:run"})
    with pytest.raises(ConfigError, match="expected 'package.module:function'"):
        connector_from_config({"type": "python", "target": "just_a_name"})
