"""Reading a small JSON or YAML file a monitor option names (a judge config, a price table).

>>> import os, tempfile
>>> with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
...     _ = f.write("gpt-4o: {input: 2.5, output: 10}")
>>> read_config_file(f.name, what="price table")
{'gpt-4o': {'input': 2.5, 'output': 10}}
>>> os.unlink(f.name)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tooleval.errors import ConfigError

__all__ = ["read_config_file"]


def read_config_file(path: str | Path, *, what: str, field: str | None = None) -> Any:
    """The value in ``path``: YAML for ``.yaml``/``.yml``, else JSON.

    A file that cannot be read, is not UTF-8 or does not parse is a ConfigError naming ``what``
    (the file's role), the path and ``field`` (the option that named it).

    >>> read_config_file("/nonexistent/judge.json", what="judge config", field="--judge")
    Traceback (most recent call last):
    tooleval.errors.ConfigError: field --judge: cannot read judge config /nonexistent/judge.json: No such file or directory
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror}", field=field) from exc
    except UnicodeDecodeError:
        raise ConfigError(f"{what} {path} is not UTF-8 text", field=field) from None
    if path.suffix.lower() not in (".yaml", ".yml"):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{what} {path} is not valid JSON/YAML: {exc}", field=field) from exc
    import yaml

    try:
        return yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"{what} {path} is not valid JSON/YAML: {exc}", field=field) from exc
