"""The kernel's OTLP wire walker reads protobuf bodies exactly as the Python walker over upb.

Generated GenAI traffic (sessions of ``chat`` / ``execute_tool`` / ``invoke_agent``
spans with growing histories, failed tools with ``exception`` events) and
generated requests with every attribute type, nested values, events, links,
scopes and status codes are read both ways: span for span the results are
equal, and the receiver's span facts, sessions and answers are the same with
the kernel and with ``TOOLEVAL_NO_KERNEL=1``, for protobuf and for OTLP/JSON
bodies. A body the kernel does not read exactly as upb (cut short, a flipped
byte, an unknown field, a span to skip) is left to the Python walker: it never
accepts a body upb refuses.
"""

from __future__ import annotations

import base64
import json
import math

import pytest

pytest.importorskip("opentelemetry.proto")

from google.protobuf.json_format import MessageToDict  # noqa: E402
from google.protobuf.message import DecodeError  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest,
)

from tooleval.errors import BodyError  # noqa: E402
from tooleval.monitor.live import LiveSessions  # noqa: E402
from tooleval.monitor.serve import decode_otlp_body  # noqa: E402
from tooleval.traces import protobuf  # noqa: E402
from tooleval.traces.otlp import IngestReport  # noqa: E402
from tooleval.traces.protobuf import kernel_spans, spans_from_message  # noqa: E402

pytestmark = pytest.mark.skipif(
    protobuf._kernel_walker() is None,
    reason="compiled kernel not built, built before otlp_trace_spans, or TOOLEVAL_NO_KERNEL set",
)


def _value(target, value) -> None:
    if value is None:
        return
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


def _add(target, attributes: dict) -> None:
    for key, value in attributes.items():
        _value(target.attributes.add(key=key).value, value)


def _session(request, number: int, turns: int, fail: bool) -> None:
    rs = request.resource_spans.add()
    _add(rs.resource, {"service.name": "shop", "telemetry.sdk.language": "python"})
    scope = rs.scope_spans.add()
    scope.scope.name, scope.scope.version = "opentelemetry.instrumentation.openai_v2", "2.1b0"
    spans = scope.spans
    trace = number.to_bytes(16, "big")
    root = (number + 1).to_bytes(8, "big")
    history: list = [{"role": "user", "parts": [{"type": "text", "content": f"order {number}?"}]}]
    clock = 1_700_000_000_000_000_000
    for turn in range(turns):
        call = {"type": "tool_call", "id": f"c{number}-{turn}", "name": "lookup"}
        call["arguments"] = {"order": number, "step": turn}
        chat = spans.add(
            trace_id=trace,
            span_id=(100 + 2 * turn).to_bytes(8, "big"),
            parent_span_id=root,
            name="chat gpt-4o",
            start_time_unix_nano=clock,
            end_time_unix_nano=clock + 10,
        )
        _add(
            chat,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 100 + turn,
                "gen_ai.usage.output_tokens": 7,
                "gen_ai.response.finish_reasons": ["tool_calls"],
                "gen_ai.conversation.id": f"conv-{number}",
                "gen_ai.input.messages": json.dumps(history),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}]),
            },
        )
        failed = fail and turn == turns - 1
        tool = spans.add(
            trace_id=trace,
            span_id=(101 + 2 * turn).to_bytes(8, "big"),
            parent_span_id=root,
            name="execute_tool lookup",
            start_time_unix_nano=clock + 20,
            end_time_unix_nano=clock + 30,
        )
        _add(
            tool,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "lookup",
                "gen_ai.tool.call.id": call["id"],
                "gen_ai.tool.call.arguments": json.dumps(call["arguments"]),
                "gen_ai.tool.call.result": "" if failed else '{"status": "shipped"}',
            },
        )
        if failed:
            tool.status.code, tool.status.message = 2, "gateway timeout"
            _add(tool.events.add(name="exception"), {"exception.type": "TimeoutError"})
        history += [
            {"role": "assistant", "parts": [call]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": call["id"]}]},
        ]
        clock += 100
    agent = spans.add(trace_id=trace, span_id=root, name="invoke_agent shop")
    agent.start_time_unix_nano, agent.end_time_unix_nano = 1_700_000_000_000_000_000, clock
    _add(
        agent, {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": f"conv-{number}"}
    )


def _genai_body(sessions: int = 12, turns: int = 4) -> bytes:
    request = ExportTraceServiceRequest()
    for number in range(sessions):
        _session(request, number, turns, fail=number % 3 == 0)
    return request.SerializeToString()


def _python(body: bytes) -> tuple[list, IngestReport]:
    report = IngestReport()
    return list(
        spans_from_message(ExportTraceServiceRequest.FromString(body), report=report)
    ), report


def _same(body: bytes) -> list:
    """The kernel's spans (asserting they are the Python walker's), or None when left to it."""
    report = IngestReport()
    spans = kernel_spans(body, report=report)
    try:
        expected, expected_report = _python(body)
    except DecodeError:
        assert spans is None, "the kernel read a body upb refuses"
        return None
    if spans is not None:
        # repr: NaN equals itself there, and the types show (1 vs 1.0 vs True)
        assert [repr(s) for s in spans] == [repr(s) for s in expected]
        assert report.to_dict() == expected_report.to_dict()
    return spans


def test_generated_genai_traffic_reads_alike():
    spans = _same(_genai_body())
    assert spans is not None and len(spans) == 12 * 9  # read by the kernel, not handed back
    failed = [s for s in spans if s.status == "ERROR"]
    assert failed and failed[0].events == [("exception", {"exception.type": "TimeoutError"})]


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.binary(max_size=12),
    st.text(max_size=12),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=4),
    ),
    max_leaves=12,
)
_attributes = st.dictionaries(st.text(min_size=1, max_size=10), _values, max_size=6)


