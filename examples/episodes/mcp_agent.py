"""A scripted agent that calls its tools itself over MCP, for the episodes example.

tooleval hands each row the URL of an MCP server bound to that row's fresh
environment (``metadata.serving.mcp_url``); this agent connects with the
official ``mcp`` SDK's client, lists the tools, and makes the calls
model_server.py's script would make for the request (a real agent would let
its model pick them). It reports no calls of its own: tooleval records what
ran. ``plan_mcp.yaml`` runs it (``argument: sample``).
"""

from __future__ import annotations

from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from model_server import _plan


async def run(sample: Any) -> dict[str, Any]:
    url = sample.metadata["serving"]["mcp_url"]
    last = ""
    async with (
        httpx.AsyncClient(timeout=60) as client,
        streamable_http_client(url, http_client=client) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        offered = {tool.name for tool in (await session.list_tools()).tools}
        for name, args in _plan(sample.input):
            if name in offered:
                result = await session.call_tool(name, args)
                last = result.content[0].text if result.content else ""
    return {"output": f"Done: {last}"}
