"""tau-bench / tau2-bench importers and the tau2_actions profile."""

from __future__ import annotations

import pytest

from tooleval.benchmarks.tau2.metric import tau2_actions
from tooleval.benchmarks.tau2.reader import load_tau2_results, sample_from_tau2_simulation
from tooleval.benchmarks.tau2.rules import action_checks, action_matches
from tooleval.benchmarks.tau_bench.reader import load_tau_bench, sample_from_tau_bench_run
from tooleval.errors import DatasetError, FormatError
from tooleval.metrics.registry import get_metric, score_sample
from tooleval.model import ExpectedTools, Sample, ToolCall


def test_null_compare_args_uses_the_predicted_keys():
    gold = ToolCall("book", {"user": "u1", "cabin": "economy"})
    assert action_matches(gold, ToolCall("book", {"user": "u1"}))
    assert not action_matches(gold, ToolCall("book", {"user": "u2"}))
    assert not action_matches(gold, ToolCall("book", {"user": "u1", "extra": 1}))
    assert action_matches(gold, ToolCall("book", {}))
    assert not action_matches(gold, ToolCall("cancel", {"user": "u1"}))


def test_explicit_and_empty_compare_args():
    gold = ToolCall("transfer", {"summary": "user wants a refund", "id": 7})
    assert action_matches(gold, ToolCall("transfer", {"summary": "anything"}), compare_args=[])
    assert action_matches(
        gold, ToolCall("transfer", {"id": 7, "summary": "x"}), compare_args=["id"]
    )
    assert not action_matches(gold, ToolCall("transfer", {"summary": "x"}), compare_args=["id"])


def test_order_free_and_many_to_one():
    gold = [ToolCall("get", {"id": 1}), ToolCall("get", {"id": 1})]
    checks = action_checks(gold, [ToolCall("other", {}), ToolCall("get", {"id": 1})])
    assert [c["matched"] for c in checks] == [True, True]
    assert [c["matched_by"] for c in checks] == [1, 1]
    with pytest.raises(ValueError):
        action_checks(gold, [], compare_args=[None])


def test_tau2_actions_metric():
    sample = Sample(
        tools_called=[ToolCall("get", {"id": 1})],
        expected_tools=ExpectedTools((ToolCall("get", {"id": 1}), ToolCall("put", {"id": 1}))),
    )
    result = tau2_actions(sample)
    assert result.score == 0.5 and result.passed is False
    assert result.diagnosis.missing[0]["name"] == "put"
    empty = Sample(tools_called=[], expected_tools=[])
    assert tau2_actions(empty).passed is True
    assert tau2_actions(empty, empty="unscored").score is None
    assert tau2_actions(Sample(tools_called=[])).score is None
    via_registry = score_sample("tau2_actions", sample)
    assert via_registry.params == {"empty": "perfect", "termination": "tau2"}
    assert get_metric("bfcl_ast").params["assignment"].default == "greedy"


def test_tau2_sample_shape_and_errors():
    task = {
        "id": "1",
        "evaluation_criteria": {
            "actions": [
                {"action_id": "1_0", "name": "get", "arguments": {"id": 1}, "compare_args": ["id"]}
            ]
        },
    }
    simulation = {
        "id": "sim-1",
        "task_id": "1",
        "messages": [
            {
                "role": "user",
                "content": "hi",
                "tool_calls": [{"id": "u", "name": "toggle", "arguments": {}, "requestor": "user"}],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c", "name": "get", "arguments": {"id": 1}, "requestor": "assistant"}
                ],
            },
            {"role": "tool", "id": "c", "content": "{}", "error": False},
        ],
        "reward_info": {"action_checks": [{"action_match": True}]},
    }
    sample = sample_from_tau2_simulation(simulation, task)
    assert [c.name for c in sample.actual_calls()] == ["toggle", "get"]
    assert sample.metadata["tau2"]["requestors"] == ["user", "assistant"]
    assert sample.metadata["tau2"]["compare_args"] == [["id"]]
    assert sample.metadata["tau2"]["action_checks"] == [True]
    assert tau2_actions(sample).passed
    with pytest.raises(FormatError, match="messages"):
        sample_from_tau2_simulation({"id": "x"}, task)


def test_tau_bench_errors_name_the_field():
    with pytest.raises(FormatError, match="runs\\[3\\]: missing 'info'"):
        sample_from_tau_bench_run({"traj": []}, index=3)
    bad_call = {
        "info": {"task": {"actions": []}},
        "traj": [{"role": "assistant", "tool_calls": [{"id": "c"}]}],
    }
    with pytest.raises(FormatError, match="function"):
        sample_from_tau_bench_run(bad_call)


def test_loaders_report_unreadable_files(tmp_path):
    missing = tmp_path / "none.json"
    with pytest.raises(DatasetError, match="cannot read"):
        load_tau_bench(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(DatasetError, match="invalid JSON"):
        load_tau2_results(broken)
    wrong = tmp_path / "wrong.json"
    wrong.write_text("{}")
    with pytest.raises(DatasetError, match="JSON list"):
        load_tau_bench(wrong)


def test_tau2_agreement_with_stored_verdicts(shared_data):
    samples = load_tau2_results(
        shared_data / "tau2_bench" / "trajectories" / "whissle_airline_run1.json"
    )
    agree = total = 0
    for sample in samples:
        stored = sample.metadata["tau2"]["action_checks"]
        if stored is None:
            continue
        ours = [c["matched"] for c in tau2_actions(sample).diagnosis.details["action_checks"]]
        assert len(ours) == len(stored)
        total += len(stored)
        agree += sum(a == b for a, b in zip(ours, stored, strict=True))
    assert total == 142
    assert agree / total >= 0.99


def test_tau_bench_import_counts(shared_data):
    samples = load_tau_bench(shared_data / "tau_bench" / "trajectories" / "gpt-4o-airline.json")
    assert len(samples) == 200
    assert sum(len(s.actual_calls()) for s in samples) == 1164
    assert sum(len(s.expected_tools) for s in samples) == 632
    labelled = [s for s in samples if s.metadata["tau_bench"]["r_actions"] is not None]
    assert len(labelled) == 182
    first = samples[0].actual_calls()[0]
    assert first.name == "get_user_details" and first.result is not None
