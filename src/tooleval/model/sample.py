"""One row to score: the conversation, what the agent called and the reference."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tooleval.model.calls import ToolCall
from tooleval.model.expected import ExpectedTools, as_expected
from tooleval.model.messages import AssistantMessage, Message, ToolMessage, UserMessage


@dataclass(slots=True)
class Sample:
    """One row to score: the conversation, what the agent called, the reference.

    ``tools_called`` wins over the calls found in ``messages`` when both are
    given (connectors fill it from a JSONPath). ``expected_tools=None`` means
    no reference is bound for this row, which reference-based metrics report
    as unscored rather than as 0.
    """

    input: str = ""
    messages: list[Message] = field(default_factory=list)
    tools_called: list[ToolCall] | None = None
    expected_tools: ExpectedTools | None = None
    reference: str | None = None
    reference_topics: list[str] | None = None
    output: str | None = None
    category: str | None = None
    test_type: str | None = None
    id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.expected_tools is not None and not isinstance(self.expected_tools, ExpectedTools):
            self.expected_tools = as_expected(self.expected_tools)
        if self.tools_called is not None:
            self.tools_called = [
                ToolCall(c, args={}) if isinstance(c, str) else c for c in self.tools_called
            ]

    def actual_calls(self) -> list[ToolCall]:
        """Every call the agent made, in order, with tool results attached.

        ``tools_called`` when set; otherwise every assistant tool call in
        ``messages``, with the matching ``ToolMessage`` (by id, else by
        position) attached as ``result`` / ``is_error``.
        """
        if self.tools_called is not None:
            return list(self.tools_called)
        calls: list[ToolCall] = []
        by_id: dict[str, int] = {}
        pending: list[int] = []
        for msg in self.messages:
            if isinstance(msg, AssistantMessage):
                for call in msg.tool_calls:
                    if call.id is not None:
                        by_id[call.id] = len(calls)
                    pending.append(len(calls))
                    calls.append(call)
            elif isinstance(msg, ToolMessage):
                index = by_id.get(msg.tool_call_id) if msg.tool_call_id is not None else None
                if index is None:
                    index = next((i for i in pending if calls[i].result is None), None)
                if index is not None:
                    if index in pending:
                        pending.remove(index)
                    if calls[index].result is None:
                        calls[index] = calls[index].with_result(msg.content, is_error=msg.is_error)
        return calls

    def final_output(self) -> str:
        """The agent's final answer: ``output`` or the last assistant text."""
        if self.output is not None:
            return self.output
        for msg in reversed(self.messages):
            if isinstance(msg, AssistantMessage) and msg.content:
                return msg.content
        return ""

    def user_input(self) -> str:
        """The user's request: ``input`` or the first user message."""
        if self.input:
            return self.input
        for msg in self.messages:
            if isinstance(msg, UserMessage):
                return msg.content
        return ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "input": self.input}
        if self.messages:
            out["messages"] = [m.to_dict() for m in self.messages]
        if self.tools_called is not None:
            out["tools_called"] = [c.to_dict() for c in self.tools_called]
        if self.expected_tools is not None:
            out["expected_tools"] = self.expected_tools.to_dict()
        for key in ("reference", "reference_topics", "output", "category", "test_type"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.metadata:
            out["metadata"] = self.metadata
        return out


#: Metadata key of a Sample standing for a record its reader could not read (the reason).
UNREADABLE_KEY = "tooleval_unreadable"


def unreadable_reason(sample: Sample) -> str | None:
    """Why ``sample``'s record could not be read, or None for a readable one.

    A benchmark reader yields such a Sample for a record it cannot read; every
    scoring entry point makes it an unscored row with this reason.

    >>> unreadable_reason(Sample(metadata={UNREADABLE_KEY: "field traj: expected a list"}))
    'field traj: expected a list'
    >>> unreadable_reason(Sample()) is None
    True
    """
    reason = sample.metadata.get(UNREADABLE_KEY) if sample.metadata else None
    return reason if isinstance(reason, str) else None
