"""Peak memory and time of ``tooleval monitor`` on one trace set in every file layout.

    python bench/monitor_memory.py --mb 200 [--dir /tmp/x] [--layouts oneline,jsonl,gz]

Writes synthetic OpenTelemetry GenAI traces (invoke_agent > chat + execute_tool
spans, 30% of sessions with a failed refund the answer glosses over) of about
``--mb`` megabytes as

* ``jsonl``: one ExportTraceServiceRequest per line (Collector file exporter);
* ``oneline``: the same spans as ONE minified document on a single line;
* ``gz``: the one-line document gzipped;

then runs ``tooleval monitor FILE --no-store`` on each in a subprocess and
reports the child's peak RSS (``wait4`` rusage) and wall time. Results go to
docs/monitoring.md by hand.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _attr(key, value):
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _session(number: int) -> dict:
    trace = f"{number:032x}"
    conv = f"conv-{number}"
    fails = number % 10 < 3
    t0 = 1_700_000_000_000_000_000 + number * 10_000_000_000
    history = [
        {
            "role": "user",
            "parts": [{"type": "text", "content": f"Refund order {number} please. " + "x" * 200}],
        }
    ]
    spans = [
        {
            "traceId": trace,
            "spanId": f"{number:08x}00000001",
            "name": "invoke_agent shop",
            "startTimeUnixNano": str(t0),
            "endTimeUnixNano": str(t0 + 9_000_000),
            "attributes": [
                _attr("gen_ai.operation.name", "invoke_agent"),
                _attr("gen_ai.conversation.id", conv),
            ],
        },
        {
            "traceId": trace,
            "spanId": f"{number:08x}00000002",
            "parentSpanId": f"{number:08x}00000001",
            "name": "chat m",
            "startTimeUnixNano": str(t0 + 1),
            "endTimeUnixNano": str(t0 + 2_000_000),
            "attributes": [
                _attr("gen_ai.operation.name", "chat"),
                _attr("gen_ai.request.model", "m"),
                _attr("gen_ai.usage.input_tokens", 300),
                _attr("gen_ai.usage.output_tokens", 20),
                _attr("gen_ai.input.messages", json.dumps(history)),
                _attr(
                    "gen_ai.output.messages",
                    json.dumps(
                        [
                            {
                                "role": "assistant",
                                "parts": [
                                    {
                                        "type": "tool_call",
                                        "id": f"c{number}",
                                        "name": "issue_refund",
                                        "arguments": {"order": number},
                                    }
                                ],
                            }
                        ]
                    ),
                ),
            ],
        },
        {
            "traceId": trace,
            "spanId": f"{number:08x}00000003",
            "parentSpanId": f"{number:08x}00000001",
            "name": "execute_tool issue_refund",
            "startTimeUnixNano": str(t0 + 3_000_000),
            "endTimeUnixNano": str(t0 + 4_000_000),
            "attributes": [
                _attr("gen_ai.operation.name", "execute_tool"),
                _attr("gen_ai.tool.name", "issue_refund"),
                _attr("gen_ai.tool.call.id", f"c{number}"),
                _attr("gen_ai.tool.call.arguments", json.dumps({"order": number})),
            ],
            **({"status": {"code": 2, "message": "card declined"}} if fails else {}),
        },
        {
            "traceId": trace,
            "spanId": f"{number:08x}00000004",
            "parentSpanId": f"{number:08x}00000001",
            "name": "chat m",
            "startTimeUnixNano": str(t0 + 5_000_000),
            "endTimeUnixNano": str(t0 + 8_000_000),
            "attributes": [
                _attr("gen_ai.operation.name", "chat"),
                _attr("gen_ai.request.model", "m"),
                _attr("gen_ai.usage.input_tokens", 350),
                _attr("gen_ai.usage.output_tokens", 15),
                _attr(
                    "gen_ai.output.messages",
                    json.dumps(
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
                ),
            ],
        },
    ]
    return {
        "resource": {"attributes": [_attr("service.name", "shop")]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}],
    }


def write_files(directory: Path, megabytes: float) -> dict[str, Path]:
    target = megabytes * 1024 * 1024
    jsonl, oneline = directory / "traces.jsonl", directory / "oneline.json"
    size = number = 0
    with open(jsonl, "w") as lines, open(oneline, "w") as doc:
        doc.write('{"resourceSpans":[')
        while size < target:
            entry = json.dumps(_session(number), separators=(",", ":"))
            lines.write('{"resourceSpans":[' + entry + "]}\n")
            doc.write(("," if number else "") + entry)
            size += len(entry)
            number += 1
        doc.write("]}")
    zipped = directory / "oneline.json.gz"
    with open(oneline, "rb") as src, gzip.open(zipped, "wb", compresslevel=1) as dst:
        shutil.copyfileobj(src, dst, 1024 * 1024)
    return {"jsonl": jsonl, "oneline": oneline, "gz": zipped, "sessions": number}


def measure(path: Path) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tooleval.cli.main",
            "monitor",
            str(path),
            "--no-store",
            "--json",
            str(path) + ".findings.json",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    findings = json.loads(Path(str(path) + ".findings.json").read_text())
    return {
        "file_mb": round(path.stat().st_size / 1024 / 1024, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "seconds": round(seconds, 1),
        "exit": os.waitstatus_to_exitcode(status),
        "sessions": findings["sessions"],
        "error_ignored": findings["counts"]["error_ignored"],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--dir")
    parser.add_argument("--layouts", default="oneline,gz,jsonl")
    parser.add_argument("--reuse", action="store_true", help="measure files --dir already holds")
    args = parser.parse_args()
    directory = Path(args.dir or tempfile.mkdtemp(prefix="tooleval-monmem-"))
    directory.mkdir(parents=True, exist_ok=True)
    if args.reuse and (directory / "oneline.json.gz").exists():
        files = {
            n: directory / f
            for n, f in (
                ("jsonl", "traces.jsonl"),
                ("oneline", "oneline.json"),
                ("gz", "oneline.json.gz"),
            )
        }
        files["sessions"] = "(reused)"
    else:
        files = write_files(directory, args.mb)
    print(f"{files['sessions']} sessions in {directory}")
    for layout in args.layouts.split(","):
        print(layout, json.dumps(measure(files[layout])), flush=True)


if __name__ == "__main__":
    main()
