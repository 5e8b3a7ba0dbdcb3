"""OpenAI Chat Completions and Responses conversations.

**Chat Completions** (``format="openai_chat"``): a list of ``{"role", "content"}``
messages; assistant ``tool_calls`` carry ``function.arguments`` as a JSON
string; ``role: "tool"`` messages answer them by ``tool_call_id``. The legacy
``function_call`` / ``role: "function"`` pair is read too. Also accepted: a
request body (``{"messages": [...]}``) and a response object
(``{"choices": [{"message": ...}]}``, the first choice is read).

**Responses** (``format="openai_responses"``): a list of items; ``message``
items with ``input_text`` / ``output_text`` parts, ``function_call`` items and
``function_call_output`` items paired by ``call_id``. Also accepted: a
response object (``{"object": "response", "output": [...]}``) and a request
(``{"input": ..., "instructions": ...}``).

>>> msgs = from_chat([
...     {"role": "user", "content": "cancel order 4471"},
...     {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
...      "function": {"name": "cancel_order", "arguments": "{\\"order_id\\": \\"4471\\"}"}}]},
...     {"role": "tool", "tool_call_id": "c1", "content": "cancelled"}])
>>> msgs[1].tool_calls[0].args, msgs[2].name
({'order_id': '4471'}, 'cancel_order')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import CallNames, first_item, join_text, listed
from tooleval.formats._fields import (
    at,
    describe,
    item,
    need_list,
    need_mapping,
    need_str,
    plain,
    sub,
    to_json_text,
)
from tooleval.model import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = [
    "arguments_text",
    "call_from_openai",
    "from_chat",
    "from_responses",
    "to_chat",
    "to_responses",
]

# Content parts of Chat Completions that carry no text for scoring.
_CHAT_SKIP_PARTS = ("image_url", "input_audio", "file", "audio")
# Responses content parts without text.
_RESPONSES_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text")
_RESPONSES_SKIP_PARTS = ("input_image", "input_file", "input_audio")


def arguments_text(call: ToolCall) -> str:
    """The arguments of a call as OpenAI sends them: the original string if kept, else JSON.

    >>> arguments_text(ToolCall("f", {"city": "Paris"}))
    '{"city": "Paris"}'
    """
    if call.raw_arguments is not None:
        return call.raw_arguments
    return json.dumps(call.args or {}, ensure_ascii=False)


def _parse_arguments(
    name: str, arguments: Any, path: str, row: int | None, **extra: Any
) -> ToolCall:
    if arguments is None or isinstance(arguments, str | Mapping):
        return ToolCall.parse(name, arguments, **extra)
    raise FormatError(
        f"expected the arguments as a JSON string or an object, got {describe(arguments)}",
        field=path,
        row=row,
    )


def call_from_openai(value: Any, path: str, *, row: int | None = None) -> ToolCall:
    """Read one ``tool_calls`` entry: ``{"id", "type": "function", "function": {...}}``.

    >>> call_from_openai({"id": "c1", "type": "function",
    ...     "function": {"name": "f", "arguments": '{"x": 1}'}}, "tool_calls[0]").args
    {'x': 1}
    """
    entry = need_mapping(value, path, row=row, what="a tool call object")
    call_id = need_str(entry.get("id"), at(path, "id"), row=row, optional=True)
    if entry.get("type") == "custom" or "custom" in entry:
        custom = need_mapping(entry.get("custom"), at(path, "custom"), row=row)
        name = need_str(custom.get("name"), at(path, "custom.name"), row=row, what="a tool name")
        text = need_str(custom.get("input", ""), at(path, "custom.input"), row=row)
        # Custom tools take free text, not JSON; keep it under one key.
        return ToolCall(name=name, args={"input": text}, id=call_id)
    if "function" not in entry:
        raise FormatError(
            f"expected a tool call with a 'function' object, got {describe(entry)}",
            field=path,
            row=row,
        )
    function = need_mapping(entry["function"], at(path, "function"), row=row)
    name = need_str(
        function.get("name"), at(path, "function.name"), row=row, what="a tool name (string)"
    )
    return _parse_arguments(
        name, function.get("arguments"), at(path, "function.arguments"), row, id=call_id
    )


# ---------------------------------------------------------------- chat completions


def _chat_list(data: Any, path: str, row: int | None) -> list[tuple[str, Any]]:
    """The messages with their relative paths."""
    data = plain(data)
    if isinstance(data, Mapping):
        if "choices" in data:
            choice = first_item(data, "choices", path, row=row)
            if "message" not in choice:
                raise FormatError(
                    f"expected a 'message' in the first choice, got {describe(choice)}",
                    field=sub(path, "choices[0]"),
                    row=row,
                )
            return [("choices[0].message", choice["message"])]
        if "messages" in data:
            return listed(data["messages"], path, "messages", row=row)
        if "role" in data:
            return [("", data)]
        raise FormatError(
            "expected Chat Completions messages, a request with 'messages' or a response "
            f"with 'choices', got {describe(data)}",
            field=path or None,
            row=row,
        )
    return listed(data, path, "", row=row, what="a list of messages")


def from_chat(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read Chat Completions messages (list, request body or response object)."""
    names = CallNames()
    out: list[Message] = []
    for relative, value in _chat_list(data, path, row):
        where = sub(path, relative)
        msg = need_mapping(value, where, row=row, what="a message object")
        role = msg.get("role")
        content_path = at(where, "content")
        if role in ("system", "developer"):
            text = join_text(msg.get("content"), content_path, row=row)
            out.append(SystemMessage(text))
        elif role == "user":
            text = join_text(msg.get("content"), content_path, row=row, skip_types=_CHAT_SKIP_PARTS)
            out.append(UserMessage(text))
        elif role == "assistant":
            text = join_text(
                msg.get("content"),
                content_path,
                row=row,
                text_types=("text",),
                skip_types=("refusal",),
            )
            if not text and isinstance(msg.get("refusal"), str):
                text = msg["refusal"]
            calls: list[ToolCall] = []
            raw_calls = msg.get("tool_calls")
            if raw_calls is not None:
                list_path = at(where, "tool_calls")
                for i, entry in enumerate(need_list(raw_calls, list_path, row=row)):
                    calls.append(call_from_openai(entry, item(list_path, i), row=row))
            legacy = msg.get("function_call")
            if legacy is not None:
                fpath = at(where, "function_call")
                fn = need_mapping(legacy, fpath, row=row)
                name = need_str(fn.get("name"), at(fpath, "name"), row=row, what="a tool name")
                calls.append(
                    _parse_arguments(name, fn.get("arguments"), at(fpath, "arguments"), row)
                )
            for call in calls:
                names.add_call(call.id, call.name)
            out.append(AssistantMessage(text, tuple(calls)))
        elif role in ("tool", "function"):
            call_id = need_str(
                msg.get("tool_call_id"), at(where, "tool_call_id"), row=row, optional=True
            )
            content = msg.get("content")
            if content is None or isinstance(content, list):
                content = join_text(content, content_path, row=row)
            given = need_str(msg.get("name"), at(where, "name"), row=row, optional=True)
            looked_up = names.name_for(call_id)
            out.append(
                ToolMessage(
                    content,
                    tool_call_id=call_id,
                    name=given or looked_up,
                    is_error=bool(msg.get("is_error", False)),
                )
            )
        else:
            raise FormatError(
                f"unknown role {role!r}; expected system, developer, user, assistant, tool "
                "or function",
                field=at(where, "role"),
                row=row,
            )
    return out


