"""Calls the model requested together are stored in the model's order, files and live.

LangGraph runs the tools of one step concurrently, so their spans start in any
order; the model's output message lists them (ids, order), and that order wins.
"""

from __future__ import annotations

import json
import random

import httpx

from tooleval.monitor.ingest import read_sessions
from tooleval.monitor.live import LiveMonitor
from tooleval.monitor.serve import OtlpReceiver
from tooleval.store import open_store

TOOLS = ["lookup_order", "issue_refund", "notify_user", "log_event"]


def _attr(key, value):
    return {"key": key, "value": {"stringValue": value}}


def _session(n: int, rng: random.Random) -> tuple[dict, list[str]]:
    trace = f"{n + 1:032x}"
    order = TOOLS[:]
    rng.shuffle(order)
    ids = [f"call_{n}_{i}" for i in range(len(order))]
    parts = [
        {"type": "tool_call", "id": i, "name": t, "arguments": {"n": n}}
        for i, t in zip(ids, order, strict=True)
    ]
    chat = {
        "traceId": trace,
        "spanId": f"{n * 10 + 1:016x}",
        "name": "chat m",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [
            _attr("gen_ai.operation.name", "chat"),
            _attr("gen_ai.conversation.id", f"conv-{n}"),
            _attr("gen_ai.input.messages", json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": "go"}]}]
            )),
            _attr("gen_ai.output.messages", json.dumps(
                [{"role": "assistant", "parts": parts, "finish_reason": "tool_call"}]
            )),
        ],
    }  # fmt: skip
    started = list(range(len(order)))
    rng.shuffle(started)  # concurrent tools: any start order
    tools = [
        {
            "traceId": trace,
            "spanId": f"{n * 10 + 2 + k:016x}",
            "name": f"execute_tool {tool}",
            "startTimeUnixNano": str(3000 + started[k]),
            "endTimeUnixNano": "9000",
            "attributes": [
                _attr("gen_ai.operation.name", "execute_tool"),
                _attr("gen_ai.tool.name", tool),
                _attr("gen_ai.tool.call.id", ids[k]),
                _attr("gen_ai.tool.call.arguments", json.dumps({"n": n})),
            ],
        }
        for k, tool in enumerate(order)
    ]
    return {"resourceSpans": [{"scopeSpans": [{"spans": [chat, *tools]}]}]}, order


def _requests(count: int = 25):
    rng = random.Random(7)
    return [_session(n, rng) for n in range(count)]


def test_files_store_the_calls_in_the_models_order(tmp_path):
    requests = _requests()
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(body) + "\n" for body, _ in requests))
    with read_sessions(path) as sessions:
        got = {s.id: [c.name for c in s.calls] for s in sessions}
    for n, (_, order) in enumerate(requests):
        assert got[f"conv-{n}"] == order


def test_live_sessions_store_the_calls_in_the_models_order(tmp_path):
    requests = _requests()
    db = tmp_path / "s.db"
    receiver = OtlpReceiver(LiveMonitor(store=str(db)), port=0, idle_timeout=0.3).start()
    try:
        for body, _ in requests:
            reply = httpx.post(receiver.url + "/v1/traces", json=body, timeout=10)
            assert reply.status_code == 200
    finally:
        receiver.stop()
    store = open_store(db)
    (run,) = store.list_runs()
    rows = {r.row_id: [c.name for c in r.sample.actual_calls()] for r in store.iter_rows(run.id)}
    store.close()
    for n, (_, order) in enumerate(requests):
        assert rows[f"conv-{n}"] == order
