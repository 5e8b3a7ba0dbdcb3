"""Matchers about the shape of values: lists as multisets, numbers written as text.

* :class:`Unordered` compares two lists as multisets: every expected element
  pairs with its own actual element (one to one, any order) under an inner
  matcher; with ``recursive`` the rule also applies to lists nested inside
  lists and objects. Values that are not lists go to the inner matcher.
* :class:`NumericText` reads number-like text as the number it spells before
  an inner matcher compares: ``"2"`` equals ``2``, ``"2.0"`` equals ``2``,
  ``" -1.5e3 "`` equals ``-1500``. Booleans are never numbers here.

Both are usable by name or with options wherever an argument matcher is
accepted (``args=``, JSON configs): ``"unordered"``,
``{"unordered": {"matcher": "normalized", "recursive": true}}``,
``"numeric_text"``, ``{"numeric_text": {"matcher": "normalized"}}``.

>>> Unordered()(["a", "b", "b"], ["b", "a", "b"])
1.0
>>> Unordered()(["a", "b"], ["a", "a"])
0.0
>>> NumericText()({"n": "2", "x": 2.0}, {"n": 2, "x": "2"})
1.0
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.errors import ConfigError
from tooleval.matching.base import Matcher
from tooleval.matching.values import Exact
from tooleval.model import MISSING

__all__ = ["NumericText", "Unordered", "number_from_text"]

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")


def number_from_text(value: Any) -> Any:
    """The canonical number a number or number-like text stands for; other values as given.

    Integral values become ``int`` (so ``2``, ``2.0``, ``"2"`` and ``"2.0"``
    all give ``2``); other finite values a ``float``. Text that is not a
    plain decimal number (``"0x10"``, ``"1,000"``, ``"nan"``, ``""``) and
    booleans are returned unchanged.

    >>> number_from_text("2.0"), number_from_text(" 7 "), number_from_text("2.5")
    (2, 7, 2.5)
    >>> number_from_text("1,000"), number_from_text(True)
    ('1,000', True)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text):
            return int(text)
        if not _NUMBER.fullmatch(text):
            return value
        number: float = float(text)
    elif isinstance(value, int):
        return value
    elif isinstance(value, float):
        number = value
    else:
        return value
    if math.isfinite(number) and number.is_integer():
        return int(number)
    return number


def _coerce(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _coerce(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_coerce(v) for v in value]
    return number_from_text(value)


def _inner(spec: Any, field_name: str) -> Matcher:
    # Imported here: specs imports this module to offer these matchers by name.
    from tooleval.matching.specs import resolve_matcher

    return resolve_matcher(spec, field=field_name)


def _inner_spec(matcher: Matcher) -> Any:
    from tooleval.matching.specs import _matcher_spec

    return _matcher_spec(matcher)


@dataclass(frozen=True, slots=True)
class NumericText:
    """Numbers written as text equal the numbers they spell, then ``matcher`` decides.

    Both values (and every value nested in lists and objects) go through
    :func:`number_from_text` first. ``matcher`` is any matcher spec
    (default ``"exact"``).

    >>> NumericText()("2.0", 2), NumericText()("2", "02"), NumericText()("two", 2)
    (1.0, 1.0, 0.0)
    >>> NumericText("normalized")(["Paris ", "3"], ["paris", 3.0])
    1.0
    """

    matcher: Any = "exact"
    name: str = field(default="numeric_text", init=False)
    _resolved: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_resolved", _inner(self.matcher, "args.numeric_text.matcher"))

    @property
    def pass_score(self) -> float:
        return float(getattr(self._resolved, "pass_score", 1.0))

    def __call__(self, expected: Any, actual: Any) -> float:
        if actual is MISSING:
            return float(self._resolved(expected, MISSING))
        return float(self._resolved(_coerce(expected), _coerce(actual)))

    def spec(self) -> Any:
        inner = _inner_spec(self._resolved)
        if inner == "exact":
            return "numeric_text"
        return {"numeric_text": {"matcher": inner}}


@dataclass(frozen=True, slots=True)
class Unordered:
    """Lists compared as multisets: 1.0 when the elements pair off one to one.

    An element pairs with an actual element when ``matcher`` (default
    ``"exact"``) gives it at least the matcher's ``pass_score``; the pairing
    is a maximum bipartite matching, so ``["a", "a"]`` never matches
    ``["a", "b"]``. With ``recursive``, lists nested in lists and objects are
    multisets too (objects compare key by key). Values that are not both
    lists go to ``matcher`` as they are.

    >>> Unordered(recursive=True)({"ids": [[2, 1], [3]]}, {"ids": [[3], [1, 2]]})
    1.0
    >>> Unordered()({"ids": [2, 1]}, {"ids": [1, 2]})  # not recursive: objects go to exact
    0.0
    """

    matcher: Any = "exact"
    recursive: bool = False
    name: str = field(default="unordered", init=False)
    _resolved: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.recursive, bool):
            raise ConfigError(
                f"unordered matcher: recursive must be true or false, got {self.recursive!r}",
                field="recursive",
            )
        object.__setattr__(self, "_resolved", _inner(self.matcher, "args.unordered.matcher"))

    @property
    def pass_score(self) -> float:
        return 1.0

    def __call__(self, expected: Any, actual: Any) -> float:
        if actual is MISSING:
            return 0.0
        return 1.0 if self._same(expected, actual) else 0.0

    def _element(self, expected: Any, actual: Any) -> bool:
        inner = self._resolved
        return float(inner(expected, actual)) >= float(getattr(inner, "pass_score", 1.0))

    def _same(self, expected: Any, actual: Any) -> bool:
        both_lists = isinstance(expected, list | tuple) and isinstance(actual, list | tuple)
        if both_lists:
            same = self._same if self.recursive else self._element
            exact = type(self._resolved) is Exact
            return _perfect_matching(expected, actual, same, exact, self.recursive)
        if self.recursive and isinstance(expected, Mapping) and isinstance(actual, Mapping):
            return expected.keys() == actual.keys() and all(
                self._same(expected[k], actual[k]) for k in expected
            )
        return self._element(expected, actual)

    def spec(self) -> Any:
        inner = _inner_spec(self._resolved)
        if inner == "exact" and not self.recursive:
            return "unordered"
        return {"unordered": {"matcher": inner, "recursive": self.recursive}}


