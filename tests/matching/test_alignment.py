"""Call-level pairing: tiers, tie-breaking, near misses, order violations."""

from __future__ import annotations

from tooleval.matching import CallTable, order_violations, resolve_comparator
from tooleval.model import ToolCall as C


def table(expected, actual, spec="exact"):
    return CallTable(expected, actual, resolve_comparator(spec))


def test_ties_keep_listed_order_not_crosswise():
    same = [C("f", {"x": 1})] * 3
    assert table(same, same).match_unordered() == [(0, 0), (1, 1), (2, 2)]
    # the duplicate that is left over is the later one
    assert table(same[:1], same[:2]).match_unordered() == [(0, 0)]


def test_more_pairs_beat_better_arguments():
    exp = [C("f", None), C("f", {"x": 1})]
    act = [C("f", {"x": 1}), C("f", {"x": 2})]
    assert table(exp, act).match_unordered() == [(0, 1), (1, 0)]


def test_better_arguments_win_among_equal_counts():
    exp = [C("f", {"a": 1, "b": 2})]
    act = [C("f", {"a": 1, "b": 9}), C("f", {"a": 1, "b": 2})]
    assert table(exp, act).match_unordered(require_match=False) == [(0, 1)]


def test_near_misses_pair_leftover_same_name_calls():
    exp = [C("cancel_order", {"order_id": "4471"}), C("issue_refund", {"order_id": "4471"})]
    act = [C("cancel_order", {"order_id": "4417"})]
    t = table(exp, act)
    assert t.match_unordered() == []
    assert t.match_leftovers([0, 1], [0]) == [(0, 0)]
    assert t.comparison(1, 0) is None


def test_partial_order_falls_back_to_lcs_or_assignment():
    exp = [C("a", {}), C("b", {})]
    act = [C("b", {}), C("a", {})]
    t = table(exp, act)
    assert len(t.match_partial_order([(0, 1)])) == 1
    assert len(t.match_partial_order([])) == 2


def test_order_violations_report_tightest_pairs_only():
    exp = [C("a"), C("b"), C("c")]
    reversed_pairs = [(0, 2), (1, 1), (2, 0)]
    assert order_violations(exp, reversed_pairs, [(0, 1), (1, 2)]) == [
        "b (expected #2) came before a (expected #1)",
        "c (expected #3) came before b (expected #2)",
    ]
    # with b unmatched, the implied a-before-c constraint is reported
    assert order_violations(exp, [(0, 2), (2, 0)], [(0, 1), (1, 2)]) == [
        "c (expected #3) came before a (expected #1)"
    ]
