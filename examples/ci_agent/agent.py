"""The agent under test: an OpenAI-compatible tool loop served over HTTP (stdlib only).

``POST /agent`` with ``{"input": "..."}`` runs the loop: ask the model
(``$MODEL_URL``, an OpenAI-compatible ``/v1``) with the tools below, run
the tool calls it makes against the in-memory orders, feed the results
back, until it answers. The reply is ``{"output": ..., "tool_calls":
[{"name", "arguments"}]}``. Start it with ``python agent.py --port 0
--model-url http://127.0.0.1:8101/v1`` (it prints ``listening on PORT``).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ORDERS = {
    "4471": {"status": "shipped", "total": 120.0},
    "5502": {"status": "processing", "total": 45.5},
    "7777": {"status": "delivered", "total": 12.0},
    "9001": {"status": "delivered", "total": 30.0},
}


def lookup_order(order_id: str) -> dict:
    order = ORDERS.get(str(order_id))
    return {"order_id": order_id, **order} if order else {"error": f"no order {order_id}"}


def cancel_order(order_id: str) -> dict:
    return {"order_id": order_id, "cancelled": str(order_id) in ORDERS}


def issue_refund(order_id: str, amount: float) -> dict:
    return {"order_id": order_id, "refunded": amount}


TOOLS = {"lookup_order": lookup_order, "cancel_order": cancel_order, "issue_refund": issue_refund}
SCHEMAS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}}
                | ({"amount": {"type": "number"}} if name == "issue_refund" else {}),
            },
        },
    }
    for name in TOOLS
]


def run_agent(text: str, model_url: str, *, max_turns: int = 6) -> dict:
    messages = [
        {"role": "system", "content": "You are a support agent. Use the tools."},
        {"role": "user", "content": text},
    ]
    made = []
    for _ in range(max_turns):
        request = urllib.request.Request(
            model_url.rstrip("/") + "/chat/completions",
            data=json.dumps({"model": "scripted", "messages": messages, "tools": SCHEMAS}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            message = json.load(response)["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        if not calls:
            return {"output": message.get("content") or "", "tool_calls": made}
        messages.append(message)
        for call in calls:
            name = call["function"]["name"]
            args = json.loads(call["function"].get("arguments") or "{}")
            made.append({"name": name, "arguments": json.dumps(args)})
            try:
                result = TOOLS[name](**args)
            except Exception as exc:  # the model sees the failure, as a real loop would
                result = {"error": f"{type(exc).__name__}: {exc}"}
            messages.append(
                {"role": "tool", "tool_call_id": call.get("id"), "content": json.dumps(result)}
            )
    return {"output": None, "tool_calls": made}


def serve(port: int, model_url: str) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            try:
                payload = json.loads(self.rfile.read(length) or b"{}")
                text = payload["input"]
            except (ValueError, KeyError, TypeError):
                self.send_error(400, 'expected {"input": "..."}')
                return
            try:
                body = json.dumps(run_agent(str(text), model_url)).encode()
                status = 200
            except OSError as exc:  # the model server is down or slow
                body = json.dumps({"error": f"model unreachable: {exc}"}).encode()
                status = 502
            self.send_response(status)
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
    parser.add_argument("--model-url", default="http://127.0.0.1:8101/v1")
    args = parser.parse_args(argv)
    try:
        server = serve(args.port, args.model_url)
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
