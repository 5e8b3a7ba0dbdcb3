"""A small OpenAI-compatible chat server on 127.0.0.1 that plays a scripted agent.

The real ``openai`` SDK talks to it over HTTP, so the instrumentation libraries
(opentelemetry-instrumentation-openai-v2, openinference-instrumentation-openai,
LangChain/LangGraph) record real spans. Each request gets the next scripted
reply: ``("tool", name, args)`` asks for a tool call, ``("text", answer)``
answers. Replies report token usage.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(self) -> None:
        self.script: deque[tuple] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._counter = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = owner._reply(body)
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def push(self, *steps: tuple) -> None:
        self.script.extend(steps)

    def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.requests.append(body)
            step = self.script.popleft() if self.script else ("text", "done")
            self._counter += 1
            number = self._counter
        if step[0] == "tool":
            calls = [
                {
                    "id": f"call_{number}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(step[1])
            ]
            message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": step[1]}
            finish = "stop"
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": 20 + number,
                "completion_tokens": 7,
                "total_tokens": 27 + number,
            },
        }

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
