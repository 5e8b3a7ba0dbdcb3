"""The OTLP receiver's CPU per span, and its memory with 1,000 sessions open.

    python bench/receiver_speed.py [--sessions 2000] [--turns 4] [--repeats 3]
        [--modes protobuf,json] [--stores none,sqlite] [--src DIR]

A load generator of realistic GenAI traffic: each session is an
``invoke_agent`` span over ``--turns`` turns of a ``chat`` span (input
messages growing with the history, output messages with a tool call, usage,
finish reasons, model) and an ``execute_tool`` span (arguments, result; 10%
failed with an ERROR status and an ``exception`` event), with the resource
attributes an OTel SDK sends. Spans of many sessions are interleaved and cut
into requests of 512 spans (the BatchSpanProcessor's batch), encoded once as
protobuf and as OTLP/JSON before the clock starts.

The receiver runs in its own process (``OtlpReceiver`` with the default
detectors, no store or a SQLite store), fed over keep-alive HTTP by two
sender threads in this process; every request must be answered 200. Its CPU
(user + sys, ``getrusage`` in the receiver) from the first request until
every session was monitored and the run finished, divided into the spans
sent, is the figure; the minimum of ``--repeats`` runs is printed with the
load average. The memory figure is the receiver's RSS with 1,000 sessions
open (idle timeout of an hour) against its RSS before the first request.

``--src DIR`` puts DIR first on the receiver's path (an older ``src`` from
``git archive``) to measure two versions side by side.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
BATCH = 512

_SERVE = r"""
import json, os, resource, sys, time
from tooleval.monitor.live import LiveMonitor
from tooleval.monitor.serve import OtlpReceiver

store, idle = sys.argv[1], float(sys.argv[2])
receiver = OtlpReceiver(LiveMonitor(store=store or None), port=0, idle_timeout=idle,
                        tick=0.2).start()
print(receiver.address[1], flush=True)

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

for command in sys.stdin:
    command = command.strip()
    if command == "cpu":
        print(json.dumps({"cpu": cpu(), "rss_mb": rss()}), flush=True)
    elif command == "wait":
        # until every buffered session went to the monitor (idle timeout passed)
        deadline = time.monotonic() + 600
        while receiver.sessions.pending and time.monotonic() < deadline:
            time.sleep(0.05)
        print(json.dumps({"cpu": cpu(), "pending": receiver.sessions.pending}), flush=True)
    elif command == "stop":
        receiver.stop(timeout=600)
        print(json.dumps({"cpu": cpu(), "rss_mb": rss(),
                          "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                          "sessions": receiver.monitor.sessions,
                          "tool_calls": receiver.monitor.calls,
                          "spans": receiver.problems.spans,
                          "requests": receiver.requests,
                          "rejected": receiver.rejected,
                          "counts": dict(receiver.monitor.counts)}), flush=True)
        break
