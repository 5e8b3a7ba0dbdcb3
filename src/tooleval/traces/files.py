"""Every file layout an OTLP export comes in, read as a stream of span facts.

:func:`open_traces` opens a path (``-`` is standard input), transparently
un-gzipping (told by the gzip magic bytes, not the name). :func:`sniff_layout`
tells the layout from the first bytes:

* ``jsonl``: one OTLP JSON request per line (the Collector file exporter);
* ``document``: one JSON document, possibly minified on one huge line, or
  several concatenated; streamed with ``ijson`` so it is never loaded whole;
* ``protobuf``: binary OTLP, either one ``Export*ServiceRequest`` message or
  the Collector file exporter's ``format: proto`` (each message preceded by
  its length as a 4-byte big-endian integer);
* ``conversations``: JSONL conversation logs (not OTLP).

Traces and logs are both read: ``resourceSpans`` requests give spans
(:func:`~tooleval.traces.genai.span_facts`), ``resourceLogs`` requests
give GenAI events (:mod:`tooleval.traces.logs`). :func:`iter_facts`
yields :class:`~tooleval.traces.genai.SpanFacts` for both.

>>> import io, json
>>> line = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "ab" * 16,
...     "spanId": "cd" * 8, "name": "execute_tool f", "attributes": [
...     {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}]}]}]}
>>> stream = io.BufferedReader(io.BytesIO(json.dumps(line).encode() + b"\\n"))
>>> sniff_layout(stream)[0]
'jsonl'
>>> stream = io.BufferedReader(io.BytesIO(json.dumps(line).encode() + b"\\n"))
>>> [f.calls[0].name for f in iter_facts(stream, report=IngestReport())]
['f']
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tooleval._extras import install_hint
from tooleval.errors import FormatError, InputError
from tooleval.formats.json_limits import MAX_DEPTH, NestingTooDeep
from tooleval.stdio import stdin_bytes
from tooleval.traces.genai import SpanFacts, span_facts
from tooleval.traces.logs import (
    facts_from_logs_request,
    is_otlp_logs_request,
    record_or_problem,
)
from tooleval.traces.otlp import (
    IngestReport,
    OtlpSpan,
    _decode_or_report,
    _resource,
    is_otlp_request,
    loads,
    spans_from_request,
)
from tooleval.traces.protobuf import spans_from_message

__all__ = [
    "FIRST_LINE_LIMIT",
    "is_gzip",
    "iter_facts",
    "iter_records",
    "open_traces",
    "sniff_layout",
    "spool_stdin",
]

#: A first line longer than this is not parsed whole: the file is streamed as a document.
FIRST_LINE_LIMIT = 8 * 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | Path) -> bool:
    """True when the file starts with the gzip magic bytes."""
    with open(path, "rb") as handle:
        return handle.read(2) == _GZIP_MAGIC


def spool_stdin(directory: str | None = None) -> Path:
    """Copy standard input to a temporary file (sessions can be anywhere in it); caller deletes."""
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - returned path, deleted by caller
        prefix="tooleval-stdin-", suffix=".otlp", dir=directory, delete=False
    )
    with handle:
        shutil.copyfileobj(stdin_bytes("the traces"), handle, 1024 * 1024)
    return Path(handle.name)


class Gunzip(io.RawIOBase):
    """Streaming gunzip that keeps what precedes a cut: ``truncated`` tells, no exception.

    Concatenated gzip members (``cat a.gz b.gz``) are read one after the other.
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._started = False  # the current member has been fed bytes
        self._buffer = b""
        self.truncated = False
        self.corrupt: str | None = None

    def readable(self) -> bool:
        return True

    def _next_member(self) -> bytes:
        """Start the next member; return the bytes read past the one that ended."""
        rest = self._decompressor.unused_data
        self._decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._started = False
        # NUL padding after the last member (tape blocks, preallocated files): gzip -t passes.
        return rest if rest.strip(b"\0") else b""

    def readinto(self, buffer: Any) -> int:
        while not self._buffer:
            if self._decompressor.eof:
                rest = self._next_member()
                if rest:
                    self._feed(rest)
                    continue
            chunk = self._raw.read(256 * 1024)
            if not chunk:
                # Cut short only inside a member: the end of the last one is the end.
                if self._started and not self._decompressor.eof:
                    self.truncated = True
                return 0
            if not self._started and not chunk.strip(b"\0") and not self._buffer:
                continue  # padding between or after members
            self._feed(chunk)
            if self.corrupt:
                return 0
        size = min(len(buffer), len(self._buffer))
        buffer[:size] = self._buffer[:size]
        self._buffer = self._buffer[size:]
        return size

    def _feed(self, data: bytes) -> None:
        self._started = self._started or bool(data)
        try:
            self._buffer += self._decompressor.decompress(data)
        except zlib.error as exc:
            self.corrupt = str(exc)


