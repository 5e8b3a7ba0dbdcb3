"""The receiver's shortcuts give what the long way gives.

``span_facts`` asks only the conventions whose marker keys a span holds; the
facts must equal those of asking every convention, whatever mix of
conventions' attributes a span carries. The protobuf walker reads attribute
lists in one pass and names a bad attribute (an empty key, nested or not) as
the JSON reader does.
"""

from __future__ import annotations

import json

from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tooleval.traces import genai
from tooleval.traces.genai import CONVENTIONS, span_facts
from tooleval.traces.otlp import IngestReport, OtlpSpan, spans_from_request
from tooleval.traces.protobuf import spans_from_message

_MESSAGES_IN = json.dumps(
    [
        {"role": "user", "parts": [{"type": "text", "content": "where is 7?"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c0", "name": "f"}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c0", "response": "x"}]},
    ]
)
_MESSAGES_OUT = json.dumps(
    [{"role": "assistant", "parts": [{"type": "text", "content": "shipped"}]}]
)
# Keys of every convention, each with values that make its hooks answer or not.
_POOL = {
    "gen_ai.operation.name": ["execute_tool", "chat", "invoke_agent", "other", ""],
    "gen_ai.tool.name": ["f", ""],
    "gen_ai.tool.call.id": ["c0", "c1"],
    "gen_ai.tool.call.arguments": ['{"a": 1}', "not json"],
    "gen_ai.tool.call.result": ['{"error": "down"}', "ok"],
    "gen_ai.input.messages": [_MESSAGES_IN, "[{", "[]"],
    "gen_ai.output.messages": [_MESSAGES_OUT],
    "gen_ai.response.finish_reasons": [["tool_calls"], "stop"],
    "gen_ai.usage.input_tokens": [12, "x"],
    "gen_ai.request.model": ["m"],
    "gen_ai.conversation.id": ["conv", ""],
    "mcp.method.name": ["tools/call", "tools/list"],
    "mcp.request.argument.q": ['"v"'],
    "openinference.span.kind": ["TOOL", "LLM", "AGENT", "CHAIN", "chain", ""],
    "tool.name": ["g"],
    "input.value": ['{"messages": [["user", "hi"]]}', "5"],
    "output.value": ['{"messages": []}', "done"],
    "llm.input_messages.0.message.role": ["user"],
    "llm.input_messages.0.message.content": ["hello"],
    "llm.output_messages.0.message.content": ["bye"],
    "llm.model_name": ["m2"],
    "session.id": ["s"],
    "traceloop.span.kind": ["tool", "task"],
    "traceloop.entity.name": ["h"],
    "traceloop.entity.input": ['{"args": [1], "kwargs": {"b": 2}}'],
    "error.type": ["Timeout"],
}


@st.composite
def _spans(draw):
    keys = draw(st.lists(st.sampled_from(sorted(_POOL)), unique=True, max_size=9))
    attributes = {key: draw(st.sampled_from(_POOL[key])) for key in keys}
    return OtlpSpan(
        "ab" * 16,
        "cd" * 8,
        name=draw(st.sampled_from(["", "execute_tool f", "tools/call q", "chat m", "agent"])),
        parent_span_id=draw(st.sampled_from([None, "ef" * 8])),
        attributes=attributes,
        status=draw(st.sampled_from(["UNSET", "ERROR"])),
        status_message=draw(st.sampled_from([None, "gateway timeout"])),
    )


@settings(max_examples=400, deadline=None)
@given(_spans())
def test_facts_from_the_conventions_a_span_calls_for_equal_asking_every_convention(span):
    fast = span_facts(span).to_dict()
    original = genai._conventions
    genai._conventions = lambda a: CONVENTIONS  # the long way: every convention asked
    try:
        slow = span_facts(span).to_dict()
    finally:
        genai._conventions = original
    assert repr(fast) == repr(slow)


def test_a_span_of_no_convention_is_shown_to_none():
    assert genai._conventions({"http.method": "GET"}) == ()
    assert genai._conventions({"gen_ai.operation.name": "chat"}) == CONVENTIONS[:1]


