"""The OTLP/HTTP receiver, fed by the real OpenTelemetry SDK exporters on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from tests.procs import read_line, wait_until

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.exporter.otlp.proto.http import Compression  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: E402
from opentelemetry.trace import Status, StatusCode  # noqa: E402

from tooleval.monitor.emit import EvaluationEventWriter  # noqa: E402
from tooleval.monitor.live import LiveMonitor  # noqa: E402
from tooleval.monitor.serve import OtlpReceiver  # noqa: E402
from tooleval.store import open_store  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


class LogSink:
    """A tiny OTLP/HTTP logs endpoint that keeps what it is sent (the --export target)."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                sink.bodies.append(json.loads(body))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/logs"

    def records(self) -> list[dict]:
        return [
            r
            for body in self.bodies
            for rl in body["resourceLogs"]
            for sl in rl["scopeLogs"]
            for r in sl["logRecords"]
        ]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _agent_spans(tracer, conversation: str, *, refund_fails: bool, retries: int = 1) -> None:
    with tracer.start_as_current_span(
        "invoke_agent shop",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": conversation,
        },
    ):
        for attempt in range(retries):
            with tracer.start_as_current_span(
                "execute_tool issue_refund",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "issue_refund",
                    "gen_ai.tool.call.id": f"{conversation}-{attempt}",
                    "gen_ai.tool.call.arguments": json.dumps({"order": "A1"}),
                },
            ) as span:
                if refund_fails:
                    span.set_status(Status(StatusCode.ERROR, "card network declined the refund"))
        with tracer.start_as_current_span(
            "chat m",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "m",
                "gen_ai.usage.input_tokens": 100,
                "gen_ai.usage.output_tokens": 20,
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [
                                {
                                    "type": "text",
                                    "content": "No problem! Your refund is on its way.",
                                }
                            ],
                        }
                    ]
                ),
            },
        ):
            pass


def _provider(endpoint: str, compression=Compression.NoCompression):
    exporter = OTLPSpanExporter(endpoint=endpoint, compression=compression)
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=50))
    return provider


@pytest.mark.parametrize("compression", [Compression.NoCompression, Compression.Gzip])
def test_real_exporter_to_receiver_stores_and_exports_findings(tmp_path, compression):
    sink = LogSink()
    store_url = f"sqlite:///{tmp_path / 'runs.db'}"
    writer = EvaluationEventWriter(tmp_path / "events.jsonl", endpoint=sink.url)
    monitor = LiveMonitor(store=store_url, writer=writer)
    receiver = OtlpReceiver(monitor, port=0, idle_timeout=0.3).start()
    try:
        provider = _provider(f"{receiver.url}/v1/traces", compression)
        tracer = provider.get_tracer("shop-agent")
        _agent_spans(tracer, "conv-bad", refund_fails=True)
        _agent_spans(tracer, "conv-ok", refund_fails=False)
        _agent_spans(tracer, "conv-loop", refund_fails=True, retries=3)
        assert provider.force_flush(10_000)
        deadline = time.monotonic() + 10
        while monitor.sessions < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        provider.shutdown()
    finally:
        receiver.stop()
        sink.close()
    summary = monitor.summary()
    assert summary["sessions"] == 3
    assert summary["counts"]["error_ignored"] == 2  # conv-bad and conv-loop claim the refund
    assert summary["counts"]["retry_loop"] == 1
    # the store holds one run, one row per session, with token usage
    store = open_store(store_url)
    try:
        run = store.get_run(summary["run_id"])
        assert run.status == "finished"
        rows = {r.row_id: r for r in store.iter_rows(summary["run_id"])}
        assert set(rows) == {"conv-bad", "conv-ok", "conv-loop"}
        assert rows["conv-ok"].sample.metadata["usage"]["input_tokens"] == 100
    finally:
        store.close()
    # evaluation events reached the OTLP endpoint, on the failing span, with the error text
    records = sink.records()
    names = [
        next(
            a["value"]["stringValue"]
            for a in r["attributes"]
            if a["key"] == "gen_ai.evaluation.name"
        )
        for r in records
    ]
    assert sorted(names) == ["error_ignored", "error_ignored", "retry_loop"]
    finding = next(
        json.loads(a["value"]["stringValue"])
        for r in records
        for a in r["attributes"]
        if a["key"] == "tooleval.finding"
    )
    assert "declined" in json.dumps(finding["evidence"]["result"])
    assert len((tmp_path / "events.jsonl").read_text().splitlines()) >= 1


