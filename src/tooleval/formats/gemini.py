"""Google Gemini conversations (``format="gemini"``).

A conversation is ``contents``: ``{"role": "user" | "model", "parts": [...]}``.
``functionCall`` parts (``name``, ``args`` as an object, optional ``id``)
become tool calls; ``functionResponse`` parts (``name``, ``response``,
optional ``id``) become tool messages. The REST API's camelCase and the
Python SDK's snake_case (``function_call``, ``function_response``,
``system_instruction``) are both read. Calls without ids are paired with
their responses by position (the oldest unanswered call first).

By Gemini's convention a response object ``{"output": x}`` holds a result and
``{"error": x}`` a failure: those are unwrapped (``is_error`` set for
``error``); any other response object is kept whole. Thought parts and inline
data carry no text to score and are skipped. Accepted wrappers: a request
(``{"contents": [...], "systemInstruction": {...}}``), a response
(``{"candidates": [{"content": ...}]}``, first candidate), one content, or a
list of contents.

>>> msgs = from_gemini({"contents": [
...     {"role": "user", "parts": [{"text": "weather in Paris?"}]},
...     {"role": "model", "parts": [{"functionCall": {"name": "get_weather",
...       "args": {"city": "Paris"}}}]},
...     {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
...       "response": {"output": "18C"}}}]}]})
>>> msgs[1].tool_calls[0].args, msgs[2].content
({'city': 'Paris'}, '18C')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import CallNames, first_item, listed, read_call
from tooleval.formats._fields import (
    at,
    describe,
    item,
    need_list,
    need_mapping,
    need_str,
    plain,
    sub,
)
from tooleval.model import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["from_gemini", "to_gemini"]

_SKIP_PARTS = (
    "inlineData",
    "inline_data",
    "fileData",
    "file_data",
    "executableCode",
    "executable_code",
    "codeExecutionResult",
    "code_execution_result",
)
_PART_KINDS = ("text", "functionCall", "function_call", "functionResponse", "function_response")


def _contents(
    data: Any, path: str, row: int | None
) -> tuple[list[tuple[str, Any]], tuple[str, Any] | None]:
    """The contents with their relative paths, and the system instruction (path, value)."""
    data = plain(data)
    if isinstance(data, Mapping):
        system = None
        for key in ("systemInstruction", "system_instruction"):
            if key in data:
                system = (key, data[key])
        if "candidates" in data:
            first = first_item(data, "candidates", path, row=row)
            return [("candidates[0].content", first.get("content"))], system
        if "contents" in data:
            return listed(data["contents"], path, "contents", row=row), system
        if "parts" in data:
            return [("", data)], None
        raise FormatError(
            "expected Gemini contents, a request with 'contents' or a response with "
            f"'candidates', got {describe(data)}",
            field=path or None,
            row=row,
        )
    return listed(data, path, "", row=row, what="a list of contents"), None


def _get(part: Mapping[str, Any], camel: str, snake: str) -> tuple[str | None, Any]:
    if camel in part:
        return camel, part[camel]
    if snake in part:
        return snake, part[snake]
    return None, None


def _unwrap(response: Any) -> tuple[Any, bool]:
    if isinstance(response, Mapping) and len(response) == 1:
        if "output" in response:
            return response["output"], False
        if "error" in response:
            return response["error"], True
    return response, False


def from_gemini(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read Gemini contents (list, request, response or one content)."""
    values, system = _contents(data, path, row)
    out: list[Message] = []
    if system is not None:
        system_key, value = system
        spath = sub(path, system_key)
        if isinstance(value, str):
            out.append(SystemMessage(value))
        else:
            texts = _texts(need_mapping(value, spath, row=row), spath, row)
            out.append(SystemMessage("\n".join(texts)))
    names = CallNames()
    for relative, value in values:
        where = sub(path, relative)
        content = need_mapping(value, where, row=row, what="a content object")
        role = content.get("role", "user")
        if role not in ("user", "model", "function", "tool"):
            raise FormatError(
                f"unknown role {role!r}; expected user or model", field=at(where, "role"), row=row
            )
        ppath = at(where, "parts")
        parts = need_list(content.get("parts", []), ppath, row=row)
        texts = []
        calls: list[ToolCall] = []
        results = 0
        for index, raw in enumerate(parts):
            part_path = item(ppath, index)
            part = need_mapping(raw, part_path, row=row, what="a part object")
            if part.get("thought") is True:
                continue  # the model's reasoning, not its answer
            key, call = _get(part, "functionCall", "function_call")
            if key is not None:
                cpath = at(part_path, key)
                call = need_mapping(call, cpath, row=row)
                read = read_call(call, cpath, row=row, args_key="args", args_what="args")
                calls.append(read)
                names.add_call(read.id, read.name)
                continue
            key, response = _get(part, "functionResponse", "function_response")
            if key is not None:
                rpath = at(part_path, key)
                response = need_mapping(response, rpath, row=row)
                name = need_str(
                    response.get("name"), at(rpath, "name"), row=row, what="a tool name"
                )
                call_id = need_str(response.get("id"), at(rpath, "id"), row=row, optional=True)
                result, is_error = _unwrap(response.get("response"))
                names.name_for(call_id)
                out.append(ToolMessage(result, tool_call_id=call_id, name=name, is_error=is_error))
                results += 1
                continue
            if "text" in part:
                texts.append(need_str(part["text"], at(part_path, "text"), row=row))
                continue
            if any(k in part for k in _SKIP_PARTS):
                continue
            raise FormatError(
                f"unknown part {describe(part)}; expected one of {list(_PART_KINDS)}",
                field=part_path,
                row=row,
            )
        text = "\n".join(texts)
        if role == "model":
            out.append(AssistantMessage(text, tuple(calls)))
        elif text or not results:
            out.append(UserMessage(text))
    return out


