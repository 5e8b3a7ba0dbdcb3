"""Where two states differ: each path with both values.

Objects are compared key by key, lists item by item (``list_order="strict"``)
or as multisets (``"ignore"``), everything else with ``==`` and the same
type (``1`` differs from ``1.0`` and ``True``, as a hash of the state would
see it). ``include`` keeps only the paths under the given prefixes,
``exclude`` drops the ones under its prefixes; a prefix is a path as
:func:`state_diff` writes it (``orders``, ``orders.W1.status``,
``users[0]``).

>>> [d.to_dict() for d in state_diff({"a": 1, "b": [1, 2]}, {"a": 1, "b": [2, 1], "c": 0})]
[{'path': 'b[0]', 'expected': 1, 'actual': 2}, {'path': 'b[1]', 'expected': 2, 'actual': 1}, {'path': 'c', 'expected': '<absent>', 'actual': 0}]
>>> state_diff({"b": [1, 2]}, {"b": [2, 1]}, list_order="ignore")
[]
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.environments.protocol import _jsonable

__all__ = ["ABSENT", "LIST_ORDERS", "Difference", "state_diff"]

LIST_ORDERS = ("strict", "ignore")
ABSENT = "<absent>"
_MAX_DEPTH = 200


@dataclass(frozen=True, slots=True)
class Difference:
    """One path where the expected and actual states differ (``ABSENT`` on a missing side)."""

    path: str
    expected: Any
    actual: Any

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "expected": _shown(self.expected), "actual": _shown(self.actual)}


def _shown(value: Any) -> Any:
    """The value as the diagnosis shows it: JSON has no NaN or Infinity, so those are text."""
    if type(value) is float and (value != value or value in (math.inf, -math.inf)):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    return value if value is _ABSENT_MARK else _jsonable(value)


_ABSENT_MARK: Any = ABSENT


def state_diff(
    expected: Any,
    actual: Any,
    *,
    list_order: str = "strict",
    include: Sequence[str] | None = None,
    exclude: Sequence[str] = (),
    limit: int = 200,
) -> list[Difference]:
    """Each path where ``actual`` differs from ``expected`` (at most ``limit`` of them)."""
    if list_order not in LIST_ORDERS:
        raise ValueError(f"list_order must be one of {', '.join(LIST_ORDERS)}, got {list_order!r}")
    out: list[Difference] = []
    _walk(expected, actual, "", list_order, out, limit, 0)
    return [d for d in out if _kept(d.path, include, exclude)]


def _kept(path: str, include: Sequence[str] | None, exclude: Sequence[str]) -> bool:
    def under(prefix: str) -> bool:
        return path == prefix or path.startswith((prefix + ".", prefix + "["))

    if include is not None and not any(under(p) for p in include):
        return False
    return not any(under(p) for p in exclude)


def _join(path: str, key: Any) -> str:
    text = str(key)
    if text.isidentifier():
        return f"{path}.{text}" if path else text
    return f"{path}[{json.dumps(text)}]"


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    try:
        if a == b:
            return True
    except Exception:  # an object whose == raises: different
        return False
    return type(a) is float and a != a and b != b  # NaN is the same as NaN (docs/metrics.md)


def _walk(
    expected: Any, actual: Any, path: str, order: str, out: list[Difference], limit: int, depth: int
) -> None:
    if len(out) >= limit:
        return
    if depth > _MAX_DEPTH:
        if not _same(expected, actual):
            out.append(Difference(path, expected, actual))
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            here = _join(path, key)
            if key not in actual:
                out.append(Difference(here, expected[key], _ABSENT_MARK))
            elif key not in expected:
                out.append(Difference(here, _ABSENT_MARK, actual[key]))
            else:
                _walk(expected[key], actual[key], here, order, out, limit, depth + 1)
            if len(out) >= limit:
                return
        return
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        if order == "ignore":
            if Counter(_key(v) for v in expected) != Counter(_key(v) for v in actual):
                out.append(Difference(path, expected, actual))
            return
        for index in range(max(len(expected), len(actual))):
            here = f"{path}[{index}]"
            if index >= len(actual):
                out.append(Difference(here, expected[index], _ABSENT_MARK))
            elif index >= len(expected):
                out.append(Difference(here, _ABSENT_MARK, actual[index]))
            else:
                _walk(expected[index], actual[index], here, order, out, limit, depth + 1)
            if len(out) >= limit:
                return
        return
    if (
        hasattr(expected, "__dict__")
        and type(expected) is type(actual)
        and not _same(expected, actual)
    ):
        before = len(out)
        _walk(_public(expected), _public(actual), path, order, out, limit, depth + 1)
        if len(out) == before:  # == says they differ where no public attribute does
            out.append(Difference(path, expected, actual))
        return
    if not _same(expected, actual):
        out.append(Difference(path, expected, actual))


def _public(value: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(value).items() if not k.startswith("_")}


def _key(value: Any) -> str:
    """A canonical text of a value for multiset comparison (type-strict, key order free)."""
    return json.dumps(_canon(value, 0), sort_keys=True, default=repr)


def _canon(value: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return repr(value)
    if isinstance(value, dict):
        return {"dict": sorted((str(k), _canon(v, depth + 1)) for k, v in value.items())}
    if isinstance(value, list | tuple):
        return {"list": sorted(json.dumps(_canon(v, depth + 1), sort_keys=True) for v in value)}
    return [
        type(value).__name__,
        value if isinstance(value, str | int | float | bool) else repr(value),
    ]
