"""An inspect_ai scorer that scores a sample's tool calls with a tooleval metric.

The agent's calls are the assistant messages' ``tool_calls`` in ``state.messages`` (with
the tool messages' results and errors attached); the reference is the sample's
``metadata["expected_tools"]``, else its target (names, ``"a, b"`` text or JSON calls, any
shape a dataset's ``expected_tools`` cell takes). A row tooleval leaves unscored (no
reference, a judge reply it could not use) is ``Score.unscored``, which inspect's metrics
skip, never 0::

    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate, use_tools
    from tooleval.integrations.inspect_ai import tool_calls

    @task
    def support():
        return Task(
            dataset=[Sample(input="Cancel order 4471", target='["lookup_order", "cancel_order"]')],
            solver=[use_tools(...), generate()],
            scorer=tool_calls("tool_correctness", order="strict"),
        )

Needs the ``inspect`` extra (``pip install 'tooleval[inspect]'``).
"""

from __future__ import annotations

import json
from typing import Any

from tooleval._extras import install_hint

try:
    from inspect_ai.scorer import Score, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"tooleval.integrations.inspect_ai needs inspect_ai: {install_hint('inspect')}"
    ) from exc

from tooleval.formats import parse_expected_tools
from tooleval.metrics.registry import bind
from tooleval.model import AssistantMessage, Result, Sample, ToolCall, ToolMessage, UserMessage

__all__ = ["sample_from_state", "tool_calls"]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = [getattr(part, "text", None) for part in content or ()]
    return "\n".join(p for p in parts if isinstance(p, str))


def _messages(state: TaskState) -> list[Any]:
    """inspect's chat messages as tooleval's (user, assistant with calls, tool results)."""
    messages: list[Any] = []
    for message in state.messages:
        role = getattr(message, "role", None)
        if role == "user":
            messages.append(UserMessage(_content_text(message.content)))
        elif role == "assistant":
            calls = [
                ToolCall(call.function, dict(call.arguments or {}), id=call.id)
                for call in getattr(message, "tool_calls", None) or ()
            ]
            messages.append(
                AssistantMessage(_content_text(message.content), tool_calls=tuple(calls))
            )
        elif role == "tool":
            error = getattr(message, "error", None)
            text = _content_text(message.content)
            messages.append(
                ToolMessage(
                    error.message if error is not None else text,
                    tool_call_id=getattr(message, "tool_call_id", None),
                    name=getattr(message, "function", None),
                    is_error=error is not None,
                )
            )
    return messages


def _reference(state: TaskState, target: Target) -> Any:
    metadata = state.metadata or {}
    if "expected_tools" in metadata:
        return metadata["expected_tools"]
    text = target.text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text  # "lookup_order, cancel_order"


def sample_from_state(state: TaskState, target: Target) -> Sample:
    """The inspect sample's conversation and reference as a tooleval :class:`Sample`."""
    return Sample(
        input=state.input_text,
        messages=_messages(state),
        expected_tools=parse_expected_tools(_reference(state, target), field="expected_tools"),
        output=state.output.completion if state.output is not None else None,
        id=str(state.sample_id),
        metadata=dict(state.metadata or {}),
    )


def _score(result: Result, sample: Sample) -> Score:
    called = ", ".join(str(call) for call in sample.actual_calls()) or "(no tool called)"
    metadata = {
        "metric": result.metric,
        "passed": result.passed,
        "threshold": result.threshold,
        "params": result.params,
        "diagnosis": result.diagnosis.to_dict() if result.diagnosis else None,
    }
    if result.score is None:
        return Score.unscored(
            reason=result.reason, answer=called, explanation=result.reason, metadata=metadata
        )
    return Score(value=result.score, answer=called, explanation=result.reason, metadata=metadata)


@scorer(metrics=[mean(), stderr()])
def tool_calls(metric: str = "tool_correctness", *, judge: Any = None, **options: Any) -> Any:
    """A scorer giving ``metric``'s score of the sample's tool calls (options as in ``bind``).

    The metric and its options are checked once, when the scorer is made (a typo is a
    :class:`~tooleval.errors.ConfigError` before any sample runs).
    """
    bound = bind(metric, judge=judge, **options)

    async def score(state: TaskState, target: Target) -> Score:
        sample = sample_from_state(state, target)
        result = await bound.ascore(sample)
        return _score(result, sample)

    return score
