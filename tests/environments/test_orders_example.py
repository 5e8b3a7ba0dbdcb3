"""examples/orders_env end to end: its dataset scored, its plan run into SQLite, a run rescored.

The viewer renders a row's state diff from ``diagnosis.details["differences"]`` and
``["first_divergence"]``: every path here checks those are what the stored results carry.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tooleval.cli.main import main
from tooleval.store import open_store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "orders_env"
FACTORY = f"{EXAMPLE / 'orders.py'}:make_environment"


def _check_refund_row(result) -> None:
    """refund-W1: the agent refunds a pending order; the tool refuses; the cancel never happens."""
    assert result.score == 0.0
    details = result.diagnosis.details
    assert {"path": "orders.W1.status", "expected": "cancelled", "actual": "pending"} in details[
        "differences"
    ]
    assert details["first_divergence"]["index"] == 0
    assert "first diverging call: call 1" in result.reason


def test_the_dataset_scores_three_of_four_by_end_state(tmp_path, capsys):
    out = tmp_path / "scored.jsonl"
    argv = ["score", str(EXAMPLE / "scored_calls.jsonl"), "--metric", "state_match"]
    assert main([*argv, "--option", f"environment={FACTORY}", "-o", str(out)]) == 0
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert [i for i, r in rows.items() if r["passed"]] == ["cancel-W1", "address-W1", "refund-W2"]
    refund = rows["refund-W1"]["diagnosis"]["details"]
    assert refund["differences"][0]["path"] == "orders.W1.status"
    assert refund["first_divergence"]["index"] == 0


@pytest.fixture
def example(tmp_path):
    folder = tmp_path / "orders_env"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def _runs(db):
    with open_store(db) as store:
        return {run.id: run for run in store.list_runs()}


def _row_results(db, run_id, metric):
    with open_store(db) as store:
        return {row.row_id: row.result(metric) for row in store.iter_rows(run_id)}


def test_the_plan_runs_into_sqlite_and_stores_the_state_diff(example, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # another folder: the plan's paths are its own
    db = tmp_path / "runs.db"
    assert main(["run", str(example / "plan.yaml"), "--store", f"sqlite:///{db}", "--quiet"]) == 0
    (run,) = _runs(db).values()
    spec = next(m for m in run.metrics if m.name == "state_match")
    assert spec.params["environment"]["name"] == f"{example / 'orders.py'}:make_environment"
    results = _row_results(db, run.id, "state_match")
    assert sorted(i for i, r in results.items() if r.passed) == [
        "address-W1",
        "cancel-W1",
        "refund-W2",
    ]
    _check_refund_row(results["refund-W1"])
    calls = _row_results(db, run.id, "tool_correctness")
    assert sum(bool(r.passed) for r in calls.values()) == 2


def test_rescore_adds_state_match_to_a_run_that_had_none(example, tmp_path, monkeypatch, capsys):
    plan = yaml.safe_load((example / "plan.yaml").read_text())
    plan.pop("environment")
    plan["metrics"] = ["tool_correctness"]
    (example / "calls_only.yaml").write_text(yaml.safe_dump(plan))
    db = tmp_path / "runs.db"
    assert main(["run", str(example / "calls_only.yaml"), "--store", str(db), "--quiet"]) == 0
    (first,) = _runs(db)
    option = json.dumps({"name": f"{example / 'orders.py'}:make_environment", "config": {}})
    argv = ["rescore", first, "--metric", "state_match", "--option", f"environment={option}"]
    assert main([*argv, "--store", str(db)]) == 0
    assert "nothing was called" in capsys.readouterr().out
    (new,) = (r for i, r in _runs(db).items() if i != first)
    assert [m.name for m in new.metrics] == ["state_match"]
    results = _row_results(db, new.id, "state_match")
    assert sum(bool(r.passed) for r in results.values()) == 3
    _check_refund_row(results["refund-W1"])


def test_rescore_without_an_environment_leaves_rows_unscored_with_the_reason(
    example, tmp_path, capsys
):
    db = tmp_path / "runs.db"
    assert main(["run", str(example / "plan.yaml"), "--store", str(db), "--quiet"]) == 0
    (first,) = _runs(db)
    assert main(["rescore", first, "--metric", "state_match", "--store", str(db)]) == 0
    (new,) = (r for i, r in _runs(db).items() if i != first)
    results = _row_results(db, new.id, "state_match")
    assert {r.score for r in results.values()} == {None}
    assert all("no environment" in r.reason for r in results.values())
