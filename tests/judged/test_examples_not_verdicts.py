"""Prompts show the shape of a reply, never a verdict; a reply that copies the example
is not scored (issue 15: every example showed ``true``, so a parroting model passed)."""

from __future__ import annotations

import re

import pytest

from tooleval.judged import goal_accuracy, task_success, tools_error, topic_adherence
from tooleval.judged import prompts as p
from tooleval.judged.flow import REPEATS_EXAMPLE
from tooleval.model import Sample, ToolCall

TEMPLATES = {
    "topic_extract": (p.TOPIC_EXTRACT_TEMPLATE, p.TOPIC_EXTRACT_EXAMPLE),
    "topic_verdict": (p.TOPIC_VERDICT_TEMPLATE, p.TOPIC_VERDICT_EXAMPLE),
    "goal_reference": (p.GOAL_WITH_REFERENCE_TEMPLATE, p.GOAL_WITH_REFERENCE_EXAMPLE),
    "goal_extract": (p.GOAL_EXTRACT_TEMPLATE, p.GOAL_EXTRACT_EXAMPLE),
    "goal_compare": (p.GOAL_COMPARE_TEMPLATE, p.GOAL_COMPARE_EXAMPLE),
    "tools_error": (p.TOOLS_ERROR_TEMPLATE, p.TOOLS_ERROR_EXAMPLE),
    "task_success": (p.TASK_SUCCESS_TEMPLATE, p.TASK_SUCCESS_EXAMPLE),
}
FIELDS = dict.fromkeys(
    ["legend", "conversation", "reference", "reference_topics", "topics", "user_goal"]
    + ["end_state", "categories", "count", "calls", "reference_clause"],
    "x",
)

REFUND = Sample(
    input="Refund order 88 please.",
    tools_called=[ToolCall("issue_refund", {"order_id": 88}, result="declined", is_error=True)],
    output="Your refund has been issued.",
)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_every_example_is_shown_and_carries_no_verdict(name):
    template, example = TEMPLATES[name]
    shown = template.format(**FIELDS)
    assert example in shown
    assert p.example_in([{"role": "user", "content": shown}]) == example
    # No literal verdict: no boolean, no number, no category name outside a <placeholder>.
    outside = re.sub(r"<[^<>]+>", "", example)
    assert not re.search(r"\b(true|false|\d+)\b", outside), outside
    assert not any(category in outside for category in p.TOOL_ERROR_CATEGORIES)
    assert p.repeats_example(example, example)


@pytest.mark.parametrize(
    ("reply", "copied"),
    [
        ('{"achieved": <true or false>, "reason": "<why, citing the transcript>"}', True),
        ('{"achieved": true, "reason": "<why, citing the transcript>"}', True),
        ('{"achieved": true, "reason": "Why, citing the transcript."}', True),
        ('{"achieved": <TRUE OR FALSE>, "reason": "the tool failed"}', True),
        ('{"achieved": false, "reason": "the refund tool returned declined"}', False),
        ('{"achieved": true, "reason": "why"}', True),
        ('{"achieved": true, "reason": "Citing the transcript."}', True),  # SmolLM2, ga-meeting
        ('{"achieved": true, "reason": "the transcript shows the booking"}', False),
        ("", False),
        ("{" * 50, False),
    ],
)
def test_repeats_example(reply, copied):
    assert p.repeats_example(reply, p.GOAL_COMPARE_EXAMPLE) is copied


def test_parroted_reply_is_reasked_then_unscored_with_that_reason(recorded):
    parrot = p.TASK_SUCCESS_EXAMPLE
    judge = recorded(parrot, parrot)
    result = task_success(REFUND, judge=judge)
    assert result.score is None and result.passed is None
    assert result.reason == (
        f"judge reply repeats the prompt's example after one re-ask (step decide: {REPEATS_EXAMPLE})"
    )
    first, second = result.diagnosis.details["exchanges"]
    assert first["error"] == second["error"] == REPEATS_EXAMPLE
    assert first["parsed"] is None
    assert REPEATS_EXAMPLE in second["messages"][1]["content"]


def test_valid_json_copying_placeholder_words_is_not_a_verdict(recorded):
    # Parseable JSON, but the strings are the example's placeholders: still a parrot.
    copied = {
        "evidence": "what the tool results show",
        "accomplished": True,
        "reason": "why, citing the transcript",
    }
    judge = recorded(copied, copied)
    result = task_success(REFUND, judge=judge)
    assert not result.is_scored
    assert "repeats the prompt's example" in result.reason


def test_a_real_verdict_after_a_parrot_is_used(recorded):
    real = {"evidence": "issue_refund: declined", "accomplished": False, "reason": "declined"}
    judge = recorded(p.TASK_SUCCESS_EXAMPLE, real)
    result = task_success(REFUND, judge=judge)
    assert (result.score, result.passed) == (0.0, False)
    assert [e["error"] for e in result.diagnosis.details["exchanges"]] == [REPEATS_EXAMPLE, None]


@pytest.mark.parametrize(
    ("metric", "kwargs", "example"),
    [
        (goal_accuracy, {"reference": "order 88 refunded"}, p.GOAL_WITH_REFERENCE_EXAMPLE),
        (goal_accuracy, {}, p.GOAL_EXTRACT_EXAMPLE),
        (tools_error, {}, p.TOOLS_ERROR_EXAMPLE),
        (topic_adherence, {"reference_topics": ["refunds"]}, p.TOPIC_EXTRACT_EXAMPLE),
    ],
)
def test_every_judged_metric_refuses_a_parrot(recorded, metric, kwargs, example):
    judge = recorded(example, example)
    result = metric(REFUND, judge=judge, **kwargs)
    assert not result.is_scored
    assert result.reason.startswith("judge reply repeats the prompt's example after one re-ask")
    assert {e["error"] for e in result.diagnosis.details["exchanges"]} == {REPEATS_EXAMPLE}
