"""A 200 OK whose body cannot be read is retried, and counted apart from HTTP retries."""

from __future__ import annotations

import asyncio

import pytest

from tooleval.connectors import HttpConnector, OpenAIChatConnector, RetryPolicy
from tooleval.connectors.retry import UnreadableBody
from tooleval.errors import ConnectorError

FAST = {"backoff": 0.001, "jitter": 0.0}
PATHS = {"tools_called": "$.steps[?(@.type=='tool_call')].tool.name"}


def _http(stub, **retry):
    return HttpConnector(
        stub.url + "/agent", response=PATHS, retry=RetryPolicy(**{**FAST, **retry})
    )


@pytest.mark.parametrize(
    "garbage", ['{"output": "trunc', "<html>502 Bad Gateway</html>", "", "\x1b[31mboom"]
)
def test_http_retries_an_unreadable_200_body(agent_stub, garbage):
    agent_stub.script("hi", tools=["search"], garbage_times=2, garbage=garbage)
    with _http(agent_stub, retries=2) as connector:
        response = connector.call("hi")
    assert [c.name for c in response.tools_called] == ["search"]
    assert response.retries == {"invalid_body": 2} and response.attempts == 3


def test_http_and_body_retries_are_counted_apart_async(agent_stub):
    agent_stub.script("hi", tools=["search"], fail_times=1, fail_status=503, garbage_times=1)

    async def go():
        async with _http(agent_stub, retries=2) as connector:
            return await connector.acall("hi")

    response = asyncio.run(go())
    assert response.retries == {"http": 1, "invalid_body": 1} and response.attempts == 3


def test_spent_retries_say_why(agent_stub):
    agent_stub.script("hi", garbage_times=9)
    with _http(agent_stub, retries=1) as connector, pytest.raises(ConnectorError) as info:
        connector.call("hi")
    assert "not JSON" in str(info.value)
    assert "[after 2 attempts (1 retried for an unreadable body)]" in str(info.value)
    assert info.value.retries == {"invalid_body": 1}
    assert agent_stub.attempts("hi") == 2


def test_the_condition_can_be_turned_off(agent_stub):
    agent_stub.script("hi", garbage_times=1)
    with (
        _http(agent_stub, retries=3, invalid_body=False) as connector,
        pytest.raises(ConnectorError, match=r"\[after 1 attempt\]"),
    ):
        connector.call("hi")
    assert agent_stub.attempts("hi") == 1
    with pytest.raises(Exception, match="connector.retry.invalid_body"):
        RetryPolicy(invalid_body="yes")
    assert (
        RetryPolicy.from_config({"invalid_body": False}, field="connector.retry").to_dict()[
            "invalid_body"
        ]
        is False
    )


def test_a_body_without_response_paths_is_kept_as_text_not_retried(agent_stub):
    agent_stub.script("hi", garbage_times=1, garbage="plain words")
    with HttpConnector(agent_stub.url + "/agent", retry=RetryPolicy(**FAST)) as connector:
        assert connector.call("hi").output == "plain words"
    assert agent_stub.attempts("hi") == 1


def test_openai_connector_retries_an_unreadable_completion(agent_stub):
    agent_stub.script("hi", tools=["search"], garbage_times=1)

    async def go():
        connector = OpenAIChatConnector(
            base_url=agent_stub.url + "/v1", model="m", retry=RetryPolicy(retries=1, **FAST)
        )
        try:
            return await connector.acall("hi")
        finally:
            await connector.aclose()

    response = asyncio.run(go())
    assert [c.name for c in response.tools_called] == ["search"]
    assert response.retries == {"invalid_body": 1}
    assert issubclass(UnreadableBody, ConnectorError)
