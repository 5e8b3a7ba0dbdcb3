"""Build a judge from a plan file's ``judge:`` mapping.

Two shapes::

    judge: {type: openai, model: gpt-4o-mini, api_key_env: OPENAI_API_KEY}
    judge: {type: openai, model: qwen2.5:7b, base_url: "http://127.0.0.1:11434/v1"}
    judge: {type: local}                       # SmolLM2-135M on CPU (tooleval[local]), plumbing only

Every option of :class:`~tooleval.llm.openai_judge.OpenAIJudge` /
:class:`~tooleval.llm.local.LocalJudge` may be given; ``cache`` is a path,
``true`` (the default file ``.tooleval/judge-cache.db``) or ``false``. A
literal ``api_key`` is refused: plan files get committed, keys must not.

>>> judge_from_config({"type": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
...                    "cache": False}).describe()["model"]
'm'
>>> judge_from_config({"type": "gpt"})
Traceback (most recent call last):
...
tooleval.errors.ConfigError: field judge.type: expected 'openai' or 'local', got 'gpt'
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from tooleval.errors import ConfigError, JudgeError
from tooleval.llm.base import BaseJudge

__all__ = ["judge_from_config"]

_INTERNAL = {"self", "usage", "http_client", "async_http_client", "api_key"}


def _allowed(cls: type) -> set[str]:
    return set(inspect.signature(cls).parameters) - _INTERNAL


def judge_from_config(config: Mapping[str, Any], *, field: str = "judge") -> BaseJudge:
    """A judge from ``{"type": "openai" | "local", ...options}``; ConfigError names the bad key."""
    from tooleval.llm.local import LocalJudge
    from tooleval.llm.openai_judge import OpenAIJudge

    if not isinstance(config, Mapping):
        raise ConfigError(
            f"expected a mapping with a 'type', got {type(config).__name__}", field=field
        )
    kind = config.get("type")
    classes = {"openai": OpenAIJudge, "local": LocalJudge}
    if kind not in classes:
        raise ConfigError(f"expected 'openai' or 'local', got {kind!r}", field=f"{field}.type")
    cls = classes[kind]
    options = {k: v for k, v in config.items() if k != "type"}
    if "api_key" in options:
        raise ConfigError(
            "do not put an API key in a plan; name its environment variable with api_key_env",
            field=f"{field}.api_key",
        )
    allowed = _allowed(cls)
    for key in options:
        if key not in allowed:
            raise ConfigError(
                f"unknown option for a {kind} judge; expected one of {sorted(allowed)}",
                field=f"{field}.{key}",
            )
    if kind == "openai" and not options.get("model"):
        raise ConfigError("an openai judge needs a model name", field=f"{field}.model")
    try:
        return cls(**options)
    except JudgeError as exc:
        raise ConfigError(
            exc.message, field=f"{field}.{exc.field}" if exc.field else field
        ) from exc
    except TypeError as exc:
        raise ConfigError(str(exc), field=field) from exc
