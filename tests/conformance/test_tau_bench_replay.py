"""tau-bench's reward by replay: against tau-bench's own ``calculate_reward``, and the stored rewards.

The reference runs tau-bench's package from ../shared/data/tau_bench/source
(its user simulator's ``litellm`` import answered by an empty stand-in). It hashes the
whole database twice per run (about 0.8 CPU-s), so by default it checks a stratified
sample: of the 200 stored runs, every other task (its trial taken in turn) and the first
run of any other task whose gold or agent calls write with a tool the half has not
(every write tool, every trial, both rewards, asserted); edited trajectories of two
runs; the retail tasks that cover every retail write tool. ``TOOLEVAL_CONFORMANCE=full``
checks all 200 runs, every retail task and every stored hash. tooleval's own replay
against the stored rewards is cheap and always covers all 200.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest
from tests.conformance.conformance_mode import FULL, full_only
from tests.conformance.tau_replay_reference import (
    SOURCE,
    TRAJECTORIES,
    agreement_with_reference,
    replay_run,
)
from tests.episodes.tau_agents import is_write

from tooleval.benchmarks.tau_bench.replay import (
    RESPOND,
    Action,
    actions_from_messages,
    replay_reward,
    reward_result,
)
from tooleval.benchmarks.tau_bench.replay_source import find_source, load_domain
from tooleval.errors import ConfigError

pytest.importorskip("pydantic", reason="tau-bench's own types (the reference) need pydantic")


@pytest.fixture(scope="module")
def airline(shared_data):
    return load_domain("airline", SOURCE)


@pytest.fixture(scope="module")
def runs(shared_data):
    return json.loads((TRAJECTORIES / "gpt-4o-airline.json").read_text())


def test_loading_the_tools_imports_neither_tau_bench_nor_litellm(airline):
    assert "litellm" not in sys.modules and "tau_bench" not in sys.modules
    assert "book_reservation" in airline.tools
    assert airline.terminate_tools == {"transfer_to_human_agents"}
    assert airline.version.startswith("sha256:")
    assert airline.fresh_data() is not airline.fresh_data()


def _stratified(runs):
    """One run of every task, its trial taken in turn (task t, trial t % 4)."""
    return [run for run in runs if run["trial"] == run["task_id"] % 4]


def _writes(run) -> set[str]:
    """The write tools of a run's gold actions and of the agent's own calls."""
    gold = {a["name"] for a in run["info"]["task"]["actions"]}
    called = {a.name for a in actions_from_messages(run["traj"])[0]}
    return {name for name in gold | called if is_write(name) and name != RESPOND}


def _sample(runs):
    """Every other task (task 2t, trial t % 4), then any run writing with a tool not yet seen."""
    stratified = _stratified(runs)
    sample = [r for r in runs if r["task_id"] % 2 == 0 and r["trial"] == r["task_id"] // 2 % 4]
    seen = set().union(*map(_writes, sample))
    for run in stratified:
        if _writes(run) - seen:
            sample.append(run)
            seen |= _writes(run)
    return sample


def test_the_sample_holds_every_write_tool_every_trial_and_both_rewards(runs):
    stratified, sample = _stratified(runs), _sample(runs)
    assert len(runs) == 200 and len(stratified) == 50
    assert sorted(run["task_id"] for run in stratified) == list(range(50))
    assert len(sample) == len({run["task_id"] for run in sample}) < 30
    assert set().union(*map(_writes, sample)) == set().union(*map(_writes, runs))
    assert set().union(*map(_writes, runs)) >= {
        "book_reservation",
        "cancel_reservation",
        "update_reservation_flights",
        "update_reservation_baggages",
        "update_reservation_passengers",
        "send_certificate",
    }
    assert set(Counter(run["trial"] for run in sample)) == {0, 1, 2, 3}
    rewards = Counter(run["reward"] for run in sample)
    assert set(rewards) == {0.0, 1.0} and min(rewards.values()) >= 10


@pytest.mark.parametrize("part", range(2), ids=lambda part: f"half-{part}")
def test_agrees_with_calculate_reward_on_a_stratified_sample(airline, runs, part):
    # a half per test (about 10 CPU-s of the reference each), so no single test nears the
    # per-test timeout on a machine at load 8-12
    assert agreement_with_reference(airline, _sample(runs)[part::2]) == []


@full_only
@pytest.mark.parametrize("part", range(4), ids=lambda part: f"quarter-{part}")
def test_agrees_with_calculate_reward_on_every_run(airline, runs, part):
    # a quarter per test: with ``-n 2 --dist load`` the workers share the 200 runs
    assert len(runs) == 200
    assert agreement_with_reference(airline, runs[part::4]) == []


def test_agrees_with_calculate_reward_on_edited_trajectories(airline, runs):
    """Gold actions as the agent's: as they are, the last dropped, made twice, reversed."""
    edited = []
    for run in runs[:8:4]:
        gold = run["info"]["task"]["actions"]
        calls = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"function": {"name": a["name"], "arguments": json.dumps(a["kwargs"])}}
                ],
            }
            for a in gold
        ]
        stop = [{"role": "assistant", "content": "done"}, {"role": "user", "content": "###STOP###"}]
        for variant in (calls, calls[:-1], calls + calls[-1:], calls[::-1]):
            edited.append({**run, "traj": variant + stop})
    assert agreement_with_reference(airline, edited) == []


