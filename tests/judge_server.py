"""An OpenAI-compatible judge on 127.0.0.1 for judged-metric plumbing tests.

The scripted server of ``tests/openai_server.py`` answering ``/v1/chat/completions``:
the verdict is decided from the prompt (``CARD-DECLINED`` in it: not accomplished;
``GARBAGE-PLEASE``: a reply that is not JSON, so the row ends unscored after one
re-ask). Each reply reports token usage; every prompt is kept in ``calls``.
"""

from __future__ import annotations

import json
from typing import Any

from tests.openai_server import OpenAIServer, completion, prompt_text


class JudgeServer(OpenAIServer):
    """The judge on a free 127.0.0.1 port (``tests/openai_server.py``); ``calls``: the prompts."""

    def __init__(self) -> None:
        super().__init__(_verdict)

    @property
    def calls(self) -> list[str]:
        return [prompt_text(body) for body in self.requests]

    def __enter__(self) -> JudgeServer:
        super().__enter__()
        return self


def _verdict(body: dict[str, Any], number: int) -> dict[str, Any]:
    prompt = prompt_text(body)
    if "GARBAGE-PLEASE" in prompt:
        text = "I think it went fine."
    else:
        ok = "CARD-DECLINED" not in prompt
        text = json.dumps({"evidence": "the tool result", "accomplished": ok, "reason": "r"})
    return completion({"role": "assistant", "content": text}, number=number)


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
