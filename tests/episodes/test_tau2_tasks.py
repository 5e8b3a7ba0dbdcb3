"""tau2 tasks as episode rows, and tau2_communicate, against bad input."""

from __future__ import annotations

import json

import pytest

from tooleval.benchmarks.tau2.tasks import load_tau2_tasks, tau2_communicate, tau2_task_rows
from tooleval.errors import DatasetError, FormatError
from tooleval.model import AssistantMessage, Sample, UserMessage


def _task(**over):
    task = {
        "id": "3",
        "user_scenario": {
            "persona": "calm",
            "instructions": {"reason_for_call": "Cancel ABC.", "known_info": "I am Ann."},
        },
        "evaluation_criteria": {
            "actions": [
                {"name": "cancel", "arguments": {"id": "ABC"}, "requestor": "assistant"},
                {"name": "toggle_data", "arguments": {}, "requestor": "user"},
            ],
            "communicate_info": ["1628"],
            "reward_basis": ["DB", "COMMUNICATE"],
        },
    }
    task.update(over)
    return task


def test_a_task_becomes_a_row_with_the_assistants_gold_actions_only():
    (row,) = tau2_task_rows([_task()], domain="airline")
    assert row["id"] == "airline-3"
    assert (
        row["input"] == row["instruction"] == "reason_for_call: Cancel ABC.\nknown_info: I am Ann."
    )
    assert row["persona"] == "calm"
    assert row["expected_tools"] == [{"name": "cancel", "args": {"id": "ABC"}}]
    assert row["metadata"]["tau2"]["communicate_info"] == ["1628"]


@pytest.mark.parametrize(
    ("task", "field"),
    [
        ("not a task", "tasks[0]"),
        ({"user_scenario": {}}, "tasks[0]"),
        (_task(initial_state={"initialization_data": {}}), "tasks[0].initial_state"),
        (_task(user_scenario={"instructions": {}}), "tasks[0].user_scenario.instructions"),
        (_task(user_scenario=[]), "tasks[0].user_scenario"),
        (
            _task(evaluation_criteria={"actions": {"name": "x"}}),
            "tasks[0].evaluation_criteria.actions",
        ),
        (
            _task(evaluation_criteria={"actions": [{"arguments": {}}]}),
            "tasks[0].evaluation_criteria.actions[0]",
        ),
    ],
)
def test_a_bad_task_is_refused_naming_the_field(task, field):
    with pytest.raises(FormatError) as caught:
        tau2_task_rows([task], domain="airline")
    assert caught.value.field == field


def test_a_file_that_is_not_a_list_of_tasks_is_refused_with_its_path(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps({"tasks": []}))
    with pytest.raises(DatasetError, match="expected a JSON list of tau2 tasks"):
        load_tau2_tasks(path, domain="airline")
    path.write_bytes(b"\x00\xff[")
    with pytest.raises(DatasetError):
        load_tau2_tasks(path, domain="airline")
    path.write_text(json.dumps([_task(id=None) | {"user_scenario": 1}]))
    with pytest.raises(FormatError) as caught:
        load_tau2_tasks(path, domain="airline")
    assert str(path) in str(caught.value)


def _said(*replies, info=("1628", "Basic Economy")):
    return Sample(
        messages=[UserMessage("hi"), *(AssistantMessage(r) for r in replies)],
        output=replies[-1] if replies else None,
        metadata={"tau2": {"communicate_info": list(info)}},
    )


def test_communicate_is_taus_rule_lower_case_commas_removed_one_message_per_fact():
    assert tau2_communicate(_said("It is 1,628 dollars.", "You fly BASIC economy.")).passed
    left_out = tau2_communicate(_said("It is 1,628 dollars."))
    assert not left_out.passed and left_out.diagnosis.details["missing"] == ["Basic Economy"]
    # the fact must sit inside one message, not across two
    assert not tau2_communicate(_said("Basic", "Economy 1628")).passed
    assert tau2_communicate(_said("nothing", info=())).passed


def test_communicate_without_the_tau2_metadata_is_unscored_never_zero():
    assert tau2_communicate(Sample(output="x")).score is None
    bad = Sample(output="x", metadata={"tau2": {"communicate_info": [1]}})
    assert tau2_communicate(bad).score is None
