"""Agents that call their tools themselves, over what tooleval serves: MCP (HTTP, stdio) or HTTP.

Each plays a script of tool calls (``SCRIPTS[row id]``: the actions and the
closing reply) through the transport the row is handed in
``metadata.serving``, with the official ``mcp`` SDK's clients, or httpx for
the plain JSON endpoints, and answers ``{"output": closing}``. They report no
calls of their own: tooleval records what was executed.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

#: row id -> (actions, closing reply); filled by the test before the run.
SCRIPTS: dict[str, tuple[list[tuple[str, dict[str, Any]]], str]] = {}


def _script(sample: Any) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    return SCRIPTS[sample.id.split("#")[0]]


async def _play(session: ClientSession, actions: list[tuple[str, dict[str, Any]]]) -> None:
    await session.initialize()
    for name, kwargs in actions:
        await session.call_tool(name, kwargs)


def _leaf(group: BaseExceptionGroup) -> BaseException:
    """The first error inside an exception group (the SDK's task groups wrap them)."""
    inner = group.exceptions[0]
    return _leaf(inner) if isinstance(inner, BaseExceptionGroup) else inner


async def mcp_agent(sample: Any) -> dict[str, Any]:
    """The script over MCP streamable HTTP (the URL the row is handed)."""
    try:
        return await _mcp_agent(sample)
    except BaseExceptionGroup as group:
        raise _leaf(group) from None


async def _mcp_agent(sample: Any) -> dict[str, Any]:
    actions, closing = _script(sample)
    # Generous deadlines: the runner scores other rows on the loop this agent shares.
    async with (
        httpx.AsyncClient(timeout=httpx.Timeout(300)) as client,
        streamable_http_client(sample.metadata["serving"]["mcp_url"], http_client=client) as (
            read,
            write,
            _,
        ),
        ClientSession(read, write) as session,
    ):
        await _play(session, actions)
    return {"output": closing}


def stdio_parameters(command: list[str]) -> StdioServerParameters:
    # The child needs this checkout's sources (PYTHONPATH) like the test process.
    return StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))


async def stdio_agent(sample: Any) -> dict[str, Any]:
    """The script over an MCP server on stdio that the agent starts (the row's mcp_command)."""
    try:
        return await _stdio_agent(sample)
    except BaseExceptionGroup as group:
        raise _leaf(group) from None


async def _stdio_agent(sample: Any) -> dict[str, Any]:
    actions, closing = _script(sample)
    command = sample.metadata["serving"]["mcp_command"]
    assert command[0] == sys.executable
    async with (
        stdio_client(stdio_parameters(command)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await _play(session, actions)
    return {"output": closing}


async def http_agent(sample: Any) -> dict[str, Any]:
    """The script over the plain JSON endpoints, the binding in the header."""
    actions, closing = _script(sample)
    serving = sample.metadata["serving"]
    root = serving["mcp_url"].rsplit("/episodes/", 1)[0]
    async with httpx.AsyncClient(timeout=300) as client:
        for name, kwargs in actions:
            answer = await client.post(
                f"{root}/tools/{name}", json=kwargs, headers={serving["header"]: serving["token"]}
            )
            assert answer.status_code == 200, answer.text
    return {"output": closing}


AGENTS = {"mcp": "mcp_agent", "stdio": "stdio_agent", "http": "http_agent"}
