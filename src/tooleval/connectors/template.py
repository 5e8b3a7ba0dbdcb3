"""Request templates: ``{{input}}`` placeholders and ``${ENV}`` references.

A body template is JSON (a mapping from YAML, or JSON text). A string that is
exactly one placeholder is replaced by the row's value *as a JSON value* (so
``"{{metadata.limit}}"`` can become the number 5); a placeholder inside a
longer string is interpolated as text. In JSON text a placeholder may also
stand bare, outside quotes: ``{"q": {{input}}}``.

Placeholders: ``input``, ``id``, ``category``, ``test_type``, ``reference``,
``messages`` (the conversation as tooleval dicts) and ``metadata.<key>[.<key>...]``.

``${NAME}`` in header values (and the URL) is read from the environment at
call time, never earlier and never stored.

>>> t = BodyTemplate({"input": "{{input}}", "user": "{{metadata.user}}", "note": "row {{id}}"})
>>> t.render(Sample(input="hi", id="r7", metadata={"user": {"n": 1}}))
{'input': 'hi', 'user': {'n': 1}, 'note': 'row r7'}
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any

from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample

__all__ = ["BodyTemplate", "env_references", "resolve_env"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_\-]+)*)\s*\}\}")
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
ROOTS = ("input", "id", "category", "test_type", "reference", "messages", "metadata")
_SENTINEL = "\u0000tooleval-placeholder-{}\u0000"


def env_references(text: str) -> list[str]:
    """Names of the environment variables a value refers to.

    >>> env_references("Bearer ${AGENT_TOKEN}")
    ['AGENT_TOKEN']
    """
    return _ENV.findall(text)


def resolve_env(text: str, *, field: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace ``${NAME}`` with the variable's value; a missing one is a ConfigError."""
    env = os.environ if environ is None else environ

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise ConfigError(
                f"environment variable {name} is not set (referenced as ${{{name}}})", field=field
            )
        return env[name]

    return _ENV.sub(value, text)


def _lookup(sample: Sample, name: str) -> Any:
    root, *rest = name.split(".")
    if root == "messages":
        value: Any = [m.to_dict() for m in sample.messages]
    elif root == "metadata":
        value = sample.metadata
    else:
        value = getattr(sample, root)
    walked = [root]
    for key in rest:
        if not isinstance(value, Mapping) or key not in value:
            raise ConnectorError(
                f"body template placeholder {{{{{name}}}}}: row has no {'.'.join([*walked, key])}",
                field="connector.body",
                row=sample.id,
            )
        value = value[key]
        walked.append(key)
    return value


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _mask_bare_placeholders(text: str) -> tuple[str, list[str]]:
    """Quote placeholders that stand outside JSON strings so the text parses."""
    out, names, in_string, i = [], [], False, 0
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
            continue
        match = _PLACEHOLDER.match(text, i)
        if match:
            names.append(match.group(1))
            out.append(json.dumps(_SENTINEL.format(len(names) - 1)))
            i = match.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out), names


class BodyTemplate:
    """A JSON body with placeholders, checked once and rendered per row."""

    def __init__(self, template: Any, *, field: str = "connector.body") -> None:
        self.source = template
        self.field = field
        self._bare: list[str] = []
        if isinstance(template, str):
            masked, self._bare = _mask_bare_placeholders(template)
            try:
                self.template = json.loads(masked)
            except ValueError as exc:
                raise ConfigError(
                    f"body template is not valid JSON (placeholders like {{{{input}}}} may stand "
                    f"bare or inside strings): {exc}",
                    field=field,
                ) from None
        else:
            self.template = template
        for name in self.placeholders():
            if name.split(".")[0] not in ROOTS:
                raise ConfigError(
                    f"unknown placeholder {{{{{name}}}}}; expected one of "
                    f"{', '.join('{{' + r + '}}' for r in ROOTS[:-1])} or {{{{metadata.<key>}}}}",
                    field=field,
                )

    def placeholders(self) -> list[str]:
        found: list[str] = list(self._bare)

        def walk(node: Any) -> None:
            if isinstance(node, str):
                found.extend(_PLACEHOLDER.findall(node))
            elif isinstance(node, Mapping):
                for key, value in node.items():
                    walk(key)
                    walk(value)
            elif isinstance(node, list | tuple):
                for item in node:
                    walk(item)

        walk(self.template)
        return found

    def render(self, sample: Sample) -> Any:
        """The body for one row (a new object; the template is never changed)."""

        def walk(node: Any) -> Any:
            if isinstance(node, str):
                if node.startswith("\u0000tooleval-placeholder-"):
                    return _lookup(sample, self._bare[int(node.strip("\u0000").rsplit("-", 1)[1])])
                whole = _PLACEHOLDER.fullmatch(node.strip())
                if whole:
                    return _lookup(sample, whole.group(1))
                return _PLACEHOLDER.sub(lambda m: _as_text(_lookup(sample, m.group(1))), node)
            if isinstance(node, Mapping):
                return {walk(k) if isinstance(k, str) else k: walk(v) for k, v in node.items()}
            if isinstance(node, list | tuple):
                return [walk(item) for item in node]
            return node

        return walk(self.template)
