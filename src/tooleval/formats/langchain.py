"""LangChain messages (``format="langchain"``).

Three shapes are read:

* ``messages_to_dict``: ``{"type": "ai", "data": {"content": ..., "tool_calls": [...]}}``;
* ``dumpd``: ``{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}``;
* live ``langchain_core`` message objects (only recognised when
  ``langchain_core`` is already imported by the caller; never imported here
  just to look).

``AIMessage.tool_calls`` (``{"name", "args", "id"}``) become calls; when it is
empty, ``additional_kwargs.tool_calls`` (OpenAI shape, JSON-string arguments)
is read instead. ``invalid_tool_calls`` (arguments LangChain could not parse)
are kept with their raw text and error, after the valid ones.
``ToolMessage.status == "error"`` sets ``is_error``. A LangGraph state
``{"messages": [...]}`` is accepted too.

>>> msgs = from_langchain([
...     {"type": "human", "data": {"content": "hi"}},
...     {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "AIMessage"],
...      "kwargs": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "1"}]}},
...     {"type": "tool", "data": {"content": "boom", "tool_call_id": "1", "status": "error"}}])
>>> msgs[1].tool_calls[0].name, msgs[2].is_error
('f', True)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import CallNames, join_text, object_args
from tooleval.formats._fields import at, describe, item, need_list, need_mapping, need_str, sub
from tooleval.formats.openai import call_from_openai
from tooleval.model import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["from_langchain", "is_langchain_message", "to_langchain"]

# Class names (dumpd ids, messages_to_dict types) to the message kind.
_KINDS = {
    "human": "human",
    "HumanMessage": "human",
    "HumanMessageChunk": "human",
    "ai": "ai",
    "AIMessage": "ai",
    "AIMessageChunk": "ai",
    "system": "system",
    "SystemMessage": "system",
    "SystemMessageChunk": "system",
    "tool": "tool",
    "ToolMessage": "tool",
    "ToolMessageChunk": "tool",
    "function": "function",
    "FunctionMessage": "function",
    "FunctionMessageChunk": "function",
    "chat": "chat",
    "ChatMessage": "chat",
    "ChatMessageChunk": "chat",
}
_CLASS = {
    "human": "HumanMessage",
    "ai": "AIMessage",
    "system": "SystemMessage",
    "tool": "ToolMessage",
}
_SKIP_PARTS = (
    "image_url",
    "image",
    "tool_use",
    "tool_call",
    "thinking",
    "reasoning",
    "file",
    "audio",
)


def is_langchain_message(value: Any) -> bool:
    """True for a live ``langchain_core`` message (checked without importing LangChain).

    >>> is_langchain_message({"type": "human", "content": "hi"})  # a dict, not a live message
    False
    """
    module = sys.modules.get("langchain_core.messages")
    return module is not None and isinstance(value, module.BaseMessage)


def _unwrap(value: Any, where: str, row: int | None) -> tuple[str, Mapping[str, Any], str]:
    """(kind, fields, path of fields) for one message in any of the three shapes."""
    if is_langchain_message(value):
        from langchain_core.messages import message_to_dict

        value = message_to_dict(value)
    msg = need_mapping(value, where, row=row, what="a LangChain message")
    if msg.get("lc") == 1 and msg.get("type") == "constructor":
        ident = need_list(msg.get("id"), at(where, "id"), row=row)
        class_name = ident[-1] if ident else None
        kind = _KINDS.get(class_name) if isinstance(class_name, str) else None
        if kind is None:
            raise FormatError(
                f"unknown LangChain class {class_name!r}; expected a message class such as "
                "HumanMessage, AIMessage, SystemMessage or ToolMessage",
                field=at(where, "id"),
                row=row,
            )
        return kind, need_mapping(msg.get("kwargs", {}), at(where, "kwargs"), row=row), "kwargs"
    kind = _KINDS.get(msg["type"]) if isinstance(msg.get("type"), str) else None
    if kind is None:
        raise FormatError(
            f"unknown LangChain message type {msg.get('type')!r}; expected one of "
            "human, ai, system, tool, function, chat",
            field=at(where, "type"),
            row=row,
        )
    if "data" in msg:
        return kind, need_mapping(msg["data"], at(where, "data"), row=row), "data"
    return kind, msg, ""


def _calls(fields: Mapping[str, Any], where: str, row: int | None) -> list[ToolCall]:
    calls: list[ToolCall] = []
    tpath = at(where, "tool_calls")
    for index, raw in enumerate(need_list(fields.get("tool_calls") or [], tpath, row=row)):
        cpath = item(tpath, index)
        entry = need_mapping(raw, cpath, row=row, what="a tool call")
        name = need_str(entry.get("name"), at(cpath, "name"), row=row, what="a tool name")
        args = object_args(entry.get("args"), at(cpath, "args"), row=row, what="args")
        call_id = need_str(entry.get("id"), at(cpath, "id"), row=row, optional=True)
        calls.append(ToolCall.parse(name, args, id=call_id))
    extra = fields.get("additional_kwargs") or {}
    if not calls and isinstance(extra, Mapping) and extra.get("tool_calls"):
        kpath = at(where, "additional_kwargs.tool_calls")
        for index, raw in enumerate(need_list(extra["tool_calls"], kpath, row=row)):
            calls.append(call_from_openai(raw, item(kpath, index), row=row))
    ipath = at(where, "invalid_tool_calls")
    for index, raw in enumerate(need_list(fields.get("invalid_tool_calls") or [], ipath, row=row)):
        cpath = item(ipath, index)
        entry = need_mapping(raw, cpath, row=row, what="an invalid tool call")
        name = need_str(entry.get("name"), at(cpath, "name"), row=row, optional=True) or ""
        raw_args = entry.get("args")
        call = ToolCall.parse(
            name, raw_args if isinstance(raw_args, str) else None, id=entry.get("id")
        )
        if call.parse_error is None:
            # LangChain judged it invalid (e.g. no name): keep its reason.
            call = ToolCall(
                name=name,
                args={},
                id=call.id,
                raw_arguments=raw_args if isinstance(raw_args, str) else "",
                parse_error=str(entry.get("error") or "invalid tool call"),
            )
        calls.append(call)
    return calls


def from_langchain(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read LangChain messages (dicts in either serialised shape, or live objects)."""
    relative = ""
    if isinstance(data, Mapping) and "messages" in data and "type" not in data:
        data, relative = data["messages"], "messages"
    base = sub(path, relative)
    if isinstance(data, Mapping) or is_langchain_message(data):
        data = [data]
    values = need_list(data, base, row=row, what="a list of LangChain messages")
    names = CallNames()
    out: list[Message] = []
    for index, value in enumerate(values):
        where = item(base, index)
        kind, fields, inner = _unwrap(value, where, row)
        fpath = sub(where, inner)
        if kind == "chat":
            role: Any = fields.get("role")
            kind = {"user": "human", "assistant": "ai", "system": "system", "tool": "tool"}.get(
                role, ""
            )
            if not kind:
                raise FormatError(
                    f"unknown ChatMessage role {role!r}; expected user, assistant, system or tool",
                    field=at(fpath, "role"),
                    row=row,
                )
        content = fields.get("content", "")
        cpath = at(fpath, "content")
        if kind == "tool" or kind == "function":
            if isinstance(content, list):
                content = join_text(content, cpath, row=row, skip_types=_SKIP_PARTS)
            # LangChain requires the field, so "" stands for "no id".
            call_id = (
                need_str(
                    fields.get("tool_call_id"), at(fpath, "tool_call_id"), row=row, optional=True
                )
                or None
            )
            given = need_str(fields.get("name"), at(fpath, "name"), row=row, optional=True)
            looked_up = names.name_for(call_id)
            status = fields.get("status", "success")
            if status not in ("success", "error"):
                raise FormatError(
                    f"expected status 'success' or 'error', got {describe(status)}",
                    field=at(fpath, "status"),
                    row=row,
                )
            out.append(
                ToolMessage(
                    content,
                    tool_call_id=call_id,
                    name=given or looked_up,
                    is_error=status == "error",
                )
            )
            continue
        text = join_text(content, cpath, row=row, skip_types=_SKIP_PARTS)
        if kind == "human":
            out.append(UserMessage(text))
        elif kind == "system":
            out.append(SystemMessage(text))
        else:
            calls = _calls(fields, fpath, row)
            for call in calls:
                names.add_call(call.id, call.name)
            out.append(AssistantMessage(text, tuple(calls)))
    return out


