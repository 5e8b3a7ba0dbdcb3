"""Pair expected tool calls with actual ones: by multiset, in order, or by a partial order.

:class:`CallTable` compares every expected call with every actual call of the
same name once (through an :class:`~tooleval.matching.config.ArgumentComparator`)
and turns the results into integer weights with three tiers, so every optimum
is exact and deterministic:

1. the number of pairs (most pairs first),
2. the argument accuracy of the pairs (best arguments next),
3. closeness of positions (among equals, pair the i-th with the i-th: the
   pairing that keeps the listed order, never a crosswise one).

>>> from tooleval.model import ToolCall
>>> from tooleval.matching.config import resolve_comparator
>>> exp = [ToolCall("f", {"x": 1}), ToolCall("f", {"x": 2})]
>>> act = [ToolCall("f", {"x": 2}), ToolCall("f", {"x": 1})]
>>> table = CallTable(exp, act, resolve_comparator())
>>> table.match_unordered()
[(0, 1), (1, 0)]
>>> table.match_in_order()
[(0, 1)]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.matching.assignment import (
    max_weight_matching,
    max_weight_partial_order,
    max_weight_subsequence,
    transitive_closure,
)
from tooleval.matching.config import ArgumentComparator, Comparison, json_safe
from tooleval.model import ToolCall

__all__ = ["CallTable", "call_entry", "order_violations"]

_ACCURACY_STEPS = 10**9  # argument accuracy is compared to 1e-9


@dataclass(frozen=True, slots=True)
class _Pair:
    comparison: Comparison
    weight_match: int  # tiers 1-3
    weight_plain: int  # tiers 1-2 only (for the branch-and-bound search)


class CallTable:
    """Every same-name (expected, actual) pair, compared once.

    ``keys_for(tool)`` returns the argument keys to compare for a tool
    (``None`` for all); ``extra_keys`` is passed to the comparator.
    """

    def __init__(
        self,
        expected: Sequence[ToolCall],
        actual: Sequence[ToolCall],
        comparator: ArgumentComparator,
        *,
        keys_for: Callable[[str], Collection[str] | None] | None = None,
        extra_keys: str = "ignore",
    ) -> None:
        self.expected = list(expected)
        self.actual = list(actual)
        n, m = len(self.expected), len(self.actual)
        spread = (n + m) ** 2 + 1
        self._tier2 = min(n, m) * spread + 1
        self._tier1 = min(n, m) * (_ACCURACY_STEPS * self._tier2 + spread) + 1
        self._tier1_plain = min(n, m) * _ACCURACY_STEPS + 1
        self.pairs: dict[tuple[int, int], _Pair] = {}
        for i, exp in enumerate(self.expected):
            keys = keys_for(exp.name) if keys_for is not None else None
            for j, act in enumerate(self.actual):
                if exp.name != act.name:
                    continue
                comparison = comparator.compare(
                    exp,
                    act,
                    keys=keys,
                    extra_keys=extra_keys,
                    expected_index=i,
                    actual_index=j,
                )
                accuracy = round(comparison.score * _ACCURACY_STEPS)
                self.pairs[(i, j)] = _Pair(
                    comparison,
                    self._tier1 + accuracy * self._tier2 + spread - (i - j) ** 2,
                    self._tier1_plain + accuracy,
                )

    def comparison(self, i: int, j: int) -> Comparison | None:
        """The argument comparison of expected ``i`` with actual ``j`` (None if names differ)."""
        pair = self.pairs.get((i, j))
        return pair.comparison if pair is not None else None

    def _weights(
        self,
        *,
        require_match: bool,
        rows: Iterable[int] | None = None,
        cols: Iterable[int] | None = None,
        plain: bool = False,
    ) -> list[list[int | None]]:
        row_set = set(range(len(self.expected)) if rows is None else rows)
        col_set = set(range(len(self.actual)) if cols is None else cols)
        table: list[list[int | None]] = []
        for i in range(len(self.expected)):
            line: list[int | None] = []
            for j in range(len(self.actual)):
                pair = self.pairs.get((i, j))
                usable = (
                    pair is not None
                    and i in row_set
                    and j in col_set
                    and (pair.comparison.matches or not require_match)
                )
                line.append((pair.weight_plain if plain else pair.weight_match) if usable else None)
            table.append(line)
        return table

    def match_unordered(self, *, require_match: bool = True) -> list[tuple[int, int]]:
        """Optimal multiset pairing (order ignored)."""
        return max_weight_matching(self._weights(require_match=require_match))

    def match_in_order(self, *, require_match: bool = True) -> list[tuple[int, int]]:
        """Optimal pairing that keeps the listed order on both sides (weighted LCS)."""
        return max_weight_subsequence(self._weights(require_match=require_match))

    def match_partial_order(
        self, before: Iterable[tuple[int, int]], *, require_match: bool = True
    ) -> list[tuple[int, int]]:
        """Optimal pairing whose actual positions respect ``before`` among paired calls."""
        pairs = tuple(before)
        if not pairs:
            return self.match_unordered(require_match=require_match)
        if _is_listed_chain(pairs, len(self.expected)):
            return self.match_in_order(require_match=require_match)
        return max_weight_partial_order(
            self._weights(require_match=require_match, plain=True), pairs
        )

    def match_leftovers(self, rows: Iterable[int], cols: Iterable[int]) -> list[tuple[int, int]]:
        """Pair left-over same-name calls whatever their arguments (near misses)."""
        return max_weight_matching(self._weights(require_match=False, rows=rows, cols=cols))


def _is_listed_chain(pairs: tuple[tuple[int, int], ...], n: int) -> bool:
    return set(pairs) == {(i, i + 1) for i in range(n - 1)} or transitive_closure(n, pairs) == {
        (i, j) for i in range(n) for j in range(i + 1, n)
    }


def order_violations(
    expected: Sequence[ToolCall],
    pairs: Iterable[tuple[int, int]],
    before: Iterable[tuple[int, int]],
) -> list[str]:
    """Readable strings for each ordering constraint the pairing breaks.

    Only the tightest broken constraints are listed (a before c is not
    repeated when a before b and b before c are both reported).

    >>> calls = [ToolCall("capture_payment"), ToolCall("send_confirmation_email")]
    >>> order_violations(calls, [(0, 1), (1, 0)], [(0, 1)])
    ['send_confirmation_email (expected #2) came before capture_payment (expected #1)']
    """
    position: Mapping[int, int] = dict(pairs)
    closure = transitive_closure(len(expected), before)
    out: list[str] = []
    for a, b in sorted(closure):
        if a == b or a not in position or b not in position or position[a] < position[b]:
            continue
        between = any(
            (a, k) in closure and (k, b) in closure and k in position and k not in (a, b)
            for k in range(len(expected))
        )
        if between:
            continue
        out.append(
            f"{expected[b].name} (expected #{b + 1}) came before "
            f"{expected[a].name} (expected #{a + 1})"
        )
    return out


def call_entry(call: ToolCall, index: int) -> dict[str, Any]:
    """A call as stored in a diagnosis: ``{"name", "args", "index"}``."""
    entry: dict[str, Any] = {"name": call.name, "args": json_safe(call.args), "index": index}
    if call.parse_error is not None:
        entry["parse_error"] = call.parse_error
    return entry
