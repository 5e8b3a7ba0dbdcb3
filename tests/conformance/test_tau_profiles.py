"""tau_bench_actions (tau-bench's r_actions from the calls) and tau2's termination/outcome rules.

The retail cases follow tau-bench's tool code (sierra-research/tau-bench,
tau_bench/envs/retail/tools): returns and exchanges store ``sorted(item_ids)``,
``modify_pending_order_items`` replaces ``item_ids[k]`` by ``new_item_ids[k]``,
every tool answers ``Error: ...`` before it writes anything.
"""

from __future__ import annotations

import pytest

from tooleval.benchmarks.tau2.metric import tau2_actions
from tooleval.benchmarks.tau2.reader import sample_from_tau2_simulation
from tooleval.benchmarks.tau_bench.metric import tau_bench_actions
from tooleval.benchmarks.tau_bench.reader import load_tau_bench, sample_from_tau_bench_run
from tooleval.benchmarks.tau_bench.rules import READ_ONLY, infer_domain, state_key
from tooleval.errors import ConfigError
from tooleval.metrics.registry import score_sample
from tooleval.model import AssistantMessage, ExpectedTools, Sample, ToolCall, ToolMessage

C = ToolCall


def _sample(gold, calls, **kw):
    return Sample(tools_called=calls, expected_tools=ExpectedTools(tuple(gold)), **kw)


def test_retail_read_only_tools_are_free():
    gold = [
        C("find_user_id_by_name_zip", {"first_name": "Y", "last_name": "R", "zip": "19122"}),
        C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"}),
    ]
    calls = [
        C("find_user_id_by_email", {"email": "y@example.com"}),
        C("get_order_details", {"order_id": "#W1"}),
        C("get_product_details", {"product_id": "p"}),
        C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"}),
        C("transfer_to_human_agents", {"summary": "anything"}),
    ]
    result = tau_bench_actions(_sample(gold, calls))
    assert result.passed and result.diagnosis.details["domain"] == "retail"
    assert result.diagnosis.details["read_only_calls"] == 4
    assert {"find_user_id_by_email", "find_user_id_by_name_zip"} <= READ_ONLY["retail"]


def test_sorted_lists_are_multisets_and_modify_compares_pairs():
    ret = {"order_id": "#W1", "payment_method_id": "gift_card_1"}
    gold = [C("return_delivered_order_items", {**ret, "item_ids": ["2", "1", "1"]})]
    assert tau_bench_actions(
        _sample(gold, [C("return_delivered_order_items", {**ret, "item_ids": ["1", "2", "1"]})])
    ).passed
    assert not tau_bench_actions(
        _sample(gold, [C("return_delivered_order_items", {**ret, "item_ids": ["1", "2", "2"]})])
    ).passed
    ex = {"order_id": "#W2", "payment_method_id": "p"}
    gold = [
        C(
            "exchange_delivered_order_items",
            {**ex, "item_ids": ["a", "b"], "new_item_ids": ["c", "d"]},
        )
    ]
    swapped = C(
        "exchange_delivered_order_items", {**ex, "item_ids": ["b", "a"], "new_item_ids": ["d", "c"]}
    )
    assert tau_bench_actions(_sample(gold, [swapped])).passed
    mod = {"order_id": "#W3", "payment_method_id": "p"}
    gold_mod = C(
        "modify_pending_order_items", {**mod, "item_ids": ["a", "b"], "new_item_ids": ["c", "d"]}
    )
    same_pairs = C(
        "modify_pending_order_items", {**mod, "item_ids": ["b", "a"], "new_item_ids": ["d", "c"]}
    )
    other_pairs = C(
        "modify_pending_order_items", {**mod, "item_ids": ["a", "b"], "new_item_ids": ["d", "c"]}
    )
    assert state_key(gold_mod) == state_key(same_pairs) != state_key(other_pairs)
    assert tau_bench_actions(_sample([gold_mod], [same_pairs])).passed
    assert not tau_bench_actions(_sample([gold_mod], [other_pairs])).passed


def test_errored_and_unreadable_writes_changed_nothing():
    gold = [C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})]
    wrong = C("cancel_pending_order", {"order_id": "#W1", "reason": "changed my mind"}, id="c1")
    right = C("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"}, id="c2")
    messages = [
        AssistantMessage("", (wrong,)),
        ToolMessage("Error: invalid reason", tool_call_id="c1"),
        AssistantMessage("", (right,)),
        ToolMessage('{"status": "cancelled"}', tool_call_id="c2"),
    ]
    result = tau_bench_actions(Sample(messages=messages, expected_tools=ExpectedTools(tuple(gold))))
    assert result.passed and result.diagnosis.details["errored_writes"] == [0]
    # without the tool's answer the wrong call is an extra write
    assert not tau_bench_actions(_sample(gold, [wrong, right])).passed
    unreadable = C.parse("cancel_pending_order", "{oops")
    assert tau_bench_actions(_sample(gold, [unreadable, right])).passed


