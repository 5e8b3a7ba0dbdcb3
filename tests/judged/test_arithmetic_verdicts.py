"""Goal accuracy, tools error, task success: verdicts to scores, from recorded replies."""

from __future__ import annotations

import pytest

from tooleval.errors import JudgeError
from tooleval.judged import (
    agoal_accuracy,
    atask_success,
    atools_error,
    goal_accuracy,
    task_success,
    tools_error,
)
from tooleval.judged.prompts import TOOL_ERROR_CATEGORIES
from tooleval.model import Result, Sample, ToolCall


def test_goal_with_reference_is_one_call(recorded, cancel_wrong_id):
    judge = recorded({"end_state": "4417 cancelled", "achieved": False, "reason": "wrong order"})
    result = goal_accuracy(cancel_wrong_id, judge=judge)
    assert (result.score, result.passed) == (0.0, False)
    assert result.reason == "goal not achieved: wrong order"
    assert result.diagnosis.details["reference"] == "order 4471 cancelled"
    assert result.diagnosis.details["end_state"] == "4417 cancelled"
    prompt = judge.prompts[0][1]["content"]
    assert "Reference outcome: order 4471 cancelled" in prompt
    assert 'cancel_order({"order_id": "4417"})' in prompt


def test_goal_without_reference_compares_with_the_conversation(recorded, cancel_wrong_id):
    cancel_wrong_id.reference = None
    judge = recorded(
        {"user_goal": "cancel 4471", "end_state": "4471 cancelled"},
        {"achieved": False, "reason": "the tool cancelled 4417"},
    )
    result = goal_accuracy(cancel_wrong_id, judge=judge)
    assert result.score == 0.0
    compare = judge.prompts[1][1]["content"]
    # The comparing step sees the summaries *and* the transcript itself.
    assert "End state (summary): 4471 cancelled" in compare
    assert "TOOL RESULT #2: cancelled 4417" in compare
    assert result.diagnosis.details["user_goal"] == "cancel 4471"


def test_goal_reference_argument_overrides_the_row(recorded, cancel_wrong_id):
    judge = recorded({"end_state": "x", "achieved": "yes", "reason": "ok"})
    result = goal_accuracy(cancel_wrong_id, "order 4417 cancelled", judge=judge)
    assert result.score == 1.0
    assert "Reference outcome: order 4417 cancelled" in judge.prompts[0][1]["content"]


REVIEW = {
    "calls": [
        {"call": 1, "errors": []},
        {
            "call": 2,
            "errors": [
                {"category": "parameter_error", "evidence": "user asked 4471, called 4417"},
                {"category": "ignored_result", "evidence": "reported 4471 cancelled"},
            ],
        },
    ]
}


def test_tools_error_share_of_clean_calls_and_diagnosis(recorded, cancel_wrong_id):
    judge = recorded(REVIEW)
    result = tools_error(cancel_wrong_id, judge=judge)
    assert result.score == 0.5
    assert result.reason == (
        "1 of 2 call(s) with errors: #2 cancel_order: ignored_result, parameter_error"
    )
    details = result.diagnosis.details
    assert details["errors"][0] == {
        "call": 2,
        "name": "cancel_order",
        "category": "parameter_error",
        "evidence": "user asked 4471, called 4417",
    }
    assert details["calls"][0] == {
        "call": 1,
        "name": "lookup_order",
        "args": {"order_id": "4471"},
        "errors": [],
    }
    prompt = judge.prompts[0][1]["content"]
    for category in TOOL_ERROR_CATEGORIES:
        assert category in prompt
    assert "#1: lookup_order\n#2: cancel_order" in prompt


def test_tools_error_all_clean_is_exactly_one(recorded, cancel_wrong_id):
    clean = {"calls": [{"call": 2, "errors": []}, {"call": 1, "errors": []}]}
    result = tools_error(cancel_wrong_id, judge=recorded(clean))
    assert (result.score, result.passed) == (1.0, True)


def test_tools_error_must_review_every_call(recorded, cancel_wrong_id):
    partial = {"calls": [{"call": 1, "errors": []}]}
    result = tools_error(cancel_wrong_id, judge=recorded(partial, REVIEW))
    assert result.score == 0.5  # the re-ask got a complete review
    exchanges = result.diagnosis.details["exchanges"]
    assert exchanges[0]["error"] == "expected one entry for each call 1 to 2, got calls [1]"
    assert exchanges[1]["error"] is None
    # A re-ask stores only what it added to the prompt.
    assert [m["role"] for m in exchanges[1]["messages"]] == ["assistant", "user"]


