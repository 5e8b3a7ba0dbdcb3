"""The message shape tau-bench and tau2 share: roles, text content, calls (OpenAI or flat).

Read by both benchmarks' readers; every problem is a FormatError naming the field.

>>> [type(m).__name__ for m in messages([{"role": "user", "content": "hi"}], "traj", openai_calls=True)]
['UserMessage']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.model import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["call", "messages", "require"]


def require(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if not isinstance(data, Mapping) or key not in data:
        raise FormatError(f"missing {key!r}", field=where)
    value = data[key]
    if not isinstance(value, kind):
        raise FormatError(
            f"expected {kind.__name__} for {key!r}, got {type(value).__name__}", field=where
        )
    return value


def _text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
    return str(content)


def messages(raw: Sequence[Any], where: str, *, openai_calls: bool) -> list[Message]:
    messages: list[Message] = []
    for index, msg in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(msg, Mapping):
            raise FormatError(f"expected a message object, got {type(msg).__name__}", field=at)
        role = msg.get("role")
        if role == "system":
            messages.append(SystemMessage(_text(msg.get("content"))))
        elif role == "user":
            messages.append(UserMessage(_text(msg.get("content"))))
        elif role == "assistant":
            calls = [
                call(c, f"{at}.tool_calls[{i}]", openai=openai_calls)
                for i, c in enumerate(msg.get("tool_calls") or [])
            ]
            messages.append(AssistantMessage(_text(msg.get("content")), tuple(calls)))
        elif role == "tool":
            messages.append(
                ToolMessage(
                    msg.get("content"),
                    tool_call_id=_ident(msg, "tool_call_id", at) or _ident(msg, "id", at),
                    name=msg.get("name") if isinstance(msg.get("name"), str) else None,
                    is_error=bool(msg.get("error", False)),
                )
            )
        else:
            raise FormatError(
                f"unknown role {role!r}; expected system, user, assistant or tool", field=at
            )
    return messages


def call(raw: Any, where: str, *, openai: bool) -> ToolCall:
    if not isinstance(raw, Mapping):
        raise FormatError(f"expected a tool call object, got {type(raw).__name__}", field=where)
    if openai or "function" in raw:
        function = require(raw, "function", Mapping, where)
        name = require(function, "name", str, f"{where}.function")
        return ToolCall.parse(name, function.get("arguments"), id=_ident(raw, "id", where))
    name = require(raw, "name", str, where)
    return ToolCall.parse(name, raw.get("arguments"), id=_ident(raw, "id", where))


def _ident(data: Mapping[str, Any], key: str, where: str) -> str | None:
    """An id field as text (a number is written as text); anything else is a FormatError."""
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise FormatError(f"expected text for {key!r}, got {type(value).__name__}", field=where)
