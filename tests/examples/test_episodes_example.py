"""examples/episodes end to end: its model server on 127.0.0.1, its plan run into SQLite.

The plan names only the environment: the tools the model is offered are the
environment's, tooleval runs each call on a fresh environment per row and
attempt, records it with the row, and state_match judges the end state.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.procs import finish, read_line

from tooleval.cli.main import main
from tooleval.store import open_store

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "episodes"


def test_the_plan_runs_episodes_and_judges_their_end_state(tmp_path, monkeypatch):
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLE / "model_server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(read_line(proc, startswith="listening on ").split()[-1])
        monkeypatch.setenv("MODEL_URL", f"http://127.0.0.1:{port}")
        store = tmp_path / "runs.db"
        code = main(["run", str(EXAMPLE / "plan.yaml"), "--store", str(store), "--quiet"])
    finally:
        proc.terminate()
        finish(proc, timeout=10)
    assert code == 0
    with open_store(store) as opened:
        run = opened.list_runs()[0]
        rows = list(opened.iter_rows(run.id))
    assert len(rows) == 8  # four rows, two attempts each
    verdicts = {}
    for row in rows:
        assert row.error is None
        verdicts.setdefault(row.row_id.split("#")[0], set()).add(row.results[0].passed)
        episode = row.sample.metadata["episode"]
        assert [c["name"] for c in episode["calls"]] == [c.name for c in row.sample.tools_called]
    assert verdicts == {
        "cancel-W1": {True},
        "address-W1": {True},
        "refund-W2": {True},
        "refund-W1": {False},  # refunded a pending order instead of cancelling it
    }
    refund = next(r for r in rows if r.row_id == "refund-W1")
    assert refund.sample.metadata["episode"]["calls"][1]["result"].startswith("Error:")


def test_the_mcp_plan_serves_the_environment_to_an_mcp_agent(tmp_path):
    pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")
    store = tmp_path / "runs.db"
    code = main(["run", str(EXAMPLE / "plan_mcp.yaml"), "--store", str(store), "--quiet"])
    assert code == 0
    with open_store(store) as opened:
        run = opened.list_runs()[0]
        rows = list(opened.iter_rows(run.id))
    assert run.connector["serve"]["transport"] == "mcp"
    verdicts = {}
    for row in rows:
        assert row.error is None
        assert row.sample.metadata["episode"]["transport"] == "mcp"
        verdicts.setdefault(row.row_id.split("#")[0], set()).add(row.results[0].passed)
    assert verdicts == {
        "cancel-W1": {True},
        "address-W1": {True},
        "refund-W2": {True},
        "refund-W1": {False},
    }