def test_tools_error_unknown_category_is_reasked(recorded, cancel_wrong_id):
    bad = {
        "calls": [
            {"call": 1, "errors": []},
            {"call": 2, "errors": [{"category": "oops", "evidence": ""}]},
        ]
    }
    result = tools_error(cancel_wrong_id, judge=recorded(bad, "not json at all"))
    assert result.score is None
    assert "no JSON object found" in result.reason


def test_tools_error_without_calls_is_unscored(recorded):
    judge = recorded()
    result = tools_error(Sample(input="hello", output="hi!"), judge=judge)
    assert result.score is None
    assert "no tool call" in result.reason
    assert judge.prompts == []


def test_task_success_reads_the_tool_error(recorded):
    sample = Sample(
        input="Refund order 88",
        tools_called=[
            ToolCall("issue_refund", {"order_id": 88}, result="card declined", is_error=True)
        ],
        output="Your refund has been issued.",
    )
    judge = recorded(
        {
            "evidence": "issue_refund returned an error",
            "accomplished": False,
            "reason": "refund failed",
        }
    )
    result = task_success(sample, judge=judge)
    assert (result.score, result.passed) == (0.0, False)
    assert result.diagnosis.details["evidence"] == "issue_refund returned an error"
    prompt = judge.prompts[0][1]["content"]
    assert "TOOL RESULT #1 [ERROR]: card declined" in prompt
    assert "Expected outcome" not in prompt


def test_task_success_threshold_and_reference(recorded):
    sample = Sample(input="book", output="booked", reference="a table booked for 8pm")
    judge = recorded({"evidence": "e", "accomplished": True, "reason": "done"})
    result = task_success(sample, judge=judge, threshold=0.5)
    assert (result.score, result.passed, result.threshold) == (1.0, True, 0.5)
    assert (
        "Expected outcome, written by a person who knows the task: a table booked for 8pm"
        in (judge.prompts[0][1]["content"])
    )


def test_unparsable_twice_is_unscored_never_zero(recorded):
    sample = Sample(input="book", output="booked")
    judge = recorded('{"accomplished": tru', "I would say it was accomplished.")
    result = task_success(sample, judge=judge)
    assert result.score is None and result.passed is None
    assert result.reason == (
        "judge reply unparsable after one re-ask (step decide: no JSON object found in the reply)"
    )
    first, second = result.diagnosis.details["exchanges"]
    assert first["error"] == "the JSON object is never closed (reply cut off or malformed)"
    assert first["reply"] == '{"accomplished": tru'
    assert "could not be used: the JSON object is never closed" in second["messages"][-1]["content"]
    assert result.diagnosis.details["judge"]["calls"] == 2


def test_row_usage_is_recorded(recorded, cancel_wrong_id):
    result = tools_error(cancel_wrong_id, judge=recorded(REVIEW))
    usage = result.diagnosis.details["judge"]
    assert usage["model"] == "recorded"
    assert usage["calls"] == 1 and usage["cached_calls"] == 0
    assert usage["tokens_in"] > 0 and usage["tokens_out"] > 0


def test_rerun_with_cache_makes_zero_calls(recorded, cancel_wrong_id, tmp_path):
    first_judge = recorded(REVIEW, cache=tmp_path / "c.db")
    first = tools_error(cancel_wrong_id, judge=first_judge)
    second_judge = recorded(cache=tmp_path / "c.db")  # no replies left to give
    second = tools_error(cancel_wrong_id, judge=second_judge)
    assert second_judge.prompts == []
    assert second_judge.usage.calls == 0 and second_judge.usage.cached_calls == 1
    assert second.score == first.score
    assert second.diagnosis.details["judge"]["cached_calls"] == 1


def test_every_judged_metric_refuses_to_run_without_a_judge(cancel_wrong_id):
    for metric in (goal_accuracy, task_success, tools_error):
        with pytest.raises(JudgeError, match="judge: {type: local}"):
            metric(cancel_wrong_id)
    with pytest.raises(JudgeError, match="complete"):
        task_success(cancel_wrong_id, judge="gpt-4o")


async def test_async_twins_match_sync(recorded, cancel_wrong_id):
    pairs = [
        (goal_accuracy, agoal_accuracy, [{"end_state": "x", "achieved": True, "reason": "r"}]),
        (tools_error, atools_error, [REVIEW]),
        (task_success, atask_success, ["bad", {"evidence": "", "accomplished": 1, "reason": ""}]),
    ]
    for sync_fn, async_fn, replies in pairs:
        sync = sync_fn(cancel_wrong_id, judge=recorded(*replies))
        asynchronous = await async_fn(cancel_wrong_id, judge=recorded(*replies))
        assert isinstance(asynchronous, Result)
        assert asynchronous.to_dict() == sync.to_dict()