def test_receiver_refuses_bad_bodies_and_unknown_paths():
    monitor = LiveMonitor()
    receiver = OtlpReceiver(monitor, port=0, idle_timeout=5, max_body=4096).start()
    try:
        base = receiver.url
        big = httpx.post(
            f"{base}/v1/traces", content=b"{" * 5000, headers={"content-type": "application/json"}
        )
        assert big.status_code == 413
        bomb = gzip.compress(b" " * 100_000)  # small on the wire, over the limit inflated
        inflated = httpx.post(
            f"{base}/v1/traces",
            content=bomb,
            headers={"content-type": "application/json", "content-encoding": "gzip"},
        )
        assert inflated.status_code == 413
        bad_json = httpx.post(
            f"{base}/v1/traces", content=b"{not json", headers={"content-type": "application/json"}
        )
        assert bad_json.status_code == 400 and "JSON" in bad_json.json()["message"]
        bad_proto = httpx.post(
            f"{base}/v1/traces",
            content=b"\xff\xff\xff",
            headers={"content-type": "application/x-protobuf"},
        )
        assert bad_proto.status_code == 400
        assert (
            httpx.post(
                f"{base}/v1/metrics", content=b"{}", headers={"content-type": "application/json"}
            ).status_code
            == 404
        )
        assert (
            httpx.post(
                f"{base}/v1/traces", content=b"x", headers={"content-type": "text/plain"}
            ).status_code
            == 415
        )
        assert httpx.get(f"{base}/health").text == "ok\n"
        ok = httpx.post(
            f"{base}/v1/traces",
            content=b'{"resourceSpans": []}',
            headers={"content-type": "application/json"},
        )
        assert ok.status_code == 200 and ok.json() == {}
    finally:
        receiver.stop()
    assert receiver.rejected == 5


def test_cli_serve_graceful_shutdown_on_sigterm(tmp_path):
    store_url = f"sqlite:///{tmp_path / 'runs.db'}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("TOOLEVAL_STORE", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tooleval.cli.main",
            "monitor",
            "serve",
            "--port",
            "0",
            "--idle-timeout",
            "60",
            "--store",
            store_url,
            "--emit",
            str(tmp_path / "ev.jsonl"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    try:
        line = read_line(proc, startswith="listening on ")
        assert line.startswith("listening on http://127.0.0.1:"), line
        url = line.split()[2]
        provider = _provider(f"{url}/v1/traces")
        _agent_spans(provider.get_tracer("t"), "conv-term", refund_fails=True)
        assert provider.force_flush(10_000)
        provider.shutdown()
        # the idle timeout (60 s) has not passed: only shutdown monitors the session
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    # the session is still open (60 s idle timeout): kept for the next start, not stored cut
    assert "0 sessions" in out and "kept" in out
    restarted = subprocess.Popen(
        [sys.executable, "-m", "tooleval.cli.main", "monitor", "serve", "--port", "0",
         "--idle-timeout", "1", "--store", store_url, "--emit", str(tmp_path / "ev.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    try:
        assert read_line(restarted).startswith("restored ")
        # the restored session goes idle (1 s): monitored now, whole, its findings emitted
        emitted = tmp_path / "ev.jsonl"
        wait_until(
            lambda: emitted.exists() and "conv-term" in emitted.read_text(),
            "the restored session monitored after its idle timeout",
        )
        restarted.send_signal(signal.SIGTERM)
        out, err = restarted.communicate(timeout=30)
    finally:
        if restarted.poll() is None:
            restarted.kill()
    assert restarted.returncode == 0, err
    assert "1 sessions" in out and "error_ignored 1" in out
    events = (tmp_path / "ev.jsonl").read_text()
    assert "conv-term" in events
    store = open_store(store_url)
    try:
        runs = store.list_runs()
        assert [r.status for r in runs] == ["finished", "finished"]
        assert sum(store.count_rows(r.id) for r in runs) == 1
    finally:
        store.close()


def test_real_log_exporter_genai_events_join_their_spans():
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

    monitor = LiveMonitor()
    receiver = OtlpReceiver(monitor, port=0, idle_timeout=0.3).start()
    try:
        tracer_provider = _provider(f"{receiver.url}/v1/traces")
        logger_provider = LoggerProvider()
        logger_provider.add_log_record_processor(
            BatchLogRecordProcessor(
                OTLPLogExporter(endpoint=f"{receiver.url}/v1/logs"), schedule_delay_millis=50
            )
        )
        logger = logger_provider.get_logger("openai-events")
        tracer = tracer_provider.get_tracer("agent")
        call = {
            "id": "call_9",
            "type": "function",
            "function": {"name": "cancel_order", "arguments": '{"order": "B2"}'},
        }
        with tracer.start_as_current_span(
            "invoke_agent", attributes={"gen_ai.conversation.id": "conv-logs"}
        ):
            with tracer.start_as_current_span(
                "chat m", attributes={"gen_ai.operation.name": "chat"}
            ):
                logger.emit(
                    LogRecord(event_name="gen_ai.user.message", body={"content": "Cancel B2"})
                )
                logger.emit(
                    LogRecord(
                        event_name="gen_ai.choice",
                        body={"index": 0, "message": {"role": "assistant", "tool_calls": [call]}},
                    )
                )
            with tracer.start_as_current_span(
                "chat m", attributes={"gen_ai.operation.name": "chat"}
            ):
                logger.emit(
                    LogRecord(
                        event_name="gen_ai.tool.message",
                        body={"id": "call_9", "content": '{"error": "order already shipped"}'},
                    )
                )
                logger.emit(
                    LogRecord(
                        event_name="gen_ai.choice",
                        body={
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": "Done, order B2 is cancelled.",
                            },
                        },
                    )
                )
        assert tracer_provider.force_flush(10_000) and logger_provider.force_flush(10_000)
        deadline = time.monotonic() + 10
        while monitor.sessions < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        tracer_provider.shutdown()
        logger_provider.shutdown()
    finally:
        receiver.stop()
    assert receiver.problems.log_records == 4
    summary = monitor.summary()
    assert summary["sessions"] == 1 and summary["counts"]["error_ignored"] == 1


def test_receiver_survives_garbage():
    import random

    rng = random.Random(7)
    monitor = LiveMonitor()
    receiver = OtlpReceiver(monitor, port=0, idle_timeout=5, max_body=65536).start()
    bodies = [
        b'{"resourceSpans": 5}',
        b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 1}]}]}]}',
        b'{"resourceLogs": [{"scopeLogs": [{"logRecords": [7, {"eventName": "gen_ai.choice", "body": 3}]}]}]}',
        b"[]",
        b'"x"',
        *(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))) for _ in range(30)),
    ]
    try:
        with httpx.Client() as client:
            for body in bodies:
                for kind in ("application/json", "application/x-protobuf"):
                    for path in ("/v1/traces", "/v1/logs"):
                        response = client.post(
                            f"{receiver.url}{path}", content=body, headers={"content-type": kind}
                        )
                        assert response.status_code in (200, 400), (
                            body,
                            kind,
                            response.status_code,
                        )
            assert client.get(f"{receiver.url}/health").status_code == 200
    finally:
        receiver.stop()


