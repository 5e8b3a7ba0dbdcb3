"""``tooleval serve mcp`` and ``tooleval serve http``: an environment served to an agent (docs/episodes.md).

``serve mcp`` is an MCP server over stdio, one fresh environment for the one
session (``--record FILE`` keeps what was called), or, with ``--attach URL``,
a stdio MCP server bound to one episode of a running ``tooleval run`` (the
``mcp_command`` a row is handed). ``serve http`` serves on 127.0.0.1: MCP
over streamable HTTP and plain JSON tool endpoints, ``POST /episodes`` opening
one fresh environment per episode and ``DELETE /episodes/{token}`` ending it
with its record. Exit 0 when the server stopped, 2 for a bad option.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from tooleval.cli._groups import add_verb_group


def register(subparsers: argparse._SubParsersAction) -> None:
    verbs = add_verb_group(
        subparsers,
        "serve",
        help="serve an environment's tools to an agent (MCP, HTTP)",
        description="Serve an environment to the agent under test; tooleval runs and records every call.",
    )
    mcp = verbs.add_parser(
        "mcp",
        help="an MCP server over stdio (one fresh environment for the session)",
        description=(
            "Serve an environment as an MCP server over stdio: one fresh environment for the "
            "session, every call run and recorded by tooleval (--record FILE writes the record "
            "when the client closes). With --attach URL, serve one episode of a running "
            "`tooleval run` (the mcp_command a row is handed) instead."
        ),
    )
    _environment_options(mcp)
    mcp.add_argument(
        "--record", metavar="FILE", help="write the episode's record (JSON) here on exit"
    )
    mcp.add_argument(
        "--attach",
        metavar="TOOLS_URL",
        help="serve the episode of a run at this tools URL (metadata.serving.tools_url)",
    )
    mcp.add_argument(
        "--timeout", type=float, default=60.0, help="seconds per call to the run (--attach; 60)"
    )
    mcp.set_defaults(handler=_mcp)
    http = verbs.add_parser(
        "http",
        help="MCP (streamable HTTP) and JSON tool endpoints on 127.0.0.1",
        description=(
            "Serve an environment over HTTP: POST /episodes opens an episode (a fresh "
            "environment; answers its token, mcp_url and tools_url), the agent calls "
            "/episodes/TOKEN/mcp (MCP) or POST /episodes/TOKEN/tools/NAME, and DELETE "
            "/episodes/TOKEN ends it and answers its record. Stops on Ctrl-C or SIGTERM."
        ),
    )
    _environment_options(http)
    http.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    http.add_argument("--port", type=int, default=8765, help="port (8765; 0: any free one)")
    http.set_defaults(handler=_http)


def _environment_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--environment",
        metavar="NAME",
        help="registered name, module:attribute or file.py:attribute (as a plan's environment)",
    )
    parser.add_argument(
        "--config", metavar="JSON", default="{}", help="the environment factory's config (JSON)"
    )
    parser.add_argument(
        "--initial-state", metavar="FILE", help="JSON file with the initial state (stdio)"
    )


def _tools(args: argparse.Namespace) -> Any:
    from tooleval.environments.plan_key import plan_environment
    from tooleval.errors import ConfigError
    from tooleval.serving import EnvironmentTools

    if not args.environment:
        raise ConfigError("name the environment to serve", field="--environment")
    try:
        config = json.loads(args.config)
    except ValueError as exc:
        raise ConfigError(f"not JSON: {exc}", field="--config") from None
    checked = plan_environment(
        {"name": args.environment, "config": config}, where="--environment", base_dir=Path.cwd()
    )
    tools = EnvironmentTools(checked)
    tools.tool_specs()  # refused now, not at the agent's first call
    return tools


def _row(args: argparse.Namespace) -> Any:
    from tooleval.errors import ConfigError
    from tooleval.model import Sample

    if not args.initial_state:
        return Sample(id="stdio")
    path = Path(args.initial_state)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}", field="--initial-state") from None
    return Sample(id="stdio", metadata={"environment": {"initial_state": state}})


def _mcp(args: argparse.Namespace) -> int:
    from tooleval.errors import ConfigError
    from tooleval.serving.mcp_server import attached_runner, mcp_server, run_stdio, serve_stdio

    if args.attach:
        if args.environment or args.record or args.initial_state:
            raise ConfigError(
                "--attach serves a run's episode: the run holds its environment and record",
                field="--attach",
            )
        specs, runner = attached_runner(args.attach, args.timeout)
        run_stdio(mcp_server(specs, runner))
        return 0
    record = Path(args.record) if args.record else None
    serve_stdio(_tools(args), _row(args), record)
    return 0


def _http(args: argparse.Namespace) -> int:
    from tooleval.serving.bindings import Episodes
    from tooleval.serving.http_app import EpisodeServer

    server = EpisodeServer(
        Episodes(_tools(args)), host=args.host, port=args.port, open_episodes=True
    )
    base = server.start()
    print(f"tooleval: serving on {base} (POST {base}/episodes opens an episode)", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(1.0):
        continue
    server.stop()
    print("tooleval: stopped", file=sys.stderr)
    return 0
