"""Binary OTLP is read straight from the parsed messages, and reads exactly as OTLP/JSON does.

The same spans (every attribute type: string, int, double with NaN and infinities,
bool, bytes, arrays, kvlists, empty and huge values, an unset value; events, status,
links; spans that must be skipped) are read through the protobuf walker and through
the JSON reader over ``MessageToDict``: span for span, and problem for problem, the
results are equal. Sent to two real receivers, one as protobuf and one as OTLP/JSON,
they give the same sessions. Bodies that are cut short or not protobuf get a 400 that
says so, and the receiver keeps answering.
"""

from __future__ import annotations

import base64
import json
import math
import ssl

import httpx
import pytest

pytest.importorskip("opentelemetry.proto")

from google.protobuf.json_format import MessageToDict  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest,
)

from tooleval.monitor.live import LiveMonitor  # noqa: E402
from tooleval.monitor.serve import OtlpReceiver  # noqa: E402
from tooleval.traces.otlp import IngestReport, spans_from_request  # noqa: E402
from tooleval.traces.protobuf import spans_from_message  # noqa: E402

PLAIN = ssl.create_default_context()
HUGE = "x" * 1_000_000


def _value(target, value) -> None:
    if value is None:
        return  # an AnyValue with nothing set
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    elif isinstance(value, bytes):
        target.bytes_value = value
    elif isinstance(value, list):
        target.array_value.SetInParent()
        for item in value:
            _value(target.array_value.values.add(), item)
    elif isinstance(value, dict):
        target.kvlist_value.SetInParent()
        for key, item in value.items():
            _value(target.kvlist_value.values.add(key=key).value, item)
    else:
        target.string_value = value


def _add(span, attributes: dict) -> None:
    for key, value in attributes.items():
        _value(span.attributes.add(key=key).value, value)


def _request() -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    _add(rs.resource, {"service.name": "shop", "service.instance.id": b"\x00\x01"})
    spans = rs.scope_spans.add().spans
    trace = bytes(range(1, 17))

    def span(n: int, name: str, attributes: dict, **fields):
        s = spans.add(
            trace_id=fields.pop("trace_id", trace),
            span_id=fields.pop("span_id", bytes([n]) * 8),
            parent_span_id=fields.pop("parent", b""),
            name=name,
            start_time_unix_nano=1_700_000_000_000_000_000 + n * 1000,
            end_time_unix_nano=1_700_000_000_000_000_000 + n * 1000 + 500,
            **fields,
        )
        _add(s, attributes)
        return s

    root = span(
        1,
        "invoke_agent shop",
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": "conv-1",
            "gen_ai.output.messages": json.dumps(
                [{"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}]
            ),
        },
    )
    root.links.add(trace_id=bytes(16), span_id=bytes(8)).attributes.add(key="k")
    span(
        2,
        "chat gpt",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt",
            "gen_ai.usage.input_tokens": 2**63 - 1,
            "gen_ai.usage.output_tokens": -3,
            "gen_ai.request.temperature": 0.25,
            "gen_ai.request.top_p": math.nan,
            "gen_ai.request.top_k": math.inf,
            "gen_ai.request.penalty": -math.inf,
            "gen_ai.request.stream": False,
            "gen_ai.response.finish_reasons": ["tool_calls", "", 7, 1.5, True, None],
            "gen_ai.request.stop": [],
            "gen_ai.request.extra": {},
            "gen_ai.request.nested": {"a": [{"b": b"\xff\x00"}], "c": {}},
            "gen_ai.empty": "",
            "gen_ai.unset": None,
            "gen_ai.input.messages": json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "Refund order 7"}]}]
            ),
            "gen_ai.output.messages": json.dumps(
                [
                    {
                        "role": "assistant",
                        "parts": [
                            {"type": "tool_call", "id": "c1", "name": "refund", "arguments": {}}
                        ],
                    }
                ]
            ),
        },
        parent=bytes([1]) * 8,
    )
    failed = span(
        3,
        "execute_tool refund",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "refund",
            "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": {"order": 7, "amount": 30.5, "tags": ["a", b"b"]},
            "gen_ai.tool.call.result": "",
        },
        parent=bytes([1]) * 8,
    )
    failed.status.code, failed.status.message = 2, "Traceback (most recent call last):\n boom"
    event = failed.events.add(name="exception", time_unix_nano=5)
    _add(event, {"exception.type": "GatewayError", "exception.message": "gateway down"})
    failed.events.add()  # an event with nothing set
    span(
        4,
        "execute_tool lookup",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.arguments": '{"q": "ü \\u2603"}',
            "gen_ai.tool.call.result": HUGE,
        },
        parent=bytes([1]) * 8,
    ).status.code = 1
    span(
        5,
        "tools/call search",
        {"mcp.method.name": "tools/call", "mcp.request.argument.q": '"shoes"'},
        parent=bytes([1]) * 8,
    ).status.code = 7  # a status code no version defines
    span(
        6,
        "llm",
        {
            "openinference.span.kind": "LLM",
            "session.id": "conv-1",
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "hi",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}",
        },
        parent=bytes([1]) * 8,
    )
    # spans both readers must skip, with the same problem
    span(7, "short trace id", {}, trace_id=b"\x01\x02\x03\x04\x05")
    span(8, "no span id", {}, span_id=b"")
    bad_key = span(9, "empty key", {"ok": 1})
    _value(bad_key.attributes.add(key="").value, "v")
    return request


