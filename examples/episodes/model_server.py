"""A scripted OpenAI-compatible model for the episodes example (stdlib only).

``POST /v1/chat/completions`` answers the way a tool-calling model would, but
deterministically: from the user's request and the tool results so far it
picks the next call, or the final answer. tooleval serves the tools
(examples/orders_env/orders.py) and runs them; this "model" only asks. On a
refund it looks the order up first and refunds whatever its status, the
mistake the example's end-state check catches. Start it with
``python model_server.py --port 0`` (it prints ``listening on PORT``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _plan(user: str) -> list[tuple[str, dict]]:
    """The calls this model makes for a request, in order."""
    order = re.search(r"\b(W\d+)\b", user)
    order_id = order.group(1) if order else ""
    text = user.lower()
    if "cancel" in text:
        return [("get_order", {"order_id": order_id}), ("cancel_order", {"order_id": order_id})]
    if "address" in text:
        address = user.split(" to ", 1)[-1].strip()
        return [("update_address", {"order_id": order_id, "address": address})]
    if "refund" in text:
        amount = re.search(r"refund (\d+(?:\.\d+)?)", text)
        args = {"order_id": order_id, "amount": float(amount.group(1)) if amount else 0.0}
        return [("get_order", {"order_id": order_id}), ("refund", args)]
    return []


def reply(payload: dict) -> dict:
    messages = payload.get("messages") or []
    user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
    done = sum(1 for m in messages if m.get("role") == "tool")
    plan = _plan(user)
    if done < len(plan):
        name, args = plan[done]
        call = {
            "id": f"call_{done}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        last = next((m.get("content") for m in reversed(messages) if m.get("role") == "tool"), "")
        message = {"role": "assistant", "content": f"Done: {last}" if plan else "How can I help?"}
        finish = "stop"
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": payload.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def serve(port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            try:
                payload = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self.send_error(400, "body is not JSON")
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send_error(404)
                return
            body = json.dumps(reply(payload)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--port", type=int, default=8102, help="port on 127.0.0.1 (8102; 0 picks a free one)"
    )
    args = parser.parse_args(argv)
    try:
        server = serve(args.port)
    except OSError as exc:
        parser.exit(
            2,
            f"{parser.prog}: error: cannot listen on 127.0.0.1:{args.port} ({exc.strerror}); "
            "pass --port 0 for a free port (printed as 'listening on PORT')\n",
        )
    print(f"listening on {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main(sys.argv[1:])
