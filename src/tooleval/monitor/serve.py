"""An OTLP/HTTP receiver that monitors what exporters send it.

``POST /v1/traces`` and ``POST /v1/logs`` take OTLP requests as protobuf
(``Content-Type: application/x-protobuf``, what the OTel SDK exporters send)
or JSON (``application/json``), optionally ``Content-Encoding: gzip``. A
request larger than ``max_body`` bytes (compressed, and again after
decompression) is refused with 413 before it is decoded. Decoded facts go
to :class:`~tooleval.monitor.live.LiveSessions`; a worker thread releases
idle sessions to :class:`~tooleval.monitor.live.LiveMonitor` every
``tick`` seconds. ``GET /health`` answers ``ok``.

Responses follow OTLP/HTTP: 200 with an empty ``Export*ServiceResponse`` in
the request's encoding; 400 with a message for a body that cannot be decoded,
404 for other paths, 408 for a sender that stops sending its body for
``read_timeout`` seconds, 413 for a body too large, 415 for an unknown content
type, 429 with ``Retry-After`` while more than twice ``max_pending`` span
facts wait, and 503 with ``Retry-After`` when a request fails inside the
receiver: every request gets an answer, which OTel exporters honour by
retrying. The listen backlog holds 1,024 connections, so a burst of
exporters is queued, never reset. :meth:`OtlpReceiver.stop` (SIGTERM / SIGINT in the CLI) stops accepting,
releases every buffered session, finishes the store run and flushes events.
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tooleval._extras import install_hint
from tooleval.errors import BodyError, ToolEvalError
from tooleval.monitor.live import LiveMonitor, LiveSessions
from tooleval.traces.genai import SpanFacts, span_facts
from tooleval.traces.otlp import IngestReport, loads

__all__ = ["DEFAULT_MAX_BODY", "OtlpReceiver", "decode_otlp_body"]

DEFAULT_MAX_BODY = 16 * 1024 * 1024
#: Seconds a sender may pause inside its request before it is answered 408.
DEFAULT_READ_TIMEOUT = 30.0
#: Seconds an exporter is told to wait (429/503) before it sends again.
RETRY_AFTER = 1


class _GcTuning:
    """Fewer cyclic collections while a receiver serves (restored when the last one stops).

    Span facts, sessions and decoded attributes hold no reference cycles: reference
    counting frees them, and the cyclic collector only walks them. With CPython's
    defaults it ran every 700 allocations and took about a third of the receiver's
    CPU per span (bench/receiver_speed.py). Objects alive at start are frozen out of
    its walks, and the youngest generation holds 500,000 objects before a pass: a
    request's objects (about 100 containers per span, freed once its facts are read)
    are then mostly gone when a pass comes, where with 100,000 a pass came within
    each 512-span request and walked them all (20% of the CPU per span,
    ``bench/receiver_speed.py``). Only cyclic garbage waits longer, and the
    receiver makes none on its path.
    """

    THRESHOLD = (500_000, 50, 1000)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._saved: tuple[int, int, int] | None = None

    def acquire(self) -> None:
        with self._lock:
            self._users += 1
            if self._users == 1:
                self._saved = gc.get_threshold()
                gc.freeze()
                gc.set_threshold(*self.THRESHOLD)

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._saved is not None:
                gc.set_threshold(*self._saved)
                gc.unfreeze()
                self._saved = None


_GC = _GcTuning()


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # the default 5 resets connections in a burst
    daemon_threads = True


def _gunzip(body: bytes, limit: int) -> bytes:
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = decompressor.decompress(body, limit + 1)
    except zlib.error as exc:
        raise BodyError(400, f"body is not valid gzip: {exc}") from exc
    if len(out) > limit or decompressor.unconsumed_tail:
        raise BodyError(413, f"decompressed body larger than {limit} bytes")
    return out


def decode_otlp_body(
    body: bytes,
    *,
    signal: str,
    content_type: str,
    encoding: str = "",
    max_body: int = DEFAULT_MAX_BODY,
) -> tuple[list[SpanFacts], IngestReport]:
    """The span facts of one OTLP/HTTP request body (``signal``: ``traces`` or ``logs``).

    >>> facts, report = decode_otlp_body(b'{"resourceSpans": []}', signal="traces",
    ...                                  content_type="application/json")
    >>> facts, report.spans
    ([], 0)
    """
    from tooleval.traces.files import request_records

    if encoding.lower() == "gzip":
        body = _gunzip(body, max_body)
    elif encoding and encoding.lower() != "identity":
        raise BodyError(415, f"unsupported Content-Encoding {encoding!r} (gzip or none)")
    report = IngestReport()
    kind = content_type.split(";")[0].strip().lower()
    if kind in ("application/x-protobuf", "application/protobuf"):
        records = _protobuf_records(body, signal, report)
    elif kind == "application/json":
        try:
            data = loads(body)
        except ValueError as exc:
            raise BodyError(400, f"body is not valid JSON: {exc}") from exc
        except ToolEvalError as exc:  # valid JSON past the nesting limit, and the like
            raise BodyError(400, f"body cannot be read: {exc.message}") from exc
        expected = "resourceSpans" if signal == "traces" else "resourceLogs"
        if not isinstance(data, dict) or (
            expected not in data
            and expected.replace("resource", "resource_").lower() not in data
            and data
        ):
            raise BodyError(400, f"expected an OTLP {signal} request with {expected}")
        records = list(request_records(data, report=report, line=None))
    else:
        raise BodyError(
            415,
            f"unsupported Content-Type {content_type!r} (application/x-protobuf or application/json)",
        )
    facts = []
    for record in records:
        if isinstance(record, SpanFacts):
            facts.append(record)
        else:
            fact = span_facts(record)
            for problem in fact.problems:
                report.problem(problem, trace_id=record.trace_id, span_id=record.span_id)
            fact.problems = []
            facts.append(fact)
    return facts, report


def _protobuf_records(body: bytes, signal: str, report: IngestReport) -> Any:
    from google.protobuf.json_format import MessageToDict
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    from tooleval.traces.files import decode_protobuf
    from tooleval.traces.protobuf import kernel_spans, spans_from_message

    try:
        if signal == "traces":
            # read by the compiled kernel straight from the wire, when it is built
            spans = kernel_spans(body, report=report)
            if spans is not None:
                return spans
            # walked as parsed (no MessageToDict): the spans' attributes read from upb
            request = ExportTraceServiceRequest.FromString(body)
            if body and not request.resource_spans:
                raise BodyError(
                    400,
                    f"body of {len(body)} bytes holds no resourceSpans: not an OTLP traces "
                    "protobuf message (JSON needs Content-Type: application/json)",
                )
            return list(spans_from_message(request, report=report))
        return list(
            decode_protobuf(
                body,
                report=report,
                line=None,
                traces=ExportTraceServiceRequest,
                logs=ExportLogsServiceRequest,
                to_dict=MessageToDict,
                kind=signal,
            )
        )
    except DecodeError as exc:
        raise BodyError(
            400,
            f"body of {len(body)} bytes is not a valid OTLP {signal} protobuf message "
            f"(cut short, or not protobuf?): {exc}",
        ) from exc


_SIGNALS = {"/v1/traces": "traces", "/v1/logs": "logs"}


class _OtlpHandler(BaseHTTPRequestHandler):
    """One OTLP/HTTP request: the answers of the module docstring, in phases.

    ``receiver`` and ``timeout`` (every socket read of a request ends) are
    set by :meth:`OtlpReceiver._handler`.
    """

    protocol_version = "HTTP/1.1"
    receiver: OtlpReceiver

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str, retry_after: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if retry_after:
            self.send_header("Retry-After", str(RETRY_AFTER))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, protobuf: bool) -> None:
        retry = status in (429, 503)
        if protobuf:
            try:
                from google.rpc.status_pb2 import Status
            except ImportError:  # pragma: no cover - googleapis-common-protos absent
                protobuf = False
        if protobuf:
            body = Status(code=3, message=message).SerializeToString()
            self._send(status, body, "application/x-protobuf", retry)
        else:
            body = json.dumps({"code": 3, "message": message}).encode()
            self._send(status, body, "application/json", retry)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/health", "/healthz"):
            self._send(200, b"ok\n", "text/plain")
        else:
            self._send(404, b"not found\n", "text/plain")

    def do_POST(self) -> None:
        protobuf = "protobuf" in self.headers.get("Content-Type", "")
        try:
            self._post()
        except (TimeoutError, ConnectionError):
            # A sender that paused past read_timeout (or left): answer, then close.
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._error(408, "the request body did not arrive in time", protobuf)
        except Exception as exc:  # answered all the same: the exporter retries
            self.receiver.rejected += 1
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._error(503, f"the receiver failed on this request: {exc}", protobuf)

    def _post(self) -> None:
        content_type = self.headers.get("Content-Type", "")
        protobuf = "protobuf" in content_type
        path = self.path.split("?")[0].rstrip("/")
        signal = _SIGNALS.get(path)
        if signal is None:
            self._drain()
            self._error(404, f"unknown path {path!r}: POST /v1/traces or /v1/logs", protobuf)
            return
        length = self._admitted_length(protobuf)
        if length is None:
            return
        body = self.rfile.read(length)
        if len(body) < length:
            raise ConnectionError("the sender closed the connection mid-body")
        decoded = self._decoded(body, signal, content_type, protobuf)
        if decoded is None:
            return
        self.receiver.accept(*decoded)
        if protobuf:
            self._send(200, b"", "application/x-protobuf")
        else:
            self._send(200, b"{}", "application/json")

    def _admitted_length(self, protobuf: bool) -> int | None:
        """The body's length when it may be read; else None, the request answered (411/413/429)."""
        receiver = self.receiver
        try:
            length = int(self.headers.get("Content-Length") or -1)
        except ValueError:
            length = -1
        if length < 0:
            self.close_connection = True
            self._error(411, "Content-Length required", protobuf)
            return None
        if length > receiver.max_body:
            receiver.rejected += 1
            self.close_connection = True  # the body is not read
            self._error(
                413, f"body of {length} bytes over the limit of {receiver.max_body}", protobuf
            )
            return None
        if receiver.sessions.pending > 2 * receiver.sessions.max_pending:
            self._drain()
            self._error(429, "too many spans waiting; send again later", protobuf)
            return None
        return length

    def _decoded(
        self, body: bytes, signal: str, content_type: str, protobuf: bool
    ) -> tuple[list[SpanFacts], IngestReport] | None:
        """The body's span facts; else None, the request answered (400/413/415)."""
        receiver = self.receiver
        try:
            return decode_otlp_body(
                body,
                signal=signal,
                content_type=content_type,
                encoding=self.headers.get("Content-Encoding", ""),
                max_body=receiver.max_body,
            )
        except BodyError as exc:
            receiver.rejected += 1
            self._error(exc.status, str(exc), protobuf)
        except ImportError:
            receiver.rejected += 1
            self._error(
                415,
                "reading protobuf OTLP needs opentelemetry-proto on the receiver: "
                f"{install_hint('otel')} (or export OTLP as JSON)",
                False,
            )
        except Exception as exc:  # a body no reader expected: refuse it, keep serving
            receiver.rejected += 1
            self._error(
                400, f"unreadable OTLP {signal} request: {type(exc).__name__}: {exc}", protobuf
            )
        return None

    def _drain(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if 0 < length <= self.receiver.max_body:
            self.rfile.read(length)
        else:
            self.close_connection = True


class OtlpReceiver:
    """The HTTP server, the session buffer and the worker that monitors released sessions."""

    def __init__(
        self,
        monitor: LiveMonitor,
        *,
        host: str = "127.0.0.1",
        port: int = 4318,
        idle_timeout: float = 30.0,
        max_body: int = DEFAULT_MAX_BODY,
        max_pending: int = 200_000,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        tick: float | None = None,
        on_findings: Any = None,
        on_problem: Any = None,
        buffer: str | Path | None = None,
        buffer_store: str = "",
    ) -> None:
        self.monitor = monitor
        # Where open sessions wait across a restart (None: stored as they are at stop);
        # buffer_store is the resolved URL of the store they belong to.
        self.buffer = None if buffer is None else Path(buffer)
        self.buffer_store = buffer_store
        self._buffer_lock = None
        if self.buffer is not None:
            from tooleval.monitor.buffer import BufferLock, check_buffer

            # before the port is bound: a second receiver on this buffer, a file that is
            # not a buffer, or a buffer of another store is refused before any work
            self._buffer_lock = BufferLock(self.buffer).acquire()
            try:
                check_buffer(self.buffer, buffer_store)
            except BaseException:
                self._buffer_lock.release()
                raise
        self.kept_open = 0  # facts of open sessions written to the buffer at stop
        self.restored = 0  # facts read back from the buffer at start
        self.sessions = LiveSessions(idle_timeout=idle_timeout, max_pending=max_pending)
        self.max_body = max_body
        self.read_timeout = read_timeout
        self.tick = tick if tick is not None else max(0.05, min(1.0, idle_timeout / 4))
        self.on_findings = on_findings
        self.on_problem = on_problem  # called with each split-session message as it happens
        self.requests = 0
        self.rejected = 0
        self.problems = IngestReport()
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        self._server_thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._gc_tuned = False
        try:
            self.server = _Server((host, port), self._handler())
        except BaseException:
            self._release_buffer()
            raise

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{host}:{port}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        # One handler class per receiver: it reaches the receiver, and its socket reads
        # time out after read_timeout.
        return type("Handler", (_OtlpHandler,), {"receiver": self, "timeout": self.read_timeout})

    def accept(self, facts: list[SpanFacts], report: IngestReport) -> None:
        with self._lock:
            self.requests += 1
            self.problems.spans += report.spans
            self.problems.spans_skipped += report.spans_skipped
            self.problems.log_records += report.log_records
            for problem in report.problems:
                self.problems.problem(
                    problem.message, trace_id=problem.trace_id, span_id=problem.span_id
                )
        self.sessions.add(facts, now=time.monotonic())
        for session_id, late in self.sessions.take_splits():
            message = (
                f"session {session_id!r} received spans {late:.1f} s after it was "
                "monitored as idle, so it is stored as two rows; set --idle-timeout "
                f"(now {self.sessions.idle_timeout:g} s) above the exporter's batch delay "
                "(OTEL_BSP_SCHEDULE_DELAY, 5 s by default) and the gaps between turns"
            )
            with self._lock:
                self.problems.problem(message)
            if self.on_problem is not None:
                self.on_problem(message)

    def _work(self) -> None:
        self.monitor.start()
        status = "finished"
        try:
            while not self._stop.wait(self.tick):
                self._release(self.sessions.pop_idle(now=time.monotonic()))
            if self.buffer is None:
                self._release(self.sessions.pop_all())
            else:
                # Idle sessions are complete: stored. Open ones wait in the buffer file
                # for the rest, so a restart neither stores them cut nor twice.
                self._release(self.sessions.pop_idle(now=time.monotonic()))
                from tooleval.monitor.buffer import write_open_sessions

                facts, session_of = self.sessions.take_open()
                self.kept_open = write_open_sessions(
                    self.buffer, facts, session_of, store=self.buffer_store
                )
        except BaseException:
            status = "failed"
            raise
        finally:
            self.monitor.close(status)
            self._release_buffer()

    def _release_buffer(self) -> None:
        if self._buffer_lock is not None:
            self._buffer_lock.release()

    def _release(self, sessions: list[Any]) -> None:
        findings = self.monitor.process(sessions)
        if self.on_findings is not None and sessions:
            self.on_findings(sessions, findings)

    def start(self) -> OtlpReceiver:
        """Serve in background threads (open sessions of the last stop restored); returns self."""
        if self.buffer is not None:
            from tooleval.monitor.buffer import read_open_sessions, unreadable_path

            facts, session_of, skipped = read_open_sessions(self.buffer)
            self.sessions.restore(facts, session_of, now=time.monotonic())
            self.restored = len(facts)
            if skipped:
                message = (
                    f"{skipped} line(s) of the open-session buffer {self.buffer} could not "
                    f"be read; they are kept, with the reason, in {unreadable_path(self.buffer)}"
                )
                self.problems.problem(message)
                if self.on_problem is not None:
                    self.on_problem(message)
        _GC.acquire()
        self._gc_tuned = True
        self._worker = threading.Thread(target=self._work, name="tooleval-monitor", daemon=True)
        self._worker.start()
        self._server_thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True
        )
        self._server_thread.start()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        """Stop accepting, monitor every buffered session, finish the run and flush events."""
        self.server.shutdown()
        self.server.server_close()
        self._stop.set()
        if self._worker is not None:
            self._worker.join(timeout)
        if self._gc_tuned:
            self._gc_tuned = False
            _GC.release()

    def __enter__(self) -> OtlpReceiver:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
