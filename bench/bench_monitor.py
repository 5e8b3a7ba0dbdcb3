"""Monitoring and Ray benchmarks (prints numbers, never asserts).

1. Streaming memory: generate OTLP JSON traces at two sizes (4x apart), in
   both layouts (one request per line; one document), and run
   ``tooleval.monitor.monitor`` on each in a fresh process, recording peak RSS
   and spans/s. Conversations are split over two traces far apart in the file,
   so grouping cannot finish a session early. Memory should stay flat as the
   file grows: past ``max_in_memory`` span records, grouping spills to a
   temporary SQLite file.
2. Ray: ``tooleval.scale.ray.score`` and ``detect`` on a local cluster
   (``num_cpus=2``) with ``concurrency=1`` vs ``2``; rows/s.

    python bench/bench_monitor.py [--traces 4000] [--ray-rows 20000] [--skip-ray]

Results: stdout and ``bench/out/monitor.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
OUT = BENCH / "out"
TOOLS = ["get_order", "track_parcel", "refund", "search_docs", "send_email"]


def _attr(key, value):
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(rng, trace_id, name, start, attrs, parent=None, error=False):
    span = {
        "traceId": trace_id,
        "spanId": f"{rng.getrandbits(64):016x}",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
        "status": {"code": 2, "message": "failed"} if error else {},
    }
    if parent:
        span["parentSpanId"] = parent
    return span


def _turn(rng, conversation, turn, start):
    """One trace: agent root, a chat span and a tool span per call, a final chat span."""
    trace_id = f"{rng.getrandbits(128):032x}"
    spans = []
    root = _span(
        rng,
        trace_id,
        "invoke_agent shop",
        start,
        {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": conversation},
    )
    spans.append(root)
    history = [{"role": "user", "parts": [{"type": "text", "content": f"help with {turn}"}]}]
    calls = rng.randint(1, 4)
    for i in range(calls):
        tool = rng.choice(TOOLS)
        args = {"order_id": str(rng.randint(1, 50)), "note": "x" * rng.randint(10, 80)}
        call_id = f"call_{conversation}_{turn}_{i}"
        part = {"type": "tool_call", "id": call_id, "name": tool, "arguments": args}
        spans.append(
            _span(
                rng,
                trace_id,
                "chat model",
                start + 10 * i + 1,
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.conversation.id": conversation,
                    "gen_ai.input.messages": json.dumps(history),
                    "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [part]}]),
                },
                parent=root["spanId"],
            )
        )
        spans.append(
            _span(
                rng,
                trace_id,
                f"execute_tool {tool}",
                start + 10 * i + 2,
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.id": call_id,
                    "gen_ai.tool.call.arguments": json.dumps(args),
                    "gen_ai.tool.call.result": json.dumps({"ok": True, "data": "y" * 40}),
                },
                parent=root["spanId"],
                error=rng.random() < 0.03,
            )
        )
        history.append({"role": "assistant", "parts": [part]})
    final = {"role": "assistant", "parts": [{"type": "text", "content": "done"}]}
    spans.append(
        _span(
            rng,
            trace_id,
            "chat model",
            start + 100,
            {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps([final])},
            parent=root["spanId"],
        )
    )
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [_attr("service.name", "shop")]},
                "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
            }
        ]
    }


def generate(path: Path, traces: int, *, layout: str, seed: int = 7) -> int:
    """Write ``traces`` traces; conversation k has turns at positions k and k + traces/2."""
    rng = random.Random(seed)
    half = traces // 2
    with open(path, "w") as handle:
        if layout == "document":
            handle.write('{"resourceSpans": [\n')
        for n in range(traces):
            conversation = f"conv-{n % half}"
            request = _turn(rng, conversation, n // half, 1_700_000_000_000_000_000 + n * 1000)
            if layout == "jsonl":
                handle.write(json.dumps(request) + "\n")
            else:
                text = json.dumps(request["resourceSpans"][0])
                handle.write(("," if n else "") + text + "\n")
        if layout == "document":
            handle.write("]}\n")
    return path.stat().st_size


_CHILD = """
import json, resource, sys, time
from tooleval.monitor.run import monitor
start = time.perf_counter()
report = monitor(sys.argv[1], max_in_memory=int(sys.argv[2]))
elapsed = time.perf_counter() - start
print(json.dumps({
    "seconds": elapsed,
    "spans": report.ingest.spans,
    "sessions": report.sessions,
    "findings": len(report.findings),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def memory_bench(traces: int, max_in_memory: int) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory(prefix="tooleval-bench-") as tmp:
        for layout in ("jsonl", "document"):
            for size in (traces, traces * 4):
                path = Path(tmp) / f"traces-{size}.{layout}"
                nbytes = generate(path, size, layout=layout)
                done = subprocess.run(
                    [sys.executable, "-c", _CHILD, str(path), str(max_in_memory)],
                    capture_output=True,
                    text=True,
                )
                if done.returncode != 0:
                    raise SystemExit(f"monitor failed on {path}:\n{done.stderr}")
                row = json.loads(done.stdout)
                row.update(layout=layout, traces=size, file_mb=round(nbytes / 2**20, 1))
                row["spans_per_s"] = round(row["spans"] / row["seconds"])
                results.append(row)
                print(
                    f"  {layout:8} {row['file_mb']:7.1f} MB  {row['spans']:8d} spans  "
                    f"{row['sessions']:6d} sessions  peak RSS {row['peak_rss_mb']:6.1f} MB  "
                    f"{row['spans_per_s']:7d} spans/s",
                    flush=True,
                )
                path.unlink()
    return results


def ray_bench(rows: int) -> list[dict]:
    import logging

    import ray

    from tooleval.model import ToolCall
    from tooleval.monitor.session import Session, TracedCall
    from tooleval.scale import ray as tray

    logging.getLogger("ray").setLevel(logging.ERROR)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    rng = random.Random(3)
    data = [
        {
            "id": f"r{i}",
            "input": "q",
            "tools_called": [
                {"name": rng.choice(TOOLS), "args": {"k": rng.randint(1, 5)}} for _ in range(3)
            ],
            "expected_tools": [{"name": "get_order", "args": {"k": 1}}, "refund"],
        }
        for i in range(rows)
    ]
    sessions = [
        Session(
            f"s{i}",
            [TracedCall(ToolCall(rng.choice(TOOLS), {"k": rng.randint(1, 3)})) for _ in range(6)],
            output="done",
        )
        for i in range(rows)
    ]
    results = []
    try:
        per_session = ["redundancy", "retry_loop", "error_ignored"]
        for kind in ("score", "detect", "detect_per_session"):
            for workers in (1, 2):
                if kind == "score":
                    ds = tray.from_rows(data, override_num_blocks=8).materialize()
                    out = tray.score(ds, metric="tool_call_f1", batch_size=500, concurrency=workers)
                else:
                    # "detect" includes excessive_calls: a counting pass, then the
                    # baseline built on the driver (serial), then the detectors
                    chosen = per_session if kind == "detect_per_session" else None
                    ds = tray.from_sessions(sessions, override_num_blocks=8).materialize()
                    out = tray.detect(ds, detectors=chosen, batch_size=500, concurrency=workers)
                start = time.perf_counter()
                out.materialize()
                elapsed = time.perf_counter() - start
                # input rows (dataset rows scored, or sessions checked by every detector)
                row = {"kind": kind, "workers": workers, "rows": rows, "seconds": elapsed}
                row["rows_per_s"] = round(rows / elapsed)
                results.append(row)
                print(
                    f"  ray {kind:6} workers={workers}  {row['rows_per_s']:7d} rows/s", flush=True
                )
    finally:
        ray.shutdown()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=5000, help="traces in the small file")
    parser.add_argument(
        "--max-in-memory", type=int, default=20_000, help="span records kept before spilling"
    )
    parser.add_argument("--ray-rows", type=int, default=20000)
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    results = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "max_in_memory": args.max_in_memory,
    }
    if not args.skip_memory:
        print(f"streaming memory (max_in_memory={args.max_in_memory}):", flush=True)
        results["memory"] = memory_bench(args.traces, args.max_in_memory)
    if not args.skip_ray:
        print("ray:", flush=True)
        results["ray"] = ray_bench(args.ray_rows)
    previous = OUT / "monitor.json"
    if previous.exists():  # keep the part of an earlier run that was skipped now
        results = {**json.loads(previous.read_text()), **results}
    (OUT / "monitor.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {OUT / 'monitor.json'}")


if __name__ == "__main__":
    main()
