"""One HTTP server for the served episodes: MCP over streamable HTTP and plain JSON tool endpoints.

Every route is bound to a row and attempt by its token
(:class:`~tooleval.serving.bindings.Episodes`)::

    POST /episodes/{token}/mcp           MCP (streamable HTTP, the official SDK's transport)
    GET  /episodes/{token}/tools         the tools, as OpenAI tool specs
    POST /episodes/{token}/tools/{name}  one call: body = the arguments (a JSON object)
    POST /tools/{name}                   the same, token in the X-Tooleval-Episode header

A tool endpoint answers ``{"result": ..., "is_error": false}`` (status 200,
also when the tool failed: ``is_error`` is true and ``result`` says why); a
body that is not a JSON object is recorded as a refused call and answered 400.
A token that binds no live episode is answered 404 (never handed out) or 410
(its episode ended). An MCP session belongs to the episode whose URL opened
it: the same ``mcp-session-id`` on another episode's URL is refused (403).

Served standalone (``tooleval serve``), ``POST /episodes`` (body: an
optional row, ``{"id", "metadata"}``) opens an episode and answers its token
and URLs, and ``DELETE /episodes/{token}`` ends it and answers its record.
In a run, tooleval opens and ends them itself (:mod:`tooleval.serving.served`).

:class:`EpisodeServer` runs the app on 127.0.0.1 in a thread of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from tooleval._extras import require
from tooleval.errors import ConfigError, EpisodeRefused, ToolEvalError
from tooleval.model import Sample
from tooleval.serving.bindings import Episodes
from tooleval.serving.mcp_server import episode_runner, mcp_server

__all__ = ["HEADER", "MAX_BODY", "EpisodeServer", "episode_app"]

#: The header that carries an episode's token to ``POST /tools/{name}``.
HEADER = "X-Tooleval-Episode"
_SESSION = "mcp-session-id"
_SESSIONS_KEPT = 50_000
# Seconds an MCP session may sit idle before the SDK drops it (an episode is bound anyway).
_IDLE = 600.0
_START_SECONDS = 30.0
_KEEP_ALIVE = 300
#: Bytes of one call's arguments over the tool endpoints (the MCP SDK's own limit: 4 MiB).
MAX_BODY = 4 * 1024 * 1024


class _ClientGone(logging.Filter):
    """Drops the SDK's traceback for a client that closed its MCP session (nothing went wrong)."""

    def filter(self, record: logging.LogRecord) -> bool:
        gone = (
            record.exc_info is not None
            and type(record.exc_info[1]).__name__ == "ClosedResourceError"
        )
        return not (gone and "standalone SSE writer" in record.getMessage())


def _json(status: int, body: Any) -> Any:
    """A JSON answer; a value JSON cannot hold (a tool's object) is sent as its text."""
    from starlette.responses import Response

    text = json.dumps(body, default=str, ensure_ascii=False)
    return Response(text, status_code=status, media_type="application/json")


def _refused(exc: EpisodeRefused) -> Any:
    return _json(exc.status, {"error": exc.message})


class _McpRoute:
    """The MCP endpoint of one token: checks the binding, then hands the request to the SDK."""

    def __init__(self, episodes: Episodes, manager: Any) -> None:
        self.episodes = episodes
        self.manager = manager
        self.owners: dict[str, str] = {}  # mcp-session-id -> the token whose URL opened it

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        token = scope["path_params"]["token"]
        session = dict(scope.get("headers") or ()).get(_SESSION.encode(), b"").decode("latin-1")
        try:
            binding = self.episodes.get(token)
            owner = self.owners.get(session) if session else None
            if owner is not None and owner != token:
                raise EpisodeRefused(
                    f"this MCP session was opened for another episode; the URL binds "
                    f"row {binding.row!r} (attempt {binding.attempt})",
                    403,
                )
        except EpisodeRefused as exc:
            await _refused(exc)(scope, receive, send)
            return

        async def remember(message: Any) -> None:
            if message["type"] == "http.response.start" and not session:
                for key, value in message.get("headers") or ():
                    if key.decode("latin-1").lower() == _SESSION:
                        self._own(value.decode("latin-1"), token)
            await send(message)

        await self.manager.handle_request(scope, receive, remember)

    def _own(self, session: str, token: str) -> None:
        self.owners[session] = token
        if len(self.owners) > _SESSIONS_KEPT:
            self.owners.pop(next(iter(self.owners)))


