"""Binary OTLP trace requests read straight from the decoded protobuf messages.

:func:`spans_from_message` walks an ``ExportTraceServiceRequest`` as upb
parsed it (``resource_spans`` > ``scope_spans`` > ``spans`` > attributes)
into :class:`~tooleval.traces.otlp.OtlpSpan`, with no detour through JSON
(``json_format.MessageToDict`` cost more than everything else the receiver
does per span). What it yields is exactly what the OTLP/JSON reader
(:func:`~tooleval.traces.otlp.spans_from_request`) yields for the same
spans: the same values (bytes as base64 text, ints as ``int``, NaN as
``float``), the same spans skipped with the same problems. (An id of the
wrong size is refused, as OTLP/JSON's hex ids are; the JSON reader would read
a 24-byte id whose base64 happens to be 32 hex digits as a hex id.)

>>> from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
...     ExportTraceServiceRequest)
>>> request = ExportTraceServiceRequest()
>>> span = request.resource_spans.add().scope_spans.add().spans.add(
...     trace_id=bytes(range(16)), span_id=bytes(range(8)), name="execute_tool f")
>>> span.attributes.add(key="gen_ai.tool.name").value.string_value = "f"
>>> [(s.span_id, s.attributes) for s in spans_from_message(request, report=IngestReport())]
[('0001020304050607', {'gen_ai.tool.name': 'f'})]
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from typing import Any

from tooleval.errors import FormatError
from tooleval.traces.otlp import IngestReport, OtlpSpan

__all__ = ["kernel_spans", "spans_from_message"]

_STATUS_NAMES = {0: "UNSET", 1: "OK", 2: "ERROR"}


_SCALARS = frozenset({"string_value", "int_value", "double_value", "bool_value"})


def _any_value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind in _SCALARS:
        return getattr(value, kind)
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    if kind == "array_value":
        return [_any_value(v) for v in value.array_value.values]
    if kind == "bytes_value":
        return base64.b64encode(value.bytes_value).decode("ascii")
    return None  # no value set: what an empty AnyValue object decodes to


def _attributes(items: Any) -> dict[str, Any]:
    # One comprehension for the usual list (keys present, values readable); the
    # walk below only to name the first bad attribute, as the JSON reader does.
    try:
        out = {item.key: _any_value(item.value) for item in items}
    except FormatError:
        out = {"": None}
    if "" in out:
        _refuse(items)
    return out


def _refuse(items: Any) -> None:
    for index, item in enumerate(items):
        key = item.key
        if not key:
            raise FormatError(f"attribute {index} has no string 'key'")
        try:
            _any_value(item.value)
        except FormatError as exc:
            raise FormatError(f"attribute {key!r}: {exc.message}") from exc


def _id(raw: bytes, size: int) -> str | None:
    if len(raw) == size:
        return raw.hex()
    if not raw:
        return None
    # worded as the JSON reader words a base64 id of the wrong size
    text = base64.b64encode(raw).decode("ascii")
    raise FormatError(f"id {text!r} is neither {2 * size} hex digits nor base64 of {size} bytes")


def _raw_ids(span: Any) -> dict[str, str]:
    out = {}
    for key, raw in (("trace_id", span.trace_id), ("span_id", span.span_id)):
        if raw:
            out[key] = base64.b64encode(raw).decode("ascii")
    return out


def _span(span: Any, resource: dict[str, Any], line: int | None) -> OtlpSpan:
    trace_id = _id(span.trace_id, 16)
    span_id = _id(span.span_id, 8)
    if trace_id is None or span_id is None:
        raise FormatError("span has no traceId/spanId")
    events = [(event.name, _attributes(event.attributes)) for event in span.events]
    status = span.status
    return OtlpSpan(
        trace_id=trace_id,
        span_id=span_id,
        name=span.name,
        parent_span_id=_id(span.parent_span_id, 8),
        start_ns=span.start_time_unix_nano or None,
        end_ns=span.end_time_unix_nano or None,
        attributes=_attributes(span.attributes),
        status=_STATUS_NAMES.get(status.code, "UNSET"),
        status_message=status.message or None,
        events=events,
        resource=dict(resource),
        line=line,
    )


def _kernel_walker() -> Any:
    """The compiled kernel's wire walker (None: not built, an older build, or disabled)."""
    if os.environ.get("TOOLEVAL_NO_KERNEL"):
        return None
    try:
        from tooleval import _kernel
    except ImportError:  # a pure-Python install
        return None
    return getattr(_kernel, "otlp_trace_spans", None)


def kernel_spans(
    body: bytes, *, report: IngestReport, line: int | None = None
) -> list[OtlpSpan] | None:
    """The spans of a protobuf ``ExportTraceServiceRequest`` read by the compiled kernel.

    None when the kernel is not there or leaves the body to :func:`spans_from_message`
    (a body it does not read exactly as upb would: cut short, an unknown field, a
    span to skip, no ``resource_spans``); what it returns equals what that walker
    yields for the same body.
    """
    walker = _kernel_walker()
    if walker is None:
        return None
    spans: list[OtlpSpan] | None = walker(body, OtlpSpan, line)
    if spans is not None:
        report.spans += len(spans)
    return spans


def spans_from_message(
    request: Any, *, report: IngestReport, line: int | None = None
) -> Iterator[OtlpSpan]:
    """Every readable span of a parsed ``ExportTraceServiceRequest``; bad spans go to ``report``."""
    if not request.resource_spans:
        report.problem("not an OTLP ExportTraceServiceRequest (no resourceSpans)", line=line)
        return
    for resource_spans in request.resource_spans:
        resource: dict[str, Any] = {}
        if resource_spans.HasField("resource"):
            try:
                resource = _attributes(resource_spans.resource.attributes)
            except FormatError as exc:
                report.problem(f"resource attributes unreadable: {exc.message}", line=line)
        for scope_spans in resource_spans.scope_spans:
            for raw in scope_spans.spans:
                try:
                    span = _span(raw, resource, line)
                except FormatError as exc:
                    report.spans_skipped += 1
                    report.problem(
                        f"malformed span skipped: {exc.message}", line=line, **_raw_ids(raw)
                    )
                    continue
                report.spans += 1
                yield span
