"""ragas ``MultiTurnSample`` dicts (``format="ragas"``).

``user_input`` is a list of messages ``{"type": "human" | "ai" | "tool",
"content": str}`` (the class names ``HumanMessage``, ``AIMessage``,
``ToolMessage`` are accepted too); AI messages carry ``tool_calls`` as
``[{"name", "args"}]``. ragas tool messages have no call id, so results
answer calls by position. ``reference_tool_calls`` becomes
``expected_tools``; ``reference`` and ``reference_topics`` keep their names;
``rubrics`` goes to ``metadata``. A live ``MultiTurnSample`` (pydantic) is
read through ``model_dump``.

ragas has no system message: ``to_ragas`` leaves system messages out.

>>> sample = sample_from_ragas({"user_input": [
...     {"type": "human", "content": "weather in Oslo?"},
...     {"type": "ai", "content": "", "tool_calls": [{"name": "weather", "args": {"city": "Oslo"}}]},
...     {"type": "tool", "content": "rain"}],
...     "reference_tool_calls": [{"name": "weather", "args": {"city": "Oslo"}}]})
>>> sample.input, sample.actual_calls()[0].result, sample.expected_tools.names
('weather in Oslo?', 'rain', ['weather'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._convo import CallNames, first_user_text, join_text
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
from tooleval.formats.expected import call_from_value, parse_expected_tools
from tooleval.model import (
    AssistantMessage,
    Message,
    Sample,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

__all__ = ["from_ragas", "sample_from_ragas", "sample_to_ragas", "to_ragas", "SAMPLE_KEYS"]

_TYPES = {
    "human": "human",
    "HumanMessage": "human",
    "ai": "ai",
    "AIMessage": "ai",
    "tool": "tool",
    "ToolMessage": "tool",
}
SAMPLE_KEYS = ("user_input", "reference", "reference_tool_calls", "reference_topics", "rubrics")


def from_ragas(data: Any, *, path: str = "", row: int | None = None) -> list[Message]:
    """Read ragas messages: a ``MultiTurnSample`` dict (or object), or its ``user_input`` list."""
    data = plain(data)
    relative = ""
    if isinstance(data, Mapping) and "user_input" in data:
        data, relative = data["user_input"], "user_input"
    base = sub(path, relative)
    values = need_list(data, base, row=row, what="a list of ragas messages")
    names = CallNames()
    out: list[Message] = []
    for index, value in enumerate(values):
        where = item(base, index)
        msg = need_mapping(plain(value), where, row=row, what="a ragas message")
        kind = _TYPES.get(msg["type"]) if isinstance(msg.get("type"), str) else None
        if kind is None:
            raise FormatError(
                f"unknown ragas message type {msg.get('type')!r}; expected human, ai or tool",
                field=at(where, "type"),
                row=row,
            )
        content = msg.get("content", "")
        cpath = at(where, "content")
        if kind == "human":
            out.append(UserMessage(join_text(content, cpath, row=row)))
        elif kind == "ai":
            tpath = at(where, "tool_calls")
            calls = tuple(
                call_from_value(c, item(tpath, i), row=row, expected=False)
                for i, c in enumerate(need_list(msg.get("tool_calls") or [], tpath, row=row))
            )
            for call in calls:
                names.add_call(call.id, call.name)
            text = need_str(content, cpath, row=row, optional=True) or ""
            out.append(AssistantMessage(text, calls))
        else:
            out.append(ToolMessage(content, name=names.name_for(None)))
    return out


def to_ragas(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Write ragas ``user_input`` messages (system messages are left out).

    >>> to_ragas([UserMessage("weather?"), AssistantMessage("It is 18C.")])
    [{'type': 'human', 'content': 'weather?'}, {'type': 'ai', 'content': 'It is 18C.'}]
    """
    out: list[dict[str, Any]] = []
    for msg in messages:
        if isinstance(msg, SystemMessage):
            continue
        if isinstance(msg, UserMessage):
            out.append({"type": "human", "content": msg.content})
        elif isinstance(msg, AssistantMessage):
            entry: dict[str, Any] = {"type": "ai", "content": msg.content}
            if msg.tool_calls:
                entry["tool_calls"] = [
                    {"name": c.name, "args": dict(c.args or {})} for c in msg.tool_calls
                ]
            out.append(entry)
        elif isinstance(msg, ToolMessage):
            text = "" if msg.content is None else to_json_text(msg.content)
            out.append({"type": "tool", "content": text})
    return out


def sample_from_ragas(data: Any, *, path: str = "", row: int | None = None) -> Sample:
    """Read a whole ``MultiTurnSample``: messages plus its references."""
    data = need_mapping(plain(data), path, row=row, what="a MultiTurnSample object")
    messages = from_ragas(data, path=path, row=row)
    topics = data.get("reference_topics")
    if topics is not None:
        tpath = at(path, "reference_topics")
        topics = [
            need_str(t, item(tpath, i), row=row)
            for i, t in enumerate(need_list(topics, tpath, row=row))
        ]
    reference = need_str(data.get("reference"), at(path, "reference"), row=row, optional=True)
    metadata: dict[str, Any] = {}
    if data.get("rubrics") is not None:
        rubrics = data["rubrics"]
        if not isinstance(rubrics, Mapping):
            raise FormatError(
                f"expected rubrics as an object, got {describe(rubrics)}",
                field=at(path, "rubrics"),
                row=row,
            )
        metadata["rubrics"] = dict(rubrics)
    return Sample(
        input=first_user_text(messages),
        messages=messages,
        expected_tools=parse_expected_tools(
            data.get("reference_tool_calls"), field=at(path, "reference_tool_calls"), row=row
        ),
        reference=reference,
        reference_topics=topics,
        metadata=metadata,
    )


def sample_to_ragas(sample: Sample) -> dict[str, Any]:
    """Write a ``MultiTurnSample`` dict (references included when set)."""
    out: dict[str, Any] = {"user_input": to_ragas(sample.messages)}
    if sample.reference is not None:
        out["reference"] = sample.reference
    if sample.expected_tools is not None:
        out["reference_tool_calls"] = [
            {"name": c.name, "args": dict(c.args or {})} for c in sample.expected_tools.calls
        ]
    if sample.reference_topics is not None:
        out["reference_topics"] = list(sample.reference_topics)
    if "rubrics" in sample.metadata:
        out["rubrics"] = sample.metadata["rubrics"]
    return out