def episode_app(episodes: Episodes, *, base_url: str = "", open_episodes: bool = False) -> Any:
    """The Starlette app of the routes above; ``open_episodes`` adds ``POST``/``DELETE /episodes``."""
    require("mcp", "mcp", "starlette")
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import Route

    server = mcp_server(
        episodes.tools.tool_specs(),
        episode_runner(episodes, lambda context: context.request.path_params["token"]),
    )
    manager = StreamableHTTPSessionManager(server, json_response=True, session_idle_timeout=_IDLE)
    sdk_log = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, _ClientGone) for f in sdk_log.filters):
        sdk_log.addFilter(_ClientGone())

    async def list_tools(request: Request) -> Any:
        try:
            episodes.get(request.path_params["token"])
        except EpisodeRefused as exc:
            return _refused(exc)
        return _json(200, episodes.tools.tool_specs())

    async def call(request: Request) -> Any:
        token = request.path_params.get("token") or request.headers.get(HEADER, "")
        name = request.path_params["name"]
        try:
            episodes.get(token)
        except EpisodeRefused as exc:
            return _refused(exc)
        body = await request.body()
        arguments: Any = None
        why = None
        if len(body) > MAX_BODY:
            why = f"the body is {len(body)} bytes; a call's arguments may take {MAX_BODY}"
        else:
            try:
                arguments = json.loads(body) if body.strip() else {}
            except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
                why = f"the body is not JSON: {type(exc).__name__}: {exc}"
        if why is None and not isinstance(arguments, dict):
            why = f"the body must be a JSON object of arguments, got {type(arguments).__name__}"
        try:
            done = await asyncio.to_thread(
                episodes.call, token, name, arguments if why is None else None, parse_error=why
            )
        except EpisodeRefused as exc:
            return _refused(exc)
        return _json(400 if why else 200, {"result": done.result, "is_error": done.is_error})

    async def open_episode(request: Request) -> Any:
        body = await request.body()
        try:
            row = json.loads(body) if body.strip() else {}
            if not isinstance(row, dict):
                raise ValueError(f"expected an object, got {type(row).__name__}")
            sample = Sample(
                id=str(row.get("id") or "episode"), metadata=dict(row.get("metadata") or {})
            )
            binding = await asyncio.to_thread(episodes.bind, sample)
        except (ValueError, TypeError, ToolEvalError) as exc:
            return _json(400, {"error": f"cannot open an episode: {exc}"})
        return _json(201, urls(base_url, binding.token))

    async def close_episode(request: Request) -> Any:
        try:
            record = await asyncio.to_thread(episodes.release, request.path_params["token"])
        except EpisodeRefused as exc:
            return _refused(exc)
        return _json(200, record)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    routes = [
        Route(
            "/episodes/{token}/mcp", _McpRoute(episodes, manager), methods=["GET", "POST", "DELETE"]
        ),
        Route("/episodes/{token}/tools", list_tools, methods=["GET"]),
        Route("/episodes/{token}/tools/{name}", call, methods=["POST"]),
        Route("/tools/{name}", call, methods=["POST"]),
    ]
    if open_episodes:
        routes += [
            Route("/episodes", open_episode, methods=["POST"]),
            Route("/episodes/{token}", close_episode, methods=["DELETE"]),
        ]
    return Starlette(routes=routes, lifespan=lifespan)


def urls(base_url: str, token: str) -> dict[str, str]:
    """What an agent is handed for one episode: its token and its URLs."""
    root = f"{base_url}/episodes/{token}"
    return {
        "token": token,
        "mcp_url": f"{root}/mcp",
        "tools_url": f"{root}/tools",
        "header": HEADER,
    }


class EpisodeServer:
    """The app on ``host:port`` (0: a free port) in a background thread; :meth:`start`, :meth:`stop`."""

    def __init__(
        self,
        episodes: Episodes,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        open_episodes: bool = False,
    ) -> None:
        self.episodes = episodes
        self.host = host
        self.port = port
        self.open_episodes = open_episodes
        self.base_url = ""
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> str:
        """Start serving (once); the base URL."""
        with self._lock:
            if self._thread is not None:
                return self.base_url
            require("mcp", "uvicorn")
            import uvicorn

            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((self.host, self.port))
            except OSError as exc:
                sock.close()
                raise ConfigError(
                    f"cannot serve on {self.host}:{self.port}: {exc.strerror or exc}",
                    field="serve.port",
                ) from None
            self.port = sock.getsockname()[1]
            self.base_url = f"http://{self.host}:{self.port}"
            app = episode_app(
                self.episodes, base_url=self.base_url, open_episodes=self.open_episodes
            )
            config = uvicorn.Config(
                app,
                log_level="warning",
                lifespan="on",
                access_log=False,
                # An agent busy between two calls (thinking, or its loop scoring rows) keeps its
                # connection: uvicorn's 5 s default drops it under the client mid-episode.
                timeout_keep_alive=_KEEP_ALIVE,
            )
            self._server = uvicorn.Server(config)
            self._thread = threading.Thread(
                target=lambda: asyncio.run(self._server.serve(sockets=[sock])),
                name="tooleval-episode-server",
                daemon=True,
            )
            self._thread.start()
            pause = threading.Event()
            until = time.monotonic() + _START_SECONDS
            while not self._server.started and self._thread.is_alive() and time.monotonic() < until:
                pause.wait(0.01)
            if not self._server.started:
                raise ConfigError(
                    f"the episode server on {self.base_url} did not start within {_START_SECONDS:g} s",
                    field="serve",
                )
            return self.base_url

    def stop(self) -> None:
        with self._lock:
            if self._server is not None:
                self._server.handle_exit(signal.SIGTERM, None)  # uvicorn's own way to stop
            if self._thread is not None:
                self._thread.join(_START_SECONDS)
            self._thread = None
            self._server = None
        self.episodes.close()
