"""The worked examples of shared/reference/ (000 principle, 001 ragas docs, 002 article)."""

from __future__ import annotations

import pytest

from tooleval.metrics import output_contains, score_sample, tool_call_accuracy, tool_correctness
from tooleval.model import (
    AssistantMessage,
    ExpectedTools,
    Sample,
    ToolCall,
    ToolMessage,
    UserMessage,
)


def test_ragas_tool_call_accuracy_weather_example():
    sample = Sample(
        messages=[
            UserMessage("What's the weather like in New York right now?"),
            AssistantMessage(
                "The current temperature in New York is 75°F and it's partly cloudy.",
                (ToolCall("weather_check", {"location": "New York"}),),
            ),
            UserMessage("Can you translate that to Celsius?"),
            AssistantMessage(
                "Let me convert that to Celsius for you.",
                (ToolCall("temperature_conversion", {"temperature_fahrenheit": 75}),),
            ),
            ToolMessage("75°F is approximately 23.9°C."),
            AssistantMessage("75°F is approximately 23.9°C."),
        ],
        expected_tools=[
            ToolCall("weather_check", {"location": "New York"}),
            ToolCall("temperature_conversion", {"temperature_fahrenheit": 75}),
        ],
    )
    assert score_sample("tool_call_accuracy", sample).score == 1.0
    # "If the tool calls ... do not match the order ..., the metric will return 0"
    reversed_sample = Sample(
        tools_called=sample.actual_calls()[::-1], expected_tools=sample.expected_tools
    )
    assert score_sample("tool_call_accuracy", reversed_sample).score == 0.0


def test_ragas_f1_examples():
    paris = {"location": "Paris"}
    first = Sample(
        messages=[
            UserMessage("What's the weather like in Paris today?"),
            AssistantMessage("Let me check that for you.", (ToolCall("weather_check", paris),)),
            UserMessage("And the UV index?"),
            AssistantMessage(
                "Sure, here's the UV index for Paris.", (ToolCall("uv_index_lookup", paris),)
            ),
        ],
        expected_tools=[ToolCall("weather_check", paris), ToolCall("uv_index_lookup", paris)],
    )
    assert score_sample("tool_call_f1", first).score == 1.0
    extra = Sample(
        messages=[
            UserMessage("What's the weather like in Paris today?"),
            AssistantMessage("Let me check that for you.", (ToolCall("weather_check", paris),)),
            UserMessage("And the UV index?"),
            AssistantMessage(
                "Sure, here's the UV index for Paris.",
                (ToolCall("uv_index_lookup", paris), ToolCall("air_quality", paris)),
            ),
        ],
        expected_tools=[ToolCall("uv_index_lookup", paris), ToolCall("weather_check", paris)],
    )
    result = score_sample("tool_call_f1", extra)
    # The docs print 0.67; the formula (and ragas 0.4.3) give 0.8.
    assert result.score == pytest.approx(0.8)
    assert result.diagnosis.details["precision"] == pytest.approx(2 / 3)
    assert result.diagnosis.details["recall"] == 1.0


def test_principle_edge_cases():
    calls = [ToolCall("search", {"q": "x"}), ToolCall("book", {"id": 1})]
    assert tool_call_accuracy([], []).score == 1.0
    assert tool_call_accuracy(calls, []).score == 0.0
    # length mismatch: overlapping prefix compared, coverage penalty
    assert tool_call_accuracy(calls, calls[:1]).score == 0.5


def test_article_selection_example():
    # expected lookup_order and cancel_order; called lookup_order and search_orders: 1 of 2
    r = tool_correctness(
        ["lookup_order", "cancel_order"],
        [ToolCall("lookup_order", {}), ToolCall("search_orders", {})],
    )
    assert r.score == 0.5


def test_article_refund_example():
    expected = [ToolCall("issue_refund", {"order_id": "4471", "amount": 30})]
    good = [ToolCall("issue_refund", {"order_id": "4471", "amount": 30, "request_id": "a81f"})]
    bad = [ToolCall("issue_refund", {"order_id": "4471", "amount": 300, "request_id": "a81f"})]
    keys = ["order_id", "amount"]
    assert not tool_correctness(expected, good).passed
    assert tool_correctness(expected, good, argument_keys=keys).passed
    assert not tool_correctness(expected, bad, argument_keys=keys).passed


def test_article_payment_before_email():
    expected = ["capture_payment", "send_confirmation_email"]
    actual = [ToolCall("send_confirmation_email", {}), ToolCall("capture_payment", {})]
    assert tool_correctness(expected, actual).score == 1.0  # passes a set comparison
    ordered = tool_correctness(expected, actual, order="strict")
    assert ordered.score == 0.5
    assert ordered.diagnosis.order_violations == [
        "send_confirmation_email (expected #2) came before capture_payment (expected #1)"
    ]
    exact = tool_correctness(expected, actual, order="strict", exact_match=True)
    assert exact.score == 0.0


def test_article_partly_free_ordering():
    # check_availability before reserve; fetch_user_preferences anywhere before reserve
    expected = ExpectedTools.of(
        ["check_availability", "fetch_user_preferences", "reserve"], before=[(0, 2), (1, 2)]
    )
    run = [ToolCall(n, {}) for n in ("fetch_user_preferences", "check_availability", "reserve")]
    assert tool_correctness(expected, run, order="strict").score == 1.0


def test_article_restraint_row():
    # "cancel all my orders" with no account context: no cancel_order call expected
    assert tool_correctness([], []).score == 1.0
    assert tool_correctness([], [ToolCall("cancel_order", {})]).score == 0.0


def test_article_contains_complement():
    assert output_contains(["4471"], "Your order 4471 has been cancelled.").passed
