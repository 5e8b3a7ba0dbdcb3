"""Optimal pairings between two lists: assignment and ordered subsequence.

Both take a weight table ``weights[i][j]`` (a number > 0 when row ``i``
may pair with column ``j``, ``None`` when it may not) and return the pairs
``(i, j)`` of a pairing with the largest total weight, sorted by ``i``.
Nothing here is greedy, so the result never depends on list order beyond
the documented tie-breaking: among equally good pairings the one the search
meets first wins, and the search always runs rows and columns in index order.
Callers that want "most pairs first, then best quality" encode that in the
weights (see :mod:`tooleval.matching.alignment`). Exact integer weights keep
the arithmetic exact.

>>> max_weight_matching([[1, 3], [2, None]])
[(0, 1), (1, 0)]
>>> max_weight_subsequence([[None, 1], [1, None]])
[(0, 1)]


Pairing under a partial order (``before`` constraints) is the budgeted search
in :mod:`tooleval.matching.partial_order`, built on these two.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "max_weight_matching",
    "max_weight_subsequence",
    "transitive_closure",
]

Weights = Sequence[Sequence[int | float | None]]


def max_weight_matching(weights: Weights) -> list[tuple[int, int]]:
    """Maximum-weight bipartite matching (Hungarian algorithm, O(n^2 m)).

    >>> max_weight_matching([[5, 4], [4, None]])
    [(0, 1), (1, 0)]
    >>> max_weight_matching([])
    []
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return []
    disjoint = _disjoint_positive(weights)
    if disjoint is not None:
        return disjoint
    transpose = rows > cols
    if transpose:
        weights = [[weights[i][j] for i in range(rows)] for j in range(cols)]
        rows, cols = cols, rows
    # Minimise cost = -weight; a forbidden pair costs 0, the same as leaving
    # the row unpaired, and is dropped from the answer afterwards.
    cost = [[-(w or 0) if w is not None else 0 for w in row] for row in weights]
    assigned = _hungarian(cost, rows, cols)
    pairs = [(i, j) for i, j in assigned if weights[i][j] is not None]
    if transpose:
        pairs = [(j, i) for i, j in pairs]
    return sorted(pairs)


def _disjoint_positive(weights: Weights) -> list[tuple[int, int]] | None:
    """The allowed pairs when no two share a row or a column and all weigh > 0.

    Then every optimum holds all of them, so no search is needed (the common
    case of a few calls with distinct names). None when that does not hold.
    """
    pairs: list[tuple[int, int]] = []
    used_cols: set[int] = set()
    for i, row in enumerate(weights):
        found = -1
        for j, w in enumerate(row):
            if w is None:
                continue
            if found >= 0 or j in used_cols or type(w) is not int or w <= 0:
                return None
            found = j
        if found >= 0:
            used_cols.add(found)
            pairs.append((i, found))
    return pairs


def _hungarian(cost: list[list[int | float]], n: int, m: int) -> list[tuple[int, int]]:
    """Classic potentials-based Hungarian method for n <= m (1-indexed inside)."""
    inf = float("inf")
    u: list[int | float] = [0] * (n + 1)
    v: list[int | float] = [0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: row assigned to column j
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv: list[int | float] = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta: int | float = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j] = cur
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    return [(p[j] - 1, j - 1) for j in range(1, m + 1) if p[j]]


def max_weight_subsequence(weights: Weights) -> list[tuple[int, int]]:
    """Heaviest common subsequence: pairs increasing in both ``i`` and ``j``.

    The weighted longest-common-subsequence DP; with weight 1 per allowed
    pair it is the plain LCS.

    >>> max_weight_subsequence([[1, None, None], [None, None, 1], [None, 1, None]])
    [(0, 0), (1, 2)]
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    best: list[list[int | float]] = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        row = weights[i - 1]
        for j in range(1, cols + 1):
            value = max(best[i - 1][j], best[i][j - 1])
            w = row[j - 1]
            if w is not None and best[i - 1][j - 1] + w > value:
                value = best[i - 1][j - 1] + w
            best[i][j] = value
    pairs: list[tuple[int, int]] = []
    i, j = rows, cols
    while i > 0 and j > 0:
        w = weights[i - 1][j - 1]
        if w is not None and best[i][j] == best[i - 1][j - 1] + w and w > 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    return sorted(pairs)


def transitive_closure(n: int, before: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """Every pair implied by ``before`` ("a before b, b before c" gives "a before c").

    A pair ``(i, i)`` in the answer means the constraints form a cycle.

    >>> sorted(transitive_closure(3, [(0, 1), (1, 2)]))
    [(0, 1), (0, 2), (1, 2)]
    """
    after: list[set[int]] = [set() for _ in range(n)]
    for a, b in before:
        after[a].add(b)
    closure: set[tuple[int, int]] = set()
    for start in range(n):
        stack = list(after[start])
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            closure.add((start, node))
            stack.extend(after[node])
    return closure
