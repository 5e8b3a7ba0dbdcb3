"""Build a connector from the ``connector:`` section of a plan file.

Schema (every key optional unless marked; unknown keys are errors)::

    connector:
      type: http                  # http (default when url is set) | python | openai
      # --- http
      url: http://127.0.0.1:8000/agent        # required; may use ${ENV}
      method: POST                # GET, POST, PUT, PATCH
      headers: {Authorization: "Bearer ${AGENT_TOKEN}"}
      body: {input: "{{input}}", session: "{{id}}"}   # mapping or JSON text
      params: {lang: "{{metadata.lang}}"}             # query string (templated)
      timeout: 30                 # seconds per attempt
      retry: {retries: 2, backoff: 0.5, max_delay: 30, jitter: 0.1}   # or retry: 3
      response:
        output: $.output
        tools_called: $.steps[?(@.type=='tool_call')].tool.name
        tool_calls: $.tool_calls  # full calls with args (wins over tools_called)
        tool_results: $.steps[?(@.type=='tool_result')]  # what each call returned
        missing_is_empty: false
      # --- python
      target: my_agent.module:run              # required
      argument: input             # input | sample | row
      response: {...}             # optional, applied when the function returns a dict
      timeout: 300                # seconds per call (null: none); past it the row is an error
      # --- openai
      base_url: http://127.0.0.1:8080/v1       # required
      model: my-model                          # required
      api_key_env: OPENAI_API_KEY
      tools: [...]                # OpenAI tool specs, or a path to a JSON/YAML file of them
      system: "You are ..."
      params: {temperature: 0}
      tool_executor: my_tools:run # optional; loops up to max_turns
      environment: {name: orders} # or: tools served from an environment (docs/episodes.md)
      episode_timeout: 300        # seconds one whole episode may take (with environment or user)
      user: {type: openai, model: m, base_url: ..., persona: ..., max_turns: 10}  # simulated user
      max_turns: 8
      timeout: 60
      retry: ...

>>> c = connector_from_config({"url": "http://127.0.0.1:9/agent",
...                            "response": {"tools_called": "$.steps[*].tool.name"}})
>>> c.describe()["response"]
{'tools_called': '$.steps[*].tool.name'}
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.connectors.http import HttpConnector
from tooleval.connectors.imports import load_from
from tooleval.connectors.openai_chat import OpenAIChatConnector
from tooleval.connectors.paths import ResponseMapping
from tooleval.connectors.python import DEFAULT_TIMEOUT, CallableConnector
from tooleval.connectors.retry import RetryPolicy
from tooleval.errors import ConfigError

__all__ = ["connector_from_config", "connector_kind", "load_connector_file", "tool_list"]

_KEYS = {
    "http": {
        "type",
        "url",
        "method",
        "headers",
        "body",
        "params",
        "timeout",
        "retry",
        "response",
        "conversation",
    },
    "python": {"type", "target", "argument", "response", "timeout"},
    "openai": {
        "type",
        "base_url",
        "model",
        "api_key_env",
        "tools",
        "system",
        "params",
        "tool_executor",
        "environment",
        "episode_timeout",
        "user",
        "max_turns",
        "timeout",
        "retry",
    },
}
_ALIASES = {"openai_chat": "openai", "chat": "openai", "callable": "python"}


def _check_keys(config: Mapping[str, Any], kind: str, prefix: str) -> None:
    allowed = _KEYS[kind]
    for key in config:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), sorted(allowed), n=1)
            raise ConfigError(
                f"unknown key {key!r} for a {kind} connector; expected one of {sorted(allowed)}"
                + (f" (did you mean {hint[0]!r}?)" if hint else ""),
                field=f"{prefix}.{key}",
            )


def _require(config: Mapping[str, Any], key: str, prefix: str, example: str) -> Any:
    value = config.get(key)
    if value is None or value == "":
        raise ConfigError(
            f"missing required key {key!r}, e.g. {key}: {example}", field=f"{prefix}.{key}"
        )
    return value


def _number(config: Mapping[str, Any], key: str, prefix: str, default: float) -> float:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"expected a finite number, got {value!r}", field=f"{prefix}.{key}")
    return float(value)


def _mapping(config: Mapping[str, Any], key: str, prefix: str) -> dict[str, Any] | None:
    value = config.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"expected a mapping, got {type(value).__name__}", field=f"{prefix}.{key}"
        )
    return dict(value)


def tool_list(value: Any, prefix: str, base_dir: Path | None) -> list[Any]:
    """The ``tools`` key: a list of specs, or a JSON/YAML file of them (read now)."""
    if value is None:
        return []
    if isinstance(value, str):
        path = Path(value)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"cannot read tools file {path}: {exc.strerror}", field=f"{prefix}.tools"
            ) from None
        import yaml

        try:
            value = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError) as exc:
            raise ConfigError(
                f"tools file {path} cannot be parsed: {exc}", field=f"{prefix}.tools"
            ) from None
        if isinstance(value, Mapping) and "tools" in value:
            value = value["tools"]
    if not isinstance(value, list):
        raise ConfigError(
            f"expected a list of tools, got {type(value).__name__}", field=f"{prefix}.tools"
        )
    return value


def connector_kind(config: Mapping[str, Any]) -> str:
    """The connector type a section describes (``type``, else guessed from its keys).

    >>> connector_kind({"base_url": "http://127.0.0.1:8080/v1"})
    'openai'
    """
    kind = config.get("type")
    if kind is None:
        kind = "python" if "target" in config else "openai" if "base_url" in config else "http"
    return _ALIASES.get(str(kind), str(kind))


def connector_from_config(
    config: Mapping[str, Any],
    *,
    base_dir: str | Path | None = None,
    prefix: str = "connector",
    tool_sessions: Any = None,
    user: Any = None,
) -> Any:
    """Build an HttpConnector, CallableConnector or OpenAIChatConnector.

    Every validation error names the field (``connector.response.tools_called``).
    ``base_dir`` resolves relative file paths (a plan's directory).
    ``tool_sessions`` is the served environment an ``environment`` key names
    (``tooleval.serving.connector_from_config`` builds it and calls this), ``user``
    the simulated user a ``user`` key describes (built there too).
    """
    if not isinstance(config, Mapping):
        raise ConfigError(f"expected a mapping, got {type(config).__name__}", field=prefix)
    kind = connector_kind(config)
    if kind not in _KEYS:
        raise ConfigError(
            f"unknown connector type {config.get('type')!r}; expected http, python or openai",
            field=f"{prefix}.type",
        )
    _check_keys(config, kind, prefix)
    base = Path(base_dir) if base_dir is not None else None
    if kind == "http":
        headers = _mapping(config, "headers", prefix)
        http = HttpConnector(
            _require(config, "url", prefix, "http://127.0.0.1:8000/agent"),
            method=str(config.get("method", "POST")),
            headers=headers,
            body=config.get("body"),
            params=_mapping(config, "params", prefix),
            response=ResponseMapping.from_config(
                _mapping(config, "response", prefix), field_prefix=f"{prefix}.response"
            ),
            timeout=_number(config, "timeout", prefix, 30.0),
            retry=RetryPolicy.from_config(config.get("retry"), field=f"{prefix}.retry"),
        )
        if config.get("conversation") is None:
            return http
        from tooleval.connectors.conversation import ConversationConnector, ConversationSpec

        spec = ConversationSpec.from_config(
            config["conversation"], field=f"{prefix}.conversation", base_dir=base
        )
        return ConversationConnector(http, spec)
    if kind == "python":
        target = _require(config, "target", prefix, "my_agent:run")
        response = _mapping(config, "response", prefix)
        return CallableConnector(
            load_from(target, field=f"{prefix}.target", base_dir=base),
            argument=config.get("argument", "input"),
            response=None
            if response is None
            else ResponseMapping.from_config(response, field_prefix=f"{prefix}.response"),
            target=target,
            timeout=None
            if "timeout" in config and config["timeout"] is None
            else _number(config, "timeout", prefix, DEFAULT_TIMEOUT),
        )
    if config.get("environment") is not None and tool_sessions is None:
        raise ConfigError(
            "an environment is served by tooleval.serving: build this connector with "
            "tooleval.serving.connector_from_config (tooleval run does)",
            field=f"{prefix}.environment",
        )
    if config.get("user") is not None and user is None:
        raise ConfigError(
            "a simulated user is built by tooleval.serving: build this connector with "
            "tooleval.serving.connector_from_config (tooleval run does)",
            field=f"{prefix}.user",
        )
    if config.get("episode_timeout") is not None and tool_sessions is None and user is None:
        raise ConfigError(
            "episode_timeout bounds an episode in a served environment or with a simulated "
            "user; give environment or user too",
            field=f"{prefix}.episode_timeout",
        )
    executor = config.get("tool_executor")
    max_turns = config.get("max_turns")
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int)):
        raise ConfigError(
            f"expected an integer >= 1, got {max_turns!r}", field=f"{prefix}.max_turns"
        )
    params = _mapping(config, "params", prefix)
    return OpenAIChatConnector(
        base_url=_require(config, "base_url", prefix, "http://127.0.0.1:8080/v1"),
        model=_require(config, "model", prefix, "gpt-4o-mini"),
        api_key_env=config.get("api_key_env"),
        tools=tool_list(config.get("tools"), prefix, base),
        system=config.get("system"),
        params=params,
        tool_executor=None
        if executor is None
        else load_from(executor, field=f"{prefix}.tool_executor", base_dir=base),
        max_turns=max_turns,
        timeout=_number(config, "timeout", prefix, 60.0),
        retry=RetryPolicy.from_config(config.get("retry"), field=f"{prefix}.retry"),
        tool_sessions=tool_sessions,
        user=user,
        episode_timeout=None
        if config.get("episode_timeout") is None
        else _number(config, "episode_timeout", prefix, 0.0),
    )


def load_connector_file(path: str | Path) -> Any:
    """Read a YAML file that is a whole plan (its ``connector:`` key) or one connector."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", file=str(path)) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}", file=str(path)) from None
    if not isinstance(data, Mapping):
        raise ConfigError("expected a plan or a connector mapping", file=str(path))
    config = data.get("connector", data)
    if not isinstance(config, Mapping):
        raise ConfigError(
            f"expected a mapping, got {type(config).__name__}", file=str(path), field="connector"
        )
    try:
        return connector_from_config(config, base_dir=path.parent)
    except ConfigError as exc:
        raise exc.with_context(file=str(path)) from None