@st.composite
def _requests(draw):
    request = ExportTraceServiceRequest()
    for _ in range(draw(st.integers(1, 2))):
        rs = request.resource_spans.add()
        if draw(st.booleans()):
            _add(rs.resource, draw(_attributes))
        for _ in range(draw(st.integers(0, 2))):
            scope = rs.scope_spans.add()
            if draw(st.booleans()):
                scope.scope.name = draw(st.text(max_size=5))
                _add(scope.scope, draw(_attributes))
            for _ in range(draw(st.integers(0, 3))):
                span = scope.spans.add(
                    trace_id=draw(st.sampled_from([bytes(range(16)), b"", b"\x01" * 5])),
                    span_id=draw(st.sampled_from([bytes(range(8)), b"\x07" * 8, b""])),
                    parent_span_id=draw(st.sampled_from([b"", b"\x09" * 8, b"\x01\x02"])),
                    name=draw(st.text(max_size=8)),
                    start_time_unix_nano=draw(st.integers(0, 2**64 - 1)),
                    end_time_unix_nano=draw(st.integers(0, 2**64 - 1)),
                    kind=draw(st.integers(0, 5)),
                    trace_state=draw(st.text(max_size=5)),
                )
                _add(span, draw(_attributes))
                if draw(st.booleans()):
                    span.status.code = draw(st.integers(0, 9))
                    span.status.message = draw(st.text(max_size=6))
                for _ in range(draw(st.integers(0, 2))):
                    event = span.events.add(name=draw(st.text(max_size=6)))
                    event.time_unix_nano = draw(st.integers(0, 2**64 - 1))
                    _add(event, draw(_attributes))
                if draw(st.booleans()):
                    link = span.links.add(trace_id=bytes(16), span_id=bytes(8))
                    _add(link, draw(_attributes))
                if draw(st.booleans()):  # an attribute with no key: the span is skipped
                    _value(span.attributes.add(key="").value, 1)
    return request.SerializeToString()


