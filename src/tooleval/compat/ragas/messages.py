"""ragas-shaped messages and samples as light dataclasses.

The constructors take the same keywords as ragas 0.4.3 (``ToolCall(name=...,
args=...)``, ``AIMessage(content=..., tool_calls=[...])``,
``MultiTurnSample(user_input=[...], reference_tool_calls=[...])``) and apply
the same checks ragas' pydantic models apply, but raise
:class:`tooleval.errors.InputError` naming the offending field.

>>> s = MultiTurnSample(
...     user_input=[HumanMessage(content="hi"),
...                 AIMessage(content="", tool_calls=[{"name": "f", "args": {"x": 1}}])],
...     reference_tool_calls=[ToolCall(name="f", args={"x": 1})],
... )
>>> s.user_input[1].tool_calls[0]
ToolCall(name='f', args={'x': 1})
>>> s.to_sample().actual_calls()[0].args
{'x': 1}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tooleval import model
from tooleval.errors import InputError

__all__ = [
    "AIMessage",
    "HumanMessage",
    "MultiTurnSample",
    "ToolCall",
    "ToolMessage",
    "as_tool_call",
    "as_message",
]


def _check_content(content: Any, where: str) -> str:
    if not isinstance(content, str):
        raise InputError(f"content must be a string, got {type(content).__name__}", field=where)
    return content


@dataclass(slots=True)
class ToolCall:
    """A tool call as ragas spells it: ``name`` and an ``args`` dict with string keys."""

    name: str
    args: dict[str, Any]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InputError(
                f"tool call name must be a string, got {type(self.name).__name__}", field="name"
            )
        if not isinstance(self.args, Mapping):
            raise InputError(
                f"tool call args must be a dict, got {type(self.args).__name__}",
                field=f"{self.name}.args",
            )
        for key in self.args:
            if not isinstance(key, str):
                raise InputError(
                    f"argument names must be strings, got {key!r}", field=f"{self.name}.args"
                )
        # ragas validates into a fresh dict; copying keeps later edits of the
        # caller's dict from changing a built sample the same way.
        self.args = dict(self.args)

    def to_tooleval(self) -> model.ToolCall:
        """The same call as a :class:`tooleval.model.ToolCall`."""
        return model.ToolCall(self.name, args=dict(self.args))

    @classmethod
    def from_tooleval(cls, call: model.ToolCall) -> ToolCall:
        return cls(call.name, dict(call.args or {}))


def as_tool_call(value: Any, *, where: str = "tool_calls") -> ToolCall:
    """Accept a :class:`ToolCall`, a tooleval call, or a ``{"name", "args"}`` dict."""
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, model.ToolCall):
        return ToolCall.from_tooleval(value)
    if isinstance(value, Mapping):
        if "name" not in value or "args" not in value:
            raise InputError("a tool call needs both 'name' and 'args'", field=where)
        return ToolCall(value["name"], value["args"])
    raise InputError(
        f"expected a ToolCall or a dict with name and args, got {type(value).__name__}",
        field=where,
    )


@dataclass(slots=True)
class HumanMessage:
    """A user turn."""

    content: str
    metadata: dict[str, Any] | None = None
    type: Literal["human"] = "human"

    def __post_init__(self) -> None:
        _check_content(self.content, "HumanMessage.content")

    def pretty_repr(self) -> str:
        return f"Human: {self.content}"


@dataclass(slots=True)
class ToolMessage:
    """A tool's reply."""

    content: str
    metadata: dict[str, Any] | None = None
    type: Literal["tool"] = "tool"

    def __post_init__(self) -> None:
        _check_content(self.content, "ToolMessage.content")

    def pretty_repr(self) -> str:
        return f"ToolOutput: {self.content}"


@dataclass(slots=True)
class AIMessage:
    """An assistant turn; ``tool_calls=None`` and ``[]`` both mean no calls."""

    content: str
    tool_calls: list[ToolCall] | None = None
    metadata: dict[str, Any] | None = None
    type: Literal["ai"] = "ai"

    def __post_init__(self) -> None:
        _check_content(self.content, "AIMessage.content")
        if self.tool_calls is not None:
            if isinstance(self.tool_calls, str | bytes | Mapping) or not isinstance(
                self.tool_calls, Sequence
            ):
                raise InputError(
                    f"tool_calls must be a list, got {type(self.tool_calls).__name__}",
                    field="AIMessage.tool_calls",
                )
            self.tool_calls = [
                as_tool_call(c, where=f"AIMessage.tool_calls[{i}]")
                for i, c in enumerate(self.tool_calls)
            ]

    def pretty_repr(self) -> str:
        lines = [f"AI: {self.content}"] if self.content != "" else []
        if self.tool_calls is not None:
            lines.append("Tools:")
            lines.extend(f"  {c.name}: {c.args}" for c in self.tool_calls)
        return "\n".join(lines)


