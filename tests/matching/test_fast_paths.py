"""The fast paths of matching give exactly what the general code gives.

Each shortcut (concrete-type ``deep_equal``, score-only pair comparisons,
disjoint assignments, plain JSON kept by reference) is checked against a reference
computation on random inputs, including the values that tell JSON types apart
(True vs 1, 1 vs 1.0, NaN, -0.0) and nested dicts, lists and tuples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.matching import MISSING, resolve_comparator
from tooleval.matching.alignment import CallTable, _is_listed_chain
from tooleval.matching.assignment import _hungarian, max_weight_matching, max_weight_subsequence
from tooleval.matching.partial_order import max_weight_partial_order
from tooleval.matching.values import deep_equal
from tooleval.model import ToolCall

NAN = float("nan")
leaf = st.sampled_from([0, 1, 2, 1.0, 0.0, -0.0, 2.5, True, False, None, "1", "a", "", NAN])
values = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["p", "q", "r"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def reference_equal(expected, actual) -> bool:
    """deep_equal as specified: ABC checks only, no shortcut."""
    if actual is MISSING or expected is MISSING:
        return expected is actual
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return expected.keys() == actual.keys() and all(
            reference_equal(expected[k], actual[k]) for k in expected
        )
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            reference_equal(e, a) for e, a in zip(expected, actual, strict=True)
        )

    def kind(value):
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, int):
            return "int"
        if isinstance(value, float):
            return "float"
        return type(value).__name__

    def is_nan(value):  # NaN is the same as NaN (docs/metrics.md)
        return isinstance(value, float) and math.isnan(value)

    return kind(expected) == kind(actual) and (
        bool(expected == actual) or (is_nan(expected) and is_nan(actual))
    )


def mutate(value, pick: int):
    """A value close to ``value``: the same, a type twin, or a changed leaf."""
    if isinstance(value, dict) and value:
        key = sorted(value)[pick % len(value)]
        return {**value, key: mutate(value[key], pick // 2)}
    if isinstance(value, list | tuple) and value:
        items = list(value)
        items[pick % len(items)] = mutate(items[pick % len(items)], pick // 2)
        return items if pick % 3 else tuple(items)
    if pick % 4 == 0:
        return value
    # Type twins: equal under ==, different JSON values.
    if value is True:
        return 1
    if value is False:
        return 0.0
    if type(value) is int:
        return float(value) if pick % 2 else bool(value)
    if type(value) is float:
        return int(value) if value == value else value
    return "changed"


@settings(max_examples=400, deadline=None)
@given(values, values, st.integers(0, 50))
def test_deep_equal_matches_reference(a, b, pick):
    near = mutate(a, pick)
    for expected, actual in [(a, b), (a, a), (a, near), (near, a), (a, MISSING), (MISSING, a)]:
        assert deep_equal(expected, actual) == reference_equal(expected, actual)


def test_deep_equal_keeps_json_types_apart_and_nan_equal_to_nan():
    assert not deep_equal({"a": [1]}, {"a": [True]})
    assert not deep_equal({"a": [1]}, {"a": [1.0]})
    assert deep_equal({"a": [1, {"b": 2}]}, {"a": (1, {"b": 2})})
    assert deep_equal(0.0, -0.0)
    assert deep_equal([NAN], [float("nan")])  # two NaN objects, not one by identity
    assert deep_equal(NAN, float("nan")) and not deep_equal(NAN, 0.0)
    assert not deep_equal([NAN], [1.0])


keys = st.sampled_from(["k1", "k2", "k3", "city"])
arguments = st.dictionaries(keys, values, max_size=3)


@st.composite
def call_pairs(draw):
    expected = draw(st.one_of(st.none(), arguments))
    kind = draw(st.sampled_from(["same", "mutated", "random", "unparsable", "superset"]))
    if kind == "same":
        actual = ToolCall("f", dict(expected or {}))
    elif kind == "mutated" and expected:
        actual = ToolCall("f", mutate(expected, draw(st.integers(0, 50))))
    elif kind == "unparsable":
        actual = ToolCall.parse("f", draw(st.sampled_from(["{bad", "[1]", ""])))
    elif kind == "superset":
        actual = ToolCall("f", {**(expected or {}), **draw(arguments)})
    else:
        actual = ToolCall("f", draw(arguments))
    return ToolCall("f", expected), actual


COMPARATORS = [
    "exact",
    "normalized",
    {"numeric": {"abs_tol": 0.5}},
    {"default": "exact", "keys": {"k1": "ignore", "city": "normalized"}},
    {"default": "exact", "tools": {"f": {"k2.p": "ignore", "*": "exact"}}},
]


@settings(max_examples=300, deadline=None)
@given(
    call_pairs(),
    st.sampled_from(range(len(COMPARATORS))),
    st.sampled_from(["ignore", "mismatch"]),
    st.sampled_from([None, [], ["k1"], ["k2.p", "city"]]),
)
def test_score_only_equals_full_comparison(pair, which, extra_keys, selected):
    expected, actual = pair
    cmp = resolve_comparator(COMPARATORS[which])
    full = cmp.compare(expected, actual, keys=selected, extra_keys=extra_keys)
    assert cmp.score(expected, actual, keys=selected, extra_keys=extra_keys) == (
        full.score,
        full.matches,
    )


# ------------------------------------------------------------------ CallTable

_STEPS = 10**9


def reference_tables(expected, actual, cmp, extra_keys="ignore"):
    """Weights exactly as the eager CallTable built them, from full comparisons."""
    n, m = len(expected), len(actual)
    spread = (n + m) ** 2 + 1
    tier2 = min(n, m) * spread + 1
    tier1 = min(n, m) * (_STEPS * tier2 + spread) + 1
    tier1_plain = min(n, m) * _STEPS + 1
    pairs = {}
    for i, e in enumerate(expected):
        for j, a in enumerate(actual):
            if e.name == a.name:
                c = cmp.compare(e, a, extra_keys=extra_keys)
                accuracy = round(c.score * _STEPS)
                pairs[(i, j)] = (
                    c.matches,
                    tier1 + accuracy * tier2 + spread - (i - j) ** 2,
                    tier1_plain + accuracy,
                )

    def weights(require_match, plain=False, rows=None, cols=None):
        rows = set(range(n)) if rows is None else set(rows)
        cols = set(range(m)) if cols is None else set(cols)
        return [
            [
                (p[2] if plain else p[1])
                if (p := pairs.get((i, j)))
                and i in rows
                and j in cols
                and (p[0] or not require_match)
                else None
                for j in range(m)
            ]
            for i in range(n)
        ]

    return weights


simple_args = st.dictionaries(st.sampled_from(["x", "y"]), st.sampled_from([1, 1.0, True, "1"]))


@st.composite
def call_lists(draw):
    names = st.sampled_from(["a", "b", "c"])
    expected = draw(
        st.lists(st.builds(ToolCall, names, st.one_of(st.none(), simple_args)), max_size=5)
    )
    if draw(st.booleans()):
        # Often the agent got it right: same calls, perhaps one touched.
        actual = [ToolCall(c.name, dict(c.args or {})) for c in expected]
        if actual and draw(st.booleans()):
            k = draw(st.integers(0, len(actual) - 1))
            actual[k] = ToolCall(actual[k].name, draw(simple_args))
    else:
        actual = draw(st.lists(st.builds(ToolCall, names, simple_args), max_size=5))
    n = len(expected)
    before = draw(
        st.lists(
            st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))), max_size=4
        )
    )
    before = [(a, b) for a, b in before if a != b and n > 1]
    return expected, actual, before


@settings(max_examples=400, deadline=None)
@given(
    call_lists(), st.sampled_from(["exact", "normalized"]), st.sampled_from(["ignore", "mismatch"])
)
def test_call_table_pairings_match_the_eager_reference(lists, spec, extra_keys):
    expected, actual, before = lists
    cmp = resolve_comparator(spec)
    table = CallTable(expected, actual, cmp, extra_keys=extra_keys)
    weights = reference_tables(expected, actual, cmp, extra_keys)
    for require in (True, False):
        assert table.match_unordered(require_match=require) == max_weight_matching(weights(require))
        assert table.match_in_order(require_match=require) == max_weight_subsequence(
            weights(require)
        )
        if before and not _is_listed_chain(tuple(before), len(expected)):
            reference = max_weight_partial_order(weights(require, plain=True), before)
            assert table.match_partial_order(before, require_match=require) == reference
    free = table.match_unordered()
    rows = [i for i in range(len(expected)) if i not in {p[0] for p in free}]
    cols = [j for j in range(len(actual)) if j not in {p[1] for p in free}]
    assert table.match_leftovers(rows, cols) == max_weight_matching(
        weights(False, rows=rows, cols=cols)
    )
    for (i, j), comparison in table.pairs.items():
        assert comparison == cmp.compare(
            expected[i], actual[j], extra_keys=extra_keys, expected_index=i, actual_index=j
        )
        assert table.score(i, j) == (comparison.score, comparison.matches)


def test_every_same_name_pair_is_compared_with_a_user_matcher():
    seen = []

    def spy(e, a):
        seen.append((e, a))
        return e == a

    cmp = resolve_comparator(spy)
    table = CallTable(
        [ToolCall("f", {"x": 1}), ToolCall("f", {"x": 2})],
        [ToolCall("f", {"x": 1}), ToolCall("f", {"x": 2})],
        cmp,
    )
    assert table.match_unordered() == [(0, 0), (1, 1)]
    assert len(seen) == 4  # every same-name pair compared, so a raising matcher still raises


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(st.one_of(st.none(), st.integers(1, 9)), min_size=3, max_size=3), max_size=4)
)
def test_disjoint_shortcut_equals_hungarian(table):
    if not table:
        return
    rows, cols = len(table), len(table[0])
    # Brute force over the Hungarian's own answer shape: compare total weights.
    got = max_weight_matching(table)
    transpose = rows > cols
    w = [[table[i][j] for i in range(rows)] for j in range(cols)] if transpose else table
    cost = [[-(x or 0) if x is not None else 0 for x in row] for row in w]
    assigned = _hungarian(cost, len(w), len(w[0]))
    ref = sorted(((j, i) if transpose else (i, j)) for i, j in assigned if w[i][j] is not None)
    assert sum(table[i][j] for i, j in got) == sum(table[i][j] for i, j in ref)
    if all(sum(x is not None for x in row) <= 1 for row in table) and all(
        sum(table[i][j] is not None for i in range(rows)) <= 1 for j in range(cols)
    ):
        assert got == ref


def test_nan_argument_matches_nan_and_nothing_else():
    nan = math.nan
    cmp = resolve_comparator()
    call = ToolCall("f", {"x": nan, "y": [nan]})
    same = ToolCall("f", {"x": float("nan"), "y": [float("nan")]})
    assert cmp.score(call, same) == (1.0, True)
    assert cmp.compare(call, same).score == 1.0
    assert cmp.compare(call, ToolCall("f", {"x": 1.0, "y": [nan]})).score < 1.0


keyed_values = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["p", "q", 1, 1.0, True]), inner, max_size=3),
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(keyed_values)
def test_stored_value_is_what_json_safe_builds(value):
    from tooleval.matching.json_values import _plain, json_safe, stored

    kept = stored(value)
    # Same value, same types all the way down (repr tells 1 from 1.0 and -0.0 from 0.0).
    assert repr(kept) == repr(json_safe(value))
    assert (kept is value) == _plain(value)
