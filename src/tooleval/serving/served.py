"""A connector whose agent runs its own tools, over MCP or HTTP endpoints that tooleval serves.

The plan's connector (``http`` or ``python``) names ``serve``::

    connector:
      url: http://127.0.0.1:9000/agent
      body: {task: "{{input}}", mcp: "{{metadata.serving.mcp_url}}"}
      serve: mcp                  # or stdio, http, or {transport: mcp, port: 0, call_timeout: 60}
    environment: {name: tooleval.serving.tau_bench:retail}

For every row and attempt, :class:`ServedConnector` binds a fresh
environment (:class:`~tooleval.serving.bindings.Episodes`), hands the agent
the binding in ``metadata.serving`` (``token``, ``mcp_url``, ``tools_url``,
``header``, ``mcp_command``: the command line of a stdio MCP server bound to
the same episode; placeholders of the body template, or the sample a Python agent
gets), calls the agent, then ends the episode. The row's ``tools_called`` are
the calls tooleval executed and recorded (``metadata.episode``), never what the
agent reported.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from collections.abc import Mapping
from typing import Any

from tooleval.connectors.response import AgentResponse, as_sample
from tooleval.errors import ConfigError, ConnectorError, ToolEvalError
from tooleval.model import Sample, ToolCall
from tooleval.serving.bindings import CALL_DEADLINE, Episodes
from tooleval.serving.http_app import EpisodeServer, urls
from tooleval.serving.sessions import EnvironmentTools

__all__ = ["TRANSPORTS", "ServedConnector", "serve_options"]

TRANSPORTS = ("mcp", "stdio", "http")
_KEYS = ("transport", "host", "port", "call_timeout")


def serve_options(value: Any, *, field: str = "connector.serve") -> dict[str, Any]:
    """The ``serve`` key checked: ``{transport, host, port, call_timeout}``.

    >>> serve_options("mcp")
    {'transport': 'mcp', 'host': '127.0.0.1', 'port': 0, 'call_timeout': 60.0}
    """
    if isinstance(value, str):
        value = {"transport": value}
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"expected mcp, http or a mapping with transport, got {type(value).__name__}",
            field=field,
        )
    unknown = sorted(set(value) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown key; expected {', '.join(_KEYS)}", field=f"{field}.{unknown[0]}"
        )
    transport = value.get("transport", "mcp")
    if transport not in TRANSPORTS:
        raise ConfigError(
            f"expected mcp, stdio or http, got {transport!r}", field=f"{field}.transport"
        )
    host = value.get("host", "127.0.0.1")
    if not isinstance(host, str) or not host:
        raise ConfigError(f"expected a host name, got {host!r}", field=f"{field}.host")
    port = value.get("port", 0)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ConfigError(
            f"expected a port 0-65535 (0: any free one), got {port!r}", field=f"{field}.port"
        )
    seconds = value.get("call_timeout", CALL_DEADLINE)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds <= 0:
        raise ConfigError(f"expected seconds > 0, got {seconds!r}", field=f"{field}.call_timeout")
    return {"transport": transport, "host": host, "port": port, "call_timeout": float(seconds)}


class ServedConnector:
    """``inner`` (the agent) with an environment served to it per row and attempt."""

    def __init__(self, inner: Any, tools: EnvironmentTools, options: Mapping[str, Any]) -> None:
        self.inner = inner
        # What the agent is given of a row (preflight's question): the inner connector's answer.
        self.argument = getattr(inner, "argument", "input")
        self.tools = tools
        self.options = dict(options)
        self.episodes = Episodes(tools, call_deadline=self.options["call_timeout"])
        self.server = EpisodeServer(
            self.episodes, host=self.options["host"], port=self.options["port"]
        )

    def describe(self) -> dict[str, Any]:
        described = getattr(self.inner, "describe", None)
        out = dict(described()) if callable(described) else {}
        out["serve"] = {
            "transport": self.options["transport"],
            "environment": self.tools.describe(),
            "call_timeout": self.options["call_timeout"],
        }
        return out

    def _bind(self, sample: Sample) -> tuple[str, Sample]:
        base = self.server.start()
        try:
            binding = self.episodes.bind(sample)
        except ToolEvalError as exc:
            raise ConnectorError(
                f"the environment could not start for this row: {exc.message}", row=sample.id
            ) from None
        handed = {**urls(base, binding.token), "transport": self.options["transport"]}
        # An agent that starts its MCP servers itself launches this one (stdio, bound the same way).
        handed["mcp_command"] = [
            sys.executable,
            "-m",
            "tooleval",
            "serve",
            "mcp",
            "--attach",
            handed["tools_url"],
        ]
        return binding.token, dataclasses.replace(
            sample, metadata={**sample.metadata, "serving": handed}
        )

    def _done(self, response: AgentResponse, record: dict[str, Any]) -> AgentResponse:
        record = {**record, "transport": self.options["transport"]}
        response.tools_called = [
            ToolCall(
                c["name"],
                c["args"] if isinstance(c.get("args"), dict) else {},
                id=c.get("id"),
                result=c.get("result"),
                is_error=bool(c.get("is_error")),
            )
            for c in record["calls"]
        ]
        response.metadata = {**(response.metadata or {}), "episode": record}
        return response

    def call(self, sample: Sample | str) -> AgentResponse:
        """One row: bind, call the agent, end the episode, the recorded calls."""
        token, handed = self._bind(as_sample(sample))
        try:
            response = self.inner.call(handed)
        finally:
            record = self.episodes.release(token)
        return self._done(response, record)

    async def acall(self, sample: Sample | str) -> AgentResponse:
        """The same as :meth:`call`, asynchronously (many rows' episodes at once)."""
        token, handed = await asyncio.to_thread(self._bind, as_sample(sample))
        try:
            response = await self.inner.acall(handed)
        finally:
            record = await asyncio.to_thread(self.episodes.release, token)
        return self._done(response, record)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.server.stop()

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            await asyncio.to_thread(self.server.stop)
