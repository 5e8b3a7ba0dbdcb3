"""``unordered`` (lists as multisets), ``numeric_text`` and ``normalized`` options."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.errors import ConfigError
from tooleval.matching import (
    MISSING,
    Normalized,
    NumericText,
    Unordered,
    matcher_names,
    resolve_comparator,
    resolve_matcher,
)
from tooleval.matching.structural import number_from_text
from tooleval.metrics import tool_call_f1, tool_correctness
from tooleval.model import ToolCall

items = st.lists(st.sampled_from(["a", "b", "c", 1, 2, 2.5, True, None]), max_size=7)


@settings(max_examples=300, deadline=None)
@given(items, st.randoms(use_true_random=False))
def test_unordered_equals_multiset_equality(values, rnd):
    shuffled = values[:]
    rnd.shuffle(shuffled)
    assert Unordered()(values, shuffled) == 1.0
    other = values + ["z"]
    assert Unordered()(values, other) == 0.0


@settings(max_examples=300, deadline=None)
@given(items, items)
def test_unordered_agrees_with_counting(left, right):
    def key(v):
        return (type(v).__name__, v)

    same = Counter(map(key, left)) == Counter(map(key, right))
    assert (Unordered()(left, right) == 1.0) is same


def test_unordered_one_to_one_and_recursion():
    assert Unordered()(["a", "a"], ["a", "b"]) == 0.0
    assert Unordered()(["a", "b"], ["a"]) == 0.0
    assert Unordered()([[1, 2]], [[2, 1]]) == 0.0  # inner lists keep order unless recursive
    assert Unordered(recursive=True)([[1, 2], {"k": [3, 4]}], [{"k": [4, 3]}, [2, 1]]) == 1.0
    assert Unordered(recursive=True)({"k": [1]}, {"k": [1], "x": 2}) == 0.0
    assert Unordered()("x", "x") == 1.0 and Unordered()("x", "y") == 0.0
    assert Unordered()(["a"], MISSING) == 0.0
    # an inner matcher decides element equality; pairing is a perfect matching
    assert Unordered("normalized")(["Paris ", "ROME"], ["rome", "paris"]) == 1.0
    assert Unordered("numeric_text")(["2", 3], [3.0, 2]) == 1.0
    assert Unordered({"similarity": {"min_score": 0.5}})(["kitten", "ab"], ["ab", "sitten"]) == 1.0


def test_number_from_text():
    assert number_from_text("2") == 2 and type(number_from_text("2.0")) is int
    assert number_from_text(" -1.5e3 ") == -1500
    assert number_from_text("2.5") == 2.5
    for text in ("1,000", "0x10", "nan", "inf", "", "two", "1e", "--1"):
        assert number_from_text(text) == text
    assert number_from_text(True) is True and number_from_text(None) is None
    assert number_from_text(2.0) == 2 and type(number_from_text(2.0)) is int
    assert number_from_text(float("inf")) == float("inf")


def test_numeric_text_matcher():
    m = NumericText()
    assert m("2", 2) == m("2.0", 2) == m(2, "2") == m({"n": ["1", 2]}, {"n": [1.0, "2"]}) == 1.0
    assert m("2", 3) == 0.0 and m("2", "two") == 0.0 and m(True, 1) == 0.0
    assert m("2", MISSING) == 0.0
    assert m("Paris", "paris") == 0.0
    assert NumericText("normalized")("Paris", "paris") == 1.0


def test_normalized_options():
    assert Normalized()("Hello  World", "hello world") == 1.0
    cs = Normalized(case_sensitive=True)
    assert cs("Hello  World", "Hello World ") == 1.0 and cs("Hello", "hello") == 0.0
    nt = Normalized(numeric_text=True)
    assert nt(["2", " X "], [2.0, "x"]) == 1.0
    with pytest.raises(ConfigError):
        Normalized(case_sensitive="yes")


@pytest.mark.parametrize(
    "spec",
    [
        "unordered",
        "numeric_text",
        {"unordered": {"matcher": "normalized", "recursive": True}},
        {"unordered": {"matcher": {"numeric_text": {"matcher": "normalized"}}}},
        {"numeric_text": {"matcher": "normalized"}},
        {"normalized": {"case_sensitive": True, "numeric_text": False}},
        {"normalized": {"case_sensitive": False, "numeric_text": True}},
    ],
)
def test_specs_round_trip(spec):
    matcher = resolve_matcher(spec)
    assert resolve_matcher(matcher.spec()).spec() == matcher.spec()
    assert resolve_comparator(spec).spec() == matcher.spec()


def test_default_specs_are_unchanged():
    assert Normalized().spec() == "normalized"
    assert resolve_matcher("normalized").spec() == "normalized"
    assert {"unordered", "numeric_text"} <= set(matcher_names())


def test_bad_options_are_config_errors():
    with pytest.raises(ConfigError):
        resolve_matcher({"unordered": {"recursive": "yes"}})
    with pytest.raises(ConfigError):
        resolve_matcher({"unordered": {"matcher": "nope"}})
    with pytest.raises(ConfigError):
        resolve_matcher({"numeric_text": {"bogus": 1}})


def test_usable_in_every_metric_config():
    expected = [ToolCall("return", {"order": "#1", "item_ids": ["b", "a"], "qty": 2})]
    actual = [ToolCall("return", {"order": "#1", "item_ids": ["a", "b"], "qty": "2"})]
    args = {"default": "numeric_text", "keys": {"item_ids": "unordered"}}
    assert tool_correctness(expected, actual, args=args, exact_match=True).score == 1.0
    assert tool_call_f1(expected, actual, args=args).score == 1.0
    assert tool_correctness(expected, actual, exact_match=True).score == 0.0


nested = st.recursive(
    st.sampled_from(["a", "b", 1, 1.0, True, None]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("xy"), inner, max_size=2)
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(nested, max_size=4), st.lists(nested, max_size=4), st.booleans())
def test_counting_fast_path_equals_the_pairing(left, right, recursive):
    from tooleval.matching.values import deep_equal

    fast = Unordered(recursive=recursive)
    slow = Unordered(matcher=lambda e, a: deep_equal(e, a), recursive=recursive)
    assert fast(left, right) == slow(left, right)
    if not recursive:
        return
    shuffled = list(reversed(right))
    assert fast(left, right) == fast(left, shuffled)
