"""Import any supported conversation into tooleval's model, and export it back.

>>> chat = [{"role": "user", "content": "hi"},
...         {"role": "assistant", "content": None, "tool_calls": [{"id": "1",
...          "type": "function", "function": {"name": "greet", "arguments": "{}"}}]}]
>>> sample = import_conversation(chat)
>>> sample.input, [c.name for c in sample.actual_calls()]
('hi', ['greet'])
>>> export_messages(sample.messages, "anthropic")["messages"][1]["content"][0]["type"]
'tool_use'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.errors import ConfigError, FormatError
from tooleval.formats import anthropic, canonical, gemini, langchain, mcp, openai, ragas
from tooleval.formats._convo import first_user_text
from tooleval.formats.detect import FORMATS, detect
from tooleval.model import Message, Sample

__all__ = ["FormatSpec", "export_messages", "get_format", "import_conversation", "import_messages"]


@dataclass(frozen=True)
class FormatSpec:
    """How to read and write one format."""

    name: str
    description: str
    read: Callable[..., list[Message]]
    write: Callable[..., Any]


_SPECS = {
    spec.name: spec
    for spec in (
        FormatSpec(
            "canonical",
            "tooleval's own messages (Message.to_dict())",
            canonical.from_canonical,
            canonical.to_canonical,
        ),
        FormatSpec(
            "openai_chat",
            "OpenAI Chat Completions messages, request or response",
            openai.from_chat,
            openai.to_chat,
        ),
        FormatSpec(
            "anthropic",
            "Anthropic Messages (tool_use / tool_result blocks)",
            anthropic.from_anthropic,
            anthropic.to_anthropic,
        ),
        FormatSpec(
            "openai_responses",
            "OpenAI Responses items (function_call / function_call_output)",
            openai.from_responses,
            openai.to_responses,
        ),
        FormatSpec(
            "gemini",
            "Gemini contents (functionCall / functionResponse parts)",
            gemini.from_gemini,
            gemini.to_gemini,
        ),
        FormatSpec(
            "langchain",
            "LangChain messages (messages_to_dict, dumpd, live objects)",
            langchain.from_langchain,
            langchain.to_langchain,
        ),
        FormatSpec("mcp", "MCP tools/call JSON-RPC requests and results", mcp.from_mcp, mcp.to_mcp),
        FormatSpec(
            "ragas", "ragas MultiTurnSample (user_input messages)", ragas.from_ragas, ragas.to_ragas
        ),
    )
}


def get_format(name: str) -> FormatSpec:
    """The reader and writer of a format by name.

    >>> get_format("anthropic").description.split(" ")[0]
    'Anthropic'
    """
    try:
        return _SPECS[name]
    except KeyError:
        raise ConfigError(
            f"unknown format {name!r}; expected one of {list(FORMATS)}", field="format"
        ) from None


def import_messages(
    data: Any, format: str | None = None, *, path: str = "", row: int | None = None
) -> list[Message]:
    """Read a conversation into tooleval messages, detecting the format when not given.

    ``path`` and ``row`` say where ``data`` sits (for error messages), e.g.
    ``path="messages", row=12`` when it is a dataset cell.

    >>> [type(m).__name__ for m in import_messages([{"role": "user", "content": "hi"}])]
    ['UserMessage']
    """
    name = format or _detect_at(data, path, row)
    messages: list[Message] = _read(get_format(name).read, name, data, path, row)
    return messages


def _read(reader: Callable[..., Any], name: str, data: Any, path: str, row: int | None) -> Any:
    """Call a reader; a crash on foreign data becomes a FormatError naming where it was.

    Readers check shapes and raise FormatError themselves; this is the boundary
    for a shape they missed (a list where a role string was expected, ...), so
    that one odd value is one row's named error, never a traceback.
    """
    try:
        return reader(data, path=path, row=row)
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError) as exc:
        raise FormatError(
            f"cannot read this {name} conversation ({type(exc).__name__}: {exc})",
            field=path or None,
            row=row,
        ) from None


def import_conversation(
    data: Any, format: str | None = None, *, path: str = "", row: int | None = None
) -> Sample:
    """Read a conversation into a :class:`~tooleval.model.Sample`.

    ``input`` is the first user message; a ragas ``MultiTurnSample`` also
    brings its ``reference_tool_calls`` (as ``expected_tools``),
    ``reference`` and ``reference_topics``.
    """
    name = format or _detect_at(data, path, row)
    if name == "ragas":
        from tooleval.formats._fields import plain

        value = plain(data)
        if isinstance(value, dict) and "user_input" in value:
            return ragas.sample_from_ragas(value, path=path, row=row)
    messages = _read(get_format(name).read, name, data, path, row)
    return Sample(input=first_user_text(messages), messages=messages)


def export_messages(messages: Sequence[Message], format: str, **options: Any) -> Any:
    """Write tooleval messages in a foreign format (the inverse of :func:`import_messages`).

    Returns a list of messages for ``canonical``, ``openai_chat``,
    ``openai_responses``, ``langchain``, ``mcp`` and ``ragas`` (its
    ``user_input``); a request body ``{"system"?, "messages"}`` for
    ``anthropic`` and ``{"systemInstruction"?, "contents"}`` for ``gemini``.
    ``options`` go to the writer (``shape=`` for LangChain).
    """
    spec = get_format(format)
    accepted = set(inspect.signature(spec.write).parameters) - {"messages"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ConfigError(
            f"format {format!r} takes no option(s) {unknown}; it takes {sorted(accepted)}",
            field="options",
        )
    return spec.write(messages, **options)


def _detect_at(data: Any, path: str, row: int | None) -> str:
    try:
        return detect(data)
    except FormatError as exc:
        raise exc.with_context(field=path or None, row=row) from None
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError) as exc:
        raise FormatError(
            f"cannot tell the conversation's format ({type(exc).__name__}: {exc})",
            field=path or None,
            row=row,
        ) from None
