"""Read OTLP JSON trace exports one span at a time.

Two layouts are read, both as written by OpenTelemetry exporters and by
``google.protobuf.json_format``:

* JSONL: one ``ExportTraceServiceRequest`` per line (the OTel Collector file
  exporter). Read line by line, so memory stays flat on a multi-GB file.
* one JSON document (``{"resourceSpans": [...]}``, or a list of them), streamed
  with ``ijson`` (the ``otel`` extra) so the file is never loaded whole.

Attributes arrive as typed ``{"key", "value": {"stringValue": ...}}`` lists
(including ``kvlistValue`` and ``arrayValue``) and are decoded to plain
Python values. Ids may be hex (the OTLP/JSON rule) or base64 (what protobuf's
JSON printer produces for ``bytes``); both become lowercase hex. Times are
nanoseconds as strings or numbers.

A span that cannot be read (no id, bad id, attributes that are not a list,
...) is reported in :class:`IngestReport` with its line and ids and skipped;
reading never stops on bad data.

>>> span = span_from_otlp({"traceId": "0af7651916cd43dd8448eb211c80319c",
...     "spanId": "b7ad6b7169203331", "name": "execute_tool get_weather",
...     "startTimeUnixNano": "1700000000000000000",
...     "attributes": [{"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}}]})
>>> span.attributes["gen_ai.tool.name"], span.start_ns
('get_weather', 1700000000000000000)
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tooleval.errors import FormatError
from tooleval.formats.json_limits import NestingTooDeep, loads_text
from tooleval.formats.json_limits import loads as limited_loads

__all__ = [
    "IngestProblem",
    "IngestReport",
    "OtlpSpan",
    "decode_any_value",
    "decode_attributes",
    "decode_id",
    "is_otlp_request",
    "iter_otlp_spans",
    "span_from_otlp",
    "spans_from_request",
]

_STATUS_NAMES = {0: "UNSET", 1: "OK", 2: "ERROR"}


@dataclass(frozen=True, slots=True)
class IngestProblem:
    """One piece of input that was skipped, and where it was."""

    message: str
    line: int | None = None
    trace_id: str | None = None
    span_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "line": self.line,
            "trace_id": self.trace_id,
            "span_id": self.span_id,
        }

    def __str__(self) -> str:
        where = [
            f"{k} {v}"
            for k, v in (("line", self.line), ("trace", self.trace_id), ("span", self.span_id))
            if v is not None
        ]
        return f"{', '.join(where)}: {self.message}" if where else self.message


@dataclass(slots=True)
class IngestReport:
    """Counts of what was read, and every problem met on the way."""

    lines: int = 0
    spans: int = 0
    spans_skipped: int = 0
    sessions: int = 0
    tool_calls: int = 0
    problems: list[IngestProblem] = field(default_factory=list)
    max_problems: int = 1000
    problems_dropped: int = 0
    log_records: int = 0
    #: why tool use could not be read -> how many spans (content capture off, ...)
    unreadable: dict[str, int] = field(default_factory=dict)
    #: format whose tool results carry no status -> sessions with tool results in it
    without_status: dict[str, int] = field(default_factory=dict)

    def problem(self, message: str, **where: Any) -> None:
        # Keep memory bounded on a file that is bad everywhere; the count stays exact.
        if len(self.problems) < self.max_problems:
            self.problems.append(IngestProblem(message, **where))
        else:
            self.problems_dropped += 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "spans": self.spans,
            "spans_skipped": self.spans_skipped,
            "sessions": self.sessions,
            "tool_calls": self.tool_calls,
            "problems": [p.to_dict() for p in self.problems],
            "problems_dropped": self.problems_dropped,
            "log_records": self.log_records,
            "unreadable_tool_use": dict(self.unreadable),
            "tool_results_without_status": dict(self.without_status),
        }

    def status_warning(self) -> str | None:
        """One line saying which sessions' tool outcomes were read from text (else None)."""
        if not self.without_status:
            return None
        where = ", ".join(f"{n} session(s) in {name}" for name, n in self.without_status.items())
        return (
            f"tool results of {where} carry no status (that format has none): a call counts "
            "as failed when its result says so by convention ('Error: ...', "
            '{"error": ...}, a status of "failed"); other results count as successes'
        )

    def add_unreadable(self, lines: list[str]) -> None:
        """Count a session's unreadable-tool-use lines (``"N span(s): reason"``)."""
        for line in lines:
            count, _, reason = line.partition(" span(s): ")
            self.unreadable[reason] = self.unreadable.get(reason, 0) + int(count)


