"""An OpenAI-compatible judge on 127.0.0.1 for judged-metric plumbing tests.

A real HTTP server answering ``/v1/chat/completions``: the verdict is decided
from the prompt (``CARD-DECLINED`` in it: not accomplished; ``GARBAGE-PLEASE``:
a reply that is not JSON, so the row ends unscored after one re-ask). Each
reply reports token usage; every prompt is kept in ``calls``.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class JudgeServer:
    def __init__(self) -> None:
        self.calls: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = " ".join(str(m.get("content")) for m in body["messages"])
                owner.calls.append(prompt)
                data = json.dumps(_completion(prompt)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> JudgeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _completion(prompt: str) -> dict[str, Any]:
    if "GARBAGE-PLEASE" in prompt:
        text = "I think it went fine."
    else:
        ok = "CARD-DECLINED" not in prompt
        text = json.dumps({"evidence": "the tool result", "accomplished": ok, "reason": "r"})
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "served",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def conversation(row_id: str, tool_result: str, final: str) -> dict[str, Any]:
    """A recorded conversation row: one cancel_order call, its result, the final answer."""
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "cancel_order", "arguments": json.dumps({"order_id": "4471"})},
    }
    return {
        "id": row_id,
        "messages": [
            {"role": "user", "content": "Please cancel order 4471."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": tool_result},
            {"role": "assistant", "content": final},
        ],
        "expected_tools": [{"name": "cancel_order", "args": {"order_id": "4471"}}],
    }


RECORDED = [
    conversation("done", "cancelled", "Order 4471 is cancelled."),
    conversation("failed", "ERROR: CARD-DECLINED", "Order 4471 is cancelled."),
    conversation("garbage", "GARBAGE-PLEASE", "Done."),
]
