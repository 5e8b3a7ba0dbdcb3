"""trajectory_match: order (strict | flexible) × coverage (exact | subset | superset)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tooleval.errors import ConfigError
from tooleval.metrics import trajectory_match
from tooleval.metrics.trajectory import MODES
from tooleval.model import ToolCall as C

A, B, X = C("a", {"k": 1}), C("b", {}), C("x", {})


@pytest.mark.parametrize(
    ("order", "coverage", "actual", "score"),
    [
        ("strict", "exact", [A, B], 1.0),
        ("strict", "exact", [B, A], 0.0),
        ("strict", "exact", [A], 0.0),
        ("strict", "exact", [A, B, X], 0.0),
        ("flexible", "exact", [B, A], 1.0),
        ("flexible", "exact", [A, B, B], 0.0),
        ("flexible", "exact", [A], 0.0),
        ("flexible", "subset", [A], 1.0),
        ("flexible", "subset", [B, A], 1.0),
        ("flexible", "subset", [], 1.0),
        ("flexible", "subset", [A, X], 0.0),
        ("flexible", "subset", [A, A], 0.0),
        ("flexible", "superset", [X, B, A], 1.0),
        ("flexible", "superset", [A], 0.0),
        # the actual calls, in order, are a subsequence of the reference
        ("strict", "subset", [A], 1.0),
        ("strict", "subset", [B], 1.0),
        ("strict", "subset", [A, B], 1.0),
        ("strict", "subset", [B, A], 0.0),
        ("strict", "subset", [], 1.0),
        ("strict", "subset", [A, X], 0.0),
        # the reference, in order, is a subsequence of the actual calls
        ("strict", "superset", [X, A, X, B], 1.0),
        ("strict", "superset", [A, B], 1.0),
        ("strict", "superset", [B, A], 0.0),
        ("strict", "superset", [B, X, A], 0.0),
        ("strict", "superset", [A], 0.0),
    ],
)
def test_order_and_coverage(order, coverage, actual, score):
    assert trajectory_match([A, B], actual, order=order, coverage=coverage).score == score


def test_strict_superset_pairs_with_the_argument_matcher():
    ref = [C("s", {"q": "X"}), C("t", {})]
    run = [C("s", {"q": "y"}), C("s", {"q": "x"}), C("t", {})]
    assert trajectory_match(ref, run, coverage="superset").score == 0.0
    assert trajectory_match(ref, run, coverage="superset", args="normalized").score == 1.0
    skipped = run[:1] + run[2:]
    assert trajectory_match(ref, skipped, coverage="superset", args="normalized").score == 0.0


def _is_subsequence(short, long):
    it = iter(long)
    return all(any(s == x for x in it) for s in short)


names = st.lists(st.sampled_from(["a", "b", "c"]), max_size=5)


@given(names, names)
def test_strict_subset_and_superset_are_the_subsequence_tests(expected, actual):
    """Greedy leftmost matching decides the subsequence test; the metric must agree."""
    sub = trajectory_match(expected, actual, coverage="subset").score
    sup = trajectory_match(expected, actual, coverage="superset").score
    if expected or actual:
        assert sub == float(_is_subsequence(actual, expected))
        assert sup == float(_is_subsequence(expected, actual))


@pytest.mark.parametrize(
    ("order", "coverage"), list(itertools.product(["strict", "flexible"], MODES))
)
def test_both_empty_is_the_empty_case(order, coverage):
    coverage = MODES[coverage]["coverage"]
    assert trajectory_match([], [], order=order, coverage=coverage).score == 1.0
    zero = trajectory_match([], [], order=order, coverage=coverage, empty="zero")
    assert zero.score == 0.0 and "empty='zero'" in zero.reason
    assert trajectory_match([], [], order=order, coverage=coverage, empty="unscored").score is None


def test_arguments_compared_with_matcher_and_names_only():
    assert trajectory_match([A], [C("a", {"k": 2})]).score == 0.0
    assert trajectory_match(["a"], [C("a", {"k": 2})]).score == 1.0
    assert (
        trajectory_match([C("s", {"q": "X"})], [C("s", {"q": "x"})], args="normalized").score == 1.0
    )


def test_optimal_not_greedy():
    exp = [C("f", None), C("f", {"x": 1})]
    assert (
        trajectory_match(exp, [C("f", {"x": 1}), C("f", {"x": 2})], order="flexible").score == 1.0
    )


def test_diagnosis_respects_coverage_and_names_the_rule():
    r = trajectory_match([A, B], [A], order="flexible", coverage="subset")
    assert (
        r.score == 1.0 and r.diagnosis.missing == [] and r.diagnosis.details["not_called"] == ["b"]
    )
    assert r.diagnosis.details["order"] == "flexible"
    assert r.diagnosis.details["coverage"] == "subset"
    assert "order flexible, coverage subset" in r.reason
    r = trajectory_match([A, B], [A, X], order="flexible", coverage="subset")
    assert r.diagnosis.missing == [] and [e["name"] for e in r.diagnosis.extra] == ["x"]
    assert r.diagnosis.details["not_called"] == ["b"]
    r = trajectory_match([A], [A, X], order="flexible", coverage="superset")
    assert (
        r.score == 1.0
        and r.diagnosis.extra == []
        and r.diagnosis.details["additional_calls"] == ["x"]
    )
    r = trajectory_match([A, B], [B, A])
    assert r.diagnosis.order_violations == ["b (expected #2) came before a (expected #1)"]
    r = trajectory_match([A, B], [B, X, A], coverage="superset")
    assert r.score == 0.0 and r.diagnosis.order_violations
    assert "order strict, coverage superset" in r.reason


@pytest.mark.parametrize("mode", list(MODES))
def test_the_seed_mode_is_an_alias(mode):
    run = [B, A, X]
    old = trajectory_match([A, B], run, mode=mode)
    new = trajectory_match([A, B], run, **MODES[mode])
    assert old == new and "mode" not in old.params


def test_unscored_and_bad_options():
    assert trajectory_match(None, [A]).score is None
    with pytest.raises(ConfigError, match="coverage"):
        trajectory_match([A], [A], coverage="loose")
    with pytest.raises(ConfigError, match="mode"):
        trajectory_match([A], [A], mode="loose")
    with pytest.raises(ConfigError, match="mode='subset'.*order='strict'"):
        trajectory_match([A], [A], mode="subset", order="strict")
