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

__all__ = ["ABSENT", "LIST_ORDERS", "Difference", "same_key", "state_diff"]

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


def same_key(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` have the same canonical text (:func:`_key`), mostly without writing it.

    Two values of the same plain types in the same shape (objects with text
    keys, lists and tuples item by item, text, numbers, booleans, null) whose
    items are equal (a float as its text writes it) have the same canonical
    text, and that walk is a tenth of the cost of writing the text; anything
    else (a difference, another type, an object) is decided on the canonical
    texts themselves, so the answer is always ``_key(a) == _key(b)``.

    >>> same_key({"a": [1, 2]}, {"a": [2, 1]}), same_key({"a": 1}, {"a": 1.0})
    (True, False)
    """
    return _surely_same(a, b) or _key(a) == _key(b)


def _surely_same(a: Any, b: Any) -> bool:
    """True only when ``a`` and ``b`` are plain values of the same types, shape and items."""
    stack = [(a, b, 0)]
    while stack:
        left, right, depth = stack.pop()
        kind = type(left)
        if kind is not type(right) or depth > _MAX_DEPTH:
            return False
        if kind is dict:
            if len(left) != len(right):
                return False
            for key, value in left.items():
                if type(key) is not str or key not in right:
                    return False
                other = right[key]
                if type(value) is str:  # most leaves: decided here, not stacked
                    if type(other) is not str or value != other:
                        return False
                else:
                    stack.append((value, other, depth + 1))
        elif kind is list or kind is tuple:
            if len(left) != len(right):
                return False
            stack.extend((x, y, depth + 1) for x, y in zip(left, right, strict=True))
        elif kind is float:
            if repr(left) != repr(right):  # as the text writes it: -0.0 is not 0.0
                return False
        elif kind in _PLAIN:
            if left != right:
                return False
        else:
            return False
    return True


_PLAIN = (str, int, bool, type(None))


def _key(value: Any) -> str:
    """A canonical text of a value for multiset comparison (type-strict, key order free)."""
    return json.dumps(_canon(value, 0), sort_keys=True, default=repr)


def _canon(value: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return repr(value)
    if isinstance(value, dict):
        return {"dict": sorted((str(k), _canon(v, depth + 1)) for k, v in value.items())}
    if isinstance(value, list | tuple):
        # children ordered by their canonical text but kept as structures: a list of
        # texts would escape each level's JSON again, doubling its backslashes per level
        texts = sorted(
            ((json.dumps(c, sort_keys=True), c) for c in (_canon(v, depth + 1) for v in value)),
            key=lambda pair: pair[0],
        )
        return {"list": [c for _, c in texts]}
    return [
        type(value).__name__,
        value if isinstance(value, str | int | float | bool) else repr(value),
    ]
