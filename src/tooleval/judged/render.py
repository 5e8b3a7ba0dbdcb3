"""One plain-text rendering of a conversation, shared by every judged prompt.

Tool calls are numbered ``#1, #2, ...`` in the order of
:meth:`Sample.actual_calls`, so a judge can point at a call by number and the
metric can map the number back. Each call shows its arguments as JSON, its
result and an ``ERROR`` flag when the tool reported a failure; unparsable
argument strings are shown raw with the parse problem.

>>> from tooleval.model import Sample, ToolCall
>>> sample = Sample(input="Cancel order 4471",
...                 tools_called=[ToolCall("cancel_order", {"order_id": "4417"},
...                                        result="order not found", is_error=True)],
...                 output="Done, your order is cancelled.")
>>> print(render_conversation(sample))
USER: Cancel order 4471
TOOL CALL #1: cancel_order({"order_id": "4417"})
TOOL RESULT #1 [ERROR]: order not found
ASSISTANT: Done, your order is cancelled.
"""

from __future__ import annotations

import json
from typing import Any

from tooleval.model import (
    AssistantMessage,
    Sample,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

__all__ = ["reference_outcome", "render_call", "render_conversation", "render_value"]


def reference_outcome(sample: Sample, reference: str | None = None) -> str | None:
    """The expected outcome to judge against: ``reference``, else ``sample.reference``.

    Blank text counts as none, so the judge is never shown an empty reference.

    >>> reference_outcome(Sample(input="hi", reference="  refund issued "))
    'refund issued'
    >>> reference_outcome(Sample(input="hi", reference="x"), "   ") is None
    True
    """
    ref = reference if reference is not None else sample.reference
    return ref.strip() if isinstance(ref, str) and ref.strip() else None


def render_value(value: Any, *, max_chars: int = 2000) -> str:
    """A tool result or argument as compact text, cut at ``max_chars``."""
    if value is None:
        text = "(no result recorded)"
    elif isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    if len(text) > max_chars:
        text = f"{text[:max_chars]}... [{len(text) - max_chars} more characters cut]"
    return text


def render_call(number: int, call: ToolCall, *, max_chars: int = 2000) -> str:
    """``TOOL CALL #n: name({...})`` for one call."""
    if call.parse_error is not None:
        args = f"<unparsable arguments {call.raw_arguments!r}: {call.parse_error}>"
    else:
        args = render_value(call.args or {}, max_chars=max_chars)
    return f"TOOL CALL #{number}: {call.name}({args})"


def _render_result(number: int, call: ToolCall, *, max_chars: int) -> str:
    flag = " [ERROR]" if call.is_error else ""
    return f"TOOL RESULT #{number}{flag}: {render_value(call.result, max_chars=max_chars)}"


def render_conversation(sample: Sample, *, max_chars: int = 2000) -> str:
    """The whole exchange as numbered, labelled lines (pure; no I/O)."""
    lines: list[str] = []
    calls = sample.actual_calls()
    if sample.tools_called is None and any(
        isinstance(m, AssistantMessage) and m.tool_calls for m in sample.messages
    ):
        _render_with_inline_calls(sample, calls, lines, max_chars)
    else:
        _render_text_then_calls(sample, calls, lines, max_chars)
    if sample.output is not None and not _ends_with(sample, sample.output):
        lines.append(f"ASSISTANT: {sample.output}")
    return "\n".join(lines)


def _ends_with(sample: Sample, output: str) -> bool:
    for msg in reversed(sample.messages):
        if isinstance(msg, AssistantMessage) and msg.content:
            return msg.content.strip() == output.strip()
    return False


def _render_with_inline_calls(
    sample: Sample, calls: list[ToolCall], lines: list[str], max_chars: int
) -> None:
    """Messages in order; calls and results where they happened (numbered as actual_calls)."""
    if sample.input and not any(isinstance(m, UserMessage) for m in sample.messages):
        lines.append(f"USER: {sample.input}")
    number = 0
    numbered: dict[int, int] = {}  # position in calls -> number already shown
    for msg in sample.messages:
        if isinstance(msg, SystemMessage):
            lines.append(f"SYSTEM PROMPT: {msg.content}")
        elif isinstance(msg, UserMessage):
            lines.append(f"USER: {msg.content}")
        elif isinstance(msg, AssistantMessage):
            if msg.content:
                lines.append(f"ASSISTANT: {msg.content}")
            for _call in msg.tool_calls:
                number += 1
                numbered[number - 1] = number
                lines.append(render_call(number, calls[number - 1], max_chars=max_chars))
        elif isinstance(msg, ToolMessage):
            index = _result_index(msg, calls, numbered)
            if index is None:
                flag = " [ERROR]" if msg.is_error else ""
                content = render_value(msg.content, max_chars=max_chars)
                lines.append(f"TOOL RESULT{flag}: {content}")
            else:
                numbered.pop(index)
                lines.append(_render_result(index + 1, calls[index], max_chars=max_chars))


def _result_index(
    msg: ToolMessage, calls: list[ToolCall], open_calls: dict[int, int]
) -> int | None:
    if msg.tool_call_id is not None:
        for index in open_calls:
            if calls[index].id == msg.tool_call_id:
                return index
    return min(open_calls) if open_calls else None


def _render_text_then_calls(
    sample: Sample, calls: list[ToolCall], lines: list[str], max_chars: int
) -> None:
    """No inline calls: the text turns, then every call with its result."""
    has_user = False
    for msg in sample.messages:
        if isinstance(msg, SystemMessage):
            lines.append(f"SYSTEM PROMPT: {msg.content}")
        elif isinstance(msg, UserMessage):
            has_user = True
            lines.append(f"USER: {msg.content}")
        elif isinstance(msg, AssistantMessage) and msg.content:
            lines.append(f"ASSISTANT: {msg.content}")
        elif isinstance(msg, ToolMessage) and sample.tools_called is None:
            # A result with no call to attach to is still evidence for the judge.
            flag = " [ERROR]" if msg.is_error else ""
            lines.append(f"TOOL RESULT{flag}: {render_value(msg.content, max_chars=max_chars)}")
    if not has_user and sample.input:
        lines.insert(0, f"USER: {sample.input}")
    # The calls happened before the agent's last answer, so they go just above it.
    at = len(lines)
    if lines and lines[-1].startswith("ASSISTANT: "):
        at -= 1
    call_lines: list[str] = []
    for number, call in enumerate(calls, start=1):
        call_lines.append(render_call(number, call, max_chars=max_chars))
        call_lines.append(_render_result(number, call, max_chars=max_chars))
    lines[at:at] = call_lines