def _fields(msg: Message) -> tuple[str, dict[str, Any]]:
    if isinstance(msg, SystemMessage):
        return "system", {"content": msg.content, "type": "system"}
    if isinstance(msg, UserMessage):
        return "human", {"content": msg.content, "type": "human"}
    if isinstance(msg, AssistantMessage):
        valid = [c for c in msg.tool_calls if c.parse_error is None]
        invalid = [c for c in msg.tool_calls if c.parse_error is not None]
        return "ai", {
            "content": msg.content,
            "type": "ai",
            "tool_calls": [
                {"name": c.name, "args": dict(c.args or {}), "id": c.id, "type": "tool_call"}
                for c in valid
            ],
            "invalid_tool_calls": [
                {
                    "name": c.name,
                    "args": c.raw_arguments,
                    "id": c.id,
                    "error": c.parse_error,
                    "type": "invalid_tool_call",
                }
                for c in invalid
            ],
        }
    fields: dict[str, Any] = {
        "content": msg.content,
        "type": "tool",
        "tool_call_id": msg.tool_call_id or "",
        "status": "error" if msg.is_error else "success",
    }
    if msg.name is not None:
        fields["name"] = msg.name
    return "tool", fields


def to_langchain(
    messages: Sequence[Message], *, shape: str = "messages_to_dict"
) -> list[dict[str, Any]] | list[Any]:
    """Write LangChain messages.

    ``shape="messages_to_dict"`` (default) or ``"dumpd"`` give JSON dicts;
    ``"objects"`` gives live ``langchain_core`` messages (needs LangChain).
    A tool message without a call id gets ``tool_call_id=""`` (LangChain
    requires the field).

    >>> call = ToolCall("w", {"city": "Paris"}, id="c1")
    >>> [m["type"] for m in to_langchain([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1", "w")])]
    ['ai', 'tool']
    """
    if shape not in ("messages_to_dict", "dumpd", "objects"):
        from tooleval.errors import ConfigError

        raise ConfigError(
            f"unknown LangChain shape {shape!r}; expected messages_to_dict, dumpd or objects",
            field="shape",
        )
    dicts = []
    for msg in messages:
        kind, fields = _fields(msg)
        if shape == "dumpd":
            dicts.append(
                {
                    "lc": 1,
                    "type": "constructor",
                    "id": ["langchain", "schema", "messages", _CLASS[kind]],
                    "kwargs": fields,
                }
            )
        else:
            dicts.append({"type": kind, "data": fields})
    if shape == "objects":
        from langchain_core.messages import messages_from_dict

        return messages_from_dict(dicts)
    return dicts
