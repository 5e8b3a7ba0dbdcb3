"""Serve a judge as a small OpenAI-compatible HTTP endpoint on 127.0.0.1.

``tooleval judge serve`` puts the local judge behind ``POST
/v1/chat/completions`` and ``GET /v1/models`` so that anything speaking the
OpenAI protocol (including :class:`~tooleval.llm.openai_judge.OpenAIJudge`)
can use it.

- The model loads when the server starts (in the background, so the port
  answers at once); ``GET /health`` (alias ``/ready``) answers 503
  ``{"status": "loading"}`` until it is loaded, then 200 ``{"status": "ready"}``;
  a chat request before that gets 503 with ``Retry-After`` instead of waiting.
- The request's ``max_tokens`` (or ``max_completion_tokens``) caps the reply,
  never above the server's own ``--max-new-tokens``; ``finish_reason`` is
  ``"length"`` when the cap cut the reply.
- A client that hangs up stops its generation at the next token.
- ``response_format`` of type ``json_schema`` is honoured (the schema is passed
  to the judge) unless the server was started with ``structured_output=False``,
  in which case it answers 400 the way endpoints without that feature do.
"""

# No `from __future__ import annotations`: FastAPI must see the real Request class.
import asyncio
import contextlib
import threading
import time
import uuid
from typing import Any

from tooleval._extras import install_hint
from tooleval.errors import JudgeError
from tooleval.llm.base import Judge

__all__ = ["JudgeServerState", "create_app", "serve"]


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Any:
    from fastapi.responses import JSONResponse

    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return JSONResponse(status_code=status, content=body, headers=headers)


class JudgeServerState:
    """Whether the served judge's model is loaded: ``loading``, ``ready`` or ``failed``."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.status = "loading"
        self.error: str | None = None
        self.load_seconds: float | None = None
        self.ready = threading.Event()

    def load(self) -> None:
        """Load the judge's model (judges without ``load()`` are ready at once)."""
        started = time.perf_counter()
        try:
            loader = getattr(self.judge, "load", None)
            if callable(loader):
                loader()
        except JudgeError as exc:
            self.status, self.error = "failed", str(exc)
        else:
            self.status = "ready"
        # A model loaded before the server started reports its own load time.
        own = getattr(self.judge, "load_seconds", None)
        seconds = own if isinstance(own, int | float) else time.perf_counter() - started
        self.load_seconds = round(seconds, 3)
        self.ready.set()

    def health(self) -> tuple[int, dict[str, Any]]:
        body: dict[str, Any] = {"status": self.status, "model": self.judge.model}
        if self.load_seconds is not None:
            body["load_seconds"] = self.load_seconds
        if self.error:
            body["error"] = self.error
        return {"ready": 200, "loading": 503}.get(self.status, 500), body


def _max_tokens(body: dict[str, Any]) -> tuple[int | None, str | None]:
    """The request's reply cap, or an error message for a bad value."""
    value = body.get("max_completion_tokens", body.get("max_tokens"))
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None, f"max_tokens must be a positive integer, got {value!r}"
    return value, None


def create_app(judge: Judge, *, structured_output: bool = True, load: bool = True) -> Any:
    """A FastAPI app answering chat completions with ``judge``.

    With ``load=True`` the judge's model is loaded in a background thread when
    the app starts; ``load=False`` leaves it to the caller (``app.state.judge_state.load()``).
    """
    try:
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse
    except ImportError as exc:
        raise JudgeError(f"serving a judge needs FastAPI: {install_hint('web')}") from exc

    state = JudgeServerState(judge)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any):
        if load and not state.ready.is_set():
            threading.Thread(target=state.load, name="judge-load", daemon=True).start()
        yield

    app = FastAPI(title="tooleval judge", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.requests = 0
    app.state.judge_state = state

    @app.get("/health")
    @app.get("/ready")
    def health() -> Any:
        status, body = state.health()
        return JSONResponse(status_code=status, content=body)

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": judge.model, "object": "model", "owned_by": "tooleval"}],
        }

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        app.state.requests += 1
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "request body is not JSON")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "expected a JSON object with a 'messages' list")
        if body.get("stream"):
            return _error(400, "stream=true is not supported by this server")
        limit, problem = _max_tokens(body)
        if problem:
            return _error(400, problem)
        schema = None
        response_format = body.get("response_format") or {}
        if not isinstance(response_format, dict):
            return _error(400, "response_format must be an object")
        if response_format.get("type") == "json_schema":
            if not structured_output:
                return _error(400, "response_format type json_schema is not supported")
            schema = (response_format.get("json_schema") or {}).get("schema") or {"type": "object"}
        elif response_format.get("type") == "json_object":
            schema = {"type": "object"}
        if state.status == "loading":
            return _error(503, "the model is still loading; poll GET /health", {"Retry-After": "2"})
        if state.status == "failed":
            return _error(503, f"the model failed to load: {state.error}")
        messages = [
            {"role": m.get("role"), "content": m.get("content")}
            for m in body["messages"]
            if isinstance(m, dict)
        ]
        try:
            reply, cap = await _answer(judge, request, messages, schema, limit)
        except JudgeError as exc:
            return _error(400, str(exc))
        finish = "length" if cap is not None and reply.tokens_out >= cap else "stop"
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": judge.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": reply.tokens_in,
                "completion_tokens": reply.tokens_out,
                "total_tokens": reply.tokens_in + reply.tokens_out,
            },
        }

    return app


async def _answer(
    judge: Judge, request: Any, messages: list, schema: Any, limit: int | None
) -> tuple[Any, int | None]:
    """The judge's reply and the token cap it ran under.

    A judge with ``generate(..., max_new_tokens=, cancel=)`` (the local judge)
    gets the request's cap and stops when the client hangs up; any other judge
    answers through ``acomplete``.
    """
    from tooleval.llm.base import normalise_messages

    generate = getattr(judge, "generate", None)
    if not callable(generate):
        return await judge.acomplete(messages, schema=schema), None
    own_cap = getattr(judge, "max_new_tokens", None)
    cap = min(limit, own_cap) if limit is not None and own_cap else (limit or own_cap)
    normal = normalise_messages(messages)
    cancel = threading.Event()

    async def watch() -> None:
        while not cancel.is_set():
            if await request.is_disconnected():
                cancel.set()
                return
            await asyncio.sleep(0.25)

    watcher = asyncio.create_task(watch())
    try:
        reply = await asyncio.to_thread(generate, normal, schema, max_new_tokens=cap, cancel=cancel)
    finally:
        cancel.set()
        watcher.cancel()
    return reply, cap


def serve(
    judge: Judge,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    structured_output: bool = True,
    sock: Any = None,
) -> None:
    """Run the endpoint until interrupted (blocking); the model loads as it starts.

    ``sock``: a socket already bound and listening (``tooleval judge serve``
    binds first, so a busy port is said before the model loads); else
    ``host``/``port`` are bound here.
    """
    app = create_app(judge, structured_output=structured_output)
    try:
        import uvicorn
    except ImportError as exc:
        raise JudgeError(f"serving a judge needs uvicorn: {install_hint('web')}") from exc
    if sock is None:
        uvicorn.run(app, host=host, port=port)
        return
    uvicorn.Server(uvicorn.Config(app)).run(sockets=[sock])
