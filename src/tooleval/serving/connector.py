"""A plan's connector with an environment served to it: the one builder ``tooleval run`` uses.

An ``openai`` connector whose section names ``environment`` (or, when it has
neither ``environment`` nor ``tool_executor``, a plan whose top level does)
runs its tool loop on that environment, one fresh instance per row and
attempt (:class:`~tooleval.serving.sessions.EnvironmentTools`); an ``http`` or
``python`` connector that names ``serve`` (``mcp`` or ``http``) gets the
environment served over MCP and HTTP endpoints, one binding per row and
attempt (:class:`~tooleval.serving.served.ServedConnector`); every other
connector is built as :func:`tooleval.connectors.connector_from_config` builds
it.

>>> from tooleval.environments import FunctionEnvironment, register_environment
>>> register_environment("doc_shop", lambda config: FunctionEnvironment(
...     {"refund": lambda s, order_id: s.update({order_id: "refunded"})}, initial_state={}))
>>> c = connector_from_config({"type": "openai", "base_url": "http://127.0.0.1:9/v1",
...                            "model": "m", "environment": "doc_shop"})
>>> c.describe()["environment"]["name"], c.describe()["tools"]
('doc_shop', ['refund'])
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.connectors import config as connector_config
from tooleval.environments.plan_key import plan_environment
from tooleval.errors import ConfigError
from tooleval.serving import bfcl
from tooleval.serving.served import ServedConnector, serve_options
from tooleval.serving.sessions import EnvironmentTools
from tooleval.serving.users import user_from_config

__all__ = ["connector_from_config", "load_connector_file"]


def connector_from_config(
    config: Mapping[str, Any],
    *,
    base_dir: str | Path | None = None,
    prefix: str = "connector",
    environment: Any = None,
) -> Any:
    """The connector ``config`` describes, serving ``config["environment"]`` or ``environment``.

    ``environment`` is the plan's top-level ``environment`` (a name or
    ``{name, config}``); it serves an ``openai`` connector that names no
    environment and no ``tool_executor`` of its own.
    """
    if not isinstance(config, Mapping):
        raise ConfigError(f"expected a mapping, got {type(config).__name__}", field=prefix)
    base = Path(base_dir) if base_dir is not None else None
    if config.get("serve") is not None:
        return _served(config, base, prefix, environment)
    served, where = config.get("environment"), f"{prefix}.environment"
    if served is None and environment is not None and _loops_without_executor(config):
        served, where = environment, "environment"
    user = None
    if config.get("user") is not None:
        if not _is_openai(config):
            raise ConfigError(
                "a simulated user talks to an openai connector (type: openai)",
                field=f"{prefix}.user",
            )
        user = user_from_config(config["user"], field=f"{prefix}.user")
    if served is None and user is None:
        return connector_config.connector_from_config(config, base_dir=base, prefix=prefix)
    sessions = None
    if served is not None:
        if not _is_openai(config):
            raise ConfigError(
                "an environment is served to an openai connector's tool loop (type: openai)",
                field=where,
            )
        checked = plan_environment(served, where=where, base_dir=base)
        if bfcl.is_bfcl(checked):  # BFCL's entries run turn by turn (tooleval.serving.bfcl)
            return bfcl.chat_connector(config, checked, base_dir=base, prefix=prefix)
        tools = connector_config.tool_list(config.get("tools"), prefix, base)
        sessions = EnvironmentTools(checked, tools=tools or None)
    rest = {k: v for k, v in config.items() if k not in ("environment", "user")}
    return connector_config.connector_from_config(
        rest, base_dir=base, prefix=prefix, tool_sessions=sessions, user=user
    )


def load_connector_file(path: str | Path) -> Any:
    """The connector of a plan file (its ``connector:`` key) or a connector file, environment served.

    As :func:`tooleval.connectors.load_connector_file`, but a plan's top-level
    ``environment`` (or the connector's own ``environment``, ``serve`` or
    ``user``) is served as ``tooleval run`` serves it (``tooleval connector test``).
    """
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", file=str(path)) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", file=str(path)) from None
    if not isinstance(data, Mapping):
        raise ConfigError("expected a plan or a connector mapping", file=str(path))
    config = data.get("connector", data)
    environment = data.get("environment") if "connector" in data else None
    try:
        return connector_from_config(config, base_dir=path.parent, environment=environment)
    except ConfigError as exc:
        raise exc.with_context(file=str(path)) from None


def _served(
    config: Mapping[str, Any], base: Path | None, prefix: str, environment: Any
) -> ServedConnector:
    """An http or python connector whose agent reaches the environment over MCP or HTTP."""
    options = serve_options(config["serve"], field=f"{prefix}.serve")
    if _is_openai(config):
        raise ConfigError(
            "an openai connector runs the tool loop itself: give it environment, not serve "
            "(serve is for agents that call tools over MCP or HTTP: http or python connectors)",
            field=f"{prefix}.serve",
        )
    served, where = config.get("environment"), f"{prefix}.environment"
    if served is None:
        served, where = environment, "environment"
    if served is None:
        raise ConfigError(
            "serve needs an environment to serve: the plan's environment or the connector's",
            field=f"{prefix}.serve",
        )
    checked = plan_environment(served, where=where, base_dir=base)
    tools = bfcl.tools_for(checked)
    tools.tool_specs()  # an environment that cannot list its tools is refused up front
    rest = {k: v for k, v in config.items() if k not in ("environment", "serve")}
    inner = connector_config.connector_from_config(rest, base_dir=base, prefix=prefix)
    return ServedConnector(inner, tools, options)


def _is_openai(config: Mapping[str, Any]) -> bool:
    return connector_config.connector_kind(config) == "openai"


def _loops_without_executor(config: Mapping[str, Any]) -> bool:
    return _is_openai(config) and config.get("tool_executor") is None
