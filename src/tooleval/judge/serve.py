"""Serve a judge as a small OpenAI-compatible HTTP endpoint on 127.0.0.1.

``tooleval judge serve`` puts the local SmolLM2 judge behind
``POST /v1/chat/completions`` and ``GET /v1/models`` so that anything speaking
the OpenAI protocol (including :class:`~tooleval.judge.openai_judge.OpenAIJudge`)
can use it. ``response_format`` of type ``json_schema`` is honoured (the schema
is passed to the judge) unless the server was started with
``structured_output=False``, in which case it answers 400 the way endpoints
without that feature do.
"""

# No `from __future__ import annotations`: FastAPI must see the real Request class.
import time
import uuid
from typing import Any

from tooleval.errors import JudgeError
from tooleval.judge.base import Judge

__all__ = ["create_app", "serve"]


def _error(status: int, message: str) -> Any:
    from fastapi.responses import JSONResponse

    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return JSONResponse(status_code=status, content=body)


def create_app(judge: Judge, *, structured_output: bool = True) -> Any:
    """A FastAPI app answering chat completions with ``judge``."""
    try:
        from fastapi import FastAPI, Request
    except ImportError as exc:
        raise JudgeError("serving a judge needs FastAPI: pip install 'tooleval[web]'") from exc

    app = FastAPI(title="tooleval judge", docs_url=None, redoc_url=None)
    app.state.requests = 0

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
        schema = None
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema":
            if not structured_output:
                return _error(400, "response_format type json_schema is not supported")
            schema = (response_format.get("json_schema") or {}).get("schema") or {"type": "object"}
        elif response_format.get("type") == "json_object":
            schema = {"type": "object"}
        messages = [
            {"role": m.get("role"), "content": m.get("content")}
            for m in body["messages"]
            if isinstance(m, dict)
        ]
        try:
            reply = await judge.acomplete(messages, schema=schema)
        except JudgeError as exc:
            return _error(400, str(exc))
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": judge.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.tokens_in,
                "completion_tokens": reply.tokens_out,
                "total_tokens": reply.tokens_in + reply.tokens_out,
            },
        }

    return app


def serve(
    judge: Judge, *, host: str = "127.0.0.1", port: int = 8765, structured_output: bool = True
) -> None:
    """Run the endpoint until interrupted (blocking)."""
    app = create_app(judge, structured_output=structured_output)
    try:
        import uvicorn
    except ImportError as exc:
        raise JudgeError("serving a judge needs uvicorn: pip install 'tooleval[web]'") from exc
    uvicorn.run(app, host=host, port=port)
