"""tool_correctness as described in reference 002."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.metrics import tool_correctness
from tooleval.model import ExpectedTools
from tooleval.model import ToolCall as C

REFUND = C("issue_refund", {"order_id": "4471", "amount": 30})


def names(*names_):
    return [C(n, {}) for n in names_]


def test_names_partial_credit():
    r = tool_correctness(["lookup_order", "cancel_order"], names("lookup_order", "search_orders"))
    assert r.score == 0.5 and r.passed  # default threshold 0.5
    assert [m["name"] for m in r.diagnosis.missing] == ["cancel_order"]
    assert [e["name"] for e in r.diagnosis.extra] == ["search_orders"]
    assert r.threshold == 0.5


def test_extra_and_repeated_calls_are_defects():
    r = tool_correctness(
        ["lookup_order", "cancel_order"],
        names("lookup_order", "lookup_order", "lookup_order", "cancel_order"),
    )
    assert r.score == 0.5
    assert len(r.diagnosis.extra) == 2
    r = tool_correctness(
        ["lookup_order", "cancel_order"],
        names("lookup_order", "lookup_order", "lookup_order", "cancel_order"),
        extra_calls="ignore",
    )
    assert r.score == 1.0 and r.diagnosis.extra == []
    assert r.diagnosis.details["ignored_extra"] == ["lookup_order", "lookup_order"]


def test_refund_worked_example():
    good = [C("issue_refund", {"order_id": "4471", "amount": 30, "request_id": "a81f"})]
    assert not tool_correctness([REFUND], good).passed  # every key: request_id unexpected
    assert tool_correctness([REFUND], good, argument_keys=["order_id", "amount"]).passed
    assert tool_correctness([REFUND], good, extra_keys="ignore").passed
    bad = [C("issue_refund", {"order_id": "4471", "amount": 300, "request_id": "a81f"})]
    r = tool_correctness([REFUND], bad, argument_keys=["order_id", "amount"])
    assert r.score == 0.0 and not r.passed
    mismatch = r.diagnosis.argument_mismatches
    assert [(c.key, c.expected, c.actual) for c in mismatch] == [("amount", 30, 300)]


def test_argument_keys_per_tool_mapping_and_text():
    exp = [REFUND, C("cancel_order", {"order_id": "4471", "reason": "late"})]
    act = [
        C("issue_refund", {"order_id": "4471", "amount": 30, "ts": 1}),
        C("cancel_order", {"order_id": "4471", "reason": "other"}),
    ]
    keys = {"issue_refund": ["order_id", "amount"], "cancel_order": ["order_id"]}
    r = tool_correctness(exp, act, argument_keys=keys)
    assert r.score == 1.0 and r.params["argument_keys"] == keys
    # tools absent from the mapping compare every key
    assert tool_correctness(exp, act, argument_keys={"issue_refund": ["order_id"]}).score == 0.5
    assert tool_correctness([REFUND], act[:1], argument_keys="order_id, amount").score == 1.0
    assert tool_correctness([REFUND], act[:1], argument_keys=[]).score == 0.0  # empty = every key
    with pytest.raises(ConfigError, match="argument_keys"):
        tool_correctness([REFUND], act, argument_keys=[1, 2])


def test_names_only_expected_ignores_arguments():
    assert tool_correctness(["issue_refund"], [C("issue_refund", {"x": 1})]).score == 1.0


def test_ordering_payment_before_email():
    exp = ["capture_payment", "send_confirmation_email"]
    act = names("send_confirmation_email", "capture_payment")
    assert tool_correctness(exp, act).score == 1.0
    r = tool_correctness(exp, act, order="strict")
    assert r.score == 0.5
    assert r.diagnosis.order_violations == [
        "send_confirmation_email (expected #2) came before capture_payment (expected #1)"
    ]
    # out-of-order calls are an order problem, not missing or extra
    assert r.diagnosis.missing == [] and r.diagnosis.extra == []
    assert "came before" in r.reason


def test_ordering_uses_optimal_lcs_not_greedy():
    exp = ["a", "b", "c", "d"]
    act = names("d", "a", "b", "c")
    # greedy from the first actual call would lock onto d and find 1 match; LCS finds 3
    assert tool_correctness(exp, act, order="strict").score == 0.75


def test_partial_order_constraints_exactly():
    exp = ExpectedTools.of(
        ["check_availability", "fetch_user_preferences", "reserve"], before=[(0, 2), (1, 2)]
    )
    ok = names("fetch_user_preferences", "check_availability", "reserve")
    assert tool_correctness(exp, ok, order="strict").score == 1.0
    listed = ExpectedTools.of(["check_availability", "fetch_user_preferences", "reserve"])
    assert tool_correctness(listed, ok, order="strict").score == pytest.approx(2 / 3)
    bad = names("reserve", "fetch_user_preferences", "check_availability")
    r = tool_correctness(exp, bad, order="strict")
    assert r.score == pytest.approx(2 / 3)
    assert r.diagnosis.order_violations == [
        "reserve (expected #3) came before check_availability (expected #1)",
        "reserve (expected #3) came before fetch_user_preferences (expected #2)",
    ]
    free = ExpectedTools.of(["a", "b"], before=())
    assert tool_correctness(free, names("b", "a"), order="strict").score == 1.0


def test_transitive_constraints_hold_when_middle_call_missing():
    exp = ExpectedTools.of(["a", "b", "c"], before=[(0, 1), (1, 2)])
    assert tool_correctness(exp, names("c", "a"), order="strict").score == pytest.approx(1 / 3)


def test_cyclic_constraints_are_unscored():
    exp = ExpectedTools.of(["a", "b"], before=[(0, 1), (1, 0)])
    r = tool_correctness(exp, names("a", "b"), order="strict")
    assert r.score is None and "cycle" in r.reason
    assert tool_correctness(exp, names("a", "b")).score == 1.0


def test_exact_match():
    exp = ["a", "b"]
    assert tool_correctness(exp, names("a", "b"), exact_match=True).score == 1.0
    assert tool_correctness(exp, names("a"), exact_match=True).score == 0.0
    assert tool_correctness(exp, names("a", "b", "c"), exact_match=True).score == 0.0
    assert (
        tool_correctness(exp, names("a", "b", "c"), exact_match=True, extra_calls="ignore").score
        == 1.0
    )
    assert tool_correctness(exp, names("b", "a"), exact_match=True).score == 1.0
    r = tool_correctness(exp, names("b", "a"), exact_match=True, order="strict")
    assert r.score == 0.0 and "not an exact match" in r.reason


def test_restraint_rows_and_unbound():
    assert tool_correctness([], []).score == 1.0
    r = tool_correctness([], names("cancel_order"))
    assert r.score == 0.0 and "no calls expected" in r.reason
    assert tool_correctness([], names("cancel_order"), extra_calls="ignore").score == 1.0
    r = tool_correctness(None, names("cancel_order"))
    assert r.score is None and r.reason.startswith("no expected_tools")


def test_threshold():
    r = tool_correctness(["a", "b", "c"], names("a"), threshold=0.3)
    assert r.passed and r.score == pytest.approx(1 / 3)
    assert not tool_correctness(["a", "b", "c"], names("a")).passed


@pytest.mark.parametrize(
    "kwargs",
    [
        {"exact_match": "yes"},
        {"order": True},
        {"check_ordering": 1},
        {"extra_calls": "sometimes"},
        {"extra_keys": "x"},
        {"threshold": -0.1},
    ],
)
def test_bad_options(kwargs):
    with pytest.raises(ConfigError):
        tool_correctness([], [], **kwargs)


def test_reason_reads_like_the_issue():
    exp = [
        C("lookup_order", {"order_id": "4471"}),
        C("cancel_order", {"order_id": "4471"}),
        C("issue_refund", {"order_id": "4471"}),
    ]
    act = [
        C("lookup_order", {"order_id": "4471"}),
        C("cancel_order", {"order_id": "4417"}),
        C("lookup_order", {"order_id": "4471"}),
    ]
    r = tool_correctness(exp, act)
    assert r.reason == (
        "1 of 3 expected calls matched; missing issue_refund; extra lookup_order; "
        "cancel_order.order_id expected '4471', got '4417'"
    )
