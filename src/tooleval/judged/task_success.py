"""Task success: was the user's task actually accomplished? (binary)

One judge call reads the whole exchange, tool results included, and decides;
the prompt tells the judge that a tool failure outweighs the agent's claim, so
"refund issued" after an ``[ERROR]`` result is a failure. An optional
``reference`` (the expected outcome) sharpens the question. 1.0 accomplished,
0.0 not; unscored when the reply cannot be used after one re-ask.
"""

from __future__ import annotations

from typing import Any

from tooleval.judged.flow import Ask, Flow, arun_flow, require_judge, run_flow
from tooleval.judged.prompts import (
    TASK_SUCCESS_REFERENCE_CLAUSE,
    TASK_SUCCESS_SCHEMA,
    TASK_SUCCESS_TEMPLATE,
    TRANSCRIPT_LEGEND,
    messages_for,
)
from tooleval.judged.render import reference_outcome, render_conversation
from tooleval.model import Diagnosis, Result, Sample
from tooleval.model.metric import MAX_CHARS_HELP, THRESHOLD_HELP, metric, with_async

__all__ = ["atask_success", "task_success", "task_success_messages"]

METRIC = "task_success"


def task_success_messages(conversation: str, reference: str | None) -> list[dict[str, str]]:
    clause = TASK_SUCCESS_REFERENCE_CLAUSE.format(reference=reference) if reference else ""
    return messages_for(
        TASK_SUCCESS_TEMPLATE.format(
            reference_clause=clause, legend=TRANSCRIPT_LEGEND, conversation=conversation
        )
    )


def _task_flow(sample: Sample, reference: str | None, threshold, max_chars: int) -> Flow:
    conversation = render_conversation(sample, max_chars=max_chars)
    parsed = yield Ask(
        "decide", task_success_messages(conversation, reference), TASK_SUCCESS_SCHEMA
    )
    done = parsed["accomplished"]
    details = {
        "reference": reference,
        "accomplished": done,
        "evidence": parsed["evidence"],
    }
    word = "accomplished" if done else "not accomplished"
    return Result.scored(
        METRIC,
        1.0 if done else 0.0,
        reason=f"task {word}: {parsed['reason']}".strip(),
        threshold=threshold,
        diagnosis=Diagnosis(details=details),
    )


@metric(
    METRIC,
    "LLM judge, binary: was the user's task accomplished, reading tool results (a success "
    "claimed after a failed tool call is a failure)",
    requires=("messages", "tools_called"),
    help={"max_chars": MAX_CHARS_HELP, "threshold": THRESHOLD_HELP},
)
def task_success(
    sample: Sample,
    reference: str | None = None,
    *,
    judge: Any = None,
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """1.0 if the judge finds the user's task accomplished, reading tool results too."""
    judge = require_judge(judge, METRIC)
    flow = _task_flow(sample, reference_outcome(sample, reference), threshold, max_chars)
    return run_flow(flow, judge, metric=METRIC, params={}, threshold=threshold)


@with_async(task_success)
async def atask_success(
    sample: Sample,
    reference: str | None = None,
    *,
    judge: Any = None,
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """Async twin of :func:`task_success`."""
    judge = require_judge(judge, METRIC)
    flow = _task_flow(sample, reference_outcome(sample, reference), threshold, max_chars)
    return await arun_flow(flow, judge, metric=METRIC, params={}, threshold=threshold)
