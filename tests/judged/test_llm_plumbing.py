"""End to end with the real local model (SmolLM2-135M on CPU): prompt → reply → parse
→ re-ask → scored or unscored. No mocked LLM here; SmolLM2 often writes malformed
JSON, which is exactly what these tests exercise. Few, short generations (CPU is shared).
"""

from __future__ import annotations

import pytest

from tooleval.judged import goal_accuracy, task_success
from tooleval.llm import LocalJudge
from tooleval.model import Sample, ToolCall

pytestmark = pytest.mark.llm

REFUND = Sample(
    input="Refund order 88 please.",
    tools_called=[
        ToolCall("issue_refund", {"order_id": 88}, result="card declined", is_error=True)
    ],
    output="Your refund has been issued.",
)


@pytest.fixture(scope="session")
def loaded_model():
    """Load SmolLM2 once for the session (LocalJudge instances share the loaded model)."""
    return LocalJudge(cache=False).load()


def test_a_tiny_reply_cap_still_gets_a_verdict_in_one_call(loaded_model):
    # Six new tokens cannot hold a task_success object; the constrained decoder raises the
    # cap to the shortest reply the schema allows, so the judge answers, once, parsably.
    judge = LocalJudge(max_new_tokens=6, cache=False)
    result = task_success(REFUND, judge=judge)
    assert result.is_scored and result.score in (0.0, 1.0)
    (exchange,) = result.diagnosis.details["exchanges"]
    assert exchange["error"] is None and exchange["reply"].startswith('{"evidence": "')
    assert exchange["messages"][1]["content"].count("TOOL RESULT #1 [ERROR]: card declined") == 1
    assert judge.usage.calls == 1
    assert result.diagnosis.details["judge"]["calls"] == 1


def test_full_flow_then_rerun_from_cache_makes_zero_calls(loaded_model, tmp_path):
    sample = Sample(
        input="Book a table for two at Golden Dragon at 8pm.",
        tools_called=[
            ToolCall(
                "book_table",
                {"restaurant": "Golden Dragon", "time": "20:00", "people": 2},
                result="booked",
            )
        ],
        output="Your table for two at Golden Dragon is booked for 8pm.",
    )
    cache = tmp_path / "judge-cache.db"
    judge = LocalJudge(max_new_tokens=48, cache=cache)
    first = goal_accuracy(sample, judge=judge)
    exchanges = first.diagnosis.details["exchanges"]
    # Whatever this tiny model says, the outcome is a verdict or an honest unscored.
    if first.is_scored:
        assert first.score in (0.0, 1.0)
        assert [e["step"] for e in exchanges if e["error"] is None] == ["infer_goal", "compare"]
    else:
        assert first.reason.startswith(
            (
                "judge reply unparsable after one re-ask",
                "judge reply repeats the prompt's example after one re-ask",
            )
        )
    assert all(e["reply"] for e in exchanges)
    assert judge.usage.calls == len(exchanges) >= 1
    assert first.diagnosis.details["judge"]["tokens_out"] > 0

    rerun_judge = LocalJudge(max_new_tokens=48, cache=cache)
    second = goal_accuracy(sample, judge=rerun_judge)
    assert rerun_judge.usage.calls == 0
    assert rerun_judge.usage.cached_calls == len(exchanges)
    assert (second.score, second.reason) == (first.score, first.reason)
    assert [e["reply"] for e in second.diagnosis.details["exchanges"]] == [
        e["reply"] for e in exchanges
    ]
