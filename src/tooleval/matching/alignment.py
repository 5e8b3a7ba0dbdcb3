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
from typing import Any

from tooleval.matching.assignment import (
    max_weight_matching,
    max_weight_subsequence,
    transitive_closure,
)
from tooleval.matching.config import ArgumentComparator, ArgumentComparison
from tooleval.matching.json_values import stored
from tooleval.matching.partial_order import max_weight_partial_order
from tooleval.model import ToolCall

__all__ = ["CallTable", "call_entry", "order_violations"]

_ACCURACY_STEPS = 10**9  # argument accuracy is compared to 1e-9


class CallTable:
    """Every same-name (expected, actual) pair, compared once, when first needed.

    ``keys_for(tool)`` returns the argument keys to compare for a tool
    (``None`` for all); ``extra_keys`` is passed to the comparator.

    Pairing needs only the score of each same-name pair
    (:meth:`ArgumentComparator.score`); the full :class:`ArgumentComparison` with its
    per-key checks is built by :meth:`comparison` for the pairs a diagnosis
    shows.
    """

    __slots__ = (
        "_comparisons",
        "_extra_keys",
        "_keys",
        "_keys_for",
        "_match_cache",
        "_scores",
        "_shown_names",
        "_spread",
        "_tier1",
        "_tier1_plain",
        "_tier2",
        "_weight_cache",
        "actual",
        "comparator",
        "expected",
    )

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
        self.comparator = comparator
        self._keys_for = keys_for
        self._extra_keys = extra_keys
        n, m = len(self.expected), len(self.actual)
        self._spread = (n + m) ** 2 + 1
        self._tier2 = min(n, m) * self._spread + 1
        self._tier1 = min(n, m) * (_ACCURACY_STEPS * self._tier2 + self._spread) + 1
        self._tier1_plain = min(n, m) * _ACCURACY_STEPS + 1
        self._keys: dict[str, Collection[str] | None] = {}
        self._scores: dict[tuple[int, int], tuple[float, bool]] = {}
        self._comparisons: dict[tuple[int, int], ArgumentComparison] = {}
        self._weight_cache: dict[tuple[bool, bool], list[list[int | None]]] = {}
        self._match_cache: dict[tuple[str, bool], list[tuple[int, int]]] = {}
        self._shown_names: set[str] | None = None

    # ------------------------------------------------------------ comparisons

    def _keys_of(self, tool: str) -> Collection[str] | None:
        if self._keys_for is None:
            return None
        if tool not in self._keys:
            self._keys[tool] = self._keys_for(tool)
        return self._keys[tool]

    def score(self, i: int, j: int) -> tuple[float, bool] | None:
        """``(argument score, matches)`` of expected ``i`` with actual ``j`` (None if names differ)."""
        found = self._scores.get((i, j))
        if found is not None:
            return found
        exp, act = self.expected[i], self.actual[j]
        if exp.name != act.name:
            return None
        if exp.name in self._names_always_shown():
            # The pair's checks will be shown: build them in this same walk.
            self.comparison(i, j)
            return self._scores[(i, j)]
        found = self.comparator.score(
            exp, act, keys=self._keys_of(exp.name), extra_keys=self._extra_keys
        )
        self._scores[(i, j)] = found
        return found

    def _names_always_shown(self) -> set[str]:
        """Names called once on each side: their one pair is paired and its checks shown.

        (Paired as a match, or else as a near miss among the leftovers; every
        default diagnosis shows the checks of both.)
        """
        if self._shown_names is None:
            once: dict[str, int] = {}
            for call in self.expected:
                once[call.name] = once.get(call.name, 0) + 1
            expected_once = {name for name, count in once.items() if count == 1}
            once = {}
            for call in self.actual:
                once[call.name] = once.get(call.name, 0) + 1
            self._shown_names = {n for n, count in once.items() if count == 1} & expected_once
        return self._shown_names

    def comparison(self, i: int, j: int) -> ArgumentComparison | None:
        """The argument comparison of expected ``i`` with actual ``j`` (None if names differ)."""
        found = self._comparisons.get((i, j))
        if found is not None:
            return found
        exp, act = self.expected[i], self.actual[j]
        if exp.name != act.name:
            return None
        found = self.comparator._compare(exp, act, self._keys_of(exp.name), self._extra_keys, i, j)
        self._comparisons[(i, j)] = found
        self._scores.setdefault((i, j), (found.score, found.matches))
        return found

    @property
    def pairs(self) -> dict[tuple[int, int], ArgumentComparison]:
        """Every same-name pair with its comparison (computes them all)."""
        out: dict[tuple[int, int], ArgumentComparison] = {}
        for i in range(len(self.expected)):
            for j in range(len(self.actual)):
                comparison = self.comparison(i, j)
                if comparison is not None:
                    out[(i, j)] = comparison
        return out

    # ------------------------------------------------------------ pairings

    def _weights(
        self,
        *,
        require_match: bool,
        rows: Iterable[int] | None = None,
        cols: Iterable[int] | None = None,
        plain: bool = False,
    ) -> list[list[int | None]]:
        whole = rows is None and cols is None
        if whole and (require_match, plain) in self._weight_cache:
            return self._weight_cache[(require_match, plain)]
        n, m = len(self.expected), len(self.actual)
        row_set = set(range(n) if rows is None else rows)
        col_set = set(range(m) if cols is None else cols)
        spread = self._spread
        # Only same-name cells can hold a weight; visiting just those (in the
        # same ascending order) skips n*m name comparisons on long call lists.
        by_name: dict[str, list[int]] = {}
        for j in sorted(col_set):
            by_name.setdefault(self.actual[j].name, []).append(j)
        table: list[list[int | None]] = []
        for i in range(n):
            line: list[int | None] = [None] * m
            if i in row_set:
                for j in by_name.get(self.expected[i].name, ()):
                    found = self.score(i, j)
                    if found is None or (require_match and not found[1]):
                        continue
                    accuracy = round(found[0] * _ACCURACY_STEPS)
                    line[j] = (
                        self._tier1_plain + accuracy
                        if plain
                        else self._tier1 + accuracy * self._tier2 + spread - (i - j) ** 2
                    )
            table.append(line)
        if whole:
            self._weight_cache[(require_match, plain)] = table
        return table

    def match_unordered(self, *, require_match: bool = True) -> list[tuple[int, int]]:
        """Optimal multiset pairing (order ignored)."""
        key = ("unordered", require_match)
        if key not in self._match_cache:
            self._match_cache[key] = max_weight_matching(self._weights(require_match=require_match))
        return list(self._match_cache[key])

    def match_in_order(self, *, require_match: bool = True) -> list[tuple[int, int]]:
        """Optimal pairing that keeps the listed order on both sides (weighted LCS)."""
        key = ("in_order", require_match)
        if key not in self._match_cache:
            self._match_cache[key] = max_weight_subsequence(
                self._weights(require_match=require_match)
            )
        return list(self._match_cache[key])

    def match_partial_order(
        self, before: Iterable[tuple[int, int]], *, require_match: bool = True
    ) -> list[tuple[int, int]]:
        """Optimal pairing whose actual positions respect ``before`` among paired calls."""
        pairs = tuple(before)
        if not pairs:
            return self.match_unordered(require_match=require_match)
        if _is_listed_chain(pairs, len(self.expected)):
            return self.match_in_order(require_match=require_match)
        # Exponential in the worst case: a step budget turns a row that would
        # stall the run into SearchBudgetExceeded (an unscored row, not a hang).
        return max_weight_partial_order(
            self._weights(require_match=require_match, plain=True), pairs
        )

    def match_leftovers(self, rows: Iterable[int], cols: Iterable[int]) -> list[tuple[int, int]]:
        """Pair left-over same-name calls whatever their arguments (near misses)."""
        rows, cols = list(rows), list(cols)
        if not rows or not cols:
            return []
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
    """A call as stored in a diagnosis: ``{"name", "args", "index"}``.

    >>> call_entry(ToolCall("refund", {"amount": 30}), 2)
    {'name': 'refund', 'args': {'amount': 30}, 'index': 2}
    """
    entry: dict[str, Any] = {"name": call.name, "args": stored(call.args), "index": index}
    if call.parse_error is not None:
        entry["parse_error"] = call.parse_error
    return entry
