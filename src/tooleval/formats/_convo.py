"""Helpers shared by importers and exporters: tool-name tracking, text parts,
indexed lists and tool calls given as a name, an optional id and object arguments.

>>> names = CallNames()
>>> names.add_call("c1", "get_weather")
>>> names.add_call(None, "get_time")
>>> names.name_for("c1"), names.name_for(None)
('get_weather', 'get_time')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._fields import at, describe, item, need_list, need_mapping, need_str, sub
from tooleval.model import AssistantMessage, Message, ToolCall, ToolMessage

__all__ = [
    "CallNames",
    "error_flag",
    "first_item",
    "first_user_text",
    "join_text",
    "listed",
    "name_results",
    "object_args",
    "read_call",
]


class CallNames:
    """Remembers the calls seen so far, so a tool result can be given its tool's name.

    Results are looked up by call id, else (formats without ids, such as
    Gemini and ragas) by position: the oldest call that has no result yet.
    """

    def __init__(self) -> None:
        self._by_id: dict[str, str] = {}
        self._pending: list[tuple[str | None, str]] = []

    def add_call(self, call_id: str | None, name: str) -> None:
        if call_id is not None:
            self._by_id[call_id] = name
        self._pending.append((call_id, name))

    def name_for(self, call_id: str | None) -> str | None:
        """The tool name for a result, consuming the matching pending call."""
        if call_id is not None:
            for index, (pending_id, _) in enumerate(self._pending):
                if pending_id == call_id:
                    del self._pending[index]
                    break
            return self._by_id.get(call_id)
        if self._pending:
            return self._pending.pop(0)[1]
        return None

    def id_for(self, call_id: str | None) -> str | None:
        """The call id a result without id answers (the oldest pending call's)."""
        if call_id is not None:
            return call_id
        return self._pending[0][0] if self._pending else None


def name_results(messages: Iterable[Message]) -> list[Message]:
    """Give every ``ToolMessage`` without a ``name`` the name of the call it answers.

    >>> call = ToolCall("get_weather", {}, id="c1")
    >>> name_results([AssistantMessage("", tool_calls=[call]), ToolMessage("18C", "c1")])[1].name
    'get_weather'
    """
    names = CallNames()
    out: list[Message] = []
    for msg in messages:
        if isinstance(msg, AssistantMessage):
            for call in msg.tool_calls:
                names.add_call(call.id, call.name)
        elif isinstance(msg, ToolMessage):
            name = names.name_for(msg.tool_call_id)
            if msg.name is None and name is not None:
                msg = ToolMessage(msg.content, msg.tool_call_id, name, msg.is_error)
        out.append(msg)
    return out


def join_text(
    parts: Any,
    path: str,
    *,
    row: int | None,
    text_types: Iterable[str] = ("text",),
    skip_types: Iterable[str] = (),
    text_key: str = "text",
) -> str:
    """Join the text of a content value that is a string or a list of typed parts.

    Parts whose type is in ``skip_types`` (images, reasoning, ...) carry no
    text for scoring and are skipped; an unknown part type is an error.

    >>> parts = [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
    >>> join_text(parts, "content", row=None, skip_types=("image",))
    'a\\nb'
    """
    if parts is None:
        return ""
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list | tuple):
        raise FormatError(
            f"expected a string or a list of content parts, got {describe(parts)}",
            field=path or None,
            row=row,
        )
    texts = set(text_types)
    skips = set(skip_types)
    pieces: list[str] = []
    for index, part in enumerate(parts):
        where = item(path, index)
        if isinstance(part, str):
            pieces.append(part)
            continue
        if not isinstance(part, Mapping):
            raise FormatError(
                f"expected a content part object, got {describe(part)}", field=where, row=row
            )
        kind = part.get("type")
        if kind in texts:
            text = part.get(text_key)
            if not isinstance(text, str):
                raise FormatError(
                    f"expected a string, got {describe(text)}", field=f"{where}.{text_key}", row=row
                )
            pieces.append(text)
        elif kind in skips:
            continue
        else:
            known = sorted(texts | skips)
            raise FormatError(
                f"unknown content part type {kind!r}; expected one of {known}",
                field=f"{where}.type",
                row=row,
            )
    return "\n".join(pieces)


def first_user_text(messages: Iterable[Message]) -> str:
    """The content of the first user message ("" when there is none).

    >>> from tooleval.model import SystemMessage, UserMessage
    >>> first_user_text([SystemMessage("be brief"), UserMessage("hi"), UserMessage("again")])
    'hi'
    """
    from tooleval.model import UserMessage

    for msg in messages:
        if isinstance(msg, UserMessage):
            return msg.content
    return ""


def listed(
    value: Any, path: str, key: str, *, row: int | None, what: str = "a list"
) -> list[tuple[str, Any]]:
    """The items of the list ``value`` found at ``key``, each with its path relative to ``path``.

    >>> listed(["hi", "ok"], "", "messages", row=None)
    [('messages[0]', 'hi'), ('messages[1]', 'ok')]
    """
    values = need_list(value, sub(path, key), row=row, what=what)
    return [(f"{key}[{i}]", v) for i, v in enumerate(values)]


def first_item(
    data: Mapping[str, Any], key: str, path: str, *, row: int | None
) -> Mapping[str, Any]:
    """The first object of a response's ``key`` list (``choices``, ``candidates``).

    >>> first_item({"choices": [{"message": {}}]}, "choices", "", row=None)
    {'message': {}}
    """
    items = need_list(data[key], sub(path, key), row=row)
    if not items:
        raise FormatError(f"the response has no {key}", field=sub(path, key), row=row)
    return need_mapping(items[0], sub(path, f"{key}[0]"), row=row)


def error_flag(entry: Mapping[str, Any], key: str, path: str, *, row: int | None) -> bool:
    """The boolean ``entry[key]`` (False when absent) saying whether a tool result failed.

    >>> error_flag({"is_error": True}, "is_error", "", row=None)
    True
    """
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise FormatError(
            f"expected true or false, got {describe(value)}", field=at(path, key), row=row
        )
    return value


def object_args(value: Any, path: str, *, row: int | None, what: str) -> Mapping[str, Any] | None:
    """``value`` if it is an object or None; otherwise "expected ``what`` as an object".

    >>> object_args([1], "args", row=2, what="the arguments")
    Traceback (most recent call last):
    tooleval.errors.FormatError: row 2, field args: expected the arguments as an object, got a list of 1 item(s), the first a number (1)
    """
    if value is not None and not isinstance(value, Mapping):
        raise FormatError(
            f"expected {what} as an object, got {describe(value)}", field=path, row=row
        )
    return value


def read_call(
    entry: Mapping[str, Any], path: str, *, row: int | None, args_key: str, args_what: str
) -> ToolCall:
    """A call given as ``name``, optional ``id`` and object arguments under ``args_key``.

    >>> call = read_call({"name": "w", "id": "c1", "input": {"q": 1}}, "", row=None,
    ...                  args_key="input", args_what="the tool input")
    >>> call.name, call.args, call.id
    ('w', {'q': 1}, 'c1')
    """
    name = need_str(entry.get("name"), at(path, "name"), row=row, what="a tool name")
    call_id = need_str(entry.get("id"), at(path, "id"), row=row, optional=True)
    args = object_args(entry.get(args_key), at(path, args_key), row=row, what=args_what)
    return ToolCall.parse(name, args, id=call_id)
