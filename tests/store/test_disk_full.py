"""A disk that fills during a run: one line, no traceback, and --resume stores every row once.

The run is a real subprocess under ``ulimit -f`` (the store file cannot grow
past it), at a concurrency where several workers wait on commits when the
write fails; three times, since the noise it used to print came 2 runs in 3.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.agent_stub import AgentStub, Behaviour

from tooleval.store import open_store

REPO = Path(__file__).resolve().parents[2]
ROWS = 300


def _plan(tmp_path: Path, url: str) -> Path:
    with (tmp_path / "cases.jsonl").open("w") as out:
        for i in range(ROWS):
            row = {"id": f"r{i}", "input": f"q {i} " + "y" * 500, "expected_tools": ["lookup"]}
            out.write(json.dumps(row) + "\n")
    plan = {
        "name": "disk",
        "dataset": {"path": "cases.jsonl"},
        "connector": {
            "type": "http",
            "url": url,
            "timeout": 10,
            "retry": {"retries": 0},
            "response": {
                "output": "$.output",
                "tools_called": "$.steps[?(@.type=='tool_call')].tool.name",
            },
        },
        "metrics": ["tool_correctness"],
        "concurrency": 32,
    }
    path = tmp_path / "plan.yaml"
    path.write_text(yaml.safe_dump(plan))
    return path


def _run(*args: str, limit_kb: int | None = None) -> subprocess.CompletedProcess:
    command = " ".join([sys.executable, "-m", "tooleval.cli.main", *args])
    if limit_kb is not None:
        command = f"ulimit -f {limit_kb}; exec {command}"
    return subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, cwd=REPO, timeout=300
    )


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for ulimit")
def test_a_full_disk_is_one_line_and_resume_stores_every_row_once(tmp_path):
    with AgentStub(default=Behaviour(tools=["lookup"], output="x" * 2000)) as stub:
        plan = _plan(tmp_path, stub.url + "/agent")
        for attempt in range(3):
            db = tmp_path / f"r{attempt}.db"
            full = _run("run", str(plan), "--store", str(db), "--quiet", limit_kb=400)
            lines = [line for line in full.stderr.splitlines() if line.strip()]
            assert full.returncode == 2, full.stderr[-3000:]
            assert len(lines) == 1, full.stderr[-3000:]
            assert "the store refused the write" in lines[0]
            assert "Traceback" not in full.stderr and "never retrieved" not in full.stderr
        store = open_store(db)
        (run,) = store.list_runs()
        store.close()
        resumed = _run("run", str(plan), "--store", str(db), "--resume", run.id, "--quiet")
        assert resumed.returncode in (0, 1), resumed.stderr[-3000:]
    store = open_store(db)
    rows = list(store.iter_rows(run.id))
    store.close()
    assert len(rows) == ROWS
    assert sorted(r.row_id for r in rows) == sorted(f"r{i}" for i in range(ROWS))
