"""`tooleval run` stores the finished run's aggregates, so views never count its rows."""

from __future__ import annotations

from tests.agent_stub import AgentStub
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.store import open_store


def test_a_finished_run_has_its_aggregates(tmp_path):
    with AgentStub() as stub:
        _run(tmp_path, stub)


def _run(tmp_path, stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    plan = write_plan(tmp_path, stub, metrics=["tool_correctness"])
    db = tmp_path / "runs.db"
    assert main(["run", str(plan), "--store", str(db), "--quiet"]) in (0, 1)
    with open_store(db) as store:
        (run,) = store.list_runs()
        for name in ("run/1", "counts/1", "clusters/1"):
            assert (
                store.aggregates.load_aggregate(run.id, name, row_count=run.row_count) is not None
            ), name
