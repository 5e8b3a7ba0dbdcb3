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

from tooleval.errors import ConfigError, JudgeError, did_you_mean
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
        raise ConfigError(
            f"expected 'openai' or 'local', got {kind!r}"
            + (did_you_mean(kind, list(classes)) if isinstance(kind, str) else ""),
            field=f"{field}.type",
        )
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
                f"unknown option for a {kind} judge{did_you_mean(key, sorted(allowed))}; "
                f"expected one of {sorted(allowed)}",
                field=f"{field}.{key}",
            )
    parameters = inspect.signature(cls).parameters
    for key, value in options.items():
        _check_value(value, str(parameters[key].annotation), f"{field}.{key}")
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


def _check_value(value: Any, annotation: str, field: str) -> None:
    """Refuse a value a numeric judge option cannot take (``temperature: hot``, ``timeout: -1``).

    Read from the judge class's own annotation: ``int`` a whole number,
    ``float`` any finite number, both at least 0; ``None`` only where the
    annotation allows it. Other options are checked by the judge itself.
    """
    import math

    kinds = {part.strip() for part in annotation.split("|")}
    if not kinds & {"int", "float"} or not kinds <= {"int", "float", "None"}:
        return
    if value is None and "None" in kinds:
        return
    whole = "float" not in kinds
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value < 0 or (whole and value != int(value)):
        wanted = "a whole number >= 0" if whole else "a number >= 0"
        allowed = f"{wanted} or null" if "None" in kinds else wanted
        raise ConfigError(f"expected {allowed}, got {value!r}", field=field)
