"""A real agent stub: an HTTP server on 127.0.0.1 for connector and run tests.

It is a tiny ``http.server`` app (threaded, HTTP/1.1 keep-alive) started on a
free port in a background thread. Each test scripts what the "agent" does per
input: which tools it calls, what it answers, how often it fails first, how
long it takes. Nothing is mocked: connectors talk to it over real sockets.

Import it from any test (works under pytest's ``--import-mode=importlib``
when pytest runs from the repository root, as ``make test`` and CI do)::

    from tests.agent_stub import AgentStub, Behaviour

``tests/connectors/conftest.py`` shows a function-scoped ``agent_stub``
fixture (start, yield, stop); copy those four lines into your own area's
``conftest.py`` rather than importing another area's conftest.

Usage::

    with AgentStub() as stub:                      # starts; stops on exit
        stub.script("cancel 4471", tools=["lookup_order", "cancel_order"],
                    output="Order 4471 cancelled.")
        stub.script("flaky", tools=["search"], fail_times=2, fail_status=503)
        stub.script("slow", tools=["search"], delay=0.5)
        stub.default = Behaviour(tools=[], output="I can't help with that.")
        url = stub.url + "/agent"                  # e.g. http://127.0.0.1:53021/agent
        ...
        stub.requests        # every request received (RecordedRequest), in order
        stub.attempts("flaky")   # how many requests carried that input

Scripting (``stub.script(input, **behaviour)`` or ``stub.behaviours[input] =
Behaviour(...)``; inputs without a script get ``stub.default``):

- ``tools``: the calls made, each a name (``"search"``) or a dict
  ``{"name": "search", "args": {"q": "x"}}``.
- ``output``: the final answer text (default ``"done"``).
- ``status``: HTTP status of a successful reply (default 200).
- ``fail_times`` / ``fail_status``: the first N requests for this input get
  ``fail_status`` (default 500) with body ``{"error": "..."}``; then it succeeds.
- ``retry_after``: sent as a ``Retry-After`` header (seconds) on failures.
- ``fail_body``: a text body for those failures instead of the JSON error
  (ANSI escapes, HTML pages, per-request ids: ``{attempt}`` is filled in).
- ``garbage_times`` / ``garbage``: after the failures, the next N requests get
  200 OK with the text ``garbage`` (default a truncated JSON object).
- ``delay``: seconds to sleep before answering (every request; use it for
  timeouts and throughput benchmarks).
- ``hold``: a ``threading.Event`` the answer waits for (at most 120 s, then it
  answers anyway), so a test decides when a row ends instead of guessing a delay.
- ``body``: a JSON value returned as is instead of the generated response
  (for unusual response shapes); ``raw``: a text body returned as is.
- ``chat_turns``: for ``/v1/chat/completions`` only, how the calls are split
  across assistant turns (default: all calls in the first turn).

Endpoints:

- ``POST /agent`` (and any other path not listed here): the request body is
  JSON; the input is read from its ``input`` key (or ``query``, ``message``,
  ``prompt``, or ``messages[-1].content``). Reply::

      {"id": <request "id" or null>, "input": "...", "output": "...",
       "steps": [{"type": "tool_call", "tool": {"name": "...", "args": {...}}},
                 {"type": "message", "content": "..."}],
       "tool_calls": [{"name": "...", "arguments": "<JSON string>"}],
       "metadata": {"attempt": N}}

  so ``$.steps[?(@.type=='tool_call')].tool.name`` lists the names and
  ``$.tool_calls`` the full calls with JSON-string arguments.
- ``POST /v1/chat/completions``: OpenAI-compatible. The input is the last user
  message. Turn ``k`` (= number of assistant messages already in the request)
  returns the ``k``-th batch of calls as ``message.tool_calls`` with
  ``finish_reason: "tool_calls"``; when no batch is left it returns
  ``message.content = output`` with ``finish_reason: "stop"``. The request's
  ``model`` is echoed; ``usage`` is filled.
- ``GET /health``: ``{"ok": true}``.

Everything a test needs to assert on is recorded in ``stub.requests``
(method, path, headers as a lower-cased dict, parsed JSON body or None).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["AgentStub", "Behaviour", "RecordedRequest"]


class _StubServer(ThreadingHTTPServer):
    # The default backlog of 5 resets connections when 64 clients connect at once.
    request_queue_size = 128
    daemon_threads = True


@dataclass
class Behaviour:
    """What the stub agent does for one input (see the module docstring)."""

    tools: list[Any] = field(default_factory=list)
    output: str = "done"
    status: int = 200
    fail_times: int = 0
    fail_status: int = 500
    retry_after: float | None = None
    delay: float = 0.0
    hold: threading.Event | None = None
    body: Any = None
    raw: str | None = None
    chat_turns: list[int] | None = None
    fail_body: str | None = None
    garbage_times: int = 0
    garbage: str = '{"output": "trunc'

    def calls(self) -> list[dict[str, Any]]:
        """The scripted calls as ``{"name", "args"}`` dicts."""
        out = []
        for tool in self.tools:
            if isinstance(tool, str):
                out.append({"name": tool, "args": {}})
            else:
                out.append({"name": tool["name"], "args": dict(tool.get("args") or {})})
        return out


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    json: Any
    body: bytes


def _input_of(payload: Any) -> str:
    if isinstance(payload, dict):
        for key in ("input", "query", "message", "prompt"):
            if isinstance(payload.get(key), str):
                return payload[key]
        messages = payload.get("messages")
        if isinstance(messages, list):
            for message in reversed(messages):
                if isinstance(message, dict) and message.get("role", "user") == "user":
                    content = message.get("content")
                    return content if isinstance(content, str) else json.dumps(content)
    if isinstance(payload, str):
        return payload
    return ""


class AgentStub:
    """A scripted agent served over HTTP on 127.0.0.1 (see the module docstring)."""

    def __init__(self, *, default: Behaviour | None = None) -> None:
        self.default = default or Behaviour()
        self.behaviours: dict[str, Behaviour] = {}
        self.requests: list[RecordedRequest] = []
        self._attempts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    def start(self) -> AgentStub:
        stub = self

        class Handler(_Handler):
            agent = stub

        server = _StubServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> AgentStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("AgentStub is not started")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:53021`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------ scripting
    def script(self, input: str, **behaviour: Any) -> Behaviour:
        """Script the reply to one input; returns the Behaviour."""
        self.behaviours[input] = Behaviour(**behaviour)
        return self.behaviours[input]

    def attempts(self, input: str) -> int:
        """How many requests carried this input so far."""
        with self._lock:
            return self._attempts.get(input, 0)

    def reset(self) -> None:
        """Forget scripts, recorded requests and attempt counts."""
        with self._lock:
            self.behaviours.clear()
            self.requests.clear()
            self._attempts.clear()
            self.default = Behaviour()

    # ------------------------------------------------------------ internals
    def _record(self, request: RecordedRequest, input: str) -> tuple[Behaviour, int]:
        with self._lock:
            self.requests.append(request)
            attempt = self._attempts.get(input, 0) + 1
            self._attempts[input] = attempt
            return self.behaviours.get(input, self.default), attempt


class _Handler(BaseHTTPRequestHandler):
    agent: AgentStub
    protocol_version = "HTTP/1.1"
    # Without this every small response waits ~40 ms for delayed ACKs.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/health":
            self._send(200, {"ok": True})
        else:
            self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header(
            "Content-Type", "application/json" if not isinstance(body, str) else "text/plain"
        )
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (a timeout test): nothing to answer.
            self.close_connection = True

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            payload = json.loads(body) if body else None
        except ValueError:
            payload = body.decode(errors="replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        input = _input_of(payload)
        request = RecordedRequest(self.command, self.path, headers, payload, body)
        behaviour, attempt = self.agent._record(request, input)
        if behaviour.delay:
            time.sleep(behaviour.delay)
        if behaviour.hold is not None:
            behaviour.hold.wait(timeout=120)
        if attempt <= behaviour.fail_times:
            extra = {}
            if behaviour.retry_after is not None:
                extra["Retry-After"] = f"{behaviour.retry_after:g}"
            body: Any = {"error": f"scripted failure {attempt} of {behaviour.fail_times}"}
            if behaviour.fail_body is not None:
                body = behaviour.fail_body.replace("{attempt}", str(attempt))
            self._send(behaviour.fail_status, body, extra)
            return
        if attempt <= behaviour.fail_times + behaviour.garbage_times:
            self._send(200, behaviour.garbage)
            return
        if behaviour.raw is not None:
            self._send(behaviour.status, behaviour.raw)
        elif behaviour.body is not None:
            self._send(behaviour.status, behaviour.body)
        elif self.path.split("?")[0].rstrip("/").endswith("/chat/completions"):
            self._send(behaviour.status, _chat_reply(payload, behaviour))
        else:
            self._send(behaviour.status, _agent_reply(payload, input, behaviour, attempt))


def _agent_reply(payload: Any, input: str, behaviour: Behaviour, attempt: int) -> dict[str, Any]:
    calls = behaviour.calls()
    steps: list[dict[str, Any]] = [{"type": "message", "content": f"working on: {input}"}]
    for call in calls:
        steps.append({"type": "tool_call", "tool": {"name": call["name"], "args": call["args"]}})
    steps.append({"type": "message", "content": behaviour.output})
    return {
        "id": payload.get("id") if isinstance(payload, dict) else None,
        "input": input,
        "output": behaviour.output,
        "steps": steps,
        "tool_calls": [{"name": c["name"], "arguments": json.dumps(c["args"])} for c in calls],
        "metadata": {"attempt": attempt},
    }


def _chat_reply(payload: Any, behaviour: Behaviour) -> dict[str, Any]:
    messages = payload.get("messages", []) if isinstance(payload, dict) else []
    turn = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
    calls = behaviour.calls()
    sizes = behaviour.chat_turns or ([len(calls)] if calls else [])
    batches, start = [], 0
    for size in sizes:
        batches.append(calls[start : start + size])
        start += size
    message: dict[str, Any]
    if turn < len(batches) and batches[turn]:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{turn}_{i}",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
                }
                for i, c in enumerate(batches[turn])
            ],
        }
        finish = "tool_calls"
    else:
        message = {"role": "assistant", "content": behaviour.output}
        finish = "stop"
    return {
        "id": f"chatcmpl-stub-{turn}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": payload.get("model", "stub") if isinstance(payload, dict) else "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