@settings(max_examples=150, deadline=None)
@given(_requests())
def test_generated_requests_read_alike(body):
    spans = _same(body)
    expected, report = _python(body)
    if not report.problems:  # nothing to skip: the kernel read it itself
        assert spans is not None


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_cut_and_damaged_bodies_are_never_read_differently(data):
    body = bytearray(_genai_body(sessions=2, turns=2))
    if data.draw(st.booleans()):
        body = body[: data.draw(st.integers(0, len(body)))]
    else:
        for _ in range(data.draw(st.integers(1, 4))):
            body[data.draw(st.integers(0, len(body) - 1))] = data.draw(st.integers(0, 255))
    _same(bytes(body))


def test_an_unknown_field_or_a_resource_sent_twice_is_left_to_upb():
    body = _genai_body(sessions=1, turns=1)
    unknown = body + b"\x98\x06\x01"  # field 99, varint 1: unknown to the schema
    assert _same(unknown) is None
    request = ExportTraceServiceRequest.FromString(body)
    resource = request.resource_spans[0].resource.SerializeToString()
    rs = request.resource_spans[0].SerializeToString() + b"\x0a" + bytes([len(resource)]) + resource
    twice = b"\x0a" + _varint(len(rs)) + rs
    assert _same(twice) is None  # upb merges the two resources


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def test_a_known_field_sent_with_another_wire_type_is_left_to_upb():
    link = b"\x18\x01"  # Link.trace_state (a string) sent as a varint
    span = _field(1, bytes(range(16))) + _field(2, bytes(range(8))) + _field(13, link)
    body = _field(1, _field(2, _field(2, span)))
    assert _same(body) is None
    # the same link with its trace_state as text is read by the kernel
    span = _field(1, bytes(range(16))) + _field(2, bytes(range(8))) + _field(13, _field(3, b"k=v"))
    assert _same(_field(1, _field(2, _field(2, span)))) is not None


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _receiver_view(body: bytes, content_type: str) -> tuple[list, dict, list]:
    facts, report = decode_otlp_body(body, signal="traces", content_type=content_type)
    live = LiveSessions(idle_timeout=1.0)
    live.add(facts, now=0.0)
    sessions = sorted((s.to_dict() for s in live.pop_all()), key=lambda s: s["id"])
    return [f.to_dict() for f in facts], report.to_dict(), sessions


def _json_body(body: bytes) -> bytes:
    data = MessageToDict(ExportTraceServiceRequest.FromString(body))
    for rs in data.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(data).encode()


def test_facts_sessions_and_answers_equal_with_and_without_the_kernel(monkeypatch):
    body = _genai_body(sessions=9, turns=3)
    with_kernel = _receiver_view(body, "application/x-protobuf")
    from_json = _receiver_view(_json_body(body), "application/json")
    monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    assert protobuf._kernel_walker() is None
    without = _receiver_view(body, "application/x-protobuf")
    assert with_kernel == without
    assert from_json[0] == with_kernel[0] and from_json[2] == with_kernel[2]
    assert len(with_kernel[2]) == 9 and all(s["calls"] for s in with_kernel[2])
    for cut in (b"\x0a\x05", b"not protobuf at all"):
        monkeypatch.delenv("TOOLEVAL_NO_KERNEL")
        with pytest.raises(BodyError) as kernel_error:
            decode_otlp_body(cut, signal="traces", content_type="application/x-protobuf")
        monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
        with pytest.raises(BodyError) as python_error:
            decode_otlp_body(cut, signal="traces", content_type="application/x-protobuf")
        assert (kernel_error.value.status, str(kernel_error.value)) == (
            python_error.value.status,
            str(python_error.value),
        )


def test_nan_and_extreme_numbers_come_through_as_upb_reads_them():
    request = ExportTraceServiceRequest()
    span = (
        request.resource_spans.add()
        .scope_spans.add()
        .spans.add(
            trace_id=bytes(range(16)), span_id=bytes(range(8)), start_time_unix_nano=2**64 - 1
        )
    )
    _add(span, {"n": math.nan, "i": -(2**63), "b": b"\xff", "deep": [[[[{"k": [None]}]]]]})
    spans = _same(request.SerializeToString())
    assert spans is not None and spans[0].start_ns == 2**64 - 1
    assert math.isnan(spans[0].attributes["n"]) and spans[0].attributes["b"] == "/w=="
