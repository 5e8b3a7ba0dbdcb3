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
    order = _topological_order(rows, closure)
    # per row, the allowed columns heaviest first ((w or 0): None is never positive)
    candidates = [
        [
            j
            for _, j in sorted(
                (-(w or 0), j) for j, w in enumerate(weights[i][:cols]) if (w or 0) > 0
            )
        ]
        for i in range(rows)
    ]
    # Constraint partners per row, so a consistency check looks at them only.
    preds = [[k for k in range(rows) if (k, i) in closure and k != i] for i in range(rows)]
    succs = [[k for k in range(rows) if (i, k) in closure and k != i] for i in range(rows)]
    on_cycle = [(i, i) in closure for i in range(rows)]
    assigned: dict[int, int] = {}
    used: set[int] = set()
    best_pairs: list[tuple[int, int]] = []
    best_total: list[int | float] = [0]
    steps = [0]

    def bound(position: int) -> int | float:
        rest = order[position:]
        free = [j for j in range(cols) if j not in used]
        if not rest or not free:
            return 0
        sub = [[weights[i][j] for j in free] for i in rest]
        return sum(sub[a][b] or 0 for a, b in max_weight_matching(sub))  # matched: never None

    def consistent(i: int, j: int) -> bool:
        if on_cycle[i]:
            return False
        for k in preds[i]:
            col = assigned.get(k)
            if col is not None and not col < j:
                return False
        for k in succs[i]:
            col = assigned.get(k)
            if col is not None and not j < col:
                return False
        return True

    def search(position: int, total: int | float) -> None:
        steps[0] += 1
        if steps[0] > budget:
            raise SearchBudgetExceeded(
                f"ordering search stopped after {budget} steps ({rows} expected calls, "
                f"{len(before)} constraints); not scored"
            )
        if total > best_total[0]:
            best_total[0] = total
            best_pairs[:] = sorted(assigned.items())
        if position == len(order) or total + bound(position) <= best_total[0]:
            return
        i = order[position]
        for j in candidates[i]:
            if j in used or not consistent(i, j):
                continue
            assigned[i] = j
            used.add(j)
            search(position + 1, total + (weights[i][j] or 0))  # a candidate: never None
            del assigned[i]
            used.discard(j)
        search(position + 1, total)

    search(0, 0)
    return best_pairs


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
