"""Tool results read by the HTTP connector's ``tool_results`` path, against the real agent stub."""

from __future__ import annotations

import pytest
from tests.agent_stub import AgentStub

from tooleval.connectors import HttpConnector, RetryPolicy
from tooleval.connectors.config import connector_from_config
from tooleval.connectors.paths import ResponseMapping, attach_results
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample, ToolCall
from tooleval.store.codec import sample_from_dict

FAST = RetryPolicy(retries=1, backoff=0.01, max_delay=0.05, jitter=0.1)
STEPS = {
    "output": "Order 4471 could not be cancelled: the order service is down.",
    "steps": [
        {"type": "tool_call", "id": "c1", "tool": {"name": "lookup_order", "args": {"id": "4471"}}},
        {"type": "tool_call", "id": "c2", "tool": {"name": "cancel_order", "args": {"id": "4471"}}},
        # Results arrive out of order and name the call they answer.
        {"type": "tool_result", "call_id": "c2", "error": "order service 503"},
        {"type": "tool_result", "call_id": "c1", "content": {"status": "shipped", "note": "<b>"}},
    ],
}
RESPONSE = {
    "output": "$.output",
    "tool_calls": "$.steps[?(@.type=='tool_call')]",
    "tool_results": "$.steps[?(@.type=='tool_result')]",
}


def _connector(stub: AgentStub, response: dict) -> HttpConnector:
    return HttpConnector(stub.url + "/agent", response=response, retry=FAST)


def test_results_are_attached_to_the_calls_they_answer(agent_stub: AgentStub) -> None:
    agent_stub.script("cancel 4471", body=STEPS)
    with _connector(agent_stub, RESPONSE) as c:
        r = c.call(Sample(input="cancel 4471", id="r1"))
    lookup, cancel = r.tools_called
    assert (lookup.name, lookup.result, lookup.is_error) == (
        "lookup_order",
        {"status": "shipped", "note": "<b>"},
        False,
    )
    assert (cancel.name, cancel.result, cancel.is_error) == (
        "cancel_order",
        "order service 503",
        True,
    )
    assert r.warnings == ()
    # Stored with the calls: the row's calls keep them through a round trip.
    filled = r.apply_to(Sample(input="cancel 4471", id="r1"))
    again = sample_from_dict(filled.to_dict())
    assert [(c.result, c.is_error) for c in again.actual_calls()] == [
        ({"status": "shipped", "note": "<b>"}, False),
        ("order service 503", True),
    ]


async def test_bare_results_answer_the_calls_in_order_async(agent_stub: AgentStub) -> None:
    body = {"calls": ["search", "fetch"], "results": [["a", "b"], "page text"]}
    agent_stub.script("q", body=body)
    c = _connector(agent_stub, {"tools_called": "$.calls", "tool_results": "$.results"})
    try:
        r = await c.acall("q")
    finally:
        await c.aclose()
    assert [(t.name, t.result) for t in r.tools_called] == [
        ("search", ["a", "b"]),
        ("fetch", "page text"),
    ]


def test_a_result_without_a_call_is_a_warning_not_dropped_silently(agent_stub: AgentStub) -> None:
    agent_stub.script("q", body={"calls": ["search"], "results": ["one", "two"]})
    with _connector(agent_stub, {"tools_called": "$.calls", "tool_results": "$.results"}) as c:
        r = c.call("q")
    assert r.tools_called[0].result == "one"
    assert len(r.warnings) == 1
    assert "1 of 2 results answer no call" in r.warnings[0]
    assert r.raw["results"] == ["one", "two"]  # still in the raw response


def test_a_missing_results_key_names_the_field(agent_stub: AgentStub) -> None:
    agent_stub.script("q", body={"calls": ["search"], "answers": []})
    response = {"tools_called": "$.calls", "tool_results": "$.results"}
    with _connector(agent_stub, response) as c, pytest.raises(ConnectorError) as caught:
        c.call("q")
    assert caught.value.field == "connector.response.tool_results"
    assert "answers" in str(caught.value)  # the keys that do exist
    lenient = {"tools_called": "$.calls", "tool_results": "$.results", "missing_is_empty": True}
    with _connector(agent_stub, lenient) as c:
        assert c.call("q").tools_called == [ToolCall("search")]


def test_no_step_of_the_result_type_means_no_results(agent_stub: AgentStub) -> None:
    agent_stub.script("q", tools=["search"])  # the stub's steps have no tool_result type
    response = {
        "tools_called": "$.steps[?(@.type=='tool_call')].tool.name",
        "tool_results": "$.steps[?(@.type=='tool_result')]",
    }
    with _connector(agent_stub, response) as c:
        r = c.call("q")
    assert [(t.name, t.result) for t in r.tools_called] == [("search", None)]


def test_config_refuses_results_without_calls_and_non_string_paths() -> None:
    with pytest.raises(ConfigError) as caught:
        connector_from_config(
            {"url": "http://127.0.0.1:9/agent", "response": {"tool_results": "$.results"}}
        )
    assert caught.value.field == "connector.response.tool_results"
    with pytest.raises(ConfigError) as caught:
        ResponseMapping.from_config({"tools_called": "$.calls", "tool_results": 3})
    assert caught.value.field == "connector.response.tool_results"
    with pytest.raises(ConfigError):
        ResponseMapping.from_config({"tools_called": "$.calls", "tool_results": "$[[["})
    c = connector_from_config(
        {
            "url": "http://127.0.0.1:9/agent",
            "response": {"tools_called": "$.c", "tool_results": "$.r"},
        }
    )
    assert c.describe()["response"] == {"tools_called": "$.c", "tool_results": "$.r"}


def test_attach_results_edge_cases() -> None:
    calls = [ToolCall("a", id="x"), ToolCall("b", id="y")]
    # No results, no calls, a null result and an id naming no call.
    assert attach_results(calls, []) == (calls, ())
    assert attach_results([], ["r"])[1] != ()
    out, _ = attach_results(calls, [None, {"tool_call_id": "nope", "content": "r2"}])
    assert [c.result for c in out] == [None, "r2"]
    # Two results naming the same call: the second answers the next free call.
    out, warnings = attach_results(calls, [{"id": "x", "content": 1}, {"id": "x", "content": 2}])
    assert [c.result for c in out] == [1, 2] and warnings == ()
    # A deeply nested result is kept as it is.
    deep: dict = {}
    node = deep
    for _ in range(200):
        node["n"] = {}
        node = node["n"]
    out, _ = attach_results(calls[:1], [deep])
    assert out[0].result is deep
    # is_error with no content still marks the call.
    out, _ = attach_results(calls[:1], [{"is_error": True, "content": None, "error": True}])
    assert out[0].is_error and out[0].result is None