RagasMessage = HumanMessage | AIMessage | ToolMessage

_BY_TYPE: dict[str, type[HumanMessage] | type[AIMessage] | type[ToolMessage]] = {
    "human": HumanMessage,
    "ai": AIMessage,
    "tool": ToolMessage,
}


def as_message(value: Any, *, where: str = "user_input") -> RagasMessage:
    """Accept a message object or a dict with ``type`` human/ai/tool."""
    if isinstance(value, HumanMessage | AIMessage | ToolMessage):
        return value
    if isinstance(value, Mapping):
        kind = _BY_TYPE.get(value.get("type", ""))
        if kind is None:
            raise InputError(
                f"message type must be 'human', 'ai' or 'tool', got {value.get('type')!r}",
                field=where,
            )
        known = {k: v for k, v in value.items() if k in kind.__dataclass_fields__ and k != "type"}
        if "content" not in known:
            raise InputError("a message needs 'content'", field=where)
        return kind(**known)
    raise InputError(
        f"expected HumanMessage, AIMessage or ToolMessage, got {type(value).__name__}",
        field=where,
    )


def _check_tool_message_order(messages: list[RagasMessage]) -> None:
    # ragas rejects conversations where a tool reply does not answer a call:
    # it must come after some AI message, and directly after either an AI
    # message that called tools or another tool reply.
    seen_ai = False
    for i, msg in enumerate(messages):
        if isinstance(msg, AIMessage):
            seen_ai = True
        elif isinstance(msg, ToolMessage):
            where = f"user_input[{i}]"
            if not seen_ai:
                raise InputError("a ToolMessage needs an AIMessage before it", field=where)
            if i > 0:
                prev = messages[i - 1]
                if isinstance(prev, AIMessage):
                    if not prev.tool_calls:
                        raise InputError(
                            "a ToolMessage follows an AIMessage that called no tools", field=where
                        )
                elif not isinstance(prev, ToolMessage):
                    raise InputError(
                        "a ToolMessage must follow an AIMessage or another ToolMessage",
                        field=where,
                    )


@dataclass(slots=True)
class MultiTurnSample:
    """A conversation (``user_input``) and the tool calls it should contain."""

    user_input: list[RagasMessage]
    reference: str | None = None
    reference_tool_calls: list[ToolCall] | None = None
    rubrics: dict[str, str] | None = None
    reference_topics: list[str] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.user_input, str | bytes | Mapping) or not isinstance(
            self.user_input, Sequence
        ):
            raise InputError(
                f"user_input must be a list of messages, got {type(self.user_input).__name__}",
                field="user_input",
            )
        self.user_input = [
            as_message(m, where=f"user_input[{i}]") for i, m in enumerate(self.user_input)
        ]
        _check_tool_message_order(self.user_input)
        if self.reference_tool_calls is not None:
            if isinstance(self.reference_tool_calls, str | bytes | Mapping) or not isinstance(
                self.reference_tool_calls, Sequence
            ):
                raise InputError(
                    "reference_tool_calls must be a list, "
                    f"got {type(self.reference_tool_calls).__name__}",
                    field="reference_tool_calls",
                )
            self.reference_tool_calls = [
                as_tool_call(c, where=f"reference_tool_calls[{i}]")
                for i, c in enumerate(self.reference_tool_calls)
            ]

    def predicted_tool_calls(self) -> list[ToolCall]:
        """Every call of every AI message, in conversation order."""
        calls: list[ToolCall] = []
        for msg in self.user_input:
            if isinstance(msg, AIMessage) and msg.tool_calls is not None:
                calls.extend(msg.tool_calls)
        return calls

    def pretty_repr(self) -> str:
        return "\n".join(m.pretty_repr() for m in self.user_input)

    def to_sample(self) -> model.Sample:
        """This conversation as a tooleval :class:`~tooleval.model.Sample`.

        Use it to score the same data with tooleval's own metrics
        (``tooleval.metrics``), which pair calls optimally instead of by
        sorted position.
        """
        messages: list[model.Message] = []
        for msg in self.user_input:
            if isinstance(msg, HumanMessage):
                messages.append(model.UserMessage(msg.content))
            elif isinstance(msg, AIMessage):
                calls = tuple(c.to_tooleval() for c in msg.tool_calls or ())
                messages.append(model.AssistantMessage(msg.content, calls))
            else:
                messages.append(model.ToolMessage(msg.content))
        expected = None
        if self.reference_tool_calls is not None:
            expected = model.ExpectedTools.of([c.to_tooleval() for c in self.reference_tool_calls])
        return model.Sample(
            messages=messages,
            expected_tools=expected,
            reference=self.reference,
            reference_topics=list(self.reference_topics) if self.reference_topics else None,
        )
