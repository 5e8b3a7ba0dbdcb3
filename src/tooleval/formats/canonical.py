"""tooleval's own message shape (``format="canonical"``): ``Message.to_dict()`` output.

``{"role": "system" | "user" | "assistant" | "tool", "content": ...}``;
assistant messages may carry ``tool_calls`` as ``[{"name", "args", "id"?}]``
(``args`` may also be a JSON string, which is parsed); tool messages carry
``tool_call_id``, ``name`` and ``is_error``. This is what ``sample_to_row``
writes, so reading it back gives the same messages.

>>> msgs = from_canonical([{"role": "assistant", "content": "",
...     "tool_calls": [{"name": "f", "args": {"x": 1}, "id": "a"}]},
...     {"role": "tool", "tool_call_id": "a", "content": {"ok": True}}])
>>> to_canonical(msgs)[1]
{'role': 'tool', 'content': {'ok': True}, 'tool_call_id': 'a'}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import error_flag
from tooleval.formats._fields import at, item, need_list, need_mapping, need_str, sub
from tooleval.formats.expected import call_from_value
from tooleval.model import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

__all__ = ["from_canonical", "to_canonical"]

_KEYS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls"},
    "tool": {"role", "content", "tool_call_id", "name", "is_error"},
}


def from_canonical(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read tooleval's own messages (a list, or ``{"messages": [...]}``)."""
    relative = ""
    if isinstance(data, Mapping) and "messages" in data:
        data, relative = data["messages"], "messages"
    base = sub(path, relative)
    values = need_list(data, base, row=row, what="a list of messages")
    out: list[Message] = []
    for index, value in enumerate(values):
        where = item(base, index)
        msg = need_mapping(value, where, row=row, what="a message object")
        role = msg.get("role")
        if not isinstance(role, str) or role not in _KEYS:
            raise FormatError(
                f"unknown role {role!r}; expected system, user, assistant or tool",
                field=at(where, "role"),
                row=row,
            )
        unknown = sorted(set(msg) - _KEYS[role])
        if unknown:
            raise FormatError(
                f"unknown key(s) {unknown} for a {role} message; expected {sorted(_KEYS[role])}",
                field=where,
                row=row,
            )
        content = msg.get("content")
        cpath = at(where, "content")
        if role == "system":
            out.append(SystemMessage(need_str(content, cpath, row=row)))
        elif role == "user":
            out.append(UserMessage(need_str(content, cpath, row=row)))
        elif role == "assistant":
            text = need_str(content, cpath, row=row, optional=True) or ""
            tpath = at(where, "tool_calls")
            calls = [
                call_from_value(c, item(tpath, i), row=row, expected=False)
                for i, c in enumerate(need_list(msg.get("tool_calls") or [], tpath, row=row))
            ]
            out.append(AssistantMessage(text, tuple(calls)))
        else:
            is_error = error_flag(msg, "is_error", where, row=row)
            out.append(
                ToolMessage(
                    content,
                    tool_call_id=need_str(
                        msg.get("tool_call_id"), at(where, "tool_call_id"), row=row, optional=True
                    ),
                    name=need_str(msg.get("name"), at(where, "name"), row=row, optional=True),
                    is_error=is_error,
                )
            )
    return out


def to_canonical(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Write tooleval's own message dicts."""
    return [m.to_dict() for m in messages]
