"""Traces written by the real OpenTelemetry Python SDK, encoded with the OTLP encoders.

Spans are recorded with an in-memory exporter, encoded to an
``ExportTraceServiceRequest`` by ``opentelemetry.exporter.otlp.proto.common``
and printed with ``google.protobuf.json_format`` (base64 ids); the JSONL
writer also rewrites ids as hex, the way the OTel Collector file exporter does.
"""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from google.protobuf.json_format import MessageToDict, MessageToJson  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)
from opentelemetry.trace import Status, StatusCode  # noqa: E402


def _hex_ids(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str) and value:
                out[key] = base64.b64decode(value).hex()
            else:
                out[key] = _hex_ids(value)
        return out
    if isinstance(node, list):
        return [_hex_ids(v) for v in node]
    return node


class SdkTraces:
    """Record spans with the SDK, then write them as OTLP JSON files."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(resource=Resource.create({"service.name": "shop-agent"}))
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("tooleval-tests")

    def spans(self):
        return list(self.exporter.get_finished_spans())

    def request(self, spans=None):
        return encode_spans(self.spans() if spans is None else spans)

    def request_dicts(self, *, hex_ids: bool = True) -> list[dict[str, Any]]:
        """One request per trace, as dicts (the JSONL layout)."""
        by_trace = defaultdict(list)
        for span in self.spans():
            by_trace[span.context.trace_id].append(span)
        out = []
        for spans in by_trace.values():
            data = MessageToDict(self.request(spans))
            out.append(_hex_ids(data) if hex_ids else data)
        return out

    def write_jsonl(self, path: Path, *, hex_ids: bool = True) -> Path:
        lines = [json.dumps(d) for d in self.request_dicts(hex_ids=hex_ids)]
        path.write_text("\n".join(lines) + "\n")
        return path

    def write_document(self, path: Path, **options: Any) -> Path:
        path.write_text(MessageToJson(self.request(), **options))
        return path

    # ------------------------------------------------------------ agents

    def genai_session(
        self,
        conversation_id: str | None,
        user: str,
        steps: list[tuple],
        answer: str | None,
        *,
        with_tool_spans: bool = True,
    ) -> None:
        """An agent run in GenAI semconv: invoke_agent > chat / execute_tool spans.

        ``steps`` items are ``(tool, args, result)`` or ``(tool, args, result, error_type)``.
        Tool spans carry no conversation id; they inherit it from their trace.
        """
        tracer = self.tracer
        root_attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "shop"}
        if conversation_id:
            root_attrs["gen_ai.conversation.id"] = conversation_id
        with tracer.start_as_current_span("invoke_agent shop", attributes=root_attrs):
            history: list[dict[str, Any]] = [
                {"role": "user", "parts": [{"type": "text", "content": user}]}
            ]
            for index, step in enumerate(steps):
                tool, args, result = step[:3]
                error = step[3] if len(step) > 3 else None
                call_id = f"call_{conversation_id}_{index}"
                request = {
                    "role": "assistant",
                    "parts": [
                        {"type": "tool_call", "id": call_id, "name": tool, "arguments": args}
                    ],
                }
                chat_attrs = {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.input.messages": json.dumps(history),
                    "gen_ai.output.messages": json.dumps(
                        [{**request, "finish_reason": "tool_call"}]
                    ),
                }
                if conversation_id:
                    chat_attrs["gen_ai.conversation.id"] = conversation_id
                with tracer.start_as_current_span("chat gpt-test", attributes=chat_attrs):
                    pass
                if with_tool_spans:
                    with tracer.start_as_current_span(
                        f"execute_tool {tool}",
                        attributes={
                            "gen_ai.operation.name": "execute_tool",
                            "gen_ai.tool.name": tool,
                            "gen_ai.tool.call.id": call_id,
                            "gen_ai.tool.call.arguments": json.dumps(args),
                            "gen_ai.tool.call.result": json.dumps(result),
                        },
                    ) as span:
                        if error:
                            span.set_status(Status(StatusCode.ERROR, f"{tool} failed"))
                            span.set_attribute("error.type", error)
                history.append(request)
                history.append(
                    {
                        "role": "tool",
                        "parts": [
                            {"type": "tool_call_response", "id": call_id, "response": result}
                        ],
                    }
                )
            if answer is not None:
                with tracer.start_as_current_span(
                    "chat gpt-test",
                    attributes={
                        "gen_ai.operation.name": "chat",
                        "gen_ai.input.messages": json.dumps(history),
                        "gen_ai.output.messages": json.dumps(
                            [
                                {
                                    "role": "assistant",
                                    "parts": [{"type": "text", "content": answer}],
                                    "finish_reason": "stop",
                                }
                            ]
                        ),
                    },
                ):
                    pass

    def openinference_session(
        self, session_id: str, user: str, steps: list[tuple], answer: str
    ) -> None:
        """An OpenInference-instrumented agent: AGENT > LLM / TOOL spans (no call ids on tools)."""
        tracer = self.tracer
        with tracer.start_as_current_span(
            "agent",
            attributes={
                "openinference.span.kind": "AGENT",
                "session.id": session_id,
                "input.value": user,
                "output.value": answer,
            },
        ):
            for index, step in enumerate(steps):
                tool, args, result = step[:3]
                error = step[3] if len(step) > 3 else None
                prefix = "llm.output_messages.0.message"
                history = {}
                if index:  # the previous call and its result, replayed as history
                    before, before_args, before_result = steps[index - 1][:3]
                    earlier = "llm.input_messages.1.message"
                    history = {
                        f"{earlier}.role": "assistant",
                        f"{earlier}.tool_calls.0.tool_call.id": f"oi_{session_id}_{index - 1}",
                        f"{earlier}.tool_calls.0.tool_call.function.name": before,
                        f"{earlier}.tool_calls.0.tool_call.function.arguments": json.dumps(
                            before_args
                        ),
                        "llm.input_messages.2.message.role": "tool",
                        "llm.input_messages.2.message.tool_call_id": f"oi_{session_id}_{index - 1}",
                        "llm.input_messages.2.message.content": json.dumps(before_result),
                    }
                with tracer.start_as_current_span(
                    "ChatCompletion",
                    attributes={
                        **history,
                        "openinference.span.kind": "LLM",
                        "llm.input_messages.0.message.role": "user",
                        "llm.input_messages.0.message.content": user,
                        f"{prefix}.role": "assistant",
                        f"{prefix}.tool_calls.0.tool_call.id": f"oi_{session_id}_{index}",
                        f"{prefix}.tool_calls.0.tool_call.function.name": tool,
                        f"{prefix}.tool_calls.0.tool_call.function.arguments": json.dumps(args),
                    },
                ):
                    pass
                with tracer.start_as_current_span(
                    tool,
                    attributes={
                        "openinference.span.kind": "TOOL",
                        "tool.name": tool,
                        "input.value": json.dumps(args),
                        "input.mime_type": "application/json",
                        "output.value": json.dumps(result),
                    },
                ) as span:
                    if error:
                        span.set_status(Status(StatusCode.ERROR, error))


@pytest.fixture()
def sdk() -> SdkTraces:
    return SdkTraces()
