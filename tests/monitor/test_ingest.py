"""Reading SDK-produced OTLP JSON into sessions: layouts, conventions, grouping, bad spans."""

from __future__ import annotations

import json

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.common.v1 import common_pb2

from tooleval.monitor.ingest import read_sessions
from tooleval.traces.otlp import IngestReport, decode_any_value, iter_otlp_spans

ORDER_STEPS = [
    ("get_order", {"order_id": "4471"}, {"status": "shipped"}),
    ("track_parcel", {"tracking": "Z9", "carrier": "ups"}, {"eta": "tomorrow"}),
]


def _summary(path, **options):
    with read_sessions(path, **options) as sessions:
        return [
            (
                s.id,
                [(c.name, c.call.args, c.is_error, c.source) for c in s.calls],
                s.input,
                s.output,
            )
            for s in sessions
        ], sessions.report


def test_genai_execute_tool_spans_jsonl_hex_ids(sdk, tmp_path):
    sdk.genai_session("conv-1", "where is order 4471?", ORDER_STEPS, "It arrives tomorrow.")
    path = sdk.write_jsonl(tmp_path / "t.jsonl")
    sessions, report = _summary(path)
    assert report.problems == [] and report.spans_skipped == 0
    assert report.spans == len(sdk.spans()) == 6
    [(sid, calls, user, output)] = sessions
    assert sid == "conv-1"  # tool spans without the id joined their trace's conversation
    assert calls == [
        ("get_order", {"order_id": "4471"}, False, "execute_tool"),
        ("track_parcel", {"tracking": "Z9", "carrier": "ups"}, False, "execute_tool"),
    ]  # the tool_call parts in chat spans were deduplicated by call id
    assert user == "where is order 4471?"
    assert output == "It arrives tomorrow."


def test_span_ids_are_hex_and_results_parsed(sdk, tmp_path):
    sdk.genai_session("c", "q", ORDER_STEPS[:1], "done")
    tool_span = next(s for s in sdk.spans() if s.name.startswith("execute_tool"))
    with read_sessions(sdk.write_jsonl(tmp_path / "t.jsonl")) as sessions:
        [session] = list(sessions)
    call = session.calls[0]
    assert call.span_id == format(tool_span.context.span_id, "016x")
    assert call.trace_id == format(tool_span.context.trace_id, "032x")
    assert call.call.result == '{"status": "shipped"}'
    assert call.call.id == "call_c_0"


def test_single_document_base64_ids_matches_jsonl(sdk, tmp_path):
    sdk.genai_session("a", "q1", ORDER_STEPS, "ok")
    sdk.genai_session("b", "q2", ORDER_STEPS[:1], "ok")
    jsonl, _ = _summary(sdk.write_jsonl(tmp_path / "t.jsonl"))
    document, report = _summary(sdk.write_document(tmp_path / "t.json", indent=2))
    assert report.problems == []
    assert document == jsonl
    # protobuf's own field names (snake_case) and base64 ids read the same
    snake, _ = _summary(
        sdk.write_document(tmp_path / "s.json", preserving_proto_field_name=True, indent=1)
    )
    assert snake == jsonl


def test_document_holding_a_list_of_requests(sdk, tmp_path):
    sdk.genai_session("a", "q1", ORDER_STEPS, "ok")
    path = tmp_path / "list.json"
    path.write_text(json.dumps(sdk.request_dicts(hex_ids=False), indent=2))
    sessions, report = _summary(path)
    assert [s[0] for s in sessions] == ["a"] and len(sessions[0][1]) == 2


def test_errors_from_span_status_and_error_type(sdk, tmp_path):
    steps = [("charge_card", {"amount": 5}, {"error": "card declined"}, "PaymentError")]
    sdk.genai_session("c", "pay", steps, "Paid!")
    with read_sessions(sdk.write_jsonl(tmp_path / "t.jsonl")) as sessions:
        [session] = list(sessions)
    assert session.calls[0].is_error and session.calls[0].error_type == "PaymentError"


def test_message_parts_only_give_calls_with_responses(sdk, tmp_path):
    sdk.genai_session("m", "q", ORDER_STEPS, "fine", with_tool_spans=False)
    with read_sessions(sdk.write_jsonl(tmp_path / "t.jsonl")) as sessions:
        [session] = list(sessions)
    assert [c.name for c in session.calls] == ["get_order", "track_parcel"]
    assert all(c.source == "message" and not c.executed for c in session.calls)
    # the request repeated in later input history is kept once; responses attached by id
    assert session.calls[0].call.result == {"status": "shipped"}


def test_no_conversation_id_groups_by_trace(sdk, tmp_path):
    sdk.genai_session(None, "q1", ORDER_STEPS[:1], "ok")
    sdk.genai_session(None, "q2", ORDER_STEPS, "ok")
    sessions, _ = _summary(sdk.write_jsonl(tmp_path / "t.jsonl"))
    trace_ids = list(dict.fromkeys(format(s.context.trace_id, "032x") for s in sdk.spans()))
    assert [s[0] for s in sessions] == trace_ids
    assert [len(s[1]) for s in sessions] == [1, 2]


def test_one_conversation_over_two_traces(sdk, tmp_path):
    sdk.genai_session("conv", "turn 1", ORDER_STEPS[:1], "first")
    sdk.genai_session("conv", "turn 2", ORDER_STEPS[1:], "second")
    with read_sessions(sdk.write_jsonl(tmp_path / "t.jsonl")) as sessions:
        [session] = list(sessions)
    assert [c.name for c in session.calls] == ["get_order", "track_parcel"]
    assert len(session.trace_ids) == 2
    assert session.output == "second" and session.input == "turn 1"


