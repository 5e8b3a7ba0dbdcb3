"""Pairing under a partial order, with a documented budget so one row never stalls a run.

Pairing expected calls with actual ones so that every ``before`` constraint
holds among the paired calls is, in general, NP-hard (with no constraints it
is an assignment problem, with a total order a weighted longest common
subsequence; both polynomial and solved that way by
:mod:`tooleval.matching.alignment` before this module is reached). What is
left is an exact branch-and-bound search, bounded at each step by the
unconstrained optimum: fast for the handful of calls a test row holds, but
exponential on adversarial rows (40 same-name calls with 60 ``before``
constraints ran for more than 15 minutes).

So the search has a budget of :data:`SEARCH_BUDGET` search steps (each step
is one node of the search tree, bounded by one assignment of at most the
remaining calls). A row that needs more raises :class:`SearchBudgetExceeded`;
``tooleval score`` and ``tooleval run`` record that row as unscored with the
reason, never as a number the search did not prove. The budget counts steps,
not seconds, so the same row gives the same outcome on every machine; a step
cost 17-26 microseconds on 40-60 calls in our measurements, so one row stops within
about a second or two.

>>> max_weight_partial_order([[1, None], [None, 1]], before=[(1, 0)])
[(1, 1)]
>>> try:
...     max_weight_partial_order([[1] * 12] * 12, [(i, i + 1) for i in range(0, 11, 2)],
...                                       budget=3)
... except SearchBudgetExceeded as exc:
...     print(exc.reason)
ordering search stopped after 3 steps (12 expected calls, 6 constraints); not scored
"""

from __future__ import annotations

from collections.abc import Iterable

from tooleval.errors import SearchBudgetExceeded
from tooleval.matching.assignment import Weights, max_weight_matching, transitive_closure

__all__ = ["SEARCH_BUDGET", "SearchBudgetExceeded", "max_weight_partial_order"]

#: Search steps allowed for one row's partial-order pairing.
SEARCH_BUDGET = 50_000


def max_weight_partial_order(
    weights: Weights, before: Iterable[tuple[int, int]], *, budget: int | None = None
) -> list[tuple[int, int]]:
    """Heaviest pairing whose columns respect the rows' ordering constraints.

    ``before`` holds ``(a, b)``: if rows ``a`` and ``b`` are both paired,
    ``a``'s column must come before ``b``'s. Constraints are taken with their
    transitive closure; rows on a cycle can never be paired together. Among
    equally heavy pairings the first one the search meets wins (rows in
    topological order, columns heaviest first). Raises
    :class:`SearchBudgetExceeded` after ``budget`` search steps (default
    :data:`SEARCH_BUDGET`).

    >>> max_weight_partial_order([[1, None, None], [None, 1, None], [None, None, 1]],
    ...                          before=[(2, 0)])
    [(1, 1), (2, 2)]
    """
    if budget is None:
        budget = SEARCH_BUDGET
    before = list(before)
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    closure = transitive_closure(rows, before)
    if not closure:
        return max_weight_matching(weights)
    search = _OrderSearch(weights, closure, cols=cols, budget=budget, constraints=len(before))
    search.run(0, 0)
    return search.best_pairs


class _OrderSearch:
    """Branch and bound over rows in topological order, columns heaviest first.

    The bound is the unconstrained optimum of the rows and columns left
    (:func:`max_weight_matching`); a branch that cannot beat the best found
    so far is cut.
    """

    def __init__(
        self,
        weights: Weights,
        closure: set[tuple[int, int]],
        *,
        cols: int,
        budget: int,
        constraints: int,
    ) -> None:
        rows = len(weights)
        self.weights, self.cols, self.budget = weights, cols, budget
        self.constraints = constraints
        self.order = _topological_order(rows, closure)
        # per row, the allowed columns heaviest first ((w or 0): None is never positive)
        self.candidates = [
            [
                j
                for _, j in sorted(
                    (-(w or 0), j) for j, w in enumerate(weights[i][:cols]) if (w or 0) > 0
                )
            ]
            for i in range(rows)
        ]
        # Constraint partners per row, so a consistency check looks at them only.
        self.preds = [[k for k in range(rows) if (k, i) in closure and k != i] for i in range(rows)]
        self.succs = [[k for k in range(rows) if (i, k) in closure and k != i] for i in range(rows)]
        self.on_cycle = [(i, i) in closure for i in range(rows)]
        self.assigned: dict[int, int] = {}
        self.used: set[int] = set()
        self.best_pairs: list[tuple[int, int]] = []
        self.best_total: int | float = 0
        self.steps = 0

    def bound(self, position: int) -> int | float:
        rest = self.order[position:]
        free = [j for j in range(self.cols) if j not in self.used]
        if not rest or not free:
            return 0
        sub = [[self.weights[i][j] for j in free] for i in rest]
        return sum(sub[a][b] or 0 for a, b in max_weight_matching(sub))  # matched: never None

    def consistent(self, i: int, j: int) -> bool:
        if self.on_cycle[i]:
            return False
        for k in self.preds[i]:
            col = self.assigned.get(k)
            if col is not None and not col < j:
                return False
        for k in self.succs[i]:
            col = self.assigned.get(k)
            if col is not None and not j < col:
                return False
        return True

    def run(self, position: int, total: int | float) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise SearchBudgetExceeded(
                f"ordering search stopped after {self.budget} steps ({len(self.weights)} "
                f"expected calls, {self.constraints} constraints); not scored"
            )
        if total > self.best_total:
            self.best_total = total
            self.best_pairs = sorted(self.assigned.items())
        if position == len(self.order) or total + self.bound(position) <= self.best_total:
            return
        i = self.order[position]
        for j in self.candidates[i]:
            if j in self.used or not self.consistent(i, j):
                continue
            self.assigned[i] = j
            self.used.add(j)
            self.run(position + 1, total + (self.weights[i][j] or 0))  # a candidate: never None
            del self.assigned[i]
            self.used.discard(j)
        self.run(position + 1, total)


def _topological_order(n: int, closure: set[tuple[int, int]]) -> list[int]:
    """Rows ordered so constrained predecessors come first (index order on ties)."""
    incoming = [0] * n
    for _, b in closure:
        incoming[b] += 1  # a self-pair (a cycle) keeps its row from ever being ready
    placed: list[int] = []
    remaining = set(range(n))
    while remaining:
        ready = [i for i in sorted(remaining) if incoming[i] == 0]
        # A cycle leaves nothing ready; take the lowest index so the search still ends.
        nxt = ready[0] if ready else min(remaining)
        placed.append(nxt)
        remaining.discard(nxt)
        for a, b in closure:
            if a == nxt and b in remaining:
                incoming[b] -= 1
    return placed