def _texts(content: Mapping[str, Any], where: str, row: int | None) -> list[str]:
    parts = need_list(content.get("parts", []), at(where, "parts"), row=row)
    texts = []
    for index, raw in enumerate(parts):
        part = need_mapping(raw, item(at(where, "parts"), index), row=row)
        if "text" in part:
            texts.append(
                need_str(part["text"], at(item(at(where, "parts"), index), "text"), row=row)
            )
    return texts


def to_gemini(messages: Sequence[Message]) -> dict[str, Any]:
    """Write a Gemini request body: ``{"systemInstruction"?, "contents": [...]}`` (camelCase).

    A result is wrapped as ``{"output": ...}`` (``{"error": ...}`` when it
    failed); a result without a name gets the name of the call it answers.

    >>> call = ToolCall("w", {"city": "Paris"}, id="c1")
    >>> to_gemini([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1", "w")])["contents"][0]["parts"]
    [{'functionCall': {'name': 'w', 'args': {'city': 'Paris'}, 'id': 'c1'}}]
    """
    system = [m.content for m in messages if isinstance(m, SystemMessage)]
    contents: list[dict[str, Any]] = []
    names = CallNames()
    open_results = False
    for msg in messages:
        if isinstance(msg, UserMessage):
            if open_results:
                contents[-1]["parts"].append({"text": msg.content})
                open_results = False
            else:
                contents.append({"role": "user", "parts": [{"text": msg.content}]})
        elif isinstance(msg, AssistantMessage):
            parts: list[dict[str, Any]] = []
            if msg.content:
                parts.append({"text": msg.content})
            for call in msg.tool_calls:
                body: dict[str, Any] = {"name": call.name, "args": dict(call.args or {})}
                if call.id is not None:
                    body["id"] = call.id
                parts.append({"functionCall": body})
                names.add_call(call.id, call.name)
            contents.append({"role": "model", "parts": parts})
            open_results = False
        elif isinstance(msg, ToolMessage):
            looked_up = names.name_for(msg.tool_call_id)
            body = {"name": msg.name or looked_up or ""}
            if msg.tool_call_id is not None:
                body["id"] = msg.tool_call_id
            body["response"] = {"error" if msg.is_error else "output": msg.content}
            part = {"functionResponse": body}
            if open_results:
                contents[-1]["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
                open_results = True
    out: dict[str, Any] = {}
    if system:
        out["systemInstruction"] = {"parts": [{"text": "\n".join(system)}]}
    out["contents"] = contents
    return out