def test_values_are_type_strict_and_flight_fields_overwritten():
    base = {"reservation_id": "R1", "total_baggages": 2, "payment_id": "gift_card_1"}
    gold = [C("update_reservation_baggages", {**base, "nonfree_baggages": 1})]
    assert not tau_bench_actions(
        _sample(gold, [C("update_reservation_baggages", {**base, "nonfree_baggages": 1.0})])
    ).passed
    flights = [{"flight_number": "HAT1", "date": "2024-05-20"}]
    gold = [
        C(
            "update_reservation_flights",
            {"reservation_id": "R1", "cabin": "economy", "flights": flights, "payment_id": "p"},
        )
    ]
    extra_keys = [{**flights[0], "origin": "JFK", "destination": "SEA", "price": 100}]
    call = C(
        "update_reservation_flights",
        {"reservation_id": "R1", "cabin": "economy", "flights": extra_keys, "payment_id": "p"},
    )
    result = tau_bench_actions(_sample(gold, [call]))
    assert result.passed and result.diagnosis.details["domain"] == "airline"


def test_missing_extra_and_domains():
    gold = [C("cancel_reservation", {"reservation_id": "R1"})]
    result = tau_bench_actions(_sample(gold, [C("cancel_reservation", {"reservation_id": "R2"})]))
    assert result.score == 0.0
    assert result.diagnosis.missing[0]["args"] == {"reservation_id": "R1"}
    assert result.diagnosis.extra[0]["args"] == {"reservation_id": "R2"}
    # only tools both domains have: read-only either way
    assert tau_bench_actions(_sample([], [C("get_user_details", {"user_id": "u"})])).passed
    unknown = tau_bench_actions(_sample([C("my_tool", {})], []))
    assert unknown.score is None and "domain" in unknown.reason
    odd_gold = tau_bench_actions(_sample([C("my_tool", {})], []), domain="retail")
    assert odd_gold.score is None and "not tau-bench retail tools" in odd_gold.reason
    # a tool the domain lacks gets "Unknown action" from tau-bench: no change
    gold = [C("cancel_reservation", {"reservation_id": "R1"})]
    made = [C("get_flight_status", {"flight": "HAT1"}), *gold]
    result = tau_bench_actions(_sample(gold, made), domain="airline")
    assert result.passed and result.diagnosis.details["unknown_tool_calls"] == [0]
    with_reply = [*gold, C("respond", {"content": "done"})]
    assert tau_bench_actions(_sample(with_reply, gold), domain="airline").passed
    assert tau_bench_actions(Sample(tools_called=[])).score is None
    with pytest.raises(ConfigError):
        tau_bench_actions(_sample([], []), domain="telecom")
    assert infer_domain(["book_reservation"]) == "airline"
    assert score_sample("tau_bench_actions", _sample(gold, gold)).params == {
        "domain": None,
        "empty": "perfect",
    }


def test_importer_records_the_domain():
    run = {
        "task_id": 1,
        "trial": 0,
        "info": {
            "env": "retail",
            "task": {"actions": [], "outputs": ["1093.34"]},
            "reward_info": {"info": {"r_outputs": 1.0}},
        },
        "traj": [
            {"role": "user", "content": "what is the total?"},
            {"role": "assistant", "content": "It is 1,093.34 dollars."},
            {"role": "assistant", "content": "Anything else?"},
        ],
    }
    sample = sample_from_tau_bench_run(run)
    assert sample.metadata["tau_bench"]["domain"] == "retail"
    assert (
        sample_from_tau_bench_run(run, domain="airline").metadata["tau_bench"]["domain"]
        == "airline"
    )
    # tau-bench's output check reads every agent message, commas removed
    values = sample.metadata["tau_bench"]["outputs"]
    assert score_sample("output_contains", sample, values=values, messages="agent").passed
    assert not score_sample("output_contains", sample, values=values).passed


def test_agreement_with_r_actions(shared_data):
    samples = load_tau_bench(shared_data / "tau_bench" / "trajectories" / "gpt-4o-airline.json")
    labelled = [s for s in samples if s.metadata["tau_bench"]["r_actions"] is not None]
    agree = sum(
        tau_bench_actions(s).passed is bool(s.metadata["tau_bench"]["r_actions"]) for s in labelled
    )
    assert len(labelled) == 182
    assert agree / len(labelled) >= 0.97
    assert agree == 182  # measured; docs/conformance.md


# ---------------------------------------------------------------- tau2


def _task(criteria):
    return {"id": "7", "evaluation_criteria": criteria}


def _simulation(calls, termination="user_stop"):
    return {
        "id": "s1",
        "task_id": "7",
        "trial": 0,
        "termination_reason": termination,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{i}", "name": n, "arguments": a} for i, (n, a) in enumerate(calls)
                ],
            },
        ],
    }


