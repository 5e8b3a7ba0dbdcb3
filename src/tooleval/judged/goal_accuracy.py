"""Goal accuracy: did the conversation end with the user's goal achieved? (binary)

With a reference outcome, one judge call writes the end state (from the tool
results) and compares it with the reference. Without one, a first call infers
the user's goal and the end state, and a second call decides, reading the
whole transcript again, not only those two summaries, so a summary that
glossed over a failed tool call cannot carry the verdict.

Score 1.0 when achieved, 0.0 when not; unscored when the judge's reply cannot
be used after one re-ask.
"""

from __future__ import annotations

from typing import Any

from tooleval.judged.flow import Ask, Flow, arun_flow, require_judge, run_flow
from tooleval.judged.prompts import (
    GOAL_COMPARE_SCHEMA,
    GOAL_COMPARE_TEMPLATE,
    GOAL_EXTRACT_SCHEMA,
    GOAL_EXTRACT_TEMPLATE,
    GOAL_WITH_REFERENCE_SCHEMA,
    GOAL_WITH_REFERENCE_TEMPLATE,
    TRANSCRIPT_LEGEND,
    messages_for,
)
from tooleval.judged.render import reference_outcome, render_conversation
from tooleval.model import Diagnosis, Result, Sample
from tooleval.model.metric import MAX_CHARS_HELP, THRESHOLD_HELP, metric, with_async

__all__ = [
    "agoal_accuracy",
    "goal_accuracy",
    "goal_compare_messages",
    "goal_extract_messages",
    "goal_with_reference_messages",
]

METRIC = "goal_accuracy"


def goal_with_reference_messages(conversation: str, reference: str) -> list[dict[str, str]]:
    return messages_for(
        GOAL_WITH_REFERENCE_TEMPLATE.format(
            reference=reference, legend=TRANSCRIPT_LEGEND, conversation=conversation
        )
    )


def goal_extract_messages(conversation: str) -> list[dict[str, str]]:
    return messages_for(
        GOAL_EXTRACT_TEMPLATE.format(legend=TRANSCRIPT_LEGEND, conversation=conversation)
    )


def goal_compare_messages(
    conversation: str, user_goal: str, end_state: str
) -> list[dict[str, str]]:
    return messages_for(
        GOAL_COMPARE_TEMPLATE.format(
            user_goal=user_goal,
            end_state=end_state,
            legend=TRANSCRIPT_LEGEND,
            conversation=conversation,
        )
    )


def _verdict(achieved: bool, reason: str, details: dict, params, threshold) -> Result:
    word = "achieved" if achieved else "not achieved"
    return Result.scored(
        METRIC,
        1.0 if achieved else 0.0,
        reason=f"goal {word}: {reason}".strip(),
        params=params,
        threshold=threshold,
        diagnosis=Diagnosis(details=details),
    )


def _goal_flow(sample: Sample, reference: str | None, params, threshold, max_chars: int) -> Flow:
    conversation = render_conversation(sample, max_chars=max_chars)
    if reference:
        parsed = yield Ask(
            "compare_with_reference",
            goal_with_reference_messages(conversation, reference),
            GOAL_WITH_REFERENCE_SCHEMA,
        )
        details = {"reference": reference, "end_state": parsed["end_state"]}
        details["achieved"] = parsed["achieved"]
        return _verdict(parsed["achieved"], parsed["reason"], details, params, threshold)
    summary = yield Ask("infer_goal", goal_extract_messages(conversation), GOAL_EXTRACT_SCHEMA)
    details = {
        "reference": None,
        "user_goal": summary["user_goal"],
        "end_state": summary["end_state"],
    }
    parsed = yield Ask(
        "compare",
        goal_compare_messages(conversation, summary["user_goal"], summary["end_state"]),
        GOAL_COMPARE_SCHEMA,
    )
    details["achieved"] = parsed["achieved"]
    return _verdict(parsed["achieved"], parsed["reason"], details, params, threshold)


@metric(
    METRIC,
    "LLM judge, binary: did the conversation end with the user's goal achieved (against the "
    "row's reference when given, else the goal inferred from the chat)",
    requires=("messages",),
    help={"max_chars": MAX_CHARS_HELP, "threshold": THRESHOLD_HELP},
)
def goal_accuracy(
    sample: Sample,
    reference: str | None = None,
    *,
    judge: Any = None,
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """1.0 if the user's goal was achieved (against ``reference`` when given), else 0.0.

    ``reference`` defaults to ``sample.reference``; without either the judge
    infers the goal from the conversation.
    """
    judge = require_judge(judge, METRIC)
    params: dict[str, Any] = {}
    flow = _goal_flow(sample, reference_outcome(sample, reference), params, threshold, max_chars)
    return run_flow(flow, judge, metric=METRIC, params=params, threshold=threshold)


@with_async(goal_accuracy)
async def agoal_accuracy(
    sample: Sample,
    reference: str | None = None,
    *,
    judge: Any = None,
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """Async twin of :func:`goal_accuracy`."""
    judge = require_judge(judge, METRIC)
    params: dict[str, Any] = {}
    flow = _goal_flow(sample, reference_outcome(sample, reference), params, threshold, max_chars)
    return await arun_flow(flow, judge, metric=METRIC, params=params, threshold=threshold)
