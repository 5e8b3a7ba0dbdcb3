"""An OpenAI-compatible chat server on 127.0.0.1 whose replies a test scripts.

A real HTTP server (``http.server``, threaded) in a background thread: every
``POST`` (``/v1/chat/completions`` is what the ``openai`` SDK sends) is kept in
``requests`` and answered with the chat completion that the server's ``reply``
function makes of it. Clients talk to it over real sockets, so SDKs, judges and
instrumentation libraries run unchanged. Two scripts are built on it:

- :class:`ScriptedAgent` (here): a queue of steps, ``("tool", [(name, args), ...])``
  asks for tool calls, ``("text", answer)`` answers; an empty queue answers
  ``"done"`` (the monitor's instrumented agents and sampled judging);
- ``tests/judge_server.py``'s ``JudgeServer``: a verdict decided from the prompt.

Usage::

    with ScriptedAgent() as server:
        server.push(("tool", [("get_weather", {"city": "Paris"})]), ("text", "20 degrees"))
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        ...
        server.requests  # every request body, in order
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# (request body, its number counting from 1) -> the completion to answer with, or
# (HTTP status, body) to answer with another status (an error a server sends)
Reply = Callable[[dict[str, Any], int], dict[str, Any] | tuple[int, dict[str, Any]]]


class OpenAIServer:
    """A chat-completions server on a free 127.0.0.1 port; ``reply`` makes each answer."""

    def __init__(self, reply: Reply) -> None:
        self.requests: list[dict[str, Any]] = []
        self._reply = reply
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                answer = owner._answer(body)
                status, answer = answer if isinstance(answer, tuple) else (200, answer)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _answer(self, body: dict[str, Any]) -> dict[str, Any] | tuple[int, dict[str, Any]]:
        # One at a time: a script's steps are taken in the order requests arrive.
        with self._lock:
            self.requests.append(body)
            return self._reply(body, len(self.requests))

    def __enter__(self) -> OpenAIServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def completion(
    message: dict[str, Any],
    *,
    finish: str = "stop",
    number: int = 0,
    model: str = "served",
    created: int = 0,
    usage: tuple[int, int] = (10, 5),
) -> dict[str, Any]:
    """A ``chat.completion`` answering ``message``, with ``usage`` as (prompt, completion) tokens."""
    prompt_tokens, completion_tokens = usage
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def prompt_text(body: dict[str, Any]) -> str:
    """Every message's content of a request, joined by spaces."""
    return " ".join(str(m.get("content")) for m in body.get("messages", []))


class ScriptedAgent(OpenAIServer):
    """Each request gets the next scripted step; usage grows with the request's number."""

    def __init__(self) -> None:
        self.script: deque[tuple[Any, ...]] = deque()
        super().__init__(self._step)

    def push(self, *steps: tuple[Any, ...]) -> None:
        self.script.extend(steps)

    def __enter__(self) -> ScriptedAgent:
        super().__enter__()
        return self

    def _step(self, body: dict[str, Any], number: int) -> dict[str, Any]:
        step = self.script.popleft() if self.script else ("text", "done")
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
        return completion(
            message,
            finish=finish,
            number=number,
            model=body.get("model", "fake-model"),
            created=1_700_000_000,
            usage=(20 + number, 7),
        )
