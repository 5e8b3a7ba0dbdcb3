"""The one conversation rendering every judged prompt uses."""

from __future__ import annotations

from tooleval.judged.render import render_call, render_conversation, render_value
from tooleval.model import (
    AssistantMessage,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)


def test_inline_calls_results_and_error_flags_in_order(cancel_wrong_id):
    assert render_conversation(cancel_wrong_id).splitlines() == [
        "USER: Please cancel order 4471.",
        'TOOL CALL #1: lookup_order({"order_id": "4471"})',
        'TOOL RESULT #1: {"status": "processing"}',
        'TOOL CALL #2: cancel_order({"order_id": "4417"})',
        "TOOL RESULT #2: cancelled 4417",
        "ASSISTANT: Order 4471 is cancelled.",
    ]


def test_parallel_calls_results_matched_by_id():
    sample = Sample(
        messages=[
            SystemMessage("You are a weather bot."),
            UserMessage("Weather in Paris and Rome?"),
            AssistantMessage(
                "Checking.",
                (
                    ToolCall("weather", {"city": "Paris"}, id="p"),
                    ToolCall("weather", {"city": "Rome"}, id="r"),
                ),
            ),
            ToolMessage("rain", tool_call_id="r"),
            ToolMessage("timeout", tool_call_id="p", is_error=True),
            AssistantMessage("Rome: rain. Paris: unavailable."),
        ]
    )
    assert render_conversation(sample).splitlines() == [
        "SYSTEM PROMPT: You are a weather bot.",
        "USER: Weather in Paris and Rome?",
        "ASSISTANT: Checking.",
        'TOOL CALL #1: weather({"city": "Paris"})',
        'TOOL CALL #2: weather({"city": "Rome"})',
        "TOOL RESULT #2: rain",
        "TOOL RESULT #1 [ERROR]: timeout",
        "ASSISTANT: Rome: rain. Paris: unavailable.",
    ]


def test_tools_called_go_before_the_final_answer():
    sample = Sample(
        messages=[UserMessage("refund order 9"), AssistantMessage("Refund issued.")],
        tools_called=[ToolCall("issue_refund", {"order_id": 9}, result="ok")],
    )
    assert render_conversation(sample).splitlines() == [
        "USER: refund order 9",
        'TOOL CALL #1: issue_refund({"order_id": 9})',
        "TOOL RESULT #1: ok",
        "ASSISTANT: Refund issued.",
    ]


def test_output_only_sample_and_missing_result():
    sample = Sample(input="hi", tools_called=[ToolCall("ping", {})], output="pong")
    assert render_conversation(sample).splitlines() == [
        "USER: hi",
        "TOOL CALL #1: ping({})",
        "TOOL RESULT #1: (no result recorded)",
        "ASSISTANT: pong",
    ]


def test_unparsable_arguments_are_shown_raw():
    call = ToolCall.parse("cancel_order", "{order_id: 4471")
    assert render_call(1, call).startswith("TOOL CALL #1: cancel_order(<unparsable arguments")
    assert "'{order_id: 4471'" in render_call(1, call)


def test_long_values_are_cut_with_a_note():
    text = render_value("x" * 50, max_chars=10)
    assert text == "xxxxxxxxxx... [40 more characters cut]"


def test_unmatched_tool_message_still_shown():
    sample = Sample(messages=[UserMessage("q"), ToolMessage("stray", is_error=True)])
    assert render_conversation(sample).splitlines() == ["USER: q", "TOOL RESULT [ERROR]: stray"]
