"""The ``environment`` key of a run plan: the environment ``state_match`` replays calls in.

A plan names it once for every metric that replays (plan level) or per metric::

    environment: {name: orders, config: {currency: EUR}}
    metrics:
      - state_match                                   # uses the plan's environment
      - name: state_match_strict_paths
        environment: "envs/orders.py:make_environment"  # its own (a name alone is enough)

``name`` is a registered or declared environment, ``module:attribute``, or
``path/to/file.py:attribute`` (relative to the plan's folder); ``config`` (an
object, default ``{}``) goes to the factory. Everything is checked when the plan
is read, before any agent is called: unknown keys and names (with "did you
mean"), and the environment is built once from its config.

>>> from tooleval.environments.named import register_environment
>>> from tooleval.environments.python import FunctionEnvironment
>>> register_environment("plan_doc_kv", lambda config: FunctionEnvironment(
...     {"put": lambda state, key, value: state.update({key: value})}, initial_state={}))
>>> plan_environment({"name": "plan_doc_kv"}, where="environment")
{'name': 'plan_doc_kv', 'config': {}}
>>> plan_environment({"name": "plan_doc_kv", "confg": {}}, where="environment")
Traceback (most recent call last):
...
tooleval.errors.ConfigError: field environment.confg: unknown key (did you mean 'config'?); expected name or config
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.environments.named import environment_factory
from tooleval.errors import ConfigError, did_you_mean

__all__ = ["KEYS", "plan_environment"]

KEYS = ("name", "config")


def plan_environment(value: Any, *, where: str, base_dir: Path | None = None) -> dict[str, Any]:
    """``value`` checked as a plan's ``environment``: ``{"name": spec, "config": {...}}``.

    A text is the name alone. A relative ``file.py:attribute`` is anchored at
    ``base_dir`` (the plan's folder), so the run works from any directory.
    """
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"expected an environment name or a mapping with name and config, got "
            f"{type(value).__name__}",
            field=where,
        )
    for key in value:
        if key not in KEYS:
            raise ConfigError(
                f"unknown key{did_you_mean(str(key), KEYS)}; expected name or config",
                field=f"{where}.{key}",
            )
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(
            f"expected an environment name, got {type(name).__name__}", field=f"{where}.name"
        )
    config = value.get("config")
    config = {} if config is None else config
    if not isinstance(config, Mapping):
        raise ConfigError(
            f"expected a mapping, got {type(config).__name__}", field=f"{where}.config"
        )
    spec = _anchored(name.strip(), base_dir)
    try:
        factory = environment_factory(spec, allow_import=True)
    except ConfigError as exc:
        raise ConfigError(exc.message, field=f"{where}.name") from None
    try:
        built = factory(dict(config))
    except Exception as exc:  # the user's factory: any failure is a plan error
        raise ConfigError(
            f"environment {name!r} cannot be built from this config: {type(exc).__name__}: {exc}",
            field=f"{where}.config",
        ) from None
    missing = [m for m in ("reset", "call", "state") if not callable(getattr(built, m, None))]
    if missing:
        raise ConfigError(
            f"environment {name!r} built a {type(built).__name__}, which has no "
            f"{', '.join(missing)} (the environment protocol, docs/environments.md)",
            field=f"{where}.name",
        )
    return {"name": spec, "config": dict(config)}


def _anchored(spec: str, base_dir: Path | None) -> str:
    module, colon, attribute = spec.rpartition(":")
    if not colon or not module.endswith(".py") or base_dir is None:
        return spec
    path = Path(module).expanduser()
    return f"{path if path.is_absolute() else base_dir / path}:{attribute}"