"""

# ------------------------------------------------------------------ load


def _messages_text(turn: int, number: int) -> tuple[str, str]:
    history = [{"role": "system", "parts": [{"type": "text", "content": "You are a shop agent."}]}]
    history.append(
        {"role": "user", "parts": [{"type": "text", "content": f"Where is order {number}?"}]}
    )
    for t in range(turn):
        history.append(
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "tool_call",
                        "id": f"call-{number}-{t}",
                        "name": "lookup_order",
                        "arguments": {"order": number, "step": t},
                    }
                ],
            }
        )
        history.append(
            {
                "role": "tool",
                "parts": [
                    {
                        "type": "tool_call_response",
                        "id": f"call-{number}-{t}",
                        "response": {"status": "shipped", "eta": "2 days", "items": [1, 2, 3]},
                    }
                ],
            }
        )
    output = [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": f"call-{number}-{turn}",
                    "name": "lookup_order",
                    "arguments": {"order": number, "step": turn},
                }
            ],
            "finish_reason": "tool_call",
        }
    ]
    return json.dumps(history), json.dumps(output)


def session_spans(number: int, turns: int, rng: random.Random) -> list[dict]:
    """One session's spans as plain dicts (name, ids, times, attributes, status, events)."""
    trace = rng.getrandbits(128).to_bytes(16, "big")
    root = rng.getrandbits(64).to_bytes(8, "big")
    start = 1_700_000_000_000_000_000 + number * 10_000_000_000
    spans = []
    clock = start
    for turn in range(turns):
        inputs, outputs = _messages_text(turn, number)
        spans.append(
            {
                "trace": trace,
                "span": rng.getrandbits(64).to_bytes(8, "big"),
                "parent": root,
                "name": "chat gpt-4o",
                "start": clock,
                "end": clock + 800_000_000,
                "attributes": {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-4o",
                    "gen_ai.response.model": "gpt-4o-2024-08-06",
                    "gen_ai.request.temperature": 0.2,
                    "gen_ai.usage.input_tokens": 200 + 40 * turn,
                    "gen_ai.usage.output_tokens": 24,
                    "gen_ai.response.finish_reasons": ["tool_calls"],
                    "gen_ai.conversation.id": f"conv-{number}",
                    "gen_ai.input.messages": inputs,
                    "gen_ai.output.messages": outputs,
                },
            }
        )
        clock += 900_000_000
        failed = turn == turns - 1 and number % 10 == 0
        spans.append(
            {
                "trace": trace,
                "span": rng.getrandbits(64).to_bytes(8, "big"),
                "parent": root,
                "name": "execute_tool lookup_order",
                "start": clock,
                "end": clock + 50_000_000,
                "attributes": {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup_order",
                    "gen_ai.tool.call.id": f"call-{number}-{turn}",
                    "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.arguments": json.dumps({"order": number, "step": turn}),
                    "gen_ai.tool.call.result": ""
                    if failed
                    else json.dumps({"status": "shipped", "eta": "2 days", "items": [1, 2, 3]}),
                },
                "status": (2, "gateway timeout") if failed else None,
                "events": [
                    (
                        "exception",
                        {"exception.type": "TimeoutError", "exception.message": "gateway timeout"},
                    )
                ]
                if failed
                else [],
            }
        )
        clock += 100_000_000
    spans.append(
        {
            "trace": trace,
            "span": root,
            "parent": b"",
            "name": "invoke_agent shop",
            "start": start,
            "end": clock,
            "attributes": {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": "shop",
                "gen_ai.conversation.id": f"conv-{number}",
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [{"type": "text", "content": "Your order has shipped."}],
                        }
                    ]
                ),
            },
        }
    )
    return spans


RESOURCE = {
    "service.name": "shop-agent",
    "service.version": "1.4.2",
    "telemetry.sdk.language": "python",
    "telemetry.sdk.name": "opentelemetry",
    "telemetry.sdk.version": "1.38.0",
    "host.name": "agent-7f9c",
}


def _set_value(target, value) -> None:
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    elif isinstance(value, list | tuple):
        for item in value:
            _set_value(target.array_value.values.add(), item)
    else:
        target.string_value = value


def protobuf_body(spans: list[dict]) -> bytes:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    for key, value in RESOURCE.items():
        _set_value(resource_spans.resource.attributes.add(key=key).value, value)
    scope = resource_spans.scope_spans.add()
    scope.scope.name = "opentelemetry.instrumentation.openai_v2"
    for item in spans:
        span = scope.spans.add(
            trace_id=item["trace"],
            span_id=item["span"],
            parent_span_id=item["parent"],
            name=item["name"],
            kind=3 if item["name"].startswith("chat") else 1,
            start_time_unix_nano=item["start"],
            end_time_unix_nano=item["end"],
        )
        for key, value in item["attributes"].items():
            _set_value(span.attributes.add(key=key).value, value)
        if item.get("status"):
            span.status.code, span.status.message = item["status"]
        for name, attributes in item.get("events") or []:
            event = span.events.add(name=name, time_unix_nano=item["end"])
            for key, value in attributes.items():
                _set_value(event.attributes.add(key=key).value, value)
    return request.SerializeToString()


