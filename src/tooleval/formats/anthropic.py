"""Anthropic Messages conversations (``format="anthropic"``).

Messages are ``{"role": "user" | "assistant", "content": str | [blocks]}``.
``tool_use`` blocks (``id``, ``name``, ``input``) in assistant turns become
tool calls; ``tool_result`` blocks (``tool_use_id``, ``content`` as a string
or a list of blocks, ``is_error``) in user turns become tool messages, placed
before the user text of the same turn. ``thinking`` and image/document blocks
carry no text to score and are skipped. ``server_tool_use`` /
``web_search_tool_result`` and ``mcp_tool_use`` / ``mcp_tool_result`` are
read like their client-side twins. The top-level ``system`` (string or text
blocks) of a request becomes a system message. A response object
(``{"type": "message", "role": "assistant", "content": [...]}``) is one
assistant message.

>>> msgs = from_anthropic({"system": "Be brief.", "messages": [
...     {"role": "user", "content": "refund 4471"},
...     {"role": "assistant", "content": [{"type": "tool_use", "id": "t1",
...       "name": "refund", "input": {"order": "4471"}}]},
...     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
...       "content": "not eligible", "is_error": True}]}]})
>>> [m.role for m in msgs], msgs[3].is_error
(['system', 'user', 'assistant', 'tool'], True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import CallNames, error_flag, join_text, listed, read_call
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

__all__ = ["from_anthropic", "to_anthropic", "BLOCK_TYPES"]

_CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
_RESULT_BLOCKS = ("tool_result", "web_search_tool_result", "mcp_tool_result")
_SKIP_BLOCKS = (
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "container_upload",
)
BLOCK_TYPES = ("text",) + _CALL_BLOCKS + _RESULT_BLOCKS + _SKIP_BLOCKS


def _conversation(data: Any, path: str, row: int | None) -> tuple[list[tuple[str, Any]], Any]:
    """The messages with their relative paths, and the top-level system prompt."""
    data = plain(data)
    if isinstance(data, Mapping):
        if "messages" in data:
            return listed(data["messages"], path, "messages", row=row), data.get("system")
        if "role" in data:
            return [("", data)], None
        raise FormatError(
            "expected Anthropic messages, a request with 'messages' or a response message, "
            f"got {describe(data)}",
            field=path or None,
            row=row,
        )
    return listed(data, path, "", row=row, what="a list of messages"), None


def _result_content(block: Mapping[str, Any], where: str, row: int | None) -> Any:
    content = block.get("content")
    if content is None or isinstance(content, str):
        return "" if content is None else content
    if isinstance(content, list) and all(
        isinstance(b, Mapping) and b.get("type") == "text" for b in content
    ):
        return join_text(content, at(where, "content"), row=row)
    # Images, search results or a server tool's structured result: keep as given.
    return content


def from_anthropic(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read Anthropic messages (list, request with ``system``/``messages``, or a response)."""
    values, system = _conversation(data, path, row)
    out: list[Message] = []
    if system is not None:
        text = join_text(system, at(path, "system"), row=row)
        if text:
            out.append(SystemMessage(text))
    names = CallNames()
    for relative, value in values:
        where = sub(path, relative)
        msg = need_mapping(value, where, row=row, what="a message object")
        role = msg.get("role")
        if role not in ("user", "assistant"):
            raise FormatError(
                f"unknown role {role!r}; expected user or assistant (system is top-level)",
                field=at(where, "role"),
                row=row,
            )
        content = msg.get("content")
        cpath = at(where, "content")
        if content is None or isinstance(content, str):
            text = content or ""
            out.append(UserMessage(text) if role == "user" else AssistantMessage(text))
            continue
        blocks = need_list(content, cpath, row=row, what="a string or a list of content blocks")
        texts: list[str] = []
        calls: list[ToolCall] = []
        results: list[ToolMessage] = []
        for bindex, raw in enumerate(blocks):
            bpath = item(cpath, bindex)
            block = need_mapping(raw, bpath, row=row, what="a content block")
            kind = block.get("type")
            if kind == "text":
                texts.append(need_str(block.get("text"), at(bpath, "text"), row=row))
            elif kind in _CALL_BLOCKS:
                call = read_call(
                    block, bpath, row=row, args_key="input", args_what="the tool input"
                )
                calls.append(call)
                names.add_call(call.id, call.name)
            elif kind in _RESULT_BLOCKS:
                call_id = need_str(
                    block.get("tool_use_id"), at(bpath, "tool_use_id"), row=row, optional=True
                )
                is_error = error_flag(block, "is_error", bpath, row=row)
                results.append(
                    ToolMessage(
                        _result_content(block, bpath, row),
                        tool_call_id=call_id,
                        name=names.name_for(call_id),
                        is_error=is_error,
                    )
                )
            elif kind in _SKIP_BLOCKS:
                continue
            else:
                raise FormatError(
                    f"unknown content block type {kind!r}; expected one of {list(BLOCK_TYPES)}",
                    field=at(bpath, "type"),
                    row=row,
                )
        text = "\n".join(texts)
        if role == "assistant":
            # Server tools (web search) answer inside the assistant turn, after the call.
            out.append(AssistantMessage(text, tuple(calls)))
            out.extend(results)
            continue
        out.extend(results)
        if text or not any(
            isinstance(b, Mapping) and b.get("type") in _RESULT_BLOCKS for b in blocks
        ):
            out.append(UserMessage(text))
    return out


def to_anthropic(messages: Sequence[Message]) -> dict[str, Any]:
    """Write an Anthropic request body: ``{"system"?, "messages": [...]}``.

    System messages go to the top-level ``system`` (joined by newlines);
    tool results and the user text that follows them share one user turn,
    as the API requires.

    >>> call = ToolCall("w", {"city": "Paris"}, id="c1")
    >>> to_anthropic([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1", "w")])["messages"][0]["content"][0]["type"]
    'tool_use'
    """
    system = [m.content for m in messages if isinstance(m, SystemMessage)]
    out: list[dict[str, Any]] = []
    open_results = False  # the last user turn holds only tool results so far
    for msg in messages:
        if isinstance(msg, UserMessage):
            if open_results:
                out[-1]["content"].append({"type": "text", "text": msg.content})
                open_results = False
            else:
                out.append({"role": "user", "content": msg.content})
        elif isinstance(msg, AssistantMessage):
            blocks: list[dict[str, Any]] = []
            if msg.content:
                blocks.append({"type": "text", "text": msg.content})
            for call in msg.tool_calls:
                block: dict[str, Any] = {"type": "tool_use"}
                if call.id is not None:
                    block["id"] = call.id
                block.update({"name": call.name, "input": dict(call.args or {})})
                blocks.append(block)
            out.append({"role": "assistant", "content": blocks})
            open_results = False
        elif isinstance(msg, ToolMessage):
            block = {"type": "tool_result"}
            if msg.tool_call_id is not None:
                block["tool_use_id"] = msg.tool_call_id
            content = msg.content
            block["content"] = content if isinstance(content, str | list) else to_json_text(content)
            if msg.is_error:
                block["is_error"] = True
            if open_results:
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
                open_results = True
    body: dict[str, Any] = {}
    if system:
        body["system"] = "\n".join(system)
    body["messages"] = out
    return body