def test_openinference_spans(sdk, tmp_path):
    steps = [
        ("search_docs", {"query": "refund policy"}, ["doc1"]),
        ("send_email", {"to": "a"}, "ok"),
    ]
    sdk.openinference_session("oi-7", "refund?", steps, "Refunds take 5 days.")
    with read_sessions(sdk.write_jsonl(tmp_path / "t.jsonl")) as sessions:
        [session] = list(sessions)
    assert session.id == "oi-7"
    assert [(c.name, c.call.args, c.source) for c in session.calls] == [
        ("search_docs", {"query": "refund policy"}, "openinference"),
        ("send_email", {"to": "a"}, "openinference"),
    ]  # LLM tool_calls matched to TOOL spans by name and arguments
    assert session.input == "refund?" and session.output == "Refunds take 5 days."


def test_mcp_span_under_execute_tool_is_one_call_and_traceloop(sdk, tmp_path):
    tracer = sdk.tracer
    with tracer.start_as_current_span("agent", attributes={"gen_ai.conversation.id": "mcp-1"}):
        with (
            tracer.start_as_current_span(
                "execute_tool read_file",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "read_file",
                    "gen_ai.tool.call.arguments": '{"path": "/a"}',
                },
            ),
            tracer.start_as_current_span(
                "tools/call read_file",
                attributes={"mcp.method.name": "tools/call", "gen_ai.tool.name": "read_file"},
            ) as span,
        ):
            span.set_attribute("gen_ai.tool.call.result", '{"isError": true, "content": []}')
        with tracer.start_as_current_span(
            "tools/call list_dir",
            attributes={
                "mcp.method.name": "tools/call",
                "gen_ai.tool.name": "list_dir",
                "mcp.request.argument.path": '"/"',
            },
        ):
            pass
        with tracer.start_as_current_span(
            "lookup.tool",
            attributes={
                "traceloop.span.kind": "tool",
                "traceloop.entity.name": "lookup",
                "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"sku": "x1"}}),
                "traceloop.entity.output": json.dumps({"price": 3}),
            },
        ):
            pass
    with read_sessions(sdk.write_jsonl(tmp_path / "t.jsonl")) as sessions:
        [session] = list(sessions)
    assert [(c.name, c.call.args, c.source, c.is_error) for c in session.calls] == [
        ("read_file", {"path": "/a"}, "execute_tool", True),  # MCP isError folded into parent
        ("list_dir", {"path": "/"}, "mcp", False),
        ("lookup", {"sku": "x1"}, "traceloop", False),
    ]


def test_malformed_spans_reported_with_ids_and_skipped(sdk, tmp_path):
    sdk.genai_session("good", "q", ORDER_STEPS, "ok")
    sdk.genai_session("other", "q", ORDER_STEPS[:1], "ok")
    requests = sdk.request_dicts()
    spans = requests[0]["resourceSpans"][0]["scopeSpans"][0]["spans"]
    bad_attrs_id = spans[1]["spanId"]
    spans[1]["attributes"] = {"not": "a list"}
    spans[2]["spanId"] = "zz-not-an-id"
    trace_of_second = requests[1]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    del requests[1]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"]
    lines = [json.dumps(requests[0]), "{this is not json", json.dumps(requests[1]), "[1, 2]"]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with read_sessions(path) as sessions:
        found = {s.id: s for s in sessions}
        report = sessions.report
    assert report.spans_skipped == 3
    problems = [(p.line, p.span_id, p.trace_id) for p in report.problems]
    assert (1, bad_attrs_id, spans[1]["traceId"]) in problems
    assert (1, "zz-not-an-id", spans[2]["traceId"]) in problems
    assert (3, None, trace_of_second) in problems
    assert any(p.line == 2 and "invalid JSON" in p.message for p in report.problems)
    assert any(p.line == 4 and "resourceSpans" in p.message for p in report.problems)
    assert "good" in found  # the rest of the file was read


def test_truncated_document_reports_and_keeps_spans_read(sdk, tmp_path):
    sdk.genai_session("a", "q", ORDER_STEPS, "ok")
    text = sdk.write_document(tmp_path / "t.json", indent=2).read_text()
    path = tmp_path / "cut.json"
    path.write_text(text[: int(len(text) * 0.8)])
    report = IngestReport()
    spans = list(iter_otlp_spans(path, report=report))
    assert 0 < len(spans) < 6
    assert report.problems and "invalid JSON" in report.problems[-1].message


def test_spilling_to_disk_gives_the_same_sessions(sdk, tmp_path):
    for n in range(6):
        sdk.genai_session(f"c{n}", f"q{n}", ORDER_STEPS[: 1 + n % 2], f"a{n}")
    path = sdk.write_jsonl(tmp_path / "t.jsonl")
    in_memory, _ = _summary(path)
    spilled, _ = _summary(path, max_in_memory=3, spill_dir=str(tmp_path))
    assert spilled == in_memory and len(in_memory) == 6
    assert not list(tmp_path.glob("tooleval-traces-*.db"))  # the spill file is removed


def test_kvlist_and_array_values_from_protobuf():
    value = common_pb2.AnyValue(
        kvlist_value=common_pb2.KeyValueList(
            values=[
                common_pb2.KeyValue(key="n", value=common_pb2.AnyValue(int_value=7)),
                common_pb2.KeyValue(
                    key="xs",
                    value=common_pb2.AnyValue(
                        array_value=common_pb2.ArrayValue(
                            values=[
                                common_pb2.AnyValue(string_value="a"),
                                common_pb2.AnyValue(double_value=0.5),
                            ]
                        )
                    ),
                ),
            ]
        )
    )
    assert decode_any_value(MessageToDict(value)) == {"n": 7, "xs": ["a", 0.5]}