def json_body(body: bytes) -> bytes:
    """The same request as OTLP/JSON (hex ids, as OTel exporters write it)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest.FromString(body)
    data = MessageToDict(request)
    for rs in data.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = __import__("base64").b64decode(span[key]).hex()
    return json.dumps(data).encode()


def bodies(sessions: int, turns: int, seed: int = 7) -> tuple[list[bytes], int]:
    """Requests of 512 spans over interleaved sessions, and the number of spans."""
    rng = random.Random(seed)
    pending = [session_spans(n, turns, rng) for n in range(sessions)]
    # interleave: 64 sessions in flight at a time, one span each in turn
    order: list[dict] = []
    for start in range(0, sessions, 64):
        group = pending[start : start + 64]
        for index in range(max(len(s) for s in group)):
            order.extend(s[index] for s in group if index < len(s))
    return [protobuf_body(order[i : i + BATCH]) for i in range(0, len(order), BATCH)], len(order)


# ------------------------------------------------------------------ running


def _send(port: int, work: queue.Queue, content_type: str, errors: list) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    while True:
        try:
            body = work.get_nowait()
        except queue.Empty:
            break
        while True:
            connection.request(
                "POST", "/v1/traces", body=body, headers={"Content-Type": content_type}
            )
            response = connection.getresponse()
            response.read()
            if response.status == 429:
                time.sleep(0.05)
                continue
            if response.status != 200:
                errors.append(response.status)
            break
    connection.close()


class Receiver:
    def __init__(self, store: str, idle: float, src: str | None) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SERVE, store, str(idle)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self.port = int(self._line())

    def _line(self) -> str:
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the receiver process ended")
        return line

    def ask(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return json.loads(self._line())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(30)


def run_once(payloads: list[bytes], spans: int, mode: str, store: str, src: str | None) -> dict:
    content_type = "application/x-protobuf" if mode == "protobuf" else "application/json"
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/store.db" if store == "sqlite" else ""
        receiver = Receiver(url, 3.0, src)
        try:
            before = receiver.ask("cpu")
            work: queue.Queue = queue.Queue()
            for body in payloads:
                work.put(body)
            errors: list = []
            started = time.perf_counter()
            threads = [
                threading.Thread(target=_send, args=(receiver.port, work, content_type, errors))
                for _ in range(2)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(600)
            receiver.ask("wait")
            wall = time.perf_counter() - started
            after = receiver.ask("stop")
        finally:
            receiver.close()
    cpu = after["cpu"] - before["cpu"]
    return {
        "mode": mode,
        "store": store,
        "spans": spans,
        "cpu_s": round(cpu, 3),
        "wall_s": round(wall, 3),
        "spans_per_cpu_s": round(spans / cpu),
        "us_per_span": round(cpu / spans * 1e6, 1),
        "answered_not_200": len(errors),
        "sessions": after["sessions"],
        "maxrss_mb": round(after["maxrss_mb"], 1),
        "findings": after["counts"],
    }


_UPB_FLOOR = r"""
import sys, time
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
bodies = [open(p, "rb").read() for p in sys.argv[1:]]
started = time.process_time()
spans = 0
for body in bodies:
    request = ExportTraceServiceRequest.FromString(body)
    for resource_spans in request.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans += 1
                for item in span.attributes:
                    value = item.value
                    kind = value.WhichOneof("value")
                    item.key, getattr(value, kind) if kind else None
