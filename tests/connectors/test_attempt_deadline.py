"""``timeout`` bounds the whole attempt, not each read: real misbehaving servers on 127.0.0.1.

An agent that answers 200 and then drips its body, one that hangs after the
headers, one that drips the headers themselves and one that never accepts:
each attempt ends at its deadline, through every transport (sync httpx,
async httpx, the aiohttp transport) and through multi-turn conversations.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from tests.misbehaving import DripServer, HangServer, never_accepting

from tooleval.connectors import HttpConnector
from tooleval.connectors.conversation import ConversationConnector, ConversationSpec
from tooleval.connectors.openai_chat import OpenAIChatConnector
from tooleval.connectors.retry import RetryPolicy
from tooleval.errors import ConfigError, ConnectorError

TIMEOUT = 0.6
# Generous slack for a loaded two-core machine (the first asyncio.run also imports the
# transport); without the deadline these servers keep the attempt going for good.
SLACK = 10.0
BOUND = TIMEOUT + SLACK

SERVERS = {
    "drip-body": lambda: DripServer(interval=0.05),
    "drip-headers": lambda: DripServer(interval=0.05, after_headers=False),
    "hang-after-headers": lambda: HangServer(),
    "hang-before-headers": lambda: HangServer(send_headers=False),
}


def _connector(url: str, **kwargs) -> HttpConnector:
    return HttpConnector(url, timeout=TIMEOUT, retry=RetryPolicy(retries=0), **kwargs)


def _timed(fn):
    started = time.monotonic()
    with pytest.raises(ConnectorError) as info:
        fn()
    return time.monotonic() - started, info.value


@pytest.mark.parametrize("kind", sorted(SERVERS))
def test_sync_attempt_ends_at_its_deadline(kind):
    with SERVERS[kind]() as server:
        connector = _connector(server.url)
        try:
            elapsed, error = _timed(lambda: connector.call("hi"))
        finally:
            connector.close()
    assert elapsed < BOUND, elapsed
    assert "Timeout" in error.message


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
@pytest.mark.parametrize("kind", sorted(SERVERS))
def test_async_attempt_ends_at_its_deadline(kind, transport):
    async def go(url):
        client = httpx.AsyncClient() if transport == "httpx" else None
        connector = _connector(url, async_client=client)
        try:
            return await connector.acall("hi")
        finally:
            await connector.aclose()
            if client is not None:
                await client.aclose()

    with SERVERS[kind]() as server:
        elapsed, error = _timed(lambda: asyncio.run(go(server.url)))
    assert elapsed < BOUND, elapsed
    assert "Timeout" in error.message


def test_every_retry_is_its_own_bounded_attempt():
    with DripServer(interval=0.05) as server:
        connector = HttpConnector(
            server.url, timeout=0.4, retry=RetryPolicy(retries=2, backoff=0.0, jitter=0.0)
        )
        elapsed, error = _timed(lambda: asyncio.run(connector.acall("hi")))
        asyncio.run(connector.aclose())
    assert server.connections == 3
    assert "after 3 attempts" in error.message
    assert elapsed < 3 * 0.4 + SLACK


def test_a_server_that_never_accepts_ends_at_the_deadline():
    with never_accepting() as url:
        connector = _connector(url)
        elapsed, _ = _timed(lambda: asyncio.run(connector.acall("hi")))
        asyncio.run(connector.aclose())
        elapsed_sync, _ = _timed(lambda: connector.call("hi"))
        connector.close()
    assert elapsed < BOUND and elapsed_sync < BOUND


def test_openai_chat_connector_attempts_are_bounded_too():
    with DripServer(interval=0.05) as server:
        base = server.url.rsplit("/", 1)[0] + "/v1"
        connector = OpenAIChatConnector(
            base_url=base, model="m", timeout=TIMEOUT, retry=RetryPolicy(retries=0)
        )
        elapsed, _ = _timed(lambda: asyncio.run(connector.acall("hi")))
        asyncio.run(connector.aclose())
    assert elapsed < BOUND


def test_a_conversation_has_a_total_deadline_beyond_its_turns(agent_stub):
    # Each turn answers within its own attempt timeout, but five of them (15 s) exceed the
    # total: the error names the conversation's deadline, and it came well before 15 s.
    agent_stub.default.delay = 3.0
    http = HttpConnector(agent_stub.url + "/agent", timeout=6.0, retry=RetryPolicy(retries=0))
    spec = ConversationSpec.from_config({"timeout": 1.0})
    connector = ConversationConnector(http, spec)
    sample = {"id": "r1", "turns": ["a", "b", "c", "d", "e"]}
    from tooleval.model import Sample

    row = Sample(id="r1", metadata={"turns": sample["turns"]})
    elapsed, error = _timed(lambda: asyncio.run(connector.acall(row)))
    asyncio.run(connector.aclose())
    assert elapsed < 1.0 + SLACK
    assert "1 s" in error.message and "conversation" in error.message
    assert error.context.get("row") == "r1"


def test_a_conversation_timeout_must_be_a_positive_number():
    for bad in (0, -1, "soon", True):
        with pytest.raises(ConfigError) as info:
            ConversationSpec.from_config({"timeout": bad})
        assert info.value.context.get("field") == "connector.conversation.timeout"
