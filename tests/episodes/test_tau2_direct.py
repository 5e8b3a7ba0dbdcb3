"""A plan names tau2's own tasks file: airline and retail tasks run on tau-bench's tools of the domain.

The dataset is tau2's ``airline_tasks.json`` / ``retail_tasks.json`` as tau2
ships it (no conversion by the user): each task is read as its episode row
(``tooleval.serving.tau_bench.tau2_task_rows_of``). An agent that plays each
task's gold actions over the JSON tool endpoints gets ``state_match`` 1 on every
task, and every gold call runs without an error on tau-bench's tools, except
on the tasks listed in ``UNRUNNABLE`` (a tau2 tool tau-bench does not have).

The default suite reads a few tasks of each domain, written in tau2's own format
to a file named as tau2 names it; ``TOOLEVAL_CONFORMANCE=full`` reads the
shared data's files themselves (50 airline and 114 retail tasks).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conformance.conformance_mode import FULL
from tests.conformance.tau_replay_reference import SOURCE

from tooleval.errors import DatasetError
from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

from tests.serving import served_agents  # noqa: E402  (needs mcp)

#: tau2 tasks whose gold actions call a tool tau-bench's domain does not have.
UNRUNNABLE = {"retail-21": "get_item_details (tau2 retail only)"}
COUNTS = {"airline": 50, "retail": 114}


def _tasks(shared_data: Path, domain: str) -> tuple[Path, list[dict]]:
    path = shared_data / "tau2_bench" / "tasks" / f"{domain}_tasks.json"
    if not path.is_file():
        pytest.skip(f"tau2's {domain} tasks not found at {path}")
    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source (the {domain} environment) not found at {SOURCE}")
    return path, json.loads(path.read_text())


def _run(folder: Path, dataset: Path, domain: str) -> dict:
    plan = plan_from_dict(
        {
            "dataset": str(dataset),
            "connector": {
                "type": "python",
                "target": "tests.serving.served_agents:http_agent",
                "argument": "sample",
                "serve": "http",
            },
            "environment": {
                "name": f"tooleval.serving.tau_bench:{domain}",
                "config": {"source": str(SOURCE)},
            },
            "metrics": ["state_match"],
        },
        base_dir=folder,
    )
    with open_store(folder / "runs.db") as store:
        outcome = run_plan(plan, store=store, concurrency=4)
        return {row.row_id: row for row in store.iter_rows(outcome.run_id)}


@pytest.mark.timeout(3600 if FULL else 300)
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_a_plan_names_tau2s_tasks_file_and_the_oracle_gets_1(shared_data, tmp_path, domain):
    path, tasks = _tasks(shared_data, domain)
    assert len(tasks) == COUNTS[domain]
    if not FULL:  # a few tasks, with a write, in tau2's own format and file name
        picked = [t for t in tasks if f"{domain}-{t['id']}" in UNRUNNABLE]
        picked += [t for t in tasks if len(t["evaluation_criteria"]["actions"] or []) >= 3][:2]
        path = tmp_path / "data" / f"{domain}_tasks.json"
        path.parent.mkdir()
        path.write_text(json.dumps(picked))
        tasks = picked
    for task in tasks:
        actions = task["evaluation_criteria"]["actions"] or []
        served_agents.SCRIPTS[f"{domain}-{task['id']}"] = (
            [(a["name"], a["arguments"]) for a in actions],
            "Done.",
        )
    stored = _run(tmp_path, path, domain)
    assert sorted(stored) == sorted(f"{domain}-{t['id']}" for t in tasks)
    errored = {}
    for tag, row in stored.items():
        assert row.error is None, (tag, row.error)
        assert row.results[0].passed, (tag, row.results[0].reason)
        assert row.sample.metadata["tau2"]["task_id"] == tag.split("-", 1)[1]
        calls = row.sample.metadata["episode"]["calls"]
        assert [(c["name"], c["args"]) for c in calls] == served_agents.SCRIPTS[tag][0]
        failed = [c["name"] for c in calls if c.get("is_error")]
        if failed:
            errored[tag] = failed
    runnable = len(tasks) - len(errored)
    print(f"tau2 {domain}: oracle state_match 1 on {len(tasks)} tasks; gold runs on {runnable}")
    assert set(errored) == {t for t in UNRUNNABLE if t.startswith(domain)} & set(stored)


def test_a_broken_tau2_tasks_file_is_refused_naming_the_task(tmp_path):
    path = tmp_path / "retail_tasks.json"
    path.write_text(json.dumps([{"id": "1", "user_scenario": {}, "evaluation_criteria": {}}]))
    with pytest.raises(DatasetError) as caught:
        _run(tmp_path, path, "retail")
    message = str(caught.value)
    assert "retail_tasks.json" in message and "tasks[0].user_scenario" in message
