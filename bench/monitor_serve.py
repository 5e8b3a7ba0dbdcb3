"""``monitor serve`` under load: concurrent agent sessions through the real OTLP exporter.

    python bench/monitor_serve.py [--sessions 200] [--turns 5] [--threads 200] [--gzip]

Starts the receiver in this process on 127.0.0.1, then ``--threads`` threads
each run agent sessions (invoke_agent > chat + execute_tool spans, 30% with a
failed refund the answer claims) through one TracerProvider whose
BatchSpanProcessor sends OTLP/HTTP protobuf to it. Reports spans/s accepted,
the time until every session was monitored after the last span, the findings
(expected: ``error_ignored`` = the failed sessions) and this process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import threading
import time

from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode

from tooleval.monitor.live import LiveMonitor
from tooleval.monitor.serve import OtlpReceiver


def run_session(tracer, number: int, turns: int) -> None:
    fails = number % 10 < 3
    with tracer.start_as_current_span(
        "invoke_agent shop",
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": f"c{number}",
        },
    ):
        for turn in range(turns):
            with tracer.start_as_current_span(
                "chat m",
                attributes={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "m",
                    "gen_ai.usage.input_tokens": 200,
                    "gen_ai.usage.output_tokens": 20,
                    "gen_ai.output.messages": json.dumps(
                        [
                            {
                                "role": "assistant",
                                "parts": [
                                    {
                                        "type": "tool_call",
                                        "id": f"{number}-{turn}",
                                        "name": "lookup",
                                        "arguments": {"turn": turn},
                                    }
                                ],
                            }
                        ]
                    ),
                },
            ):
                pass
            with tracer.start_as_current_span(
                "execute_tool lookup",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup",
                    "gen_ai.tool.call.id": f"{number}-{turn}",
                    "gen_ai.tool.call.arguments": json.dumps({"turn": turn}),
                },
            ):
                pass
        with tracer.start_as_current_span(
            "execute_tool issue_refund",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "issue_refund",
                "gen_ai.tool.call.arguments": json.dumps({"order": number}),
            },
        ) as span:
            if fails:
                span.set_status(Status(StatusCode.ERROR, "declined"))
        with tracer.start_as_current_span(
            "chat m",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "text", "content": "Your refund is on its way."}],
                        }
                    ]
                ),
            },
        ):
            pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--threads", type=int, default=200)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--idle-timeout", type=float, default=1.0)
    args = parser.parse_args()
    monitor = LiveMonitor()
    receiver = OtlpReceiver(monitor, port=0, idle_timeout=args.idle_timeout).start()
    exporter = OTLPSpanExporter(
        endpoint=f"{receiver.url}/v1/traces",
        compression=Compression.Gzip if args.gzip else Compression.NoCompression,
    )
    provider = TracerProvider()
    provider.add_span_processor(
        BatchSpanProcessor(exporter, max_queue_size=100_000, max_export_batch_size=512)
    )
    tracer = provider.get_tracer("bench")
    numbers = iter(range(args.sessions))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                number = next(numbers, None)
            if number is None:
                return
            run_session(tracer, number, args.turns)

    start = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    provider.force_flush(60_000)
    sent = time.perf_counter()
    while monitor.sessions < args.sessions and time.perf_counter() - sent < 120:
        time.sleep(0.05)
    done = time.perf_counter()
    receiver.stop()
    provider.shutdown()
    spans = receiver.problems.spans
    print(
        json.dumps(
            {
                "sessions": monitor.sessions,
                "spans": spans,
                "requests": receiver.requests,
                "rejected": receiver.rejected,
                "send_seconds": round(sent - start, 2),
                "spans_per_second": round(spans / (sent - start)),
                "monitored_after_last_span_s": round(done - sent, 2),
                "idle_timeout": args.idle_timeout,
                "counts": dict(monitor.summary()["counts"]),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
