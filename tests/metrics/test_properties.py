"""Hypothesis properties of the call metrics."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.metrics import tool_call_accuracy, tool_call_f1, tool_correctness, trajectory_match
from tooleval.model import ToolCall

names = st.sampled_from(["a", "b", "c"])
leaf = st.one_of(st.integers(0, 2), st.sampled_from(["x", "y"]), st.booleans(), st.none())
values = st.recursive(
    leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["p", "q"]), inner, max_size=2)
    ),
    max_leaves=4,
)
arguments = st.dictionaries(st.sampled_from(["k1", "k2", "k3"]), values, max_size=3)
calls = st.lists(st.builds(ToolCall, names, arguments), max_size=4)
expected_calls = st.lists(st.builds(ToolCall, names, st.one_of(st.none(), arguments)), max_size=4)

METRICS = [
    lambda e, a: tool_call_accuracy(e, a),
    lambda e, a: tool_call_accuracy(e, a, order="flexible"),
    lambda e, a: tool_call_f1(e, a),
    lambda e, a: tool_correctness(e, a),
    lambda e, a: tool_correctness(e, a, order="strict"),
    lambda e, a: tool_correctness(e, a, extra_calls="ignore", extra_keys="ignore"),
    lambda e, a: trajectory_match(e, a),
    lambda e, a: trajectory_match(e, a, order="flexible"),
    lambda e, a: trajectory_match(e, a, order="flexible", coverage="subset"),
    lambda e, a: trajectory_match(e, a, order="flexible", coverage="superset"),
]


def reverse_keys(value):
    if isinstance(value, dict):
        return {k: reverse_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reverse_keys(v) for v in value]
    return value


def flipped(call_list):
    return [c if c.args is None else ToolCall(c.name, reverse_keys(c.args)) for c in call_list]


@settings(max_examples=80, deadline=None)
@given(expected_calls, calls)
def test_scores_in_unit_interval(expected, actual):
    for metric in METRICS:
        score = metric(expected, actual).score
        assert score is not None and 0.0 <= score <= 1.0


@settings(max_examples=80, deadline=None)
@given(calls)
def test_identical_scores_one(actual):
    for metric in METRICS:
        assert metric(actual, actual).score == 1.0


@settings(max_examples=80, deadline=None)
@given(expected_calls, calls)
def test_argument_key_order_invariance(expected, actual):
    for metric in METRICS:
        assert metric(expected, actual).score == metric(flipped(expected), flipped(actual)).score


@settings(max_examples=120, deadline=None)
@given(expected_calls, calls)
def test_flexible_at_least_strict(expected, actual):
    strict = tool_call_accuracy(expected, actual).score
    flexible = tool_call_accuracy(expected, actual, order="flexible").score
    assert flexible >= strict - 1e-12


@settings(max_examples=80, deadline=None)
@given(expected_calls, calls, st.randoms(use_true_random=False))
def test_unordered_metrics_ignore_call_order(expected, actual, rnd):
    shuffled = list(actual)
    rnd.shuffle(shuffled)
    assert tool_call_f1(expected, actual).score == tool_call_f1(expected, shuffled).score
    assert tool_correctness(expected, actual).score == tool_correctness(expected, shuffled).score
    for mode in ("unordered", "subset", "superset"):
        assert (
            trajectory_match(expected, actual, mode=mode).score
            == trajectory_match(expected, shuffled, mode=mode).score
        )


@settings(max_examples=80, deadline=None)
@given(expected_calls, calls)
def test_ordering_never_raises_the_score(expected, actual):
    assert tool_correctness(expected, actual, order="strict").score <= (
        tool_correctness(expected, actual).score
    )
