"""MCP ``tools/call`` traffic (``format="mcp"``): JSON-RPC requests and results.

A request ``{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params":
{"name": ..., "arguments": {...}}}`` becomes a tool call whose id is the
JSON-RPC id (as a string); consecutive requests form one assistant turn. The
response with the same id, ``{"result": {"content": [...], "isError": bool,
"structuredContent"?}}`` or a JSON-RPC ``{"error": {"code", "message"}}``,
becomes the tool message. Text content items are joined; ``structuredContent``
wins when present; other content (images, resources) is kept as the list.
Other methods (``initialize``, ``tools/list``, notifications) and their
responses are protocol traffic, not tool calls, and are skipped. MCP carries
no user or assistant text, so ``to_mcp`` writes only calls and results.

>>> msgs = from_mcp([
...     {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
...      "params": {"name": "get_forecast", "arguments": {"city": "Oslo"}}},
...     {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "rain"}],
...      "isError": False}}])
>>> msgs[0].tool_calls[0].id, msgs[1].content, msgs[1].name
('7', 'rain', 'get_forecast')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import CallNames, error_flag, object_args
from tooleval.formats._fields import (
    at,
    describe,
    item,
    need_list,
    need_mapping,
    need_str,
    sub,
    to_json_text,
)
from tooleval.model import AssistantMessage, Message, ToolCall, ToolMessage

__all__ = ["McpLog", "from_mcp", "is_jsonrpc_message", "to_mcp"]


def _id(value: Any, path: str, row: int | None) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise FormatError(
            f"expected a JSON-RPC id (string or integer), got {describe(value)}",
            field=path,
            row=row,
        )
    return str(value)


def _result(result: Mapping[str, Any], path: str, row: int | None) -> tuple[Any, bool]:
    is_error = error_flag(result, "isError", path, row=row)
    if "structuredContent" in result:
        return result["structuredContent"], is_error
    cpath = at(path, "content")
    content = need_list(result.get("content", []), cpath, row=row, what="a list of content items")
    texts: list[str] = []
    for index, entry in enumerate(content):
        part = need_mapping(entry, item(cpath, index), row=row, what="a content item")
        if part.get("type") != "text":
            return list(content), is_error  # images or resources: keep everything
        texts.append(need_str(part.get("text"), at(item(cpath, index), "text"), row=row))
    return "\n".join(texts), is_error


def from_mcp(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read a list of JSON-RPC messages (or one message) from an MCP session."""
    if isinstance(data, Mapping):
        data = [data]
    values = need_list(data, path, row=row, what="a list of JSON-RPC messages")
    names = CallNames()
    requests: dict[str, str] = {}  # id -> method
    out: list[Message] = []
    for index, value in enumerate(values):
        where = sub(path, f"[{index}]")
        msg = need_mapping(value, where, row=row, what="a JSON-RPC message")
        if msg.get("jsonrpc") != "2.0":
            raise FormatError(
                f"expected a JSON-RPC 2.0 message ('jsonrpc': '2.0'), got {describe(msg)}",
                field=where,
                row=row,
            )
        if "method" in msg:
            method = need_str(msg["method"], at(where, "method"), row=row)
            if "id" not in msg:
                continue  # a notification
            call_id = _id(msg["id"], at(where, "id"), row)
            if call_id in requests:
                raise FormatError(
                    f"request id {msg['id']!r} is used twice", field=at(where, "id"), row=row
                )
            requests[call_id] = method
            if method != "tools/call":
                continue
            ppath = at(where, "params")
            params = need_mapping(msg.get("params"), ppath, row=row)
            name = need_str(params.get("name"), at(ppath, "name"), row=row, what="a tool name")
            arguments = object_args(
                params.get("arguments"), at(ppath, "arguments"), row=row, what="arguments"
            )
            call = ToolCall.parse(name, arguments, id=call_id)
            names.add_call(call_id, name)
            last = out[-1] if out else None
            if isinstance(last, AssistantMessage):
                out[-1] = AssistantMessage("", last.tool_calls + (call,))
            else:
                out.append(AssistantMessage("", (call,)))
            continue
        if "result" in msg or "error" in msg:
            call_id = _id(msg.get("id"), at(where, "id"), row)
            if call_id not in requests:
                raise FormatError(
                    f"response id {msg.get('id')!r} answers no request seen before it",
                    field=at(where, "id"),
                    row=row,
                )
            if requests.pop(call_id) != "tools/call":
                continue
            if "error" in msg:
                epath = at(where, "error")
                error = need_mapping(msg["error"], epath, row=row)
                content: Any = error.get("message", "")
                is_error = True
            else:
                rpath = at(where, "result")
                content, is_error = _result(need_mapping(msg["result"], rpath, row=row), rpath, row)
            out.append(
                ToolMessage(
                    content, tool_call_id=call_id, name=names.name_for(call_id), is_error=is_error
                )
            )
            continue
        raise FormatError(
            "expected a request (with 'method') or a response (with 'result' or 'error'), "
            f"got {describe(msg)}",
            field=where,
            row=row,
        )
    return out


