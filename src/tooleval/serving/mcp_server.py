"""An environment served as an MCP server (the official ``mcp`` SDK), every call run by tooleval.

:func:`mcp_server` builds a low-level MCP server whose ``tools/list`` answers
the environment's tool specs and whose ``tools/call`` runs the call in the
episode the request is bound to (:class:`~tooleval.serving.bindings.Episodes`):
over streamable HTTP the token in the request's URL path
(``/episodes/{token}/mcp``, see :mod:`tooleval.serving.http_app`), over stdio
the one episode of the process (:func:`serve_stdio`). The SDK's own schema
check of the arguments is off: a call with bad arguments reaches tooleval,
is refused there and is recorded like every other call.

A result is one text block (JSON for anything but text), ``isError`` when the
call failed, so the agent sees what tau-bench's agents see.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tooleval._extras import require
from tooleval.connectors.openai_chat import normalise_tools
from tooleval.errors import ConfigError, EpisodeRefused
from tooleval.model import Sample
from tooleval.serving.bindings import Episodes
from tooleval.serving.sessions import EnvironmentTools

__all__ = [
    "attached_runner",
    "episode_runner",
    "mcp_server",
    "result_text",
    "run_stdio",
    "serve_stdio",
]

NAME = "tooleval"


def result_text(result: Any) -> str:
    """A call's result as the text a transport returns (JSON for anything but text).

    >>> result_text({"a": 1}), result_text("ok")
    ('{"a": 1}', 'ok')
    """
    return result if isinstance(result, str) else json.dumps(result, default=str)


Runner = Callable[[Any, str, dict[str, Any]], Awaitable[tuple[Any, bool]]]


def mcp_server(specs: list[dict[str, Any]], run: Runner) -> Any:
    """A low-level ``mcp`` server offering ``specs``; ``run(request_context, name, arguments)`` runs a call.

    ``run`` answers ``(result, is_error)``; a refused binding answers its reason as an error.
    """
    require("mcp", "mcp")
    from mcp import types
    from mcp.server.lowlevel import Server

    server: Any = Server(NAME)
    tools = [
        types.Tool(
            name=spec["function"]["name"],
            description=spec["function"].get("description") or spec["function"]["name"],
            inputSchema=spec["function"].get("parameters") or {"type": "object"},
        )
        for spec in normalise_tools(specs, field="environment tools")
    ]

    @server.list_tools()
    async def list_tools() -> list[Any]:
        return list(tools)

    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        try:
            result, is_error = await run(server.request_context, name, arguments)
        except EpisodeRefused as exc:
            result, is_error = exc.message, True
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result_text(result))], isError=is_error
        )

    return server


def episode_runner(episodes: Episodes, token_of: Callable[[Any], str]) -> Runner:
    """Calls run in the episode ``token_of(request_context)`` names, in a worker thread."""
    import anyio

    async def run(context: Any, name: str, arguments: dict[str, Any]) -> tuple[Any, bool]:
        token = token_of(context)
        done = await anyio.to_thread.run_sync(
            lambda: episodes.call(token, name, arguments), abandon_on_cancel=True
        )
        return done.result, done.is_error

    return run


def attached_runner(tools_url: str, timeout: float) -> tuple[list[dict[str, Any]], Runner]:
    """The tools and calls of a run's episode at ``tools_url`` (``tooleval serve mcp --attach``).

    The calls go to the run's plain HTTP endpoints, so the run records them.
    """
    import httpx

    try:
        listed = httpx.get(tools_url, timeout=timeout)
    except httpx.HTTPError as exc:
        raise ConfigError(f"cannot reach {tools_url}: {exc}", field="--attach") from None
    if listed.status_code != 200:
        raise ConfigError(
            f"{tools_url} answered {listed.status_code}: {listed.text[:200]}", field="--attach"
        )
    client = httpx.AsyncClient(timeout=timeout)

    async def run(context: Any, name: str, arguments: dict[str, Any]) -> tuple[Any, bool]:
        try:
            answer = await client.post(f"{tools_url}/{name}", json=arguments)
            body = answer.json()
        except (httpx.HTTPError, ValueError) as exc:
            return f"{name}: the run's episode server failed: {exc}", True
        if "error" in body:
            return body["error"], True
        return body.get("result"), bool(body.get("is_error"))

    return list(listed.json()), run


def serve_stdio(
    tools: EnvironmentTools, sample: Sample, record: Path | None = None
) -> dict[str, Any]:
    """Serve one fresh environment over stdio until the client closes; the episode's record.

    The record (what ``metadata.episode`` holds) is written to ``record`` as
    JSON when given, so the harness that launched the server can score it.
    """
    require("mcp", "mcp")
    episodes = Episodes(tools)
    binding = episodes.bind(sample)
    runner = episode_runner(episodes, lambda _context: binding.token)
    try:
        run_stdio(mcp_server(tools.tool_specs(), runner))
    finally:
        done = episodes.release(binding.token)
        if record is not None:
            record.write_text(json.dumps(done, default=str, ensure_ascii=False), encoding="utf-8")
        print(
            f"tooleval: episode ended after {len(done['calls'])} calls",
            file=sys.stderr,
            flush=True,
        )
    return done


def run_stdio(server: Any) -> None:
    """Serve ``server`` over this process's stdin and stdout until the client closes."""
    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
