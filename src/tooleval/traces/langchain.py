"""LangChain / LangGraph values as OpenInference records them, unwrapped.

openinference-instrumentation-langchain writes LangChain objects as JSON into
``input.value`` / ``output.value``:

* a TOOL span's ``output.value`` is the whole ``ToolMessage`` envelope
  (``{"type": "tool", "data": {"content", "tool_call_id", "status"}}``);
  :func:`unwrap_tool_message` returns the content, the call id and whether
  ``status`` is ``"error"``;
* a one-argument tool's ``input.value`` is the bare value (``"Paris"``), so the
  call is joined to the model's ``{"city": "Paris"}`` request by that id;
* LangGraph's ``tools`` node span has ``input.value`` =
  ``{"__type": "tool_call_with_context", "tool_call": {"name", "args", "id"}}``
  (:func:`tool_call_with_context`), which names the call even when the tool
  raised and wrote no output;
* LangGraph's ``tools`` node is a CHAIN span: :class:`LangChain` reads the
  call it names and the tool messages it returns (responses joined by id);
* graph spans carry the whole state (``{"messages": [...]}``);
  :func:`conversation_text` picks the first user text and the last assistant
  answer out of it, whatever serialisation the messages use
  (``["user", "hi"]``, ``{"type": "human", "data": {...}}``,
  ``{"lc": 1, "kwargs": {...}}``, ``{"role": "user", "content": ...}``).

>>> unwrap_tool_message({"type": "tool", "data": {"content": "{\\"t\\": 20}",
...     "tool_call_id": "call_1", "status": "success"}})
({'t': 20}, 'call_1', False)
>>> conversation_text({"messages": [["user", "Weather?"], {"type": "ai", "data":
...     {"content": "Sunny.", "tool_calls": []}}]})
('Weather?', 'Sunny.')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tooleval.traces.facts import Convention, SpanFacts, maybe_json, result_is_error
from tooleval.traces.otlp import OtlpSpan, loads

__all__ = [
    "LangChain",
    "conversation_text",
    "message_role_text",
    "tool_call_with_context",
    "unwrap_tool_message",
]

_USER = {"user", "human", "HumanMessage", "HumanMessageChunk"}
_ASSISTANT = {"assistant", "ai", "AIMessage", "AIMessageChunk"}


def _json(value: Any) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return loads(value)
        except ValueError:
            return value
    return value


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        texts = []
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, Mapping) and block.get("type") == "text":
                texts.append(str(block.get("text") or ""))
        return "\n".join(t for t in texts if t)
    return ""


def message_role_text(message: Any) -> tuple[str | None, str, bool]:
    """``(role, text, has_tool_calls)`` of one serialised LangChain message."""
    if isinstance(message, list | tuple) and len(message) == 2 and isinstance(message[0], str):
        role = message[0]
        return (
            ("user" if role in _USER else "assistant" if role in _ASSISTANT else role),
            (_content_text(message[1])),
            False,
        )
    if not isinstance(message, Mapping):
        return None, "", False
    data = message
    if "kwargs" in message and message.get("lc"):
        data = message["kwargs"] or {}
        kind = data.get("type") or (message.get("id") or [None])[-1]
    elif isinstance(message.get("data"), Mapping):
        data = message["data"]
        kind = message.get("type") or data.get("type")
    else:
        kind = message.get("role") or message.get("type")
    role = "user" if kind in _USER else "assistant" if kind in _ASSISTANT else kind
    tool_calls = bool(data.get("tool_calls")) or bool(
        (data.get("additional_kwargs") or {}).get("tool_calls")
    )
    return role, _content_text(data.get("content")), tool_calls


def conversation_text(value: Any) -> tuple[str | None, str | None]:
    """The first user text and the last assistant answer of a graph state, if any."""
    data = _json(value)
    messages = data.get("messages") if isinstance(data, Mapping) else None
    if not isinstance(messages, list):
        return None, None
    user = answer = None
    for message in messages:
        role, text, tool_calls = message_role_text(message)
        if role == "user" and user is None and text:
            user = text
        elif role == "assistant" and text and not tool_calls:
            answer = text
    return user, answer


def unwrap_tool_message(value: Any) -> tuple[Any, str | None, bool]:
    """``(content, tool_call_id, is_error)`` of a ToolMessage envelope; other values as is."""
    data = _json(value)
    if isinstance(data, Mapping):
        inner = data.get("data") if isinstance(data.get("data"), Mapping) else None
        if "kwargs" in data and data.get("lc"):
            inner = data.get("kwargs") if isinstance(data.get("kwargs"), Mapping) else None
        kind = data.get("type") or (inner or {}).get("type")
        if inner is not None and kind == "tool" and "content" in inner:
            call_id = inner.get("tool_call_id") or None
            is_error = inner.get("status") == "error"
            return _json(inner.get("content")), call_id, is_error
    return value, None, False


def tool_call_with_context(value: Any) -> dict[str, Any] | None:
    """``{"call_id", "name", "arguments"}`` from a LangGraph tools-node input, else None."""
    data = _json(value)
    if not isinstance(data, Mapping):
        return None
    call = data.get("tool_call")
    if data.get("__type") != "tool_call_with_context" or not isinstance(call, Mapping):
        return None
    if not call.get("name"):
        return None
    return {
        "call_id": call.get("id") or None,
        "name": str(call["name"]),
        "arguments": call.get("args"),
    }


class LangChain(Convention):
    """LangGraph's ``tools`` node (an OpenInference CHAIN span): call hints and tool messages."""

    name = "langchain"
    marker_keys = ("openinference.span.kind",)

    def read(self, span: OtlpSpan, facts: SpanFacts) -> None:
        a = span.attributes
        if str(a.get("openinference.span.kind", "")).upper() != "CHAIN":
            return
        hint = tool_call_with_context(a.get("input.value"))
        if hint is not None:
            facts.call_hints.append(hint)
        output = maybe_json(a.get("output.value"))
        messages = output.get("messages") if isinstance(output, Mapping) else None
        for message in messages if isinstance(messages, list) else ():
            content, call_id, is_error = unwrap_tool_message(message)
            if call_id:
                facts.responses.append(
                    {
                        "call_id": call_id,
                        "result": content,
                        "is_error": is_error or result_is_error(content),
                    }
                )
