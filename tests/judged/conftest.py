"""Fixtures for the judged metrics.

``RecordedJudge`` replays canned judge replies (recorded text) in order. It is
used only by the arithmetic tests (``test_arithmetic_*.py``), which check how
verdicts become scores; the plumbing against a real model is in
``test_llm_plumbing.py``.
"""

from __future__ import annotations

import json

import pytest

from tooleval.llm.base import BaseJudge
from tooleval.llm.reply import JudgeReply
from tooleval.model import AssistantMessage, Sample, ToolCall, ToolMessage, UserMessage


class RecordedJudge(BaseJudge):
    """Replays ``replies`` (strings, or dicts dumped as JSON) one per call."""

    def __init__(self, *replies, cache=False):
        super().__init__(cache=cache)
        self.model = "recorded"
        self.replies = [r if isinstance(r, str) else json.dumps(r) for r in replies]
        self.prompts: list[list[dict]] = []

    def _generate(self, messages, schema):
        self.prompts.append(messages)
        if not self.replies:
            raise AssertionError("RecordedJudge ran out of recorded replies")
        text = self.replies.pop(0)
        return JudgeReply(text=text, tokens_in=len(str(messages)) // 4, tokens_out=len(text) // 4)


@pytest.fixture
def recorded():
    return RecordedJudge


@pytest.fixture
def cancel_wrong_id() -> Sample:
    """Cancel 4471 requested, 4417 cancelled, success claimed."""
    return Sample(
        messages=[
            UserMessage("Please cancel order 4471."),
            AssistantMessage("", (ToolCall("lookup_order", {"order_id": "4471"}, id="a"),)),
            ToolMessage({"status": "processing"}, tool_call_id="a"),
            AssistantMessage("", (ToolCall("cancel_order", {"order_id": "4417"}, id="b"),)),
            ToolMessage("cancelled 4417", tool_call_id="b"),
            AssistantMessage("Order 4471 is cancelled."),
        ],
        reference="order 4471 cancelled",
    )