_SCALARS = (str, int, float, bool, type(None))


class _Unfreezable(Exception):
    """A value :func:`_freeze` cannot key the way the exact matcher compares it."""


def _freeze(value: Any, recursive: bool) -> Any:
    """A hashable key equal for two values exactly when the exact matcher says equal.

    JSON types only (``True``, ``1`` and ``1.0`` stay apart as in
    :func:`~tooleval.matching.values.deep_equal`; lists and tuples alike);
    with ``recursive`` nested lists are keyed as multisets.
    """
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value)
    if kind is dict:
        return ("dict", frozenset((k, _freeze(v, recursive)) for k, v in value.items()))
    if kind is list or kind is tuple:
        parts = [_freeze(v, recursive) for v in value]
        if recursive:
            return ("multiset", frozenset(Counter(parts).items()))
        return ("list", tuple(parts))
    raise _Unfreezable


def _perfect_matching(
    expected: Any, actual: Any, same: Any, exact: bool = False, recursive: bool = False
) -> bool:
    """Can every expected element pair with its own actual element (and none left over)?

    ``exact`` (the inner matcher is :class:`Exact`) with JSON values: counting
    keys from :func:`_freeze` decides, in linear time, with the answer the
    pairing would give. Otherwise augmenting paths
    (Kuhn's algorithm), searched iteratively so long lists cannot overflow the
    stack.
    """
    if len(expected) != len(actual):
        return False
    if exact:
        try:
            return Counter(_freeze(v, recursive) for v in expected) == Counter(
                _freeze(v, recursive) for v in actual
            )
        except _Unfreezable:
            pass  # a value the exact matcher compares some other way: pair them one by one
    n = len(expected)
    edges = [[j for j in range(n) if same(expected[i], actual[j])] for i in range(n)]
    owner: list[int | None] = [None] * n
    for start in range(n):
        if not edges[start]:
            return False
        seen = [False] * n
        # stack of (row, next edge position); parent column per row to flip the path
        stack: list[list[int]] = [[start, 0]]
        via: dict[int, int] = {}  # row -> column it takes on the path
        found = False
        while stack and not found:
            frame = stack[-1]
            row, position = frame
            if position >= len(edges[row]):
                stack.pop()
                continue
            frame[1] += 1
            col = edges[row][position]
            if seen[col]:
                continue
            seen[col] = True
            via[row] = col
            holder = owner[col]
            if holder is None:
                found = True
            else:
                stack.append([holder, 0])
        if not found:
            return False
        for row, _ in stack:  # flip: every row on the path takes the column it reached
            owner[via[row]] = row
    return True