def test_cli_serve_usage_errors_are_one_line():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for args, text in (
            (["--port", str(port)], "cannot listen"),
            (["--export", "ftp://x"], "http(s) URL"),
            (["--judge", "/nonexistent/judge.yaml"], "cannot read judge config"),
            (["--judge-metric", "task_success"], "needs --judge"),
            (["--idle-timeout", "0"], "idle-timeout"),
        ):
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tooleval.cli.main",
                    "monitor",
                    "serve",
                    "--no-store",
                    *args,
                ],
                capture_output=True,
                text=True,
                timeout=60,
                cwd=REPO,
            )
            assert result.returncode == 2, (args, result.stderr)
            assert len(result.stderr.strip().splitlines()) == 1 and text in result.stderr


def test_a_turn_after_the_idle_timeout_is_reported_as_a_split_session(tmp_path):
    """An idle timeout shorter than the gap between a session's spans stores it as two rows,
    and the receiver says so (naming the session and what to raise), as it happens."""
    store_url = f"sqlite:///{tmp_path / 'runs.db'}"
    monitor = LiveMonitor(store=store_url)
    said: list[str] = []
    receiver = OtlpReceiver(monitor, port=0, idle_timeout=0.2, on_problem=said.append).start()
    try:
        provider = _provider(f"{receiver.url}/v1/traces")
        tracer = provider.get_tracer("shop-agent")
        _agent_spans(tracer, "conv-slow", refund_fails=False)
        assert provider.force_flush(10_000)
        deadline = time.monotonic() + 10
        while monitor.sessions < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert monitor.sessions == 1
        _agent_spans(tracer, "conv-slow", refund_fails=False)  # the next turn, too late
        _agent_spans(tracer, "conv-other", refund_fails=False)  # a new session: no problem
        assert provider.force_flush(10_000)
        deadline = time.monotonic() + 10
        while monitor.sessions < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        provider.shutdown()
    finally:
        receiver.stop()
    assert monitor.sessions == 3
    assert len(said) == 1 and "'conv-slow'" in said[0] and "--idle-timeout" in said[0]
    assert [p.message for p in receiver.problems.problems] == said
    assert receiver.sessions.split_sessions == 1
