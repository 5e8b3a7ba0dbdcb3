"""What single spans say: error text, LangChain values, unreadable tool use, truncation."""

from __future__ import annotations

import json

from tooleval.monitor.session import assemble_session
from tooleval.traces.genai import span_facts
from tooleval.traces.langchain import conversation_text, unwrap_tool_message
from tooleval.traces.otlp import OtlpSpan

TRACE = "ab" * 16


def _tool(span_id: str, **kw) -> OtlpSpan:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "pay",
        "gen_ai.tool.call.id": "c1",
    }
    return OtlpSpan(TRACE, span_id, attributes=attributes, **kw)


def test_error_text_from_exception_event_then_status_then_next_response():
    with_event = _tool(
        "01" * 8,
        status="ERROR",
        status_message="Traceback (most recent call last):\n ...",
        events=[
            ("exception", {"exception.type": "CardError", "exception.message": "card expired"})
        ],
    )
    call = span_facts(with_event).calls[0]
    assert call.result == {"error": "card expired"} and call.error_type == "CardError"
    traceback_only = _tool(
        "02" * 8,
        status="ERROR",
        status_message="ValueError('x')Traceback (most recent call last):\n  File ...\nValueError: x",
    )
    assert span_facts(traceback_only).calls[0].result == {"error": "ValueError('x')"}
    # no text on the span: the tool response the next model call saw
    silent = _tool("03" * 8, status="ERROR", start_ns=1)
    chat = OtlpSpan(
        TRACE,
        "04" * 8,
        start_ns=2,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(
                [
                    {
                        "role": "tool",
                        "parts": [
                            {
                                "type": "tool_call_response",
                                "id": "c1",
                                "response": {"error": "insufficient funds"},
                            }
                        ],
                    }
                ]
            ),
        },
    )
    session = assemble_session("s", [span_facts(silent), span_facts(chat)])
    (paid,) = session.calls
    assert paid.is_error and paid.call.result == {"error": "insufficient funds"}


def test_unreadable_tool_use_names_the_setting():
    chat = OtlpSpan(
        TRACE,
        "05" * 8,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.response.finish_reasons": ["tool_calls"],
            "gen_ai.usage.input_tokens": 10,
        },
    )
    facts = span_facts(chat)
    assert (
        facts.kind == "llm"
        and "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT" in facts.unreadable
    )
    session = assemble_session("s", [facts])
    assert session.calls == [] and session.unreadable and session.usage["input_tokens"] == 10
    answered = OtlpSpan(
        TRACE,
        "06" * 8,
        attributes={"gen_ai.operation.name": "chat", "gen_ai.response.finish_reasons": ["stop"]},
    )
    assert span_facts(answered).unreadable is None


def test_truncated_output_messages_keep_complete_messages():
    full = [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "a", "name": "f", "arguments": {"x": 1}}],
        },
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "b", "name": "g", "arguments": {"y": "long" * 50}}
            ],
        },
    ]
    text = json.dumps(full)[:150]
    facts = span_facts(OtlpSpan(TRACE, "07" * 8, attributes={"gen_ai.output.messages": text}))
    assert [c.name for c in facts.calls] == ["f"]
    assert "kept the 1 complete message(s)" in facts.problems[0]


def test_langchain_values():
    assert unwrap_tool_message(
        '{"type": "tool", "data": {"content": "oops", "tool_call_id": "c", "status": "error"}}'
    ) == ("oops", "c", True)
    assert unwrap_tool_message("plain") == ("plain", None, False)
    lc = {
        "messages": [
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", "messages", "HumanMessage"],
                "kwargs": {"content": "hi", "type": "human"},
            },
            {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
        ]
    }
    assert conversation_text(lc) == ("hi", "hello")
    assert conversation_text("not json") == (None, None)
