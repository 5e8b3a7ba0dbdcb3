"""Optimal pairings checked against brute force."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.matching import max_weight_matching, max_weight_partial_order, max_weight_subsequence
from tooleval.matching.assignment import transitive_closure

cell = st.one_of(st.none(), st.integers(min_value=1, max_value=9))


def tables(max_rows=4, max_cols=4):
    return st.integers(1, max_rows).flatmap(
        lambda r: st.integers(1, max_cols).flatmap(
            lambda c: st.lists(st.lists(cell, min_size=c, max_size=c), min_size=r, max_size=r)
        )
    )


def all_matchings(weights):
    rows, cols = len(weights), len(weights[0])
    usable = [(i, j) for i in range(rows) for j in range(cols) if weights[i][j] is not None]
    for size in range(min(rows, cols) + 1):
        for combo in itertools.combinations(usable, size):
            if len({i for i, _ in combo}) == size and len({j for _, j in combo}) == size:
                yield combo


def total(weights, pairs):
    return sum(weights[i][j] for i, j in pairs)


def valid(weights, pairs):
    assert len({i for i, _ in pairs}) == len(pairs) and len({j for _, j in pairs}) == len(pairs)
    assert all(weights[i][j] is not None for i, j in pairs)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_hungarian_is_optimal(weights):
    pairs = max_weight_matching(weights)
    valid(weights, pairs)
    assert total(weights, pairs) == max(total(weights, m) for m in all_matchings(weights))


@settings(max_examples=150, deadline=None)
@given(tables())
def test_subsequence_is_optimal_and_ordered(weights):
    pairs = max_weight_subsequence(weights)
    valid(weights, pairs)
    assert all(a[1] < b[1] for a, b in itertools.pairwise(pairs))
    best = max(
        total(weights, m)
        for m in all_matchings(weights)
        if all(a[1] < b[1] for a, b in itertools.pairwise(sorted(m)))
    )
    assert total(weights, pairs) == best


@settings(max_examples=150, deadline=None)
@given(
    tables(),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=4),
)
def test_partial_order_is_optimal(weights, before):
    rows = len(weights)
    before = [(a, b) for a, b in before if a < rows and b < rows and a != b]
    closure = transitive_closure(rows, before)

    def respects(m):
        pos = dict(m)
        return all(
            not (a in pos and b in pos) or (a != b and pos[a] < pos[b]) for a, b in closure
        ) and not any(a == b and a in pos for a, b in closure)

    pairs = max_weight_partial_order(weights, before)
    valid(weights, pairs)
    assert respects(pairs)
    best = max(total(weights, m) for m in all_matchings(weights) if respects(m))
    assert total(weights, pairs) == best


def test_empty_tables():
    assert max_weight_matching([]) == [] and max_weight_matching([[]]) == []
    assert max_weight_subsequence([]) == []
    assert max_weight_partial_order([], before=[]) == []


def test_more_rows_than_columns():
    assert max_weight_matching([[1], [5], [3]]) == [(1, 0)]


def test_deterministic_on_ties():
    weights = [[1, 1], [1, 1]]
    assert max_weight_matching(weights) == max_weight_matching([row[:] for row in weights])