print(spans, time.process_time() - started)
"""


def upb_floor(payloads: list[bytes]) -> dict:
    """The reference: upb's ``FromString`` and reading every attribute's key and value, alone."""
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for index, body in enumerate(payloads):
            path = Path(folder) / f"{index}.pb"
            path.write_bytes(body)
            files.append(str(path))
        load = os.getloadavg()[0]
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _UPB_FLOOR, *files], capture_output=True, text=True, check=True
        )
        wall = time.perf_counter() - started
    spans, cpu = done.stdout.split()
    return {"spans": int(spans), "cpu_s": float(cpu), "wall_s": wall, "load": load}


def table_records(sources: list[Path], sessions: int, repeats: int) -> list[dict]:
    """Rows for ``run_all.py``'s table of every path (the shape ``paths.py`` prints): the
    receiver with no store and with SQLite, protobuf and OTLP/JSON, and the upb floor."""
    payloads, spans = bodies(sessions, 4)
    json_payloads = [json_body(p) for p in payloads]
    records = []
    for mode, store in (
        ("protobuf", "none"),
        ("protobuf", "sqlite"),
        ("json", "none"),
        ("json", "sqlite"),
    ):
        label = f"OTLP receiver {spans:,} spans, {mode}, " + (
            "no store" if store == "none" else "SQLite store"
        )
        for src in sources:
            name = f"{label} [{src}]" if len(sources) > 1 else label
            print(f"[paths] {name} ...", flush=True)
            load = os.getloadavg()[0]
            runs = [
                run_once(
                    json_payloads if mode == "json" else payloads, spans, mode, store, str(src)
                )
                for _ in range(repeats)
            ]
            best = min(runs, key=lambda r: r["cpu_s"])
            records.append(_record(name, best["cpu_s"], best["wall_s"], load, spans, None))
            if best["answered_not_200"]:
                records[-1]["error"] = f"{best['answered_not_200']} requests not answered 200"
    floor = min((upb_floor(payloads) for _ in range(repeats)), key=lambda r: r["cpu_s"])
    records.append(
        _record(
            "ref: upb FromString + reading every attribute (loop)",
            floor["cpu_s"],
            floor["wall_s"],
            floor["load"],
            spans,
            floor["cpu_s"],
        )
    )
    return records


def _record(name: str, cpu: float, wall: float, load: float, spans: int, inner) -> dict:
    return {
        "path": name,
        "cpu": cpu,
        "wall": wall,
        "load": load,
        "rows": spans,
        "inner_cpu": inner,
        "error": None,
        "rows_per_cpu_s": spans / cpu if cpu else None,
    }


def open_sessions_rss(sessions: int, turns: int, src: str | None) -> dict:
    payloads, spans = bodies(sessions, turns, seed=11)
    receiver = Receiver("", 3600.0, src)
    try:
        before = receiver.ask("cpu")
        work: queue.Queue = queue.Queue()
        for body in payloads:
            work.put(body)
        errors: list = []
        _send(receiver.port, work, "application/x-protobuf", errors)
        during = receiver.ask("cpu")
        receiver.ask("stop")
    finally:
        receiver.close()
    return {
        "open_sessions": sessions,
        "spans": spans,
        "rss_before_mb": round(before["rss_mb"], 1),
        "rss_open_mb": round(during["rss_mb"], 1),
        "answered_not_200": len(errors),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--modes", default="protobuf,json")
    parser.add_argument("--stores", default="none,sqlite")
    parser.add_argument("--src", default=None)
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args(argv)
    payloads, spans = bodies(args.sessions, args.turns)
    print(
        f"load: {os.getloadavg()[0]:.1f}; {spans} spans in {len(payloads)} requests of "
        f"{BATCH}; {args.sessions} sessions x {args.turns} turns; src={args.src or 'default'}",
        flush=True,
    )
    json_payloads = [json_body(p) for p in payloads] if "json" in args.modes else []
    results = []
    for mode in args.modes.split(","):
        for store in args.stores.split(","):
            runs = [
                run_once(
                    json_payloads if mode == "json" else payloads, spans, mode, store, args.src
                )
                for _ in range(args.repeats)
            ]
            best = min(runs, key=lambda r: r["cpu_s"])
            best["load"] = round(os.getloadavg()[0], 1)
            best["all_cpu_s"] = [r["cpu_s"] for r in runs]
            results.append(best)
            print(json.dumps(best), flush=True)
    if not args.no_memory:
        print(json.dumps(open_sessions_rss(1000, args.turns, args.src)), flush=True)
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(f"(sender process CPU, not counted: {own.ru_utime + own.ru_stime:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
