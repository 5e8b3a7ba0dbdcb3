"""trajectory_match modes."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.metrics import trajectory_match
from tooleval.model import ToolCall as C

A, B, X = C("a", {"k": 1}), C("b", {}), C("x", {})


@pytest.mark.parametrize(
    ("mode", "actual", "score"),
    [
        ("strict", [A, B], 1.0),
        ("strict", [B, A], 0.0),
        ("strict", [A], 0.0),
        ("strict", [A, B, X], 0.0),
        ("unordered", [B, A], 1.0),
        ("unordered", [A, B, B], 0.0),
        ("unordered", [A], 0.0),
        ("subset", [A], 1.0),
        ("subset", [B, A], 1.0),
        ("subset", [], 1.0),
        ("subset", [A, X], 0.0),
        ("subset", [A, A], 0.0),
        ("superset", [X, B, A], 1.0),
        ("superset", [A], 0.0),
    ],
)
def test_modes(mode, actual, score):
    assert trajectory_match([A, B], actual, mode=mode).score == score


def test_both_empty_match_in_every_mode():
    for mode in ("strict", "unordered", "subset", "superset"):
        assert trajectory_match([], [], mode=mode).score == 1.0


def test_arguments_compared_with_matcher_and_names_only():
    assert trajectory_match([A], [C("a", {"k": 2})]).score == 0.0
    assert trajectory_match(["a"], [C("a", {"k": 2})]).score == 1.0
    assert (
        trajectory_match([C("s", {"q": "X"})], [C("s", {"q": "x"})], args="normalized").score == 1.0
    )


def test_optimal_not_greedy():
    exp = [C("f", None), C("f", {"x": 1})]
    assert (
        trajectory_match(exp, [C("f", {"x": 1}), C("f", {"x": 2})], mode="unordered").score == 1.0
    )


def test_diagnosis_respects_mode_categories():
    r = trajectory_match([A, B], [A], mode="subset")
    assert (
        r.score == 1.0 and r.diagnosis.missing == [] and r.diagnosis.details["not_called"] == ["b"]
    )
    r = trajectory_match([A, B], [A, X], mode="subset")
    assert r.diagnosis.missing == [] and [e["name"] for e in r.diagnosis.extra] == ["x"]
    assert r.diagnosis.details["not_called"] == ["b"]
    r = trajectory_match([A], [A, X], mode="superset")
    assert (
        r.score == 1.0
        and r.diagnosis.extra == []
        and r.diagnosis.details["additional_calls"] == ["x"]
    )
    r = trajectory_match([A, B], [B, A])
    assert r.diagnosis.order_violations == ["b (expected #2) came before a (expected #1)"]


def test_unscored_and_bad_mode():
    assert trajectory_match(None, [A]).score is None
    with pytest.raises(ConfigError, match="mode"):
        trajectory_match([A], [A], mode="loose")