GOLD = {
    "action_id": "7_0",
    "name": "cancel_reservation",
    "arguments": {"reservation_id": "R1"},
    "compare_args": None,
}


def test_tau2_max_steps_scores_zero_as_tau2_does():
    sim = _simulation([("cancel_reservation", {"reservation_id": "R1"})], termination="max_steps")
    sample = sample_from_tau2_simulation(sim, _task({"actions": [GOLD]}))
    result = tau2_actions(sample)
    assert result.score == 0.0 and result.passed is False and "max_steps" in result.reason
    assert tau2_actions(sample, termination="ignore").passed
    with pytest.raises(ConfigError):
        tau2_actions(sample, termination="sometimes")
    finished = sample_from_tau2_simulation(
        _simulation([("cancel_reservation", {"reservation_id": "R1"})]), _task({"actions": [GOLD]})
    )
    assert tau2_actions(finished).passed


def test_tau2_acceptable_outcomes_are_checked_not_passed():
    criteria = {
        "actions": [],
        "acceptable_outcomes": [
            {"actions": [GOLD]},
            [{**GOLD, "arguments": {"reservation_id": "R9"}}],
        ],
    }
    wrong = sample_from_tau2_simulation(
        _simulation([("cancel_reservation", {"reservation_id": "R5"})]), _task(criteria)
    )
    result = tau2_actions(wrong)
    assert result.passed is False and result.score == 0.0
    right = sample_from_tau2_simulation(
        _simulation([("cancel_reservation", {"reservation_id": "R9"})]), _task(criteria)
    )
    result = tau2_actions(right)
    assert result.passed and result.diagnosis.details["outcome"] == "acceptable_outcomes[1]"


def test_tau2_unknown_criteria_are_unscored():
    sample = sample_from_tau2_simulation(
        _simulation([]), _task({"actions": [], "expected_db_diff": {"R1": "cancelled"}})
    )
    result = tau2_actions(sample)
    assert result.score is None and "expected_db_diff" in result.reason
    # the fields of tau2's own model never block
    known = sample_from_tau2_simulation(
        _simulation([]), _task({"actions": [], "nl_assertions": ["x"], "reward_basis": ["DB"]})
    )
    assert tau2_actions(known).passed


def test_tau2_unknown_action_keys_are_unscored():
    odd = {**GOLD, "alternatives": [{"reservation_id": "R2"}]}
    sample = sample_from_tau2_simulation(
        _simulation([("cancel_reservation", {"reservation_id": "R1"})]), _task({"actions": [odd]})
    )
    result = tau2_actions(sample)
    assert result.score is None and "actions[0].alternatives" in result.reason
    plain = {**GOLD, "info": None, "requestor": "assistant"}
    sample = sample_from_tau2_simulation(
        _simulation([("cancel_reservation", {"reservation_id": "R1"})]), _task({"actions": [plain]})
    )
    assert tau2_actions(sample).passed


def test_output_check_agreement_with_r_outputs(shared_data):
    samples = load_tau_bench(shared_data / "tau_bench" / "trajectories" / "gpt-4o-airline.json")
    labelled = [s for s in samples if s.metadata["tau_bench"]["r_outputs"] is not None]
    assert len(labelled) == 13
    every_message = sum(
        score_sample("output_contains", s, messages="agent").passed
        is bool(s.metadata["tau_bench"]["r_outputs"])
        for s in labelled
    )
    final_only = sum(
        score_sample("output_contains", s).passed is bool(s.metadata["tau_bench"]["r_outputs"])
        for s in labelled
    )
    assert every_message == 13  # tau-bench's rule: any agent message, commas removed
    assert final_only == 11  # the final answer alone misses two (docs/conformance.md)


def test_tau2_outcomes_of_unknown_shape_are_unscored_not_errors():
    for odd, part in (
        ({"actions": [GOLD], "db_state": {"R1": "cancelled"}}, "acceptable_outcomes[0].db_state"),
        ({"db_state": {"R1": "cancelled"}}, "acceptable_outcomes[0]"),
        ("cancelled", "acceptable_outcomes[0]"),
    ):
        criteria = {"actions": [], "acceptable_outcomes": [odd]}
        sample = sample_from_tau2_simulation(
            _simulation([("cancel_reservation", {"reservation_id": "R1"})]), _task(criteria)
        )
        result = tau2_actions(sample)
        assert result.score is None and part in result.reason
    labelled = {"actions": [GOLD], "description": "cancel R1", "outcome_id": "a"}
    sample = sample_from_tau2_simulation(
        _simulation([("cancel_reservation", {"reservation_id": "R1"})]),
        _task({"actions": [], "acceptable_outcomes": [labelled]}),
    )
    assert tau2_actions(sample).passed
    sample = sample_from_tau2_simulation(
        _simulation([]), _task({"actions": [], "acceptable_outcomes": {"a": 1}})
    )
    assert tau2_actions(sample).score is None