def _wire_id(call_id: str) -> int | str:
    # JSON-RPC ids are often integers; "01" must stay a string to read back the same.
    return int(call_id) if call_id.isdigit() and str(int(call_id)) == call_id else call_id


def to_mcp(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Write ``tools/call`` requests and their results; text messages are not written.

    Calls without an id are numbered after the largest numeric id in use;
    a result without a call id answers the oldest unanswered call.

    >>> call = ToolCall("w", {"city": "Paris"}, id="c1")
    >>> [m.get("method", "result") for m in to_mcp([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1", "w")])]
    ['tools/call', 'result']
    """
    used = {
        int(c.id)
        for m in messages
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls
        if c.id is not None and c.id.isdigit()
    }
    next_id = max(used, default=0) + 1
    names = CallNames()
    out: list[dict[str, Any]] = []
    for msg in messages:
        if isinstance(msg, AssistantMessage):
            for call in msg.tool_calls:
                call_id = call.id
                if call_id is None:
                    call_id, next_id = str(next_id), next_id + 1
                names.add_call(call_id, call.name)
                out.append(
                    {
                        "jsonrpc": "2.0",
                        "id": _wire_id(call_id),
                        "method": "tools/call",
                        "params": {"name": call.name, "arguments": dict(call.args or {})},
                    }
                )
        elif isinstance(msg, ToolMessage):
            call_id = names.id_for(msg.tool_call_id)
            names.name_for(call_id)
            if call_id is None:
                raise FormatError(
                    "a tool result answers no call, so it has no JSON-RPC id",
                    field="messages",
                )
            if isinstance(msg.content, str):
                result: dict[str, Any] = {"content": [{"type": "text", "text": msg.content}]}
            elif isinstance(msg.content, list):
                result = {"content": msg.content}
            else:
                result = {
                    "content": [{"type": "text", "text": to_json_text(msg.content)}],
                    "structuredContent": msg.content,
                }
            result["isError"] = msg.is_error
            out.append({"jsonrpc": "2.0", "id": _wire_id(call_id), "result": result})
    return out


def is_jsonrpc_message(data: Any) -> bool:
    """True for one JSON-RPC 2.0 message (a line of an MCP traffic log)."""
    return (
        isinstance(data, Mapping)
        and data.get("jsonrpc") == "2.0"
        and ("method" in data or "result" in data or "error" in data)
    )


class McpLog:
    """An MCP traffic log, one JSON-RPC message per line, read as sessions.

    A session is one connection's traffic: it ends where the next one starts,
    told by an ``initialize`` request or by a request id the session already
    used (a client that reconnected and numbers its requests again). A line
    that cannot be read (a ``tools/call`` without a tool name, a response to
    no request of its session, ...) is reported by :meth:`add` with the
    reason and left out; the rest of its session is kept.

    >>> log = McpLog()
    >>> log.add({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
    ...          "params": {"name": "pay", "arguments": {"usd": 3}}}, line=1)
    >>> log.add({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "down"}}, line=2)
    >>> [(first, [type(m).__name__ for m in msgs]) for first, msgs in log.finish()]
    [(1, ['AssistantMessage', 'ToolMessage'])]
    """

    def __init__(self) -> None:
        self._messages: list[Mapping[str, Any]] = []
        self._first: int | None = None
        self._used: set[str] = set()  # request ids of this session
        self._open: dict[str, Mapping[str, Any]] = {}  # id -> request not answered yet
        self._done: list[tuple[int, list[Message]]] = []

    def add(self, message: Mapping[str, Any], *, line: int) -> None:
        """Add one message; raises FormatError (naming the field) for a line left out."""
        if "method" in message and "id" in message:
            call_id = _id(message["id"], "id", None)
            if message["method"] == "initialize" or call_id in self._used:
                self._close()
            from_mcp([message])  # refuses a bad request before it joins
            self._used.add(call_id)
            self._open[call_id] = message
        elif "method" not in message:
            call_id = _id(message.get("id"), "id", None)
            request = self._open.get(call_id)
            if request is None:
                raise FormatError(
                    f"response id {message.get('id')!r} answers no open request of its session",
                    field="id",
                )
            from_mcp([request, message])  # refuses a bad response before it joins
            del self._open[call_id]
        if self._first is None:
            self._first = line
        self._messages.append(message)

    def _close(self) -> None:
        if self._messages and self._first is not None:
            self._done.append((self._first, from_mcp(self._messages)))
        self._messages, self._first, self._used, self._open = [], None, set(), {}

    def take(self) -> list[tuple[int, list[Message]]]:
        """Sessions that ended so far: ``(first line, messages)``."""
        done, self._done = self._done, []
        return done

    def finish(self) -> list[tuple[int, list[Message]]]:
        """Every session left, the last one included (at the end of the log)."""
        self._close()
        return self.take()
