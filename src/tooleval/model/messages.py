"""The messages of a conversation, in tooleval's own shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from tooleval.model.calls import ToolCall


@dataclass(frozen=True, slots=True)
class SystemMessage:
    content: str
    role: Literal["system"] = "system"

    def to_dict(self) -> dict[str, Any]:
        return {"role": "system", "content": self.content}


@dataclass(frozen=True, slots=True)
class UserMessage:
    content: str
    role: Literal["user"] = "user"

    def to_dict(self) -> dict[str, Any]:
        return {"role": "user", "content": self.content}


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"

    def __post_init__(self) -> None:
        if not isinstance(self.tool_calls, tuple):
            object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        return out


@dataclass(frozen=True, slots=True)
class ToolMessage:
    content: Any
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    role: Literal["tool"] = "tool"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "tool", "content": self.content}
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        if self.is_error:
            out["is_error"] = True
        return out


Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def message_from_dict(data: Mapping[str, Any]) -> Message:
    """Rebuild a message from :meth:`to_dict` output (tooleval's own shape)."""
    role = data.get("role")
    if role == "system":
        return SystemMessage(str(data.get("content", "")))
    if role == "user":
        return UserMessage(str(data.get("content", "")))
    if role == "assistant":
        calls = tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ())
        return AssistantMessage(data.get("content") or "", calls)
    if role == "tool":
        return ToolMessage(
            data.get("content"),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
        )
    from tooleval.errors import FormatError

    raise FormatError(
        f"unknown message role {role!r}; expected system, user, assistant or tool", field="role"
    )
