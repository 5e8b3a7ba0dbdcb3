"""tool_call_accuracy: the reference definition, rule by rule."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.metrics import tool_call_accuracy
from tooleval.model import ExpectedTools
from tooleval.model import ToolCall as C


def test_both_empty_is_one_and_one_side_empty_is_zero():
    assert tool_call_accuracy([], []).score == 1.0
    r = tool_call_accuracy([C("a", {})], [])
    assert r.score == 0.0 and [m["name"] for m in r.diagnosis.missing] == ["a"]
    assert "no calls made" in r.reason
    r = tool_call_accuracy([], [C("a", {})])
    assert r.score == 0.0 and [m["name"] for m in r.diagnosis.extra] == ["a"]
    assert "no calls expected" in r.reason


def test_expected_none_is_unscored():
    r = tool_call_accuracy(None, [C("a", {})])
    assert r.score is None and r.passed is None and "no expected_tools" in r.reason


def test_strict_compares_names_position_by_position():
    exp = [C("a", {}), C("b", {})]
    assert tool_call_accuracy(exp, [C("a", {}), C("b", {})]).score == 1.0
    r = tool_call_accuracy(exp, [C("b", {}), C("a", {})])
    assert r.score == 0.0
    assert r.diagnosis.details["misaligned"] == {"position": 0, "expected": "a", "actual": "b"}
    assert r.diagnosis.order_violations == ["b (expected #2) came before a (expected #1)"]


def test_strict_prefix_and_coverage():
    exp = [C("a", {}), C("b", {}), C("c", {})]
    r = tool_call_accuracy(exp, [C("a", {}), C("b", {})])
    assert r.score == pytest.approx(2 / 3)
    assert r.diagnosis.details["coverage"] == pytest.approx(2 / 3)
    assert [m["name"] for m in r.diagnosis.missing] == ["c"]
    # longer actual: only the overlapping prefix is compared, coverage is 1
    r = tool_call_accuracy(exp[:2], [C("a", {}), C("b", {}), C("z", {})])
    assert r.score == 1.0 and [e["name"] for e in r.diagnosis.extra] == ["z"]
    assert "extra z" in r.reason
    # a wrong name inside the prefix zeroes the score
    assert tool_call_accuracy(exp[:2], [C("a", {}), C("z", {}), C("b", {})]).score == 0.0


def test_argument_accuracy_is_mean_over_expected_keys():
    exp = [C("f", {"a": 1, "b": 2}), C("g", {"x": "y"})]
    act = [C("f", {"a": 1, "b": 3, "extra": 0}), C("g", {"x": "y"})]
    r = tool_call_accuracy(exp, act)
    assert r.score == pytest.approx(0.75)  # (0.5 + 1) / 2
    assert "f.b expected 2, got 3" in r.reason
    checks = {(c.tool, c.key): c for c in r.diagnosis.arguments}
    assert checks[("f", "b")].expected == 2 and checks[("f", "b")].actual == 3
    assert ("f", "extra") not in checks  # extra actual keys ignored


def test_missing_key_is_zero_and_no_args_rules():
    assert tool_call_accuracy([C("f", {"a": 1})], [C("f", {})]).score == 0.0
    assert tool_call_accuracy([C("f", {})], [C("f", {})]).score == 1.0
    assert tool_call_accuracy([C("f", {})], [C("f", {"a": 1})]).score == 0.0
    assert tool_call_accuracy([C("f", None)], [C("f", {"a": 1})]).score == 1.0  # names only
    assert tool_call_accuracy(["f"], [C("f", {"a": 1})]).score == 1.0


def test_flexible_allows_any_permutation():
    exp = [C("a", {"x": 1}), C("b", {"y": 2})]
    act = [C("b", {"y": 2}), C("a", {"x": 1})]
    assert tool_call_accuracy(exp, act, order="flexible").score == 1.0


def test_flexible_needs_name_containment():
    exp = [C("a", {}), C("b", {})]
    assert tool_call_accuracy(exp, [C("b", {}), C("c", {})], order="flexible").score == 0.0
    # shorter actual contained in expected
    r = tool_call_accuracy(exp, [C("b", {})], order="flexible")
    assert r.score == 0.5
    # shorter expected contained in actual
    assert (
        tool_call_accuracy(exp, [C("z", {}), C("b", {}), C("a", {})], order="flexible").score == 1.0
    )


def test_flexible_pairs_same_name_calls_optimally_not_by_sorting():
    # Sort-and-zip would pair f(1)-f(2) and f(2)-f(1); optimal pairs them crosswise.
    exp = [C("f", {"v": 1, "w": "a"}), C("f", {"v": 2, "w": "b"})]
    act = [C("f", {"v": 2, "w": "b"}), C("f", {"v": 1, "w": "a"})]
    assert tool_call_accuracy(exp, act, order="flexible").score == 1.0
    assert tool_call_accuracy(exp, act, order="strict").score == 0.0


def test_parse_error_scored_not_crashed():
    bad = C.parse("f", "{oops")
    r = tool_call_accuracy([C("f", {"a": 1})], [bad])
    assert r.score == 0.0 and r.is_scored
    assert "could not be parsed" in r.reason
    assert r.diagnosis.details["parse_errors"][0]["name"] == "f"


def test_threshold_and_params():
    r = tool_call_accuracy([C("f", {"a": 1, "b": 2})], [C("f", {"a": 1})], threshold=0.5)
    assert r.score == 0.5 and r.passed and r.threshold == 0.5
    assert r.params == {"order": "strict", "args": "exact", "empty": "perfect", "threshold": 0.5}
    assert not tool_call_accuracy([C("f", {"a": 1, "b": 2})], [C("f", {"a": 1})]).passed


@pytest.mark.parametrize(
    "kwargs", [{"order": "sideways"}, {"threshold": 2}, {"threshold": "x"}, {"args": "fuzzy"}]
)
def test_bad_options(kwargs):
    with pytest.raises(ConfigError):
        tool_call_accuracy([], [], **kwargs)


def test_bad_inputs_are_config_errors():
    with pytest.raises(ConfigError, match="one string"):
        tool_call_accuracy("a, b", [])
    with pytest.raises(ConfigError, match=r"actual\[0\]"):
        tool_call_accuracy([], [42])  # type: ignore[list-item]


def test_accepts_expected_tools_object_and_ignores_before_constraints():
    exp = ExpectedTools.of(["a", "b"], before=())
    assert tool_call_accuracy(exp, [C("b", {}), C("a", {})]).score == 0.0


def test_custom_matcher_per_key():
    exp = [C("search", {"query": "Paris hotels", "limit": 10})]
    act = [C("search", {"query": "paris  HOTELS", "limit": 10})]
    assert tool_call_accuracy(exp, act).score == 0.5
    assert tool_call_accuracy(exp, act, args={"keys": {"query": "normalized"}}).score == 1.0


def test_similarity_gives_partial_accuracy():
    exp = [C("search", {"query": "kitten"})]
    r = tool_call_accuracy(exp, [C("search", {"query": "sitting"})], args="levenshtein")
    assert 0 < r.score < 1
    assert "similarity" in r.reason
