"""Tools error: which tool calls were made badly, and how?

One judge call reviews every call (numbered as in :func:`render_conversation`)
against six categories: ``parameter_error``, ``invalid_function``,
``sequence_error``, ``ignored_result``, ``repeated_failure``,
``error_handling``. The score is the share of calls with no error; the
diagnosis names each flagged call, its category and the judge's evidence.
Unscored when the agent made no call (nothing to review). The reply must
review every call exactly once, otherwise it is re-asked, then unscored.

>>> tools_error_score([{"call": 1, "errors": []},
...                    {"call": 2, "errors": [{"category": "parameter_error", "evidence": "4417"}]}])
0.5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.judged.flow import Ask, Flow, arun_flow, require_judge, run_flow
from tooleval.judged.prompts import (
    TOOL_ERROR_CATEGORIES,
    TOOLS_ERROR_SCHEMA,
    TOOLS_ERROR_TEMPLATE,
    TRANSCRIPT_LEGEND,
    messages_for,
)
from tooleval.judged.render import render_conversation
from tooleval.model import Diagnosis, Result, Sample, ToolCall
from tooleval.model.metric import MAX_CHARS_HELP, THRESHOLD_HELP, metric, with_async

__all__ = [
    "atools_error",
    "check_call_reviews",
    "review_schema",
    "tools_error",
    "tools_error_messages",
    "tools_error_score",
]

METRIC = "tools_error"


def tools_error_messages(conversation: str, calls: Sequence[ToolCall]) -> list[dict[str, str]]:
    categories = "\n".join(f"- {name}: {text}" for name, text in TOOL_ERROR_CATEGORIES.items())
    listed = "\n".join(f"#{i}: {call.name}" for i, call in enumerate(calls, start=1))
    return messages_for(
        TOOLS_ERROR_TEMPLATE.format(
            categories=categories,
            count=len(calls),
            calls=listed,
            legend=TRANSCRIPT_LEGEND,
            conversation=conversation,
        )
    )


def check_call_reviews(parsed: Mapping[str, Any], count: int) -> str | None:
    """Every call reviewed exactly once, numbered 1..count."""
    numbers = sorted(review["call"] for review in parsed["calls"])
    if numbers != list(range(1, count + 1)):
        return f"expected one entry for each call 1 to {count}, got calls {numbers}"
    return None


def review_schema(count: int) -> dict[str, Any]:
    """:data:`TOOLS_ERROR_SCHEMA` for ``count`` calls: one review per call, numbered 1..count.

    ``prefixItems`` with a ``const`` call number lets the local judge's
    constrained decoder write exactly one review per call, in order (the model
    chooses only the errors); an endpoint gets the shared schema
    (``OpenAIJudge`` leaves these two keywords out).

    >>> [item["properties"]["call"] for item in
    ...  review_schema(2)["properties"]["calls"]["prefixItems"]]
    [{'type': 'integer', 'const': 1}, {'type': 'integer', 'const': 2}]
    """
    calls = dict(TOOLS_ERROR_SCHEMA["properties"]["calls"])
    item = calls["items"]
    calls["prefixItems"] = [
        {**item, "properties": {**item["properties"], "call": {"type": "integer", "const": n}}}
        for n in range(1, count + 1)
    ]
    return {
        **TOOLS_ERROR_SCHEMA,
        "properties": {**TOOLS_ERROR_SCHEMA["properties"], "calls": calls},
    }


def tools_error_score(reviews: Sequence[Mapping[str, Any]]) -> float:
    """Share of reviewed calls with no error."""
    clean = sum(1 for review in reviews if not review["errors"])
    return clean / len(reviews)


def _tools_error_flow(sample: Sample, params, threshold, max_chars: int) -> Flow:
    calls = sample.actual_calls()
    conversation = render_conversation(sample, max_chars=max_chars)
    parsed = yield Ask(
        "review_calls",
        tools_error_messages(conversation, calls),
        review_schema(len(calls)),
        check=lambda value: check_call_reviews(value, len(calls)),
    )
    reviews = sorted(parsed["calls"], key=lambda review: review["call"])
    findings = []
    per_call = []
    for review in reviews:
        call = calls[review["call"] - 1]
        categories = sorted({e["category"] for e in review["errors"]})
        per_call.append(
            {"call": review["call"], "name": call.name, "args": call.args, "errors": categories}
        )
        for error in review["errors"]:
            findings.append(
                {
                    "call": review["call"],
                    "name": call.name,
                    "category": error["category"],
                    "evidence": error["evidence"],
                }
            )
    score = tools_error_score(reviews)
    flagged = [c for c in per_call if c["errors"]]
    if flagged:
        listed = "; ".join(f"#{c['call']} {c['name']}: {', '.join(c['errors'])}" for c in flagged)
        reason = f"{len(flagged)} of {len(calls)} call(s) with errors: {listed}"
    else:
        reason = f"no errors found in {len(calls)} call(s)"
    details = {"calls": per_call, "errors": findings}
    return Result.scored(
        METRIC,
        score,
        reason=reason,
        params=params,
        threshold=threshold,
        diagnosis=Diagnosis(details=details),
    )


def _no_calls(threshold) -> Result:
    return Result.unscored(
        METRIC, "the agent made no tool call; nothing to review", threshold=threshold
    )


@metric(
    METRIC,
    "LLM judge: share of tool calls free of parameter_error, invalid_function, sequence_error, "
    "ignored_result, repeated_failure and error_handling",
    requires=("tools_called",),
    help={"max_chars": MAX_CHARS_HELP, "threshold": THRESHOLD_HELP},
)
def tools_error(
    sample: Sample,
    *,
    judge: Any = None,
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """Share of the agent's tool calls the judge found free of the six error kinds."""
    judge = require_judge(judge, METRIC)
    if not sample.actual_calls():
        return _no_calls(threshold)
    flow = _tools_error_flow(sample, {}, threshold, max_chars)
    return run_flow(flow, judge, metric=METRIC, params={}, threshold=threshold)


@with_async(tools_error)
async def atools_error(
    sample: Sample,
    *,
    judge: Any = None,
    max_chars: int = 2000,
    threshold: float | None = None,
) -> Result:
    """Async twin of :func:`tools_error`."""
    judge = require_judge(judge, METRIC)
    if not sample.actual_calls():
        return _no_calls(threshold)
    flow = _tools_error_flow(sample, {}, threshold, max_chars)
    return await arun_flow(flow, judge, metric=METRIC, params={}, threshold=threshold)
