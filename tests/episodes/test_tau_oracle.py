"""tau-bench tasks run end to end through the tool loop, judged on the end state, against tau-bench.

A scripted OpenAI-compatible agent on 127.0.0.1 (tests/episodes/tau_agents.py)
plays each task's gold actions (the oracle) or a mutant of them through the
``openai`` connector's tool loop; tooleval serves tau-bench's own airline or
retail environment (``tooleval.serving.tau_bench``, the source found the way
replay finds it), executes and records every call, and ``state_match`` judges
the end state in a real run (store, gate). The reference is tau-bench's own
``Env.calculate_reward`` on the same trajectory (the recorded calls, then the
closing reply; the agent ended the episode): the verdicts must agree id for id.

tau-bench's reward hashes the whole database twice per trajectory, so the
default suite runs a sample (per domain, the first task with two writes or more
and outputs, else two writes: the oracle and every kind of mutant);
``TOOLEVAL_CONFORMANCE=full`` runs every test-split task.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.conformance.conformance_mode import FULL
from tests.conformance.tau_replay_reference import SOURCE, reference_reward, tau_bench_imported
from tests.episodes.tau_agents import MUTATIONS, closing_reply, is_write, scripted_reply, variants
from tests.openai_server import OpenAIServer

from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip("pydantic", reason="tau-bench's own types (the reference) need pydantic")

SPLITS = {"airline": "airline_test", "retail": "retail_test"}


def _tasks(shared_data, domain: str) -> list[dict[str, Any]]:
    path = shared_data / "tau_bench" / "tasks" / f"{SPLITS[domain]}.json"
    if not path.is_file():
        pytest.skip(f"tau-bench tasks not found at {path}")
    return json.loads(path.read_text())


def _sample(tasks: list[dict[str, Any]]) -> list[int]:
    """The stratified sample's task indexes (see the module docstring)."""

    def writes(task):
        return sum(is_write(a["name"]) for a in task["actions"])

    both = [i for i, t in enumerate(tasks) if writes(t) >= 2 and t["outputs"]]
    return both[:1] or [next(i for i, t in enumerate(tasks) if writes(t) >= 2)]


def _episodes(domain: str, tasks: list[dict[str, Any]], indexes: list[int]) -> dict[str, Any]:
    episodes = {}
    for index in indexes:
        task = tasks[index]
        gold = [(a["name"], a["kwargs"]) for a in task["actions"]]
        for variant, actions in variants(domain, gold).items():
            tag = f"{domain}-{index}-{variant}"
            episodes[tag] = (task, actions, closing_reply(task["outputs"]))
    return episodes


def _run(tmp_path, domain: str, episodes: dict[str, Any]) -> dict[str, Any]:
    """Every episode through the tool loop in one run; the stored rows by id."""
    rows = [
        {
            "id": tag,
            "input": f"[{tag}] {task['instruction']}",
            "expected_tools": [{"name": a["name"], "args": a["kwargs"]} for a in task["actions"]],
            "category": tag.rsplit("-", 1)[1],
        }
        for tag, (task, _, _) in episodes.items()
    ]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    scripts = {tag: (actions, closing) for tag, (_, actions, closing) in episodes.items()}
    with OpenAIServer(scripted_reply(scripts)) as server:
        plan = plan_from_dict(
            {
                "dataset": "tasks.jsonl",
                "connector": {
                    "type": "openai",
                    "base_url": server.base_url,
                    "model": "oracle",
                    "max_turns": 40,
                },
                "environment": {
                    "name": f"tooleval.serving.tau_bench:{domain}",
                    "config": {"source": str(SOURCE)},
                },
                "metrics": ["state_match"],
            },
            base_dir=tmp_path,
        )
        with open_store(tmp_path / "runs.db") as store:
            outcome = run_plan(plan, store=store, concurrency=4)
            return {row.row_id: row for row in store.iter_rows(outcome.run_id)}


def _reference(tau: Any, domain: str, task: dict[str, Any], row: Any) -> float:
    """tau-bench's calculate_reward on the trajectory the episode recorded."""
    played = [(c["name"], c["args"]) for c in row.sample.metadata["episode"]["calls"]]
    played.append(("respond", {"content": row.sample.output}))
    reward, _ = reference_reward(tau, tau.envs[domain], task, played, done=True)
    return reward


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_oracle_and_mutants_get_tau_benchs_verdict_id_for_id(shared_data, tmp_path, domain):
    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source not found at {SOURCE}")
    tasks = _tasks(shared_data, domain)
    indexes = list(range(len(tasks))) if FULL else _sample(tasks)
    episodes = _episodes(domain, tasks, indexes)
    if not FULL:  # the sample holds the oracle and every kind of mutant
        assert {tag.rsplit("-", 1)[1] for tag in episodes} == {"oracle", *MUTATIONS}
    rows = _run(tmp_path, domain, episodes)
    assert sorted(rows) == sorted(episodes)
    disagree, oracle_failed = [], []
    with tau_bench_imported() as tau:
        for tag, (task, actions, _) in episodes.items():
            row = rows[tag]
            assert row.error is None, (tag, row.error)
            calls = row.sample.metadata["episode"]["calls"]
            # tooleval recorded exactly what the agent asked for, executed by the environment.
            assert [(c["name"], c["args"]) for c in calls] == [(n, k) for n, k in actions]
            ours = row.results[0].passed
            theirs = _reference(tau, domain, task, row) == 1.0
            if ours != theirs:
                disagree.append((tag, theirs, ours, row.results[0].reason))
            if tag.endswith("-oracle") and not ours:
                oracle_failed.append((tag, row.results[0].reason))
    print(f"{domain}: {len(episodes)} episodes, {len(disagree)} disagreements")
    assert not oracle_failed
    assert not disagree
