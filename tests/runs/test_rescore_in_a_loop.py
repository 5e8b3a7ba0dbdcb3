"""``rescore_run`` with a judge from inside a running event loop (a notebook, an async app)."""

from __future__ import annotations

import asyncio

from tests.judge_server import JudgeServer
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.runs.rescore import parse_metric_specs, rescore_run
from tooleval.store import open_store


def test_a_judged_rescore_works_where_an_event_loop_already_runs(tmp_path, agent_stub):
    from tooleval.llm import judge_from_config

    write_dataset(tmp_path / "cases.jsonl", CASES)
    script_correct(agent_stub, CASES)
    plan = write_plan(tmp_path, agent_stub, metrics=["tool_correctness"])
    db = tmp_path / "runs.db"
    assert main(["run", str(plan), "--store", str(db), "--quiet"]) == 0
    with JudgeServer() as server, open_store(db) as store:
        (first,) = store.list_runs()
        judge = judge_from_config(
            {"type": "openai", "model": "served", "base_url": server.base_url, "cache": False}
        )
        specs = parse_metric_specs(["task_success"], thresholds=["0.5"])

        async def notebook_cell() -> str:
            return rescore_run(store, first.id, specs, judge=judge, concurrency=2)

        new_id = asyncio.run(notebook_cell())
        scores = [row.result("task_success").score for row in store.iter_rows(new_id)]
        assert len(scores) == len(CASES) and len(server.calls) == len(CASES)
        assert all(score is not None for score in scores)
