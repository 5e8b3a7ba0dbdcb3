"""The oracle and its mutants through MCP (streamable HTTP and stdio) and HTTP endpoints: tau-bench's verdicts.

The same scripted agents as tests/episodes/test_tau_oracle.py, but the agent
calls the tools itself over what tooleval serves (tests/serving/served_agents.py,
the official ``mcp`` SDK's clients): ``tooleval run`` binds a fresh tau-bench
environment to each row, records every call, and ``state_match`` judges the end
state. The verdict of every episode must equal tau-bench's own
``calculate_reward`` on the trajectory tooleval recorded, id for id.

tau-bench's reward and ``state_match`` each copy and hash the whole database,
and ``state_match``'s diff of two differing databases takes tens of seconds
on a loaded machine, so the default suite runs one task's oracle over each
path (the task of test_tau_oracle.py's sample; the mutants' agreement over the
same recording is test_tau_oracle.py's); ``TOOLEVAL_CONFORMANCE=full`` runs the
oracle and every mutant of every test-split task over every path and domain.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.conformance.conformance_mode import FULL
from tests.conformance.tau_replay_reference import SOURCE, tau_bench_imported
from tests.episodes.tau_agents import MUTATIONS
from tests.episodes.test_tau_oracle import _episodes, _reference, _sample, _tasks

from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip("pydantic", reason="tau-bench's own types (the reference) need pydantic")
pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

from tests.serving import served_agents  # noqa: E402  (needs mcp)

PATHS = (
    [(t, d) for t in ("mcp", "stdio", "http") for d in ("airline", "retail")]
    if FULL
    else [("mcp", "retail"), ("stdio", "airline"), ("http", "retail")]
)
SAMPLED = ("oracle",)


def _run(tmp_path, domain: str, transport: str, episodes: dict[str, Any]) -> dict[str, Any]:
    rows = [
        {
            "id": tag,
            "input": task["instruction"],
            "expected_tools": [{"name": a["name"], "args": a["kwargs"]} for a in task["actions"]],
        }
        for tag, (task, _, _) in episodes.items()
    ]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    served_agents.SCRIPTS.update(
        {tag: (actions, closing) for tag, (_, actions, closing) in episodes.items()}
    )
    plan = plan_from_dict(
        {
            "dataset": "tasks.jsonl",
            "connector": {
                "type": "python",
                "target": f"tests.serving.served_agents:{served_agents.AGENTS[transport]}",
                "argument": "sample",
                "serve": transport,
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


@pytest.mark.timeout(3600 if FULL else 300)
@pytest.mark.parametrize(("transport", "domain"), PATHS)
def test_served_oracle_and_mutants_get_tau_benchs_verdict(shared_data, tmp_path, transport, domain):
    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source not found at {SOURCE}")
    tasks = _tasks(shared_data, domain)
    indexes = list(range(len(tasks))) if FULL else _sample(tasks)
    episodes = _episodes(domain, tasks, indexes)
    if not FULL:
        assert {tag.rsplit("-", 1)[1] for tag in episodes} == {"oracle", *MUTATIONS}
        episodes = {t: e for t, e in episodes.items() if t.rsplit("-", 1)[1] in SAMPLED}
    rows = _run(tmp_path, domain, transport, episodes)
    assert sorted(rows) == sorted(episodes)
    disagree, oracle_failed = [], []
    with tau_bench_imported() as tau:
        for tag, (task, actions, _) in episodes.items():
            row = rows[tag]
            assert row.error is None, (tag, row.error)
            episode = row.sample.metadata["episode"]
            assert episode["transport"] == transport
            # tooleval recorded exactly what the agent called, executed by the environment.
            assert [(c["name"], c["args"]) for c in episode["calls"]] == list(actions)
            ours = row.results[0].passed
            theirs = _reference(tau, domain, task, row) == 1.0
            if ours != theirs:
                disagree.append((tag, theirs, ours, row.results[0].reason))
            if tag.endswith("-oracle") and not ours:
                oracle_failed.append((tag, row.results[0].reason))
    print(f"{transport} {domain}: {len(episodes)} episodes, {len(disagree)} disagreements")
    assert not oracle_failed
    assert not disagree
