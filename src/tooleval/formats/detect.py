"""Tell which conversation format a value is in.

Each message (or item, content, JSON-RPC message) is checked on its own for
the formats it could belong to; the format of the whole value is the one all
messages agree on. Many plain messages fit several formats (``{"role":
"user", "content": "hi"}`` is valid Chat Completions, Anthropic, Responses
and canonical input, and all of them read it the same way); ties go to the
first format in :data:`FORMATS`, so plain messages without tool traffic are
reported as ``"canonical"``.

>>> detect([{"role": "assistant", "tool_calls": [{"id": "1", "type": "function",
...          "function": {"name": "f", "arguments": "{}"}}]}])
'openai_chat'
>>> detect({"contents": [{"role": "model", "parts": [{"text": "hi"}]}]})
'gemini'
>>> detect([{"role": "user", "content": "hi"}])
'canonical'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import FormatError
from tooleval.formats._fields import describe, plain
from tooleval.formats.anthropic import BLOCK_TYPES
from tooleval.formats.langchain import is_langchain_message
from tooleval.formats.openai import RESPONSES_ITEM_TYPES

__all__ = ["FORMATS", "detect", "candidates"]

#: Every format tooleval reads, in tie-breaking order.
FORMATS = (
    "canonical",
    "openai_chat",
    "anthropic",
    "openai_responses",
    "gemini",
    "ragas",
    "langchain",
    "mcp",
)

_ALL = frozenset(FORMATS)
_LANGCHAIN_TYPES = {
    "human",
    "ai",
    "system",
    "tool",
    "function",
    "chat",
    "HumanMessage",
    "AIMessage",
    "SystemMessage",
    "ToolMessage",
    "FunctionMessage",
    "ChatMessage",
    "AIMessageChunk",
    "HumanMessageChunk",
}
_RAGAS_TYPES = {"human", "ai", "tool", "HumanMessage", "AIMessage", "ToolMessage"}
_LANGCHAIN_ONLY_KEYS = {
    "additional_kwargs",
    "response_metadata",
    "tool_call_id",
    "status",
    "invalid_tool_calls",
    "usage_metadata",
    "artifact",
}
_BY_ROLE = {
    "system": {"canonical", "openai_chat", "openai_responses"},
    "developer": {"openai_chat", "openai_responses"},
    "user": {"canonical", "openai_chat", "openai_responses", "anthropic"},
    "assistant": {"canonical", "openai_chat", "openai_responses", "anthropic"},
    "tool": {"canonical", "openai_chat"},
    "function": {"openai_chat"},
}
_PART_FORMATS: dict[str, set[str]] = {
    "text": {"openai_chat", "anthropic"},
    "image_url": {"openai_chat"},
    "input_audio": {"openai_chat"},
    "file": {"openai_chat"},
    "refusal": {"openai_chat", "openai_responses"},
    "input_text": {"openai_responses"},
    "output_text": {"openai_responses"},
    "input_image": {"openai_responses"},
    "input_file": {"openai_responses"},
}
for _block in BLOCK_TYPES:
    _PART_FORMATS.setdefault(_block, set()).add("anthropic")


def _content_formats(content: Any, role: Any) -> set[str]:
    if content is None:
        return {"canonical", "openai_chat", "openai_responses", "anthropic"}
    if isinstance(content, str):
        return set(_ALL)
    if isinstance(content, list):
        allowed = set(_ALL) - {"canonical"}
        for part in content:
            if isinstance(part, Mapping):
                allowed &= _PART_FORMATS.get(_name(part.get("type")) or "", set())  # no "" key
            else:
                allowed = set()
        if role == "tool":
            allowed.add("canonical")  # canonical tool results may be any JSON value
        return allowed
    return {"canonical"} if role == "tool" else set()


# The keys tooleval's canonical reader accepts per role (it refuses any other).
_CANONICAL_KEYS = {
    "system": frozenset({"role", "content"}),
    "user": frozenset({"role", "content"}),
    "assistant": frozenset({"role", "content", "tool_calls"}),
    "tool": frozenset({"role", "content", "tool_call_id", "name", "is_error"}),
}


# The roles the Gemini reader takes (a content without one is the user's).
_GEMINI_ROLES = frozenset({"user", "model", "function", "tool"})


def _name(value: Any) -> str | None:
    """A role or type as the lookups take it: text, else None (a list is no role)."""
    return value if isinstance(value, str) else None


def _role_message(msg: Mapping[str, Any]) -> set[str]:
    role = _name(msg.get("role"))
    if role is None:
        return set()  # no format has a role that is not text
    if msg.get("type") == "message":
        found = {"openai_responses", "anthropic"}
    elif role == "model":
        return {"gemini"} if "parts" in msg else set()
    else:
        found = set(_BY_ROLE.get(role, ()))
    found &= _content_formats(msg.get("content"), role)
    tool_calls = msg.get("tool_calls")
    if tool_calls:
        entries = (
            [c for c in tool_calls if isinstance(c, Mapping)]
            if isinstance(tool_calls, list)
            else []
        )
        if any("function" in c or c.get("type") in ("function", "custom") for c in entries):
            found &= {"openai_chat"}
        elif entries and all("name" in c for c in entries):
            found &= {"canonical"}
        else:
            found = set()
    if "function_call" in msg:
        found &= {"openai_chat"}
    if "is_error" in msg:
        found &= {"canonical", "openai_chat"}
    if "tool_call_id" in msg:
        found &= {"canonical", "openai_chat"}
    allowed = _CANONICAL_KEYS.get(role)
    if "canonical" in found and (allowed is None or not allowed.issuperset(msg)):
        found.discard("canonical")  # the canonical reader refuses keys it does not know
    return found


def candidates(value: Any) -> set[str]:
    """The formats one message (or item, content, JSON-RPC message) could be in.

    >>> sorted(candidates({"role": "model", "parts": [{"text": "x"}]})), candidates({"jsonrpc": "2.0"})
    (['gemini'], {'mcp'})
    """
    if is_langchain_message(value):
        return {"langchain"}
    value = plain(value)
    if not isinstance(value, Mapping):
        return set()
    kind = _name(value.get("type"))
    if "jsonrpc" in value:
        return {"mcp"}
    if value.get("lc") == 1 and kind == "constructor":
        return {"langchain"}
    if "data" in value and kind in _LANGCHAIN_TYPES:
        return {"langchain"}
    if "parts" in value:
        role = value.get("role", "user")
        return {"gemini"} if _name(role) in _GEMINI_ROLES else set()
    if "role" in value:
        return _role_message(value)
    if kind in RESPONSES_ITEM_TYPES:
        return {"openai_responses"}
    if kind in _LANGCHAIN_TYPES:
        found = {"langchain"}
        calls = value.get("tool_calls") or []
        with_ids = isinstance(calls, list) and any(
            isinstance(c, Mapping) and "id" in c for c in calls
        )
        if kind in _RAGAS_TYPES and not (_LANGCHAIN_ONLY_KEYS & set(value)) and not with_ids:
            found.add("ragas")
        return found
    return set()


def _pick(found: set[str]) -> str:
    return next(name for name in FORMATS if name in found)


def _from_list(values: Sequence[Any], where: str) -> str:
    if not values:
        return "canonical"
    agreed = set(_ALL)
    seen: list[set[str]] = []  # formatted only for an error message
    for index, value in enumerate(values):
        found = candidates(value)
        if not found:
            raise FormatError(
                f"cannot tell the format: element {index} matches none of {list(FORMATS)}; "
                f"saw {describe(plain(value))}",
                field=where or None,
            )
        if not agreed & found:
            raise FormatError(
                f"cannot tell the format: element {index} looks like {sorted(found)} but the "
                f"elements before it like {sorted(agreed)} ("
                + "; ".join(f"[{i}] {sorted(f)}" for i, f in enumerate(seen) if i >= index - 3)
                + ")",
                field=where or None,
            )
        agreed &= found
        seen.append(found)
    return _readable(values, agreed)


_readers: dict[str, Any] = {}  # format name -> reader, filled on first use


def _load_readers() -> dict[str, Any]:
    from tooleval.formats.convert import get_format  # convert imports this module

    _readers.update({name: get_format(name).read for name in FORMATS})
    return _readers


def _readable(values: Sequence[Any], agreed: set[str]) -> str:
    """The first agreed format (in :data:`FORMATS` order) whose reader accepts ``values``.

    The per-message checks above cannot see every rule a reader enforces (a
    required field, a value type), so the pick is confirmed by reading:
    ``detect()`` never names a format its reader refuses while another
    candidate's reader accepts the value. When none accepts it, the first
    candidate is named and its reader reports the precise error.
    """
    ordered = [name for name in FORMATS if name in agreed]
    if len(ordered) > 1:
        readers = _readers or _load_readers()
        for name in ordered:
            try:
                readers[name](values)
            except FormatError:
                continue
            return name
    return ordered[0]


def detect(data: Any) -> str:
    """The name of the format ``data`` is in (one of :data:`FORMATS`).

    Raises :class:`~tooleval.errors.FormatError` listing the known formats
    and describing what was seen when nothing fits.
    """
    if is_langchain_message(data):
        return "langchain"
    data = plain(data)
    if isinstance(data, Mapping):
        if "user_input" in data:
            return "ragas"
        if "jsonrpc" in data:
            return "mcp"
        if any(k in data for k in ("contents", "candidates")):
            return "gemini"
        if "choices" in data:
            return "openai_chat"
        if data.get("object") == "response" or (
            "messages" not in data and ("output" in data or "input" in data)
        ):
            return "openai_responses"
        if "messages" in data:
            messages = data["messages"]
            if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
                raise FormatError(
                    f"expected a list of messages, got {describe(messages)}", field="messages"
                )
            if "system" in data:
                found = _from_list(messages, "messages")
                if found in ("canonical", "openai_chat") and all(
                    "anthropic" in candidates(m) for m in messages
                ):
                    return "anthropic"
                return found
            return _from_list(messages, "messages")
        if candidates(data):
            return _pick(candidates(data))
        raise FormatError(
            f"cannot tell the format of {describe(data)}; expected one of {list(FORMATS)}: "
            "a list of messages, or an object with 'messages', 'contents', 'choices', "
            "'output', 'user_input' or 'jsonrpc'"
        )
    if isinstance(data, str | bytes) or not isinstance(data, Sequence):
        raise FormatError(
            f"cannot tell the format of {describe(data)}; expected a list of messages or an "
            f"object in one of {list(FORMATS)}"
        )
    return _from_list(list(data), "")