@dataclass(slots=True)
class OtlpSpan:
    """One span with decoded ids, times, status and attributes."""

    trace_id: str
    span_id: str
    name: str = ""
    parent_span_id: str | None = None
    start_ns: int | None = None
    end_ns: int | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    status: str = "UNSET"  # "UNSET" | "OK" | "ERROR"
    status_message: str | None = None
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    line: int | None = None


# ---------------------------------------------------------------- values


def decode_any_value(value: Any) -> Any:
    """Decode an OTLP ``AnyValue`` object to a plain Python value.

    >>> decode_any_value({"kvlistValue": {"values": [{"key": "a", "value": {"intValue": "3"}}]}})
    {'a': 3}
    >>> decode_any_value({"arrayValue": {"values": [{"boolValue": True}, {"doubleValue": 1.5}]}})
    [True, 1.5]
    """
    if not isinstance(value, Mapping):
        raise FormatError(f"expected an AnyValue object, got {type(value).__name__}")
    if not value:
        return None
    for key in ("stringValue", "string_value"):
        if key in value:
            return value[key]
    for key in ("boolValue", "bool_value"):
        if key in value:
            return bool(value[key])
    for key in ("intValue", "int_value"):
        if key in value:
            try:
                return int(value[key])
            except (TypeError, ValueError) as exc:
                raise FormatError(f"intValue {value[key]!r} is not an integer") from exc
    for key in ("doubleValue", "double_value"):
        if key in value:
            raw = value[key]
            # protobuf JSON writes NaN/Infinity as strings
            return float(raw) if isinstance(raw, str | int | float) else raw
    for key in ("arrayValue", "array_value"):
        if key in value:
            items = (value[key] or {}).get("values") or []
            return [decode_any_value(v) for v in items]
    for key in ("kvlistValue", "kvlist_value"):
        if key in value:
            return decode_attributes((value[key] or {}).get("values") or [])
    for key in ("bytesValue", "bytes_value"):
        if key in value:
            return value[key]  # kept as the base64 text: readable and JSON-safe
    raise FormatError(f"unknown AnyValue kind {sorted(value)!r}")


