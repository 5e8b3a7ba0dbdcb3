"""The judged metrics through the metric registry (recorded judge replies, no model)."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError, JudgeError
from tooleval.judged.registration import JUDGED_METRICS
from tooleval.metrics.registry import ascore_sample, get_metric, rescore, score_sample

REVIEW = {"calls": [{"call": 1, "errors": []}, {"call": 2, "errors": []}]}


def test_all_four_are_registered_as_needing_a_judge():
    for name in JUDGED_METRICS:
        info = get_metric(name)
        assert info.needs_judge is True
        assert info.ascore_sample is not None
        assert "threshold" in info.params


def test_score_sample_fills_defaults_and_rescore_reproduces(recorded, cancel_wrong_id):
    result = score_sample("tools_error", cancel_wrong_id, judge=recorded(REVIEW), threshold=0.9)
    assert result.score == 1.0
    assert result.params == {"max_chars": 2000, "threshold": 0.9}
    again = rescore(result, cancel_wrong_id, judge=recorded(REVIEW))
    assert again.to_dict() == result.to_dict()


def test_topic_adherence_params_are_validated(recorded, cancel_wrong_id):
    with pytest.raises(ConfigError):
        score_sample("topic_adherence", cancel_wrong_id, judge=recorded(), measure="accuracy")
    with pytest.raises(ConfigError):
        score_sample("topic_adherence", cancel_wrong_id, judge=recorded(), temperature=1)
    result = score_sample("topic_adherence", cancel_wrong_id, judge=recorded(), measure="f1")
    assert result.score is None  # no reference_topics on this row
    assert result.params["measure"] == "f1"


def test_registry_refuses_a_judged_metric_without_judge(cancel_wrong_id):
    with pytest.raises(JudgeError):
        score_sample("task_success", cancel_wrong_id)


async def test_ascore_sample_uses_the_async_twin(recorded, cancel_wrong_id):
    reply = {"end_state": "4417 cancelled", "achieved": False, "reason": "wrong id"}
    result = await ascore_sample("goal_accuracy", cancel_wrong_id, judge=recorded(reply))
    assert result.score == 0.0
    assert result.params == {"max_chars": 2000, "threshold": None}
