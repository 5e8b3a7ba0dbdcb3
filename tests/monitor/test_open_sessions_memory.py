"""A receiver process holding 1,000 open sessions keeps its memory bounded.

A real receiver runs in its own process on 127.0.0.1 (an idle timeout of an
hour: nothing is released for being idle). 1,000 GenAI sessions of 9 spans
each, with the chat history growing every turn, arrive over keep-alive HTTP in
requests of 450 spans: every request is answered (200, or 429 then 200 when
sent again). With ``max_pending`` at 4,000 facts, the oldest sessions are
released early, so no more than ``max_pending`` facts wait once the worker has
looked; the receiver's RSS grows by a bounded amount (measured, about 20 MB
for these 9,000 spans; the bound asserted is generous, as allocators differ).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time

_SERVE = r"""
import json, sys, time
from tooleval.monitor.live import LiveMonitor
from tooleval.monitor.serve import OtlpReceiver

receiver = OtlpReceiver(LiveMonitor(), port=0, idle_timeout=3600.0, max_pending=4000,
                        tick=0.05).start()
print(receiver.address[1], flush=True)

def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0

for command in sys.stdin:
    command = command.strip()
    if command == "state":
        print(json.dumps({"rss_mb": rss(), "pending": receiver.sessions.pending,
                          "released": receiver.monitor.sessions,
                          "early": receiver.sessions.released_early}), flush=True)
    elif command == "stop":
        receiver.stop(timeout=120)
        print(json.dumps({"sessions": receiver.monitor.sessions}), flush=True)
        break
"""


def _attribute(key: str, value) -> dict:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _spans(number: int) -> list[dict]:
    trace = f"{number:032x}"
    history = [{"role": "user", "parts": [{"type": "text", "content": f"order {number}?"}]}]
    spans = []
    for turn in range(4):
        call = {"type": "tool_call", "id": f"c{number}-{turn}", "name": "lookup"}
        call["arguments"] = {"order": number, "step": turn}
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": f"conv-{number}",
            "gen_ai.usage.input_tokens": 100 + turn,
            "gen_ai.input.messages": json.dumps(history),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [call]}]),
        }
        tool = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.id": call["id"],
            "gen_ai.tool.call.result": '{"status": "shipped"}',
        }
        for offset, (name, attrs) in enumerate((("chat m", attributes), ("execute_tool", tool))):
            spans.append(
                {
                    "traceId": trace,
                    "spanId": f"{number:08x}{2 * turn + offset + 1:08x}",
                    "name": name,
                    "startTimeUnixNano": str(1_700_000_000_000_000_000 + 100 * turn + offset),
                    "attributes": [_attribute(k, v) for k, v in attrs.items()],
                }
            )
        history += [
            {"role": "assistant", "parts": [call]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": call["id"]}]},
        ]
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": f"conv-{number}"}
    spans.append(
        {
            "traceId": trace,
            "spanId": f"{number:08x}{0:08x}",
            "name": "invoke_agent",
            "attributes": [_attribute(k, v) for k, v in root.items()],
        }
    )
    return spans


def _post(connection: http.client.HTTPConnection, body: bytes) -> None:
    deadline = time.monotonic() + 120
    while True:
        connection.request(
            "POST", "/v1/traces", body=body, headers={"Content-Type": "application/json"}
        )
        response = connection.getresponse()
        response.read()
        if response.status == 429 and time.monotonic() < deadline:
            time.sleep(0.05)  # too many spans waiting: sent again, as exporters do
            continue
        assert response.status == 200, response.status
        return


def test_a_receiver_with_1000_open_sessions_stays_bounded():
    env = dict(os.environ)
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )

    def ask(command: str) -> dict:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(command + "\n")
        process.stdin.flush()
        return json.loads(process.stdout.readline())

    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        before = ask("state")
        spans = [span for number in range(1000) for span in _spans(number)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for start in range(0, len(spans), 450):
            request = {"resourceSpans": [{"scopeSpans": [{"spans": spans[start : start + 450]}]}]}
            _post(connection, json.dumps(request).encode())
        connection.close()
        deadline = time.monotonic() + 120
        state = ask("state")
        while state["pending"] > 4000 and time.monotonic() < deadline:
            time.sleep(0.05)
            state = ask("state")
        assert state["pending"] <= 4000  # the oldest sessions went early, whole
        assert state["early"] > 0 and state["released"] >= state["early"]
        assert state["rss_mb"] - before["rss_mb"] < 150, (before, state)
        assert ask("stop")["sessions"] >= 1000  # the rest stored at stop: none lost
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)
