"""A limit on how deeply nested the JSON tooleval reads may be.

Real tool calls nest a handful of levels; JSON nested hundreds deep is either
a broken exporter or an attack, and past ~250 levels the JSON writers fail
(``orjson`` stops at 255, Python's ``json`` at the recursion limit). Every
reader of user files (``score``, ``run`` datasets, ``dataset check``,
``monitor``) checks the depth once, when a row is read, and stops with
:class:`NestingTooDeep` naming the file, row and field instead of failing far
away (or in the store) with a traceback.

>>> json_depth({"a": [1, {"b": []}]})
4
>>> try:
...     loads(b'{"x": ' + b"[" * 150 + b"]" * 150 + b"}", row=4)
... except NestingTooDeep as exc:
...     print(str(exc)[:41])
row 4: JSON nested deeper than 100 levels
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import orjson

from tooleval.errors import NestingTooDeep

__all__ = ["MAX_DEPTH", "NestingTooDeep", "check_depth", "json_depth", "loads", "loads_text"]

#: The deepest nesting of objects and arrays tooleval reads (a row object is level 1).
MAX_DEPTH = 100


def _too_deep(limit: int, **context: Any) -> NestingTooDeep:
    return NestingTooDeep(
        f"JSON nested deeper than {limit} levels; tooleval reads at most {limit} "
        "(flatten the value or store it as a JSON string)",
        **context,
    )


def json_depth(value: Any, *, stop_after: int | None = None) -> int:
    """Levels of nested lists/dicts in ``value`` (a scalar is 0); no recursion.

    With ``stop_after``, counting stops as soon as the depth exceeds it.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        children: Iterable[Any]
        if type(node) is dict:
            children = node.values()
        elif type(node) is list or type(node) is tuple:
            children = node
        else:
            continue
        if depth > deepest:
            deepest = depth
            if stop_after is not None and deepest > stop_after:
                return deepest
        for child in children:
            kind = type(child)
            if kind is dict or kind is list or kind is tuple:
                push((child, depth + 1))
    return deepest


def check_depth(value: Any, *, limit: int = MAX_DEPTH, **context: Any) -> Any:
    """Return ``value``, or raise :class:`NestingTooDeep` (with ``context``) if too deep.

    >>> check_depth([[1]])
    [[1]]
    """
    if json_depth(value, stop_after=limit) > limit:
        raise _too_deep(limit, **context)
    return value


def loads(data: bytes | str, *, limit: int = MAX_DEPTH, **context: Any) -> Any:
    """Parse JSON like ``orjson.loads`` and enforce the depth limit.

    Invalid JSON raises ``orjson.JSONDecodeError`` (a ``ValueError``) as
    usual; JSON too deep raises :class:`NestingTooDeep` with ``context``
    (``row=``, ``file=``, ``field=``). Text with fewer brackets than the limit
    cannot be too deep, so the usual row costs one byte count.
    """
    raw = data.encode() if isinstance(data, str) else data
    opening = raw.count(b"[") + raw.count(b"{")
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc).lower():
            raise _too_deep(limit, **context) from None
        raise
    if opening > limit:
        check_depth(value, limit=limit, **context)
    return value


def loads_text(text: str | bytes | bytearray, *, limit: int = MAX_DEPTH, **context: Any) -> Any:
    """Parse JSON like the standard ``json.loads`` and enforce the depth limit.

    For readers that keep the standard module's dialect (``NaN`` and
    ``Infinity`` accepted, its error messages): invalid JSON raises
    ``json.JSONDecodeError`` (a ``ValueError``); JSON too deep, even past
    Python's recursion limit, raises :class:`NestingTooDeep` with ``context``.

    >>> loads_text('{"x": NaN}')
    {'x': nan}
    >>> try:
    ...     loads_text("[" * 100_000 + "]" * 100_000, file="d.jsonl", row=3)
    ... except NestingTooDeep as exc:
    ...     print(str(exc).split(";")[0])
    file d.jsonl, row 3: JSON nested deeper than 100 levels
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise _too_deep(limit, **context) from None
    opening = (
        text.count("[") + text.count("{")
        if isinstance(text, str)
        else (text.count(b"[") + text.count(b"{"))
    )
    if opening > limit:
        check_depth(value, limit=limit, **context)
    return value
