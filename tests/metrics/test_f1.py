"""tool_call_f1: multiset precision / recall / F1."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.metrics import tool_call_f1
from tooleval.model import ToolCall as C

W = C("weather_check", {"location": "Paris"})
UV = C("uv_index_lookup", {"location": "Paris"})
AQ = C("air_quality", {"location": "Paris"})


def test_ragas_examples():
    assert tool_call_f1([W, UV], [W, UV]).score == 1.0
    r = tool_call_f1([UV, W], [W, UV, AQ])
    assert r.score == pytest.approx(0.8)
    d = r.diagnosis.details
    assert d["precision"] == pytest.approx(2 / 3) and d["recall"] == 1.0
    assert [e["name"] for e in r.diagnosis.extra] == ["air_quality"]
    assert "extra air_quality" in r.reason


@pytest.mark.parametrize(("empty", "score"), [("perfect", 1.0), ("zero", 0.0), ("unscored", None)])
def test_nothing_expected_nothing_called_is_a_parameter(empty, score):
    r = tool_call_f1([], [], empty=empty)
    assert r.score == score
    assert r.params["empty"] == empty


def test_one_sided_empty_is_zero_both_ways():
    r = tool_call_f1([], [W])
    assert r.score == 0.0 and r.diagnosis.details["recall"] is None
    r = tool_call_f1([W], [])
    assert r.score == 0.0 and r.diagnosis.details["precision"] is None
    for empty in ("perfect", "zero", "unscored"):
        assert tool_call_f1([], [W], empty=empty).score == 0.0


def test_duplicates_count():
    r = tool_call_f1([W], [W, W])
    assert r.score == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert r.diagnosis.extra == [
        {"name": "weather_check", "args": {"location": "Paris"}, "index": 1}
    ]
    assert tool_call_f1([W, W], [W]).score == pytest.approx(2 / 3)
    assert tool_call_f1([W, W], [W, W]).score == 1.0


def test_nested_args_key_order_free_and_wrong_args_dont_count():
    exp = [C("f", {"filter": {"a": 1, "b": {"c": 2}}})]
    assert tool_call_f1(exp, [C("f", {"filter": {"b": {"c": 2}, "a": 1}})]).score == 1.0
    r = tool_call_f1(exp, [C("f", {"filter": {"b": {"c": 3}, "a": 1}})])
    assert r.score == 0.0
    # a same-name call with wrong arguments is an argument mismatch, not missing + extra
    assert r.diagnosis.missing == [] and r.diagnosis.extra == []
    assert r.diagnosis.argument_mismatches[0].key == "filter"


def test_names_only_expected():
    assert tool_call_f1(["weather_check"], [W]).score == 1.0


def test_matching_is_optimal_not_greedy():
    # Greedy by expected order would give f(x=1) the first call and lose one match.
    exp = [C("f", None), C("f", {"x": 1})]
    act = [C("f", {"x": 1}), C("f", {"x": 2})]
    assert tool_call_f1(exp, act).score == 1.0


def test_unscored_and_errors():
    assert tool_call_f1(None, [W]).score is None
    with pytest.raises(ConfigError, match="empty"):
        tool_call_f1([], [], empty="nan")


def test_configured_matcher_applies():
    exp = [C("search", {"q": "Paris"})]
    act = [C("search", {"q": "paris"})]
    assert tool_call_f1(exp, act).score == 0.0
    assert tool_call_f1(exp, act, args="normalized").score == 1.0