@contextlib.contextmanager
def open_traces(path: str | Path) -> Iterator[io.BufferedReader[Any]]:
    """A buffered binary stream of the file's content (gunzipped when gzip)."""
    if str(path) == "-":
        raw: Any = stdin_bytes("the traces")
        stream: io.BufferedReader[Any] = (
            raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)
        )
        if stream.peek(2)[:2] == _GZIP_MAGIC:
            stream = io.BufferedReader(Gunzip(stream), 1024 * 1024)
        yield stream
        return
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise InputError(f"cannot open traces: {exc.strerror}", path=str(path)) from exc
    try:
        stream = handle
        if handle.peek(2)[:2] == _GZIP_MAGIC:
            stream = io.BufferedReader(Gunzip(handle), 1024 * 1024)
        yield stream
    finally:
        handle.close()


def _json_layout(first: bytes, complete: bool) -> str:
    """The layout told by the first line of a JSON file."""
    if not complete:
        return "document"  # a line too long to parse whole: a minified document
    try:
        head = loads(first)
    except NestingTooDeep:
        return "conversations"  # read line by line: the reader names the line
    except ValueError:
        return "document"  # a multi-line document
    if is_otlp_request(head) or is_otlp_logs_request(head):
        return "jsonl"
    return "document" if isinstance(head, list) else "conversations"


def sniff_layout(stream: io.BufferedReader[Any]) -> tuple[str, io.BufferedReader[Any]]:
    """The layout and a stream that still starts at the beginning.

    Layouts: ``jsonl`` | ``document`` | ``protobuf`` | ``conversations`` |
    ``empty`` | ``unknown``. The first line is read (at most
    :data:`FIRST_LINE_LIMIT` bytes) and replayed in the returned stream.
    """
    head = stream.peek(8)
    if not head:
        return "empty", stream
    if head[:1] == b"\x0a" or (len(head) >= 5 and head[:1] == b"\x00" and head[4:5] == b"\x0a"):
        return "protobuf", stream
    first = stream.readline(FIRST_LINE_LIMIT)
    while first and not first.strip() and first.endswith(b"\n"):
        first = stream.readline(FIRST_LINE_LIMIT)
    replay = io.BufferedReader(_Chain(first, stream), 1024 * 1024)
    text = first.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text:
        return "empty", replay
    if text[:1] not in (b"{", b"["):
        return "unknown", replay
    return _json_layout(first, first.endswith(b"\n") or len(first) < FIRST_LINE_LIMIT), replay


