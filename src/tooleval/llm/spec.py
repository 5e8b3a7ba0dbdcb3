"""A judge named the way users name one: a type, a YAML/JSON file, or a mapping.

``tooleval score --judge``, ``tooleval rescore --judge``, ``$TOOLEVAL_JUDGE``
and :func:`tooleval.evaluate` (``judge=``) take the same specs: ``local`` or
``openai`` (options given beside it), a file holding a judge mapping
(top-level, or under ``judge:`` as in a plan), or the mapping itself.

>>> judge_config("local", {"cache": False})
{'type': 'local', 'cache': False}
>>> judge_config({"type": "openai", "model": "m"}, {"base_url": "http://127.0.0.1:1/v1"})["base_url"]
'http://127.0.0.1:1/v1'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError

__all__ = ["JUDGE_TYPES", "judge_config", "read_judge_file"]

#: The judge types a spec may name directly.
JUDGE_TYPES = ("local", "openai")


def judge_config(
    spec: str | Path | Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
    *,
    field: str = "judge",
) -> dict[str, Any]:
    """The ``judge_from_config`` mapping of ``spec``, each of ``options`` added or replaced."""
    if isinstance(spec, Mapping):
        config = dict(spec)
    elif isinstance(spec, str | Path):
        text = str(spec).strip()
        if not text:
            raise ConfigError(
                "the judge is empty; expected local, openai or a judge file", field=field
            )
        path = Path(text)
        if text not in JUDGE_TYPES and (path.suffix or path.exists()):
            config = read_judge_file(path, field)
        else:
            config = {"type": text}
    else:
        raise ConfigError(
            f"expected a judge (local, openai, a judge file, a mapping or a judge object), "
            f"got {type(spec).__name__}",
            field=field,
        )
    config.update(options or {})
    return config


def read_judge_file(path: Path, field: str) -> dict[str, Any]:
    """The judge mapping in a YAML/JSON file (top-level, or under ``judge:`` as in a plan)."""
    import yaml

    if not path.is_file():
        raise ConfigError(f"no such judge file: {path}", field=field)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path} is not YAML or JSON: {' '.join(str(exc).split())}", field=field
        ) from None
    if isinstance(data, dict) and isinstance(data.get("judge"), dict):
        data = data["judge"]
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path} holds no judge mapping (expected type: local|openai and its options)",
            field=field,
        )
    return dict(data)