def _stored_agreement(domain, runs):
    same, drifted = 0, []
    for run in runs:
        ours = replay_run(domain, run)
        if ours.reward == run["reward"]:
            same += 1
            continue
        drifted.append((run["task_id"], run["trial"], run["reward"], ours.reward))
    return same, drifted


def _stored_hash(run):
    return ((run["info"].get("reward_info") or {}).get("info") or {}).get("gt_data_hash")


def test_the_stored_runs_come_from_an_older_environment(airline, runs):
    """Stored gold hashes differ from a replay at the shared commit: the data drifted."""
    tasks = {run["task_id"]: run for run in runs if _stored_hash(run)}
    for run in list(tasks.values())[:: 1 if FULL else 10]:
        ours = replay_run(airline, run, tau_hash=True)
        assert ours.gt_data_hash != _stored_hash(run)


def test_stored_rewards_agree_despite_the_drift_on_every_run(airline, runs):
    # 200 of 200: the drift changed the gold states' hashes, not one verdict
    assert _stored_agreement(airline, runs) == (200, [])


def test_hostile_actions_are_observations_not_crashes(airline):
    hostile = [
        Action("__import__", {"name": "os"}),
        Action("book_reservation", {"user_id": 7}),
        Action("get_user_details", {"user_id": "__import__('os').system('x')"}),
        Action("cancel_reservation", {}, error="arguments are not JSON"),
        Action(RESPOND, {"content": "ok"}),
    ]
    result = replay_reward(airline, [], [], hostile)
    assert result.observations[0] == "Unknown action __import__"
    assert all(o.startswith("Error") for o in result.observations[1:4])
    assert result.reward == 1.0  # nothing changed, nothing was to change


def test_one_executed_call_per_message_and_episode_end():
    actions, done = actions_from_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"function": {"name": "a", "arguments": "{}"}},
                    {"function": {"name": "b", "arguments": "{}"}},
                ],
            },
            {"role": "assistant", "tool_calls": [{"function": {"name": "c", "arguments": "[1]"}}]},
        ]
    )
    assert [a.name for a in actions] == ["a", "c"] and not done
    assert actions[1].error == "arguments must be a JSON object, got list"


def test_an_episode_that_never_ended_scores_zero(airline):
    result = reward_result(replay_reward(airline, [], [], [], done=False))
    assert result.score == 0.0 and "never ended" in result.reason
    assert result.params["environment_version"] == airline.version


def test_a_missing_source_says_how_to_give_one(tmp_path):
    with pytest.raises(ConfigError, match="--data DIR"):
        find_source(tmp_path)


def _retail_runs(tasks, *, in_turn: bool = False):
    """Each task's gold actions as the agent's: as they are, the last dropped, reversed.

    ``in_turn``: one variant per task, taken in turn (task k, variant k % 3).
    """
    runs = []
    for index, task in enumerate(tasks):
        calls = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"function": {"name": a["name"], "arguments": json.dumps(a["kwargs"])}}
                ],
            }
            for a in task["actions"]
        ]
        stop = [{"role": "assistant", "content": "done"}, {"role": "user", "content": "###STOP###"}]
        variants = (calls, calls[:-1], calls[::-1])
        for variant in variants[index % 3 : index % 3 + 1] if in_turn else variants:
            runs.append(
                {"task_id": index, "trial": 0, "info": {"task": task}, "traj": variant + stop}
            )
    return runs


def _retail_writes(task) -> set[str]:
    return {a["name"] for a in task["actions"] if is_write(a["name"])}


@pytest.fixture(scope="module")
def retail_tasks(shared_data):
    return json.loads((shared_data / "tau_bench" / "tasks" / "retail_test.json").read_text())


def test_retail_agrees_with_calculate_reward_on_a_sample(retail_tasks):
    """The retail tools (orders, products, users) over the shared database: the first task
    of each write tool, one variant each in turn (every task and variant: full mode)."""
    retail = load_domain("retail", SOURCE)
    sample, seen = [], set()
    for task in retail_tasks:
        if _retail_writes(task) - seen:
            sample.append(task)
            seen |= _retail_writes(task)
    assert len(retail_tasks) == 115 and len(sample) == 7
    assert seen == set().union(*map(_retail_writes, retail_tasks))
    runs = _retail_runs(sample, in_turn=True)
    assert agreement_with_reference(retail, runs) == []
    rewards = Counter(replay_run(retail, run).reward for run in runs)
    assert set(rewards) == {0.0, 1.0}  # both verdicts are exercised


@full_only
def test_retail_agrees_with_calculate_reward_on_every_task(retail_tasks):
    assert agreement_with_reference(load_domain("retail", SOURCE), _retail_runs(retail_tasks)) == []