def to_chat(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Write Chat Completions messages.

    A call without an id is written as the legacy ``function_call`` (and its
    result as ``role: "function"``), so nothing is invented.

    >>> call = ToolCall("w", {"city": "Paris"}, id="c1")
    >>> to_chat([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1", "w")])[1]
    {'role': 'tool', 'tool_call_id': 'c1', 'content': '18C'}
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        if isinstance(msg, SystemMessage):
            out.append({"role": "system", "content": msg.content})
        elif isinstance(msg, UserMessage):
            out.append({"role": "user", "content": msg.content})
        elif isinstance(msg, AssistantMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": msg.content or None}
            calls = list(msg.tool_calls)
            if len(calls) == 1 and calls[0].id is None:
                entry["function_call"] = {
                    "name": calls[0].name,
                    "arguments": arguments_text(calls[0]),
                }
            elif calls:
                entry["tool_calls"] = [
                    {
                        **({"id": c.id} if c.id is not None else {}),
                        "type": "function",
                        "function": {"name": c.name, "arguments": arguments_text(c)},
                    }
                    for c in calls
                ]
            out.append(entry)
        elif isinstance(msg, ToolMessage):
            content = to_json_text(msg.content) if msg.content is not None else ""
            if msg.tool_call_id is None:
                out.append({"role": "function", "name": msg.name or "", "content": content})
            else:
                out.append({"role": "tool", "tool_call_id": msg.tool_call_id, "content": content})
    return out


# ---------------------------------------------------------------- responses

_HOSTED_CALLS = (
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "computer_call",
    "image_generation_call",
    "local_shell_call",
)
_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output", "computer_call_output")
_SKIPPED_ITEMS = ("reasoning",)
RESPONSES_ITEM_TYPES = (
    ("message", "function_call", "custom_tool_call", "mcp_call")
    + _OUTPUT_ITEMS
    + _HOSTED_CALLS
    + _SKIPPED_ITEMS
)


def _responses_list(
    data: Any, path: str, row: int | None
) -> tuple[list[tuple[str, Any]], str | None]:
    """The items with their relative paths, and the request's ``instructions``."""
    data = plain(data)
    if isinstance(data, Mapping):
        instructions = need_str(
            data.get("instructions"), sub(path, "instructions"), row=row, optional=True
        )
        if "input" in data:
            value = data["input"]
            if isinstance(value, str):
                return [("input", {"role": "user", "content": value})], instructions
            items = listed(value, path, "input", row=row, what="a string or a list of items")
            return items, instructions
        if "output" in data:
            return listed(data["output"], path, "output", row=row), instructions
        if "type" in data or "role" in data:
            return [("", data)], None
        raise FormatError(
            "expected Responses items, a response with 'output' or a request with "
            f"'input', got {describe(data)}",
            field=path or None,
            row=row,
        )
    return listed(data, path, "", row=row, what="a list of Responses items"), None


def _message_item(entry: Mapping[str, Any], where: str, row: int | None) -> Message:
    role = entry.get("role")
    text = join_text(
        entry.get("content"),
        at(where, "content"),
        row=row,
        text_types=_RESPONSES_TEXT_PARTS,
        skip_types=_RESPONSES_SKIP_PARTS + ("refusal",),
    )
    if role in ("system", "developer"):
        return SystemMessage(text)
    if role == "user":
        return UserMessage(text)
    if role == "assistant":
        return AssistantMessage(text)
    raise FormatError(
        f"unknown message role {role!r}; expected system, developer, user or assistant",
        field=at(where, "role"),
        row=row,
    )


def from_responses(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read OpenAI Responses items (list, response object or request)."""
    values, instructions = _responses_list(data, path, row)
    out: list[Message] = [SystemMessage(instructions)] if instructions else []
    names = CallNames()

    def add_call(call: ToolCall) -> None:
        names.add_call(call.id, call.name)
        last = out[-1] if out else None
        # Consecutive call items belong to the same assistant turn.
        if isinstance(last, AssistantMessage) and open_turn[0]:
            out[-1] = AssistantMessage(last.content, last.tool_calls + (call,))
        else:
            out.append(AssistantMessage("", (call,)))
        open_turn[0] = True

    open_turn = [False]
    for relative, value in values:
        where = sub(path, relative)
        entry = need_mapping(value, where, row=row, what="a Responses item")
        kind = entry.get("type", "message" if "role" in entry else None)
        if kind == "message":
            msg = _message_item(entry, where, row)
            out.append(msg)
            open_turn[0] = isinstance(msg, AssistantMessage)
            continue
        if kind in ("function_call", "custom_tool_call", "mcp_call"):
            name = need_str(entry.get("name"), at(where, "name"), row=row, what="a tool name")
            key = "input" if kind == "custom_tool_call" else "arguments"
            call_id = need_str(
                entry.get("call_id", entry.get("id") if kind == "mcp_call" else None),
                at(where, "call_id"),
                row=row,
                optional=True,
            )
            if kind == "custom_tool_call":
                text = need_str(entry.get("input", ""), at(where, "input"), row=row)
                call = ToolCall(name=name, args={"input": text}, id=call_id)
            else:
                call = _parse_arguments(name, entry.get(key), at(where, key), row, id=call_id)
            add_call(call)
            if kind == "mcp_call" and ("output" in entry or "error" in entry):
                failed = entry.get("error") is not None
                result = entry.get("error") if failed else entry.get("output")
                names.name_for(call_id)
                out.append(ToolMessage(result, tool_call_id=call_id, name=name, is_error=failed))
                open_turn[0] = False
            continue
        if kind in _HOSTED_CALLS:
            call_id = entry.get("call_id", entry.get("id"))
            args = entry.get("action")
            if not isinstance(args, Mapping):
                args = {
                    k: v for k, v in entry.items() if k not in ("type", "id", "call_id", "status")
                }
            add_call(ToolCall(name=kind.removesuffix("_call"), args=dict(args), id=call_id))
            continue
        if kind in _OUTPUT_ITEMS:
            call_id = need_str(entry.get("call_id"), at(where, "call_id"), row=row, optional=True)
            output = entry.get("output")
            if isinstance(output, list):
                output = join_text(
                    output,
                    at(where, "output"),
                    row=row,
                    text_types=_RESPONSES_TEXT_PARTS,
                    skip_types=_RESPONSES_SKIP_PARTS,
                )
            out.append(ToolMessage(output, tool_call_id=call_id, name=names.name_for(call_id)))
            open_turn[0] = False
            continue
        if kind in _SKIPPED_ITEMS:
            continue
        raise FormatError(
            f"unknown Responses item type {kind!r}; expected one of {sorted(RESPONSES_ITEM_TYPES)}",
            field=at(where, "type"),
            row=row,
        )
    return out


def to_responses(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Write Responses input items (messages, ``function_call``, ``function_call_output``).

    >>> call = ToolCall("w", {"city": "Paris"}, id="c1")
    >>> [item["type"] for item in to_responses([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1", "w")])]
    ['function_call', 'function_call_output']
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        if isinstance(msg, SystemMessage | UserMessage):
            out.append(
                {
                    "type": "message",
                    "role": msg.role,
                    "content": [{"type": "input_text", "text": msg.content}],
                }
            )
        elif isinstance(msg, AssistantMessage):
            if msg.content:
                out.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": msg.content}],
                    }
                )
            for call in msg.tool_calls:
                entry: dict[str, Any] = {"type": "function_call", "name": call.name}
                if call.id is not None:
                    entry["call_id"] = call.id
                entry["arguments"] = arguments_text(call)
                out.append(entry)
        elif isinstance(msg, ToolMessage):
            entry = {"type": "function_call_output"}
            if msg.tool_call_id is not None:
                entry["call_id"] = msg.tool_call_id
            entry["output"] = to_json_text(msg.content) if msg.content is not None else ""
            out.append(entry)
    return out
