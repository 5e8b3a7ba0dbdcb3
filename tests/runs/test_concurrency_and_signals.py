"""Issue 10, reproducers 5 and 7: two real processes on one store, and stop signals.

Every test starts real ``tooleval run`` processes (the console script of
this venv) against the agent stub on 127.0.0.1 and a real SQLite file or
the PostgreSQL server the suite starts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from tests.procs import finish, read_line
from tests.runs.support import write_plan

from tooleval.cli.main import main
from tooleval.store import open_store

TOOLEVAL = Path(sys.executable).with_name("tooleval")
ROWS = 24


def _dataset(path: Path, stub, *, delay: float = 0.0, hold=None, free: int = 0) -> None:
    """ROWS rows; with ``hold``, every row after the first ``free`` waits for it."""
    with path.open("w") as out:
        for i in range(ROWS):
            row = {"id": f"q{i}", "input": f"question {i}", "expected_tools": ["search"]}
            out.write(json.dumps(row) + "\n")
            held = hold if hold is not None and i >= free else None
            stub.script(f"question {i}", tools=["search"], delay=delay, hold=held)


def _start(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [str(TOOLEVAL), "run", *args, "--concurrency", "2"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_rows(
    store_url: str, proc: subprocess.Popen, at_least: int, name: str = "support"
) -> str:
    deadline = time.monotonic() + 60
    store = None
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"the run ended early: {finish(proc)}")
            try:
                store = store or open_store(store_url)  # one connection, polled
                runs = [r for r in store.list_runs() if r.name == name]
                if runs and store.count_rows(runs[0].id) >= at_least:
                    return runs[0].id
            except Exception:  # the store may not be created yet
                pass
            time.sleep(0.05)
    finally:
        if store is not None:
            store.close()
    proc.kill()
    pytest.fail("the run did not get going")


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def test_two_runs_at_once_on_one_store_both_finish(tmp_path, agent_stub, backend, request):
    url = str(tmp_path / "s.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    _dataset(tmp_path / "cases.jsonl", agent_stub, delay=0.02)
    plan = write_plan(
        tmp_path, agent_stub, name=f"both-{backend}", gate={"require_any_pass": False}
    )
    procs = [_start(str(plan), "--store", url, "--quiet", cwd=tmp_path) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, out + err
        assert "locked" not in err
    with open_store(url) as store:
        runs = [r for r in store.list_runs() if r.name == f"both-{backend}"]
        assert len(runs) == 2
        for run in runs:
            assert (run.status, run.row_count, run.error_count) == ("finished", ROWS, 0)
            assert store.lease_holder(run.id) is None  # released at the end
            store.delete_run(run.id)


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def test_a_second_process_cannot_work_a_run_a_live_process_holds(
    tmp_path, agent_stub, backend, request
):
    url = str(tmp_path / "s.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    # The first process stores 2 rows, then its rows wait at the agent until the second
    # process has been refused: it is still working whatever the machine's load.
    release = threading.Event()
    _dataset(tmp_path / "cases.jsonl", agent_stub, hold=release, free=2)
    plan = write_plan(
        tmp_path, agent_stub, name=f"held-{backend}", gate={"require_any_pass": False}
    )
    first = _start(str(plan), "--store", url, "--quiet", cwd=tmp_path)
    try:
        run_id = _wait_for_rows(url, first, 2, name=f"held-{backend}")
        with open_store(url) as store:
            holder = store.lease_holder(run_id)
        assert holder is not None and holder["pid"] == first.pid and holder["alive"]
        second = _start(str(plan), "--store", url, "--resume", run_id, "--quiet", cwd=tmp_path)
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2, out + err
        assert f"run {run_id} is being worked by pid {first.pid}" in err
        assert f"kill -TERM {first.pid}" in err and "Traceback" not in err
    finally:
        release.set()
        out, err = first.communicate(timeout=120)
    assert first.returncode == 0, out + err
    for i in range(ROWS):
        assert agent_stub.attempts(f"question {i}") == 1  # no row called twice
    with open_store(url) as store:
        assert store.get_run(run_id).row_count == ROWS
        store.delete_run(run_id)


def test_a_dead_holder_is_taken_over_by_resume_and_two_resumes_never_double_call(
    tmp_path, agent_stub, capsys
):
    db = str(tmp_path / "s.db")
    _dataset(tmp_path / "cases.jsonl", agent_stub, delay=0.1)
    plan = write_plan(tmp_path, agent_stub, gate={"require_any_pass": False})
    first = _start(str(plan), "--store", db, "--quiet", cwd=tmp_path)
    run_id = _wait_for_rows(db, first, 3)
    os.kill(first.pid, signal.SIGKILL)
    finish(first)
    with open_store(db) as store:
        holder = store.lease_holder(run_id)
        assert holder is not None and holder["pid"] == first.pid and not holder["alive"]
        before = store.row_indexes(run_id)
    assert main(["runs", "list", "--store", db]) == 0
    assert "stopped (no live process; --resume it)" in capsys.readouterr().out
    resumes = [
        _start(str(plan), "--store", db, "--resume", run_id, "--quiet", cwd=tmp_path)
        for _ in range(2)
    ]
    results = [(p, *p.communicate(timeout=120)) for p in resumes]
    codes = sorted(p.returncode for p, _, _ in results)
    # One takes the run over; the other is refused, or finds nothing left to run.
    assert codes in ([0, 0], [0, 2]), results
    for proc, _, err in results:
        if proc.returncode == 2:
            assert "is being worked by pid" in err
    with open_store(db) as store:
        run = store.get_run(run_id)
        assert (run.status, run.row_count) == ("finished", ROWS)
    for i in range(ROWS):
        # A row stored before the kill is never called again; no row is called twice after.
        expected = 1 if i in before else None
        attempts = agent_stub.attempts(f"question {i}")
        assert attempts in ((1,) if expected else (1, 2)), (i, attempts)
    called_after = sum(agent_stub.attempts(f"question {i}") for i in range(ROWS))
    # At the kill each of the 2 workers had at most one row at the agent and one row still
    # committing (a worker calls the agent for its next row while its last one commits), so
    # at most 4 rows were called and not stored: those, and only those, are called again.
    assert called_after <= ROWS + 2 * 2


def _background(plan: Path, db: Path, cwd: Path) -> tuple[subprocess.Popen, int]:
    """``bash -c 'tooleval run … & wait'``: a background job, SIGINT ignored in it."""
    script = f"'{TOOLEVAL}' run '{plan}' --store '{db}' --concurrency 2 & echo $! ; wait $!"
    proc = subprocess.Popen(
        ["bash", "-c", script], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    child = int(read_line(proc))
    return proc, child


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["TERM", "INT"]
)
def test_a_background_run_stops_on_term_and_int_and_stays_resumable(
    tmp_path, agent_stub, signum, code
):
    db = tmp_path / "s.db"
    _dataset(tmp_path / "cases.jsonl", agent_stub, delay=0.15)
    plan = write_plan(tmp_path, agent_stub)
    shell, child = _background(plan, db, tmp_path)
    run_id = _wait_for_rows(str(db), shell, 2)
    os.kill(child, signum)
    out, err = shell.communicate(timeout=60)
    assert shell.returncode == code, out + err
    assert f"--resume {run_id}" in err and "Traceback" not in err
    with open_store(db) as store:
        run = store.get_run(run_id)
        assert run.status == "interrupted" and run.row_count < ROWS
        assert store.lease_holder(run_id) is None
    if signum == signal.SIGINT:
        # Stored as TERM leaves it (interrupted, lease released): the resume that follows
        # does not depend on the signal, and TERM's case runs it.
        return
    resumed = subprocess.run(
        [str(TOOLEVAL), "run", str(plan), "--store", str(db), "--resume", run_id, "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    with open_store(db) as store:
        assert store.get_run(run_id).row_count == ROWS


def test_a_runner_that_lost_its_lease_stops_before_the_next_row(tmp_path):
    from tooleval.runs.heartbeat import Heartbeat
    from tooleval.store import schema as t
    from tooleval.store.leases import RunBusyError

    with open_store(tmp_path / "s.db") as store:
        run_id = store.create_run("x", dataset={}, connector={}, metrics=[])
        lease = store.acquire_lease(run_id)
        beat = Heartbeat(store, lease, interval=0.02)
        beat.start()
        try:
            with store._write() as conn:  # another process took the run over
                conn.execute(t.run_leases.update().values(holder="someone-else"))
            deadline = time.monotonic() + 10
            while not beat.lost and time.monotonic() < deadline:
                time.sleep(0.02)
            with pytest.raises(RunBusyError, match="another process took run"):
                beat.check()
        finally:
            beat.stop()
