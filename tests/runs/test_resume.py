"""Resume after a real kill: a `tooleval run` subprocess killed mid-run, then --resume."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.procs import finish
from tests.runs.support import write_plan

from tooleval.cli.main import main
from tooleval.store import open_store

ROWS = 40
TOOLEVAL = Path(sys.executable).with_name("tooleval")


def _dataset(path: Path) -> None:
    import json

    with path.open("w") as out:
        for i in range(ROWS):
            row = {"id": f"q{i}", "input": f"question {i}", "expected_tools": ["search"]}
            out.write(json.dumps(row) + "\n")


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM rows").fetchone()[0]
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def _start(tmp_path: Path, stub, db: Path) -> tuple[subprocess.Popen, Path]:
    _dataset(tmp_path / "cases.jsonl")
    for i in range(ROWS):
        stub.script(f"question {i}", tools=["search"], delay=0.15)
    plan = write_plan(tmp_path, stub, metrics=["tool_correctness", "tool_call_f1"])
    proc = subprocess.Popen(
        [str(TOOLEVAL), "run", str(plan), "--store", str(db), "--concurrency", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while _stored(db) < 4:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            out, err = finish(proc)
            pytest.fail(f"the run did not get going: {out}\n{err}")
        time.sleep(0.05)
    return proc, plan


def _assert_complete(db: Path, run_id: str, stub, stored_before: set[int]) -> None:
    with open_store(db) as store:
        run = store.get_run(run_id)
        assert run.status == "finished"
        assert run.row_count == ROWS
        assert sorted(store.row_indexes(run_id)) == list(range(ROWS))
        assert sum(len(r.results) for r in store.iter_rows(run_id)) == ROWS * 2
        assert run.summaries["tool_correctness"].passed == ROWS
    with sqlite3.connect(db) as conn:
        dupes = conn.execute(
            "SELECT count(*) FROM (SELECT row_index FROM results WHERE run_id = ? "
            "GROUP BY row_index, metric HAVING count(*) > 1)",
            (run_id,),
        ).fetchone()[0]
        assert dupes == 0
    # Rows stored before the kill were not sent to the agent again.
    for index in stored_before:
        assert stub.attempts(f"question {index}") == 1
    assert all(stub.attempts(f"question {i}") >= 1 for i in range(ROWS))


def _stored_indexes(db: Path) -> tuple[str, set[int]]:
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs").fetchone()
        indexes = {i for (i,) in conn.execute("SELECT row_index FROM rows")}
    return run_id, indexes


def test_resume_after_sigkill_loses_and_repeats_nothing(tmp_path, agent_stub):
    db = tmp_path / "runs.db"
    proc, plan = _start(tmp_path, agent_stub, db)
    os.kill(proc.pid, signal.SIGKILL)
    finish(proc)
    assert proc.returncode == -signal.SIGKILL
    run_id, before = _stored_indexes(db)
    assert 4 <= len(before) < ROWS
    with open_store(db) as store:
        assert store.get_run(run_id).status == "running"  # killed: nobody marked it
    assert main(["run", str(plan), "--store", str(db), "--resume", run_id[:12], "--quiet"]) == 0
    _assert_complete(db, run_id, agent_stub, before)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_stopping_marks_the_run_interrupted_and_says_how_to_resume(
    tmp_path, agent_stub, capsys, signum
):
    db = tmp_path / "runs.db"
    proc, plan = _start(tmp_path, agent_stub, db)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == (130 if signum == signal.SIGINT else 143), err
    run_id, before = _stored_indexes(db)
    assert f"--resume {run_id}" in err
    with open_store(db) as store:
        assert store.get_run(run_id).status == "interrupted"
    assert main(["run", str(plan), "--store", str(db), "--resume", run_id, "--quiet"]) == 0
    assert "already stored" in capsys.readouterr().out
    _assert_complete(db, run_id, agent_stub, before)


def test_resume_refuses_a_different_plan(tmp_path, agent_stub, capsys):
    db = tmp_path / "runs.db"
    _dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub, metrics=["tool_correctness"])
    # The unscripted stub passes no row: the default gate fails the run (exit 1); stored all the same.
    assert main(["run", str(plan), "--store", str(db), "--quiet"]) == 1
    with open_store(db) as store:
        (run,) = store.list_runs()
    other = write_plan(tmp_path, agent_stub, name="other", metrics=["tool_call_f1"])
    assert main(["run", str(other), "--store", str(db), "--resume", run.id, "--quiet"]) == 2
    assert "started with other metrics" in capsys.readouterr().err
    (tmp_path / "cases.jsonl").write_text('{"id": "new", "input": "x", "expected_tools": ["a"]}\n')
    assert main(["run", str(plan), "--store", str(db), "--resume", run.id, "--quiet"]) == 2
    assert "changed since run" in capsys.readouterr().err
