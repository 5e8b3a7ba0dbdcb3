"""HttpConnector against the real agent stub on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket
import time

import httpx
import pytest
from tests.agent_stub import AgentStub, Behaviour

from tooleval.connectors import HttpConnector, RetryPolicy
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample

NAMES = "$.steps[?(@.type=='tool_call')].tool.name"
FAST = RetryPolicy(retries=3, backoff=0.01, max_delay=0.05, jitter=0.1)


def connector(stub: AgentStub, **options) -> HttpConnector:
    options.setdefault("response", {"output": "$.output", "tools_called": NAMES})
    options.setdefault("retry", FAST)
    return HttpConnector(stub.url + "/agent", **options)


def test_happy_path_sync(agent_stub: AgentStub) -> None:
    agent_stub.script("cancel 4471", tools=["lookup_order", "cancel_order"], output="Cancelled.")
    with connector(agent_stub) as c:
        r = c.call(Sample(input="cancel 4471", id="r1"))
    assert r.output == "Cancelled."
    assert [t.name for t in r.tools_called] == ["lookup_order", "cancel_order"]
    assert r.status == 200 and r.attempts == 1 and r.latency_ms > 0
    assert r.raw["input"] == "cancel 4471"  # default body is {"input": "{{input}}"}


async def test_happy_path_async_concurrent(agent_stub: AgentStub) -> None:
    for i in range(10):
        agent_stub.script(f"q{i}", tools=[f"tool{i}"])
    c = connector(agent_stub)
    try:
        results = await asyncio.gather(*(c.acall(f"q{i}") for i in range(10)))
    finally:
        await c.aclose()
    assert [r.tools_called[0].name for r in results] == [f"tool{i}" for i in range(10)]


def test_body_template_substitutes_json_values(agent_stub: AgentStub) -> None:
    body = {
        "query": "{{input}}",
        "session": "{{id}}",
        "limit": "{{metadata.limit}}",
        "user": "{{metadata.user}}",
        "note": "row {{id}} in {{category}}",
        "fixed": [1, True],
    }
    c = connector(agent_stub, body=body)
    sample = Sample(
        input="find x", id="r9", category="search", metadata={"limit": 5, "user": {"n": "a"}}
    )
    c.call(sample)
    c.close()
    assert agent_stub.requests[-1].json == {
        "query": "find x",
        "session": "r9",
        "limit": 5,
        "user": {"n": "a"},
        "note": "row r9 in search",
        "fixed": [1, True],
    }
    # The template itself is unchanged and reusable.
    assert c.body.template["limit"] == "{{metadata.limit}}"


def test_body_template_as_json_text_with_bare_placeholders(agent_stub: AgentStub) -> None:
    c = connector(agent_stub, body='{"input": {{input}}, "meta": {{metadata}}, "s": "id={{id}}"}')
    c.call(Sample(input='say "hi"', id="r2", metadata={"k": [1]}))
    c.close()
    assert agent_stub.requests[-1].json == {"input": 'say "hi"', "meta": {"k": [1]}, "s": "id=r2"}


def test_missing_metadata_key_names_it(agent_stub: AgentStub) -> None:
    c = connector(agent_stub, body={"x": "{{metadata.user.name}}"})
    with pytest.raises(ConnectorError, match=r"row has no metadata.user"):
        c.call(Sample(input="a", id="r1", metadata={}))
    c.close()


def test_bad_templates_are_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"unknown placeholder \{\{inptu\}\}"):
        HttpConnector("http://127.0.0.1:1/a", body={"q": "{{inptu}}"})
    with pytest.raises(ConfigError, match="not valid JSON"):
        HttpConnector("http://127.0.0.1:1/a", body='{"q": {{input}')


def test_env_header_resolved_at_call_time_and_never_described(
    agent_stub: AgentStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = connector(agent_stub, headers={"Authorization": "Bearer ${AGENT_TOKEN}", "X-Team": "qa"})
    monkeypatch.setenv("AGENT_TOKEN", "s3cret-value")
    c.call("hello")
    assert agent_stub.requests[-1].headers["authorization"] == "Bearer s3cret-value"
    assert agent_stub.requests[-1].headers["x-team"] == "qa"
    described = json.dumps(c.describe())
    assert "s3cret-value" not in described and "qa" not in described
    assert c.describe()["headers"] == ["Authorization", "X-Team"]
    # Changed between calls: read again each time.
    monkeypatch.setenv("AGENT_TOKEN", "rotated")
    c.call("hello")
    assert agent_stub.requests[-1].headers["authorization"] == "Bearer rotated"
    c.close()


def test_missing_env_var_is_config_error_naming_it(
    agent_stub: AgentStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOPE_TOKEN", raising=False)
    c = connector(agent_stub, headers={"Authorization": "Bearer ${NOPE_TOKEN}"})
    with pytest.raises(ConfigError) as info:
        c.call("hello")
    assert "NOPE_TOKEN is not set" in str(info.value)
    assert info.value.field == "connector.headers.Authorization"
    assert agent_stub.requests == []


def test_url_password_masked_in_describe() -> None:
    c = HttpConnector("http://bob:pw123@127.0.0.1:1/agent")
    assert "pw123" not in json.dumps(c.describe())


@pytest.mark.parametrize("status", [500, 502, 503])
def test_retries_5xx_then_succeeds(agent_stub: AgentStub, status: int) -> None:
    agent_stub.script("flaky", tools=["search"], fail_times=2, fail_status=status)
    r = connector(agent_stub).call("flaky")
    assert r.attempts == 3 and [t.name for t in r.tools_called] == ["search"]
    assert agent_stub.attempts("flaky") == 3


def test_429_honours_retry_after(agent_stub: AgentStub) -> None:
    agent_stub.script("limited", tools=["search"], fail_times=1, fail_status=429, retry_after=0.2)
    # A 5 s computed back-off would stall the test: the server's 0.2 s wins.
    policy = RetryPolicy(retries=2, backoff=5.0, max_delay=10.0, jitter=0.0)
    r = connector(agent_stub, retry=policy).call("limited")
    assert r.attempts == 2 and r.status == 200
    assert r.latency_ms >= 200


def test_gives_up_after_retries_with_status_url_attempts_excerpt(agent_stub: AgentStub) -> None:
    agent_stub.script("down", fail_times=99, fail_status=503)
    c = connector(agent_stub)
    with pytest.raises(ConnectorError) as info:
        c.call("down")
    err = info.value
    assert err.context["status"] == 503
    assert err.attempts == 4 and err.url == agent_stub.url + "/agent"
    assert "failed after 4 attempts: HTTP 503" in str(err)
    assert "scripted failure 4 of 99" in str(err)
    assert agent_stub.attempts("down") == 4


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_not_retried(agent_stub: AgentStub, status: int) -> None:
    agent_stub.script("bad", fail_times=5, fail_status=status)
    with pytest.raises(ConnectorError, match=f"after 1 attempt: HTTP {status}"):
        connector(agent_stub).call("bad")
    assert agent_stub.attempts("bad") == 1


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_connect_error_retried_then_reported() -> None:
    c = HttpConnector(f"http://127.0.0.1:{_closed_port()}/agent", retry=FAST)
    with pytest.raises(ConnectorError, match="failed after 4 attempts: ConnectError"):
        c.call("x")


def test_connect_error_recovers_via_transport() -> None:
    # A connection refused twice, then a reply: a fault shape a live server
    # cannot produce on demand, so a MockTransport plays it.
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] <= 2:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"output": "ok", "tools": ["a"]})

    client = httpx.Client(transport=httpx.MockTransport(handler))
    c = HttpConnector(
        "http://agent.test/run",
        client=client,
        retry=FAST,
        response={"output": "$.output", "tools_called": "$.tools"},
    )
    r = c.call("x")
    assert r.attempts == 3 and r.output == "ok"


def test_timeout_retried_then_fails(agent_stub: AgentStub) -> None:
    agent_stub.script("slow", delay=0.5)
    c = connector(agent_stub, timeout=0.1, retry=RetryPolicy(retries=1, backoff=0.01, jitter=0))
    with pytest.raises(ConnectorError, match="failed after 2 attempts: ReadTimeout"):
        c.call("slow")
    # The stub counts a request when its handler thread reads it; on a loaded machine that can
    # come after the client has already timed out, so give the server a moment to catch up.
    deadline = time.monotonic() + 10
    while agent_stub.attempts("slow") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert agent_stub.attempts("slow") == 2


def test_objects_instead_of_names_from_live_reply(agent_stub: AgentStub) -> None:
    agent_stub.script("q", tools=["search"])
    c = connector(agent_stub, response={"tools_called": "$.steps[?(@.type=='tool_call')]"})
    with pytest.raises(ConnectorError) as info:
        c.call(Sample(input="q", id="row-3"))
    assert "resolved to objects with keys ['tool', 'type']" in str(info.value)
    assert info.value.context["status"] == 200 and info.value.row == "row-3"


def test_path_matching_nothing_on_live_reply(agent_stub: AgentStub) -> None:
    c = connector(agent_stub, response={"tools_called": "$.trace[*].name"})
    with pytest.raises(
        ConnectorError, match=r"\$ matched 1 value \(dict\), but \['trace'\] did not"
    ):
        c.call("q")


def test_non_json_reply(agent_stub: AgentStub) -> None:
    agent_stub.default = Behaviour(raw="<html>oops</html>")
    with pytest.raises(ConnectorError, match="not JSON.*oops"):
        connector(agent_stub).call("q")
    plain = HttpConnector(agent_stub.url + "/agent")
    assert plain.call("q").output == "<html>oops</html>"
    assert plain.call("q").tools_called is None


def test_tool_calls_path_reads_args(agent_stub: AgentStub) -> None:
    agent_stub.script("cancel", tools=[{"name": "cancel_order", "args": {"order_id": "4471"}}])
    c = connector(agent_stub, response={"tool_calls": "$.tool_calls"})
    (call,) = c.call("cancel").tools_called
    assert call.name == "cancel_order" and call.args == {"order_id": "4471"}


def test_get_with_query_params(agent_stub: AgentStub) -> None:
    c = connector(agent_stub, method="GET", params={"q": "{{input}}", "n": 3})
    c.call("hello world")
    req = agent_stub.requests[-1]
    assert req.method == "GET" and req.path == "/agent?q=hello+world&n=3"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"url": ""}, "connector.url"),
        ({"url": "ftp://x"}, "connector.url"),
        ({"url": "http://x", "method": "DELETE"}, "connector.method"),
        ({"url": "http://x", "timeout": 0}, "connector.timeout"),
        ({"url": "http://x", "headers": {"A": 1}}, "connector.headers.A"),
    ],
)
def test_constructor_validation(kwargs: dict, field: str) -> None:
    url = kwargs.pop("url")
    with pytest.raises(ConfigError) as info:
        HttpConnector(url, **kwargs)
    assert info.value.field == field