class _Chain(io.RawIOBase):
    """Bytes already read, then the rest of a stream."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head.nbytes:
            size = min(len(buffer), self._head.nbytes)
            buffer[:size] = self._head[:size]
            self._head = self._head[size:]
            return size
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


# ---------------------------------------------------------------- records


def iter_records(stream: io.BufferedReader[Any], *, report: IngestReport) -> Iterator[Any]:
    """Every span (:class:`OtlpSpan`) and GenAI log event (:class:`SpanFacts`) of a stream."""
    layout, stream = sniff_layout(stream)
    if layout == "protobuf":
        yield from _iter_protobuf(stream, report)
    elif layout == "jsonl":
        yield from _iter_jsonl(stream, report)
    elif layout in ("document", "unknown"):
        yield from _iter_document(stream, report)
    elif layout == "conversations":
        raise FormatError("a conversation log, not OTLP traces")


def iter_facts(stream: io.BufferedReader[Any], *, report: IngestReport) -> Iterator[SpanFacts]:
    """:func:`iter_records`, with spans read into facts (ingest problems go to ``report``)."""
    yield from _facts(stream, report)
    raw = getattr(stream, "raw", None)
    if isinstance(raw, Gunzip) and (raw.truncated or raw.corrupt):
        what = f"corrupt ({raw.corrupt})" if raw.corrupt else "cut short"
        report.problem(f"the gzip stream is {what}; kept what was read before")


def _facts(stream: io.BufferedReader, report: IngestReport) -> Iterator[SpanFacts]:
    for record in iter_records(stream, report=report):
        if isinstance(record, OtlpSpan):
            facts = span_facts(record)
            for problem in facts.problems:
                report.problem(
                    problem, line=record.line, trace_id=record.trace_id, span_id=record.span_id
                )
            facts.problems = []
            yield facts
        else:
            yield record


def request_records(data: Any, *, report: IngestReport, line: int | None) -> Iterator[Any]:
    """The spans or log facts of one decoded OTLP request (traces or logs)."""
    if is_otlp_logs_request(data):
        yield from facts_from_logs_request(data, report=report, line=line)
    else:
        yield from spans_from_request(data, report=report, line=line)


def _iter_jsonl(stream: io.BufferedReader, report: IngestReport) -> Iterator[Any]:
    number = 0
    while True:
        raw_line = stream.readline(FIRST_LINE_LIMIT * 16)
        if not raw_line:
            return
        number += 1
        if not raw_line.strip():
            continue
        report.lines += 1
        if not raw_line.endswith(b"\n") and len(raw_line) >= FIRST_LINE_LIMIT * 16:
            report.problem(
                f"line longer than {FIRST_LINE_LIMIT * 16} bytes; the rest of the file is skipped",
                line=number,
            )
            return
        try:
            data = loads(raw_line)
        except ValueError as exc:
            report.problem(f"invalid JSON: {exc}", line=number)
            continue
        yield from request_records(data, report=report, line=number)


def _iter_protobuf(stream: io.BufferedReader, report: IngestReport) -> Iterator[Any]:
    try:
        from google.protobuf.json_format import MessageToDict
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceRequest,
        )
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise FormatError(
            f"reading binary OTLP needs opentelemetry-proto: {install_hint('otel')}"
        ) from exc
    if stream.peek(1)[:1] == b"\x0a":
        messages: Iterator[bytes] = iter([stream.read()])
    else:
        messages = _length_prefixed(stream, report)
    for number, payload in enumerate(messages, start=1):
        report.lines += 1
        try:
            yield from decode_protobuf(
                payload,
                report=report,
                line=number,
                traces=ExportTraceServiceRequest,
                logs=ExportLogsServiceRequest,
                to_dict=MessageToDict,
            )
        except DecodeError as exc:
            report.problem(f"message {number} is not valid OTLP protobuf: {exc}", line=number)


def decode_protobuf(
    payload: bytes,
    *,
    report: IngestReport,
    line: int | None,
    traces: Any,
    logs: Any,
    to_dict: Any,
    kind: str | None = None,
) -> Iterator[Any]:
    """The records of one binary OTLP request; ``kind`` ``traces``/``logs`` or told from content.

    Trace requests are walked as parsed (:mod:`tooleval.traces.protobuf`); log requests
    go through ``to_dict`` and the OTLP/JSON reader.
    """
    if kind != "logs":
        request = traces()
        request.ParseFromString(payload)
        has_spans = any(s.spans for r in request.resource_spans for s in r.scope_spans)
        if kind == "traces" or has_spans:
            # walked as parsed: MessageToDict cost more than all the rest per span
            yield from spans_from_message(request, report=report, line=line)
            return
    request = logs()
    request.ParseFromString(payload)
    yield from facts_from_logs_request(to_dict(request), report=report, line=line)


def _length_prefixed(stream: io.BufferedReader, report: IngestReport) -> Iterator[bytes]:
    number = 0
    while True:
        size_bytes = stream.read(4)
        if not size_bytes:
            return
        number += 1
        size = int.from_bytes(size_bytes, "big") if len(size_bytes) == 4 else -1
        payload = stream.read(size) if size >= 0 else b""
        if size < 0 or len(payload) < size:
            report.problem(
                f"message {number} is cut short (expected {size} bytes); the rest is skipped",
                line=number,
            )
            return
        yield payload


# Where spans, log records and resources sit in a request (or in a list of
# requests), in camelCase (OTLP/JSON) or snake_case (preserved proto names).
_SPAN_PREFIX = re.compile(
    r"^(item\.)?resource_?[sS]pans\.item\."
    r"(scope_?[sS]pans|instrumentation_?[lL]ibrary_?[sS]pans)\.item\.spans\.item$"
)
_LOG_PREFIX = re.compile(
    r"^(item\.)?resource_?[lL]ogs\.item\.scope_?[lL]ogs\.item\.log_?[rR]ecords\.item$"
)
_RESOURCE_PREFIX = re.compile(r"^(item\.)?resource_?([sS]pans|[lL]ogs)\.item\.resource$")


# An OTLP document's envelope (resourceSpans > scopeSpans > spans > attributes)
# around values that may nest up to the usual limit.
_DOCUMENT_DEPTH = MAX_DEPTH + 16
# ijson parses a whole read buffer before it yields that buffer's first event, each event
# with its prefix ("item.item...."): a buffer of N opening brackets costs about N*N*2.5
# bytes before the depth check above sees one event. 64 KB (ijson's default) took 10.5 GB
# for a 200 KB file of nested brackets; 4 KB bounds it at about 20 MB and reads ordinary
# documents as fast (22 MB OTLP document: 0.37 s against 0.43 s).
_PARSE_BUFFER = 4096


def _iter_document(stream: io.BufferedReader, report: IngestReport) -> Iterator[Any]:
    """Stream a (possibly one-line, possibly concatenated) JSON document with ijson."""
    try:
        import ijson
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise FormatError(
            f"reading a single-document OTLP JSON file needs ijson: {install_hint('otel')} "
            "(or convert it to one request per line)"
        ) from exc
    report.lines += 1
    resource: dict[str, Any] = {}
    builder = None
    depth = 0
    kind = ""
    count = 0
    nesting = 0  # of the whole document: ijson's prefixes grow with it (quadratic memory)
    try:
        events = ijson.parse(stream, use_float=True, multiple_values=True, buf_size=_PARSE_BUFFER)
        for prefix, event, value in events:
            if event in ("start_map", "start_array"):
                nesting += 1
                if nesting > _DOCUMENT_DEPTH:
                    report.problem(
                        f"JSON nested deeper than {_DOCUMENT_DEPTH} levels after {count} "
                        "spans/records; the rest of the file is skipped"
                    )
                    return
            elif event in ("end_map", "end_array"):
                nesting -= 1
            if builder is not None:
                builder.event(event, value)
                if event in ("start_map", "start_array"):
                    depth += 1
                elif event in ("end_map", "end_array"):
                    depth -= 1
                    if depth == 0:
                        obj, builder = builder.value, None
                        count += 1
                        if kind == "span":
                            span = _decode_or_report(obj, resource, report, None)
                            if span is not None:
                                yield span
                        elif kind == "log":
                            facts = record_or_problem(obj, resource, report, None)
                            if facts is not None:
                                yield facts
                        else:
                            resource = _resource(obj, report, None)
                continue
            if event != "start_map":
                continue
            if _SPAN_PREFIX.match(prefix):
                kind = "span"
            elif _LOG_PREFIX.match(prefix):
                kind = "log"
            elif _RESOURCE_PREFIX.match(prefix):
                kind = "resource"
                resource = {}
            else:
                continue
            builder = ijson.ObjectBuilder()
            builder.event(event, value)
            depth = 1
    except ijson.JSONError as exc:
        report.problem(
            f"invalid JSON after {count} spans/records: {exc}; the rest of the file is skipped"
        )