def _both(request):
    json_report, proto_report = IngestReport(), IngestReport()
    from_json = list(spans_from_request(MessageToDict(request), report=json_report))
    from_proto = list(spans_from_message(request, report=proto_report))
    return from_json, json_report, from_proto, proto_report


def test_the_protobuf_walker_reads_every_value_as_the_json_reader_does():
    from_json, json_report, from_proto, proto_report = _both(_request())
    # repr: NaN is equal to itself there, and types show (1 vs 1.0 vs True)
    assert [repr(s) for s in from_proto] == [repr(s) for s in from_json]
    assert proto_report.to_dict() == json_report.to_dict()
    assert proto_report.spans == 6 and proto_report.spans_skipped == 3
    chat = next(s for s in from_proto if s.name == "chat gpt")
    assert chat.attributes["gen_ai.usage.input_tokens"] == 2**63 - 1
    assert math.isnan(chat.attributes["gen_ai.request.top_p"])
    assert chat.attributes["gen_ai.request.nested"]["a"][0]["b"] == "/wA="  # base64 text
    assert chat.attributes["gen_ai.unset"] is None and chat.attributes["gen_ai.empty"] == ""
    messages = [p.message for p in proto_report.problems]
    assert any("has no string 'key'" in m for m in messages), messages


def test_an_empty_request_and_empty_resource_spans_read_alike():
    for request in (ExportTraceServiceRequest(), _empty_resource_spans()):
        from_json, json_report, from_proto, proto_report = _both(request)
        assert from_proto == from_json == []
        assert proto_report.to_dict() == json_report.to_dict()


def test_an_id_of_the_wrong_size_is_refused_even_when_its_base64_looks_like_hex():
    request = ExportTraceServiceRequest()
    spans = request.resource_spans.add().scope_spans.add().spans
    odd = base64.b64decode("abcdef0123456789abcdef0123456789")  # 24 bytes
    spans.add(trace_id=odd, span_id=bytes(range(1, 9)), name="odd")
    report = IngestReport()
    assert list(spans_from_message(request, report=report)) == []
    assert report.spans_skipped == 1
    assert "is neither 32 hex digits nor base64 of 16 bytes" in report.problems[0].message


def _empty_resource_spans():
    request = ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add()
    return request


def _hex_ids(data):
    for rs in data.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return data


def _sessions(content_type: str, body: bytes):
    received = []
    receiver = OtlpReceiver(
        LiveMonitor(),
        port=0,
        idle_timeout=3600,
        on_findings=lambda sessions, findings: received.extend(sessions),
    ).start()
    try:
        with httpx.Client(base_url=receiver.url, timeout=60, verify=PLAIN) as client:
            answer = client.post("/v1/traces", content=body, headers={"Content-Type": content_type})
            assert answer.status_code == 200, answer.text
    finally:
        receiver.stop(timeout=60)
    report = receiver.problems.to_dict()
    return sorted(json.dumps(s.to_dict(), sort_keys=True) for s in received), report


def test_a_receiver_fed_protobuf_ingests_the_sessions_json_gives():
    request = _request()
    proto_sessions, proto_report = _sessions("application/x-protobuf", request.SerializeToString())
    json_sessions, json_report = _sessions(
        "application/json", json.dumps(_hex_ids(MessageToDict(request))).encode()
    )
    assert proto_sessions == json_sessions
    assert len(proto_sessions) == 1
    session = json.loads(next(s for s in proto_sessions if "conv-1" in s))
    calls = {c["call"]["name"]: c["call"] for c in session["calls"]}
    assert calls["refund"]["is_error"] and calls["refund"]["result"] == {"error": "gateway down"}
    assert HUGE in [c["call"].get("result") for c in session["calls"]]
    assert calls["search"]["args"] == {"q": "shoes"}
    assert session["output"] == "Done."
    # ids read as hex (JSON) or base64 (protobuf) name the same skipped spans
    for report in (proto_report, json_report):
        assert report["spans"] == 6 and report["spans_skipped"] == 3


def test_bodies_cut_short_or_not_protobuf_get_a_400_that_says_so():
    body = _request().SerializeToString()
    receiver = OtlpReceiver(LiveMonitor(), port=0, idle_timeout=3600).start()
    try:
        with httpx.Client(base_url=receiver.url, timeout=60, verify=PLAIN) as client:

            def post(content: bytes, content_type: str = "application/json"):
                return client.post(
                    "/v1/traces",
                    content=content,
                    headers={"Content-Type": "application/x-protobuf", "Accept": content_type},
                )

            for bad, says in (
                (body[: len(body) // 2], "not a valid OTLP traces protobuf message"),
                (b"hello, world", "not a valid OTLP traces protobuf message"),
                (b'{"resourceSpans": []}', "not a valid OTLP traces protobuf message"),
                (b"\x10\x01", "holds no resourceSpans"),
            ):
                answer = post(bad)
                assert answer.status_code == 400, (bad[:20], answer.status_code)
                from google.rpc.status_pb2 import Status

                message = Status.FromString(answer.content).message
                assert says in message, message
                assert f"{len(bad)} bytes" in message
            assert post(b"").status_code == 200  # an empty request: nothing to read
            assert post(body).status_code == 200  # and the receiver still reads good ones
    finally:
        receiver.stop(timeout=60)
    assert receiver.rejected == 4
    assert receiver.problems.spans == 6