def decode_attributes(items: Any) -> dict[str, Any]:
    """Decode a ``[{"key", "value"}]`` attribute list to a dict."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise FormatError(f"attributes must be a list, got {type(items).__name__}")
    out: dict[str, Any] = {}
    for index, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("key"), str):
            raise FormatError(f"attribute {index} has no string 'key'")
        try:
            out[item["key"]] = decode_any_value(item.get("value") or {})
        except FormatError as exc:
            raise FormatError(f"attribute {item['key']!r}: {exc.message}") from exc
    return out


def decode_id(value: Any, size: int) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id, hex or base64, as lowercase hex.

    Empty ids decode to None; anything else that is not ``size`` bytes raises.

    >>> decode_id("AAECAwQFBgc=", 8)
    '0001020304050607'
    >>> decode_id("0001020304050607", 8)
    '0001020304050607'
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FormatError(f"id must be a string, got {type(value).__name__}")
    if len(value) == 2 * size:
        try:
            bytes.fromhex(value)
            return value.lower()
        except ValueError:
            pass
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise FormatError(f"id {value!r} is neither {2 * size} hex digits nor base64 of {size} bytes")


def loads(text: str | bytes) -> Any:
    """Parse JSON fast (orjson), falling back to the stdlib for what orjson refuses.

    JSON nested deeper than the depth limit raises ``NestingTooDeep``.
    """
    try:
        return limited_loads(text)
    except NestingTooDeep:
        raise
    except ValueError:
        return loads_text(text)


def _get(data: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = data.get(camel)
    return data.get(snake) if value is None else value


def _nanos(value: Any, name: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        nanos = int(value)
    except (TypeError, ValueError) as exc:
        raise FormatError(f"{name} {value!r} is not an integer of nanoseconds") from exc
    return nanos or None


def _status(data: Any) -> tuple[str, str | None]:
    if not data:
        return "UNSET", None
    if not isinstance(data, Mapping):
        raise FormatError("status must be an object")
    code = data.get("code", 0)
    if isinstance(code, str):
        name = code.upper().removeprefix("STATUS_CODE_")
        if name.isdigit():
            name = _STATUS_NAMES.get(int(name), "UNSET")
    else:
        name = _STATUS_NAMES.get(int(code or 0), "UNSET")
    return name, data.get("message") or None


def span_from_otlp(
    data: Any, *, resource: Mapping[str, Any] | None = None, line: int | None = None
) -> OtlpSpan:
    """Decode one OTLP JSON span object; raises FormatError naming what is wrong."""
    if not isinstance(data, Mapping):
        raise FormatError(f"span must be an object, got {type(data).__name__}")
    trace_id = decode_id(_get(data, "traceId", "trace_id"), 16)
    span_id = decode_id(_get(data, "spanId", "span_id"), 8)
    if trace_id is None or span_id is None:
        raise FormatError("span has no traceId/spanId")
    events = []
    for event in data.get("events") or []:
        if isinstance(event, Mapping):
            events.append((str(event.get("name", "")), decode_attributes(event.get("attributes"))))
    status, message = _status(data.get("status"))
    return OtlpSpan(
        trace_id=trace_id,
        span_id=span_id,
        name=str(data.get("name") or ""),
        parent_span_id=decode_id(_get(data, "parentSpanId", "parent_span_id"), 8),
        start_ns=_nanos(
            _get(data, "startTimeUnixNano", "start_time_unix_nano"), "startTimeUnixNano"
        ),
        end_ns=_nanos(_get(data, "endTimeUnixNano", "end_time_unix_nano"), "endTimeUnixNano"),
        attributes=decode_attributes(data.get("attributes")),
        status=status,
        status_message=message,
        events=events,
        resource=dict(resource or {}),
        line=line,
    )


def _raw_ids(data: Any) -> dict[str, Any]:
    """Best-effort ids of a span that failed to decode, for the problem report."""
    if not isinstance(data, Mapping):
        return {}
    out = {}
    for key, camel, snake in (
        ("trace_id", "traceId", "trace_id"),
        ("span_id", "spanId", "span_id"),
    ):
        value = _get(data, camel, snake)
        if isinstance(value, str) and value:
            out[key] = value
    return out


def is_otlp_request(data: Any) -> bool:
    """True for an ``ExportTraceServiceRequest`` object (camel or snake case keys)."""
    return isinstance(data, Mapping) and ("resourceSpans" in data or "resource_spans" in data)


def spans_from_request(
    data: Any, *, report: IngestReport, line: int | None = None
) -> Iterator[OtlpSpan]:
    """Every readable span of one request; bad spans go to ``report``."""
    if not is_otlp_request(data):
        report.problem("not an OTLP ExportTraceServiceRequest (no resourceSpans)", line=line)
        return
    for resource_spans in _get(data, "resourceSpans", "resource_spans") or []:
        if not isinstance(resource_spans, Mapping):
            report.problem("resourceSpans entry is not an object", line=line)
            continue
        resource = _resource(resource_spans.get("resource"), report, line)
        scopes = (
            _get(resource_spans, "scopeSpans", "scope_spans")
            or _get(resource_spans, "instrumentationLibrarySpans", "instrumentation_library_spans")
            or []
        )
        for scope_spans in scopes:
            if not isinstance(scope_spans, Mapping):
                report.problem("scopeSpans entry is not an object", line=line)
                continue
            for raw in scope_spans.get("spans") or []:
                span = _decode_or_report(raw, resource, report, line)
                if span is not None:
                    yield span


def _resource(data: Any, report: IngestReport, line: int | None) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        return {}
    try:
        return decode_attributes(data.get("attributes"))
    except FormatError as exc:
        report.problem(f"resource attributes unreadable: {exc.message}", line=line)
        return {}


def _decode_or_report(
    raw: Any, resource: Mapping[str, Any], report: IngestReport, line: int | None
) -> OtlpSpan | None:
    try:
        span = span_from_otlp(raw, resource=resource, line=line)
    except FormatError as exc:
        report.spans_skipped += 1
        report.problem(f"malformed span skipped: {exc.message}", line=line, **_raw_ids(raw))
        return None
    report.spans += 1
    return span


# ---------------------------------------------------------------- files


def iter_otlp_spans(source: str | Path | IO[bytes], *, report: IngestReport) -> Iterator[OtlpSpan]:
    """Stream the spans of an OTLP file: JSONL, one (even one-line) document, or protobuf.

    See :mod:`tooleval.traces.files` for the layouts; gzip is undone
    on the way. Log records in the file are skipped here.
    """
    import io

    from tooleval.traces.files import iter_records, open_traces

    if isinstance(source, str | Path):
        with open_traces(source) as stream:
            yield from iter_otlp_spans(stream, report=report)
        return
    stream = source if isinstance(source, io.BufferedReader) else io.BufferedReader(source)
    for record in iter_records(stream, report=report):
        if isinstance(record, OtlpSpan):
            yield record
