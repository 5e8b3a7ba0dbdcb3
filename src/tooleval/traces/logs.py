"""OTLP log records that carry GenAI events, read as span facts.

Several instrumentation set-ups put message content in log events instead of
span attributes (opentelemetry-instrumentation-openai-v2 by default, or with
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY``). The event
name is the record's ``eventName`` or its ``event.name`` attribute:

=======================================  =========================================
event                                    read as
=======================================  =========================================
``gen_ai.user.message``                  the user input (``body.content``)
``gen_ai.assistant.message``             tool calls requested earlier (history)
``gen_ai.tool.message``                  a tool result (``body.id``, ``body.content``)
``gen_ai.choice``                        the model's answer and requested tool calls
``gen_ai.client.inference.operation``    ``gen_ai.input.messages`` /
``.details``                             ``gen_ai.output.messages`` attributes
=======================================  =========================================

A record becomes a :class:`~tooleval.traces.genai.SpanFacts` on the
record's trace and span, so it joins the chat span it was emitted in. A tool
call whose ``arguments`` are absent (content capture off) is kept with
``arguments_missing`` set, never compared as if it had empty arguments.

>>> record = {"traceId": "ab" * 16, "spanId": "cd" * 8, "eventName": "gen_ai.choice",
...     "body": {"kvlistValue": {"values": [{"key": "message", "value": {"kvlistValue": {"values": [
...         {"key": "content", "value": {"stringValue": "Sunny."}}]}}}]}}}
>>> facts = facts_from_log_record(record, resource={}, report=IngestReport())
>>> facts.output_text
'Sunny.'
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from tooleval.errors import FormatError
from tooleval.traces.facts import SpanCall, SpanFacts, maybe_json, result_is_error
from tooleval.traces.genai import SESSION_KEYS
from tooleval.traces.otel_genai import read_messages
from tooleval.traces.otlp import (
    IngestReport,
    _get,
    _nanos,
    decode_any_value,
    decode_attributes,
    decode_id,
)

__all__ = ["facts_from_log_record", "is_otlp_logs_request", "facts_from_logs_request"]

_COUNTER = itertools.count(1)


def is_otlp_logs_request(data: Any) -> bool:
    """True for an ``ExportLogsServiceRequest`` object (camel or snake case keys)."""
    return isinstance(data, Mapping) and ("resourceLogs" in data or "resource_logs" in data)


def _text(content: Any) -> str | None:
    if content is None or content == "":
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        texts = [
            str(p.get("text") or p.get("content") or "")
            for p in content
            if isinstance(p, Mapping) and p.get("type") in (None, "text")
        ]
        return "\n".join(t for t in texts if t) or None
    return str(content)


def _calls(facts: SpanFacts, tool_calls: Any, *, from_input: bool) -> None:
    for call in tool_calls if isinstance(tool_calls, list) else ():
        if not isinstance(call, Mapping):
            continue
        function: Mapping[str, Any] = (
            call["function"] if isinstance(call.get("function"), Mapping) else call
        )
        name = function.get("name")
        if not name:
            continue
        facts.calls.append(
            SpanCall(
                name=str(name),
                arguments=function.get("arguments"),
                call_id=call.get("id") or None,
                source="message",
                executed=False,
                from_input=from_input,
                arguments_missing="arguments" not in function,
            )
        )


def facts_from_log_record(
    record: Any, *, resource: Mapping[str, Any], report: IngestReport, line: int | None = None
) -> SpanFacts | None:
    """The facts of one GenAI event log record (None for any other record)."""
    if not isinstance(record, Mapping):
        raise FormatError(f"log record must be an object, got {type(record).__name__}")
    attributes = decode_attributes(record.get("attributes"))
    name = _get(record, "eventName", "event_name") or attributes.get("event.name") or ""
    if not str(name).startswith("gen_ai."):
        return None
    trace_id = decode_id(_get(record, "traceId", "trace_id"), 16)
    span_id = decode_id(_get(record, "spanId", "span_id"), 8)
    when = _nanos(_get(record, "timeUnixNano", "time_unix_nano"), "timeUnixNano") or _nanos(
        _get(record, "observedTimeUnixNano", "observed_time_unix_nano"), "observedTimeUnixNano"
    )
    body_raw = record.get("body")
    body = decode_any_value(body_raw) if isinstance(body_raw, Mapping) and body_raw else None
    body = maybe_json(body)
    facts = SpanFacts(
        trace_id=trace_id or f"log-{next(_COUNTER)}",
        span_id=span_id or f"log-{next(_COUNTER)}",
        start_ns=when,
        end_ns=when,
        line=line,
    )
    for key in SESSION_KEYS:
        value = attributes.get(key) or resource.get(key)
        if value not in (None, ""):
            facts.session_id = str(value)
            break
    body = body if isinstance(body, Mapping) else {}
    if name == "gen_ai.user.message":
        facts.user_input = _text(body.get("content"))
    elif name == "gen_ai.assistant.message":
        _calls(facts, body.get("tool_calls"), from_input=True)
    elif name == "gen_ai.tool.message":
        content = maybe_json(body.get("content"))
        facts.responses.append(
            {
                "call_id": body.get("id") or None,
                "result": content,
                "is_error": result_is_error(content),
            }
        )
    elif name == "gen_ai.choice":
        message: Mapping[str, Any] = (
            body["message"] if isinstance(body.get("message"), Mapping) else {}
        )
        _calls(facts, message.get("tool_calls"), from_input=False)
        text = _text(message.get("content"))
        if text:
            facts.output_text, facts.output_priority = text, 1
    else:
        if "gen_ai.input.messages" in attributes:
            read_messages(facts, attributes["gen_ai.input.messages"], output=False)
        if "gen_ai.output.messages" in attributes:
            read_messages(facts, attributes["gen_ai.output.messages"], output=True)
    for problem in facts.problems:
        report.problem(problem, line=line, trace_id=trace_id, span_id=span_id)
    facts.problems = []
    return facts


def facts_from_logs_request(
    data: Any, *, report: IngestReport, line: int | None = None
) -> Iterator[SpanFacts]:
    """The GenAI event facts of one ``ExportLogsServiceRequest``; bad records go to ``report``."""
    for resource_logs in _get(data, "resourceLogs", "resource_logs") or []:
        if not isinstance(resource_logs, Mapping):
            report.problem("resourceLogs entry is not an object", line=line)
            continue
        resource = resource_logs.get("resource")
        try:
            attrs = (
                decode_attributes(resource.get("attributes"))
                if isinstance(resource, Mapping)
                else {}
            )
        except FormatError as exc:
            report.problem(f"resource attributes unreadable: {exc.message}", line=line)
            attrs = {}
        for scope_logs in _get(resource_logs, "scopeLogs", "scope_logs") or []:
            if not isinstance(scope_logs, Mapping):
                report.problem("scopeLogs entry is not an object", line=line)
                continue
            for record in _get(scope_logs, "logRecords", "log_records") or []:
                facts = record_or_problem(record, attrs, report, line)
                if facts is not None:
                    yield facts


def record_or_problem(
    record: Any, resource: Mapping[str, Any], report: IngestReport, line: int | None
) -> SpanFacts | None:
    """:func:`facts_from_log_record`, with an unreadable record reported and skipped."""
    report.log_records += 1
    try:
        return facts_from_log_record(record, resource=resource, report=report, line=line)
    except FormatError as exc:
        ids = {}
        if isinstance(record, Mapping):
            for key, camel, snake in (
                ("trace_id", "traceId", "trace_id"),
                ("span_id", "spanId", "span_id"),
            ):
                value = _get(record, camel, snake)
                if isinstance(value, str) and value:
                    ids[key] = value
        report.problem(f"malformed log record skipped: {exc.message}", line=line, **ids)
        return None
