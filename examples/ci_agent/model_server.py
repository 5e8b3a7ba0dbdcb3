"""A scripted OpenAI-compatible model server for the CI example (stdlib only).

``POST /v1/chat/completions`` answers like a tool-calling model would, but
deterministically: it reads the last user message and the tool results so
far and picks the next tool call (or the final answer). Start it with
``python model_server.py --port 0`` (it prints ``listening on PORT``);
``--bug skip-lookup`` makes it skip the order lookup before a refund (a
regression the CI gate must catch).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _plan(user: str) -> list[tuple[str, dict]]:
    """The calls a good model makes for a request, in order."""
    order = re.search(r"\b(\d{4})\b", user)
    order_id = order.group(1) if order else ""
    text = user.lower()
    if "cancel" in text:
        return [("lookup_order", {"order_id": order_id}), ("cancel_order", {"order_id": order_id})]
    if "refund" in text:
        amount = re.search(r"(\d+(?:\.\d+)?)\s*usd", text)
        args = {"order_id": order_id, "amount": float(amount.group(1)) if amount else 0.0}
        return [("lookup_order", {"order_id": order_id}), ("issue_refund", args)]
    if "where" in text or "status" in text:
        return [("lookup_order", {"order_id": order_id})]
    return []


def reply(payload: dict, bug: str | None) -> dict:
    messages = payload.get("messages") or []
    user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    done = sum(1 for m in messages if m.get("role") == "tool")
    plan = _plan(user)
    if bug == "skip-lookup" and any(name == "issue_refund" for name, _ in plan):
        plan = [c for c in plan if c[0] != "lookup_order"]
    if done < len(plan):
        name, args = plan[done]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{done}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
            ],
        }
        finish = "tool_calls"
    else:
        last = next((m.get("content") for m in reversed(messages) if m.get("role") == "tool"), "")
        answer = f"Done: {last}" if plan else "I can help with orders: cancel, refund, status."
        message = {"role": "assistant", "content": answer}
        finish = "stop"
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": payload.get("model", "scripted"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }


def serve(port: int, bug: str | None) -> ThreadingHTTPServer:
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
            body = json.dumps(reply(payload, bug)).encode()
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
        "--port", type=int, default=8101, help="port on 127.0.0.1 (8101; 0 picks a free one)"
    )
    parser.add_argument("--bug", choices=["skip-lookup"], default=None)
    args = parser.parse_args(argv)
    try:
        server = serve(args.port, args.bug)
    except OSError as exc:  # most often the port is taken: say which, and what to do
        parser.exit(
            2,
            f"{parser.prog}: error: cannot listen on 127.0.0.1:{args.port} ({exc.strerror}); "
            "pass --port 0 for a free port (printed as 'listening on PORT') or another port\n",
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
