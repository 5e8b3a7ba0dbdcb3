"""Checked access to foreign JSON, so every error names its field path.

Importers walk nested data and pass a *path* (``messages[3].tool_calls[0]``)
down with it; these helpers raise :class:`~tooleval.errors.FormatError` with
that path, the row number and what was expected instead of a bare
``KeyError`` or ``TypeError``.

>>> at(item("messages", 3), "tool_calls")
'messages[3].tool_calls'
>>> need_list({"a": 1}, "messages", row=4)
Traceback (most recent call last):
...
tooleval.errors.FormatError: row 4, field messages: expected a list, got an object with keys ['a']
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, overload

from tooleval.errors import FormatError

__all__ = [
    "at",
    "describe",
    "item",
    "need_list",
    "need_mapping",
    "need_str",
    "plain",
    "sub",
    "to_json_text",
]


def at(path: str, key: str) -> str:
    """The path of ``key`` inside ``path``."""
    return f"{path}.{key}" if path else key


def sub(path: str, relative: str) -> str:
    """Join a path and a relative path such as ``[0].content`` or ``messages[2]``.

    >>> sub("messages", "[0].content"), sub("row", "args"), sub("", ".args")
    ('messages[0].content', 'row.args', 'args')
    """
    if not relative:
        return path
    if not path:
        return relative.removeprefix(".")
    return path + relative if relative.startswith("[") else f"{path}.{relative}"


def item(path: str, index: int) -> str:
    """The path of element ``index`` of the list at ``path``."""
    return f"{path}[{index}]"


def describe(value: Any) -> str:
    """A short phrase saying what a value is, for error messages.

    >>> describe(None), describe([1, 2]), describe({"b": 1, "a": 2})
    ('null', 'a list of 2 item(s), the first a number (1)', "an object with keys ['a', 'b']")
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, Mapping):
        keys = sorted(str(k) for k in value)
        shown = keys[:8] + (["..."] if len(keys) > 8 else [])
        return f"an object with keys {shown}" if keys else "an empty object"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"a string {text!r}"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, list | tuple):
        if not value:
            return "an empty list"
        return f"a list of {len(value)} item(s), the first {describe(value[0])}"
    return f"a {type(value).__name__} object"


def need_mapping(
    value: Any, path: str, *, row: int | None = None, what: str = "an object"
) -> Mapping[Any, Any]:
    """``value`` when it is a mapping, else a FormatError at ``path`` saying what it is.

    >>> need_mapping([], "messages[0]", row=3)
    Traceback (most recent call last):
    tooleval.errors.FormatError: row 3, field messages[0]: expected an object, got an empty list
    """
    if not isinstance(value, Mapping):
        raise FormatError(f"expected {what}, got {describe(value)}", field=path or None, row=row)
    return value


def need_list(value: Any, path: str, *, row: int | None = None, what: str = "a list") -> list[Any]:
    """``value`` as a list when it is a sequence (not text), else a FormatError at ``path``.

    >>> need_list(("a", "b"), "tools")
    ['a', 'b']
    """
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise FormatError(f"expected {what}, got {describe(value)}", field=path or None, row=row)
    return list(value)


@overload
def need_str(
    value: Any,
    path: str,
    *,
    row: int | None = None,
    what: str = "a string",
    optional: Literal[False] = False,
) -> str: ...


@overload
def need_str(
    value: Any,
    path: str,
    *,
    row: int | None = None,
    what: str = "a string",
    optional: bool,
) -> str | None: ...


def need_str(
    value: Any,
    path: str,
    *,
    row: int | None = None,
    what: str = "a string",
    optional: bool = False,
) -> str | None:
    """``value`` when it is a string (or None when ``optional``), else a FormatError at ``path``.

    >>> need_str(None, "name", optional=True), need_str("f", "name")
    (None, 'f')
    """
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise FormatError(f"expected {what}, got {describe(value)}", field=path or None, row=row)
    return value


def plain(value: Any) -> Any:
    """Turn SDK objects (pydantic models such as OpenAI's ``ChatCompletion``) into dicts.

    Plain JSON values pass through unchanged. ``None`` fields are dropped,
    because SDKs fill every optional field with ``None`` where the wire
    format leaves it out.
    """
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping | list | str):
        try:
            return dump(mode="json", exclude_none=True)
        except TypeError:
            return dump()
    return value


def to_json_text(value: Any) -> str:
    """A tool result as text: strings unchanged, anything else as compact JSON.

    >>> to_json_text("18C"), to_json_text({"temp": 18, "unit": "C"})
    ('18C', '{"temp":18,"unit":"C"}')
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