def test_an_empty_key_inside_a_kvlist_is_named_as_the_json_reader_names_it():
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add()
    for number, inner_key in enumerate(("fine", "")):
        span = spans.spans.add(
            trace_id=bytes([number + 1]) * 16, span_id=bytes([number + 1]) * 8, name="chat"
        )
        span.attributes.add(key="gen_ai.operation.name").value.string_value = "chat"
        nested = span.attributes.add(key="outer").value.kvlist_value.values.add(key=inner_key)
        nested.value.int_value = 3
    json_report, proto_report = IngestReport(), IngestReport()
    from_json = list(spans_from_request(MessageToDict(request), report=json_report))
    from_proto = list(spans_from_message(request, report=proto_report))
    assert [repr(s) for s in from_proto] == [repr(s) for s in from_json]
    assert proto_report.to_dict() == json_report.to_dict()
    assert from_proto[0].attributes["outer"] == {"fine": 3}
    assert proto_report.spans_skipped == 1
    assert "attribute 'outer'" in proto_report.problems[0].message


_HISTORY_ITEMS = st.one_of(
    st.builds(
        lambda text: {"role": "user", "parts": [{"type": "text", "content": text}]},
        st.sampled_from(["", "where is 7?", "again"]),
    ),
    st.builds(
        lambda call_id, name, args: {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": call_id, "name": name, "arguments": args}],
        },
        st.sampled_from([None, "", "c0", "c1"]),
        st.sampled_from(["f", "g", ""]),
        st.sampled_from([{}, {"a": 1}, '{"a": 1}', None]),
    ),
    st.builds(
        lambda call_id, response: {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": call_id, "response": response}],
        },
        st.sampled_from([None, "c0", "c1"]),
        st.sampled_from(["ok", {"error": "down"}, None, 1.5]),
    ),
    st.sampled_from([{"role": "user", "content": "plain"}, "not a message", 3, None, []]),
)


def _history_text(messages: list, style: int) -> str:
    if style == 1:
        return " " + json.dumps(messages, indent=1) + "\n"
    if style == 2:
        return json.dumps(messages, separators=(",", ":"))
    return json.dumps(messages)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_HISTORY_ITEMS, max_size=10),
    st.lists(st.tuples(st.integers(0, 10), st.integers(0, 2), st.integers(0, 5)), max_size=6),
)
def test_histories_read_incrementally_equal_reading_them_whole(messages, turns):
    """Each turn's history (a prefix of the conversation, growing, shrinking, rewritten,
    in another layout or cut short) gives the facts reading it whole gives."""
    from tooleval.traces.facts import SpanFacts
    from tooleval.traces.otel_genai import _Histories, read_messages

    histories = _Histories(max_entries=2, max_chars=400)
    for length, style, damage in turns:
        text = _history_text(messages[:length], style)
        if damage == 1:
            text = text[: len(text) // 2]  # cut short (an attribute length limit)
        elif damage == 2 and text.rstrip().endswith("]"):
            text = text.rstrip()[:-1] + ",]"  # a trailing comma: not JSON
        key = "conv" if damage != 3 else "other"
        read = SpanFacts("t", "s", session_id=key)
        histories.read(read, text)
        whole = SpanFacts("t", "s", session_id=key)
        read_messages(whole, text, output=False)
        assert read.to_dict() == whole.to_dict()


def test_a_growing_history_is_read_from_where_the_last_one_ended():
    from tooleval.traces.facts import SpanFacts
    from tooleval.traces.otel_genai import _Histories

    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c0", "name": "f"}]}
    answer = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c0"}]}
    user = {"role": "user", "parts": [{"type": "text", "content": "hi"}]}
    histories = _Histories()
    first, second = SpanFacts("t", "s1"), SpanFacts("t", "s2")
    histories.read(first, json.dumps([user, call]))
    histories.read(second, json.dumps([user, call, answer, call]))
    # the first turn's request is the same object: only the two added messages were read
    assert second.calls[0] is first.calls[0] and len(second.calls) == 2
    assert second.user_input == "hi" and second.responses[0]["call_id"] == "c0"
