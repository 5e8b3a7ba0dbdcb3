"""An OpenAI-compatible model that answers BFCL multi-turn entries from a published results file.

For each request it finds the entry by the user messages so far (their text
is the entry's turns; entries that start alike answer alike until they part),
the turn (how many user messages) and the step (how many assistant messages
since the last user message), and answers that step's calls as they were
recorded (``{name: arguments}`` → ``tool_calls`` with the same argument text),
or, past the turn's last step, a text reply, which ends the turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

END_OF_TURN = "Done with this request."


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Replayer:
    """``reply(body, n)`` for tests/openai_server.py's server (see the module docstring)."""

    def __init__(self, questions: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
        by_id = {r["id"]: r["result"] for r in results}
        self.entries = [
            ([str(m["content"]) for turn in q["question"] for m in turn], by_id[q["id"]])
            for q in questions
            if q["id"] in by_id
        ]

    def _result(self, said: list[str]) -> list[Any]:
        for turns, result in self.entries:
            if turns[: len(said)] == said:
                return result
        raise AssertionError(f"no entry starts with {said[:1]}")

    def __call__(self, body: dict[str, Any], number: int) -> dict[str, Any]:
        messages = body["messages"]
        said = [str(m.get("content")) for m in messages if m.get("role") == "user"]
        last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
        step = sum(1 for m in messages[last_user:] if m.get("role") == "assistant")
        turn = self._result(said)[len(said) - 1]
        if step < len(turn) and isinstance(turn[step], list):
            calls = [
                {
                    "id": f"call_{number}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                for i, item in enumerate(turn[step])
                for name, arguments in item.items()
            ]
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": calls}
        else:
            message = {"role": "assistant", "content": END_OF_TURN}
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        }


def call_steps(result: list[Any]) -> list[list[Any]]:
    """A result's steps with calls, per turn (text steps left out: they decode to nothing)."""
    return [[step for step in turn if isinstance(step, list)] for turn in result]
