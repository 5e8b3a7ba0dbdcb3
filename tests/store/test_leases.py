"""Run leases on a real SQLite file and the real PostgreSQL server: hold, refuse, take over."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest
import sqlalchemy as sa

from tooleval.store import open_store
from tooleval.store import schema as t
from tooleval.store.leases import RunBusyError, holder_alive


def _run(store, name):
    return store.create_run(name, dataset={}, connector={}, metrics=[])


def test_a_live_holder_keeps_the_run_and_release_frees_it(store, run_name):
    run_id = _run(store, run_name)
    lease = store.acquire_lease(run_id)
    holder = store.lease_holder(run_id)
    assert holder["alive"] and holder["pid"] == lease.pid
    with pytest.raises(RunBusyError, match=f"run {run_id} is being worked by pid {lease.pid}"):
        store.acquire_lease(run_id)
    assert store.renew_lease(lease)
    store.release_lease(lease)
    assert store.lease_holder(run_id) is None
    again = store.acquire_lease(run_id)
    assert again.token != lease.token
    assert not store.renew_lease(lease)  # the old token is no longer the holder


def _set_holder(store, run_id, **values):
    with store._write() as conn:  # the test plays another process
        conn.execute(t.run_leases.update().where(t.run_leases.c.run_id == run_id).values(**values))


def test_a_dead_pid_on_this_host_is_taken_over_at_once(store, run_name):
    run_id = _run(store, run_name)
    store.acquire_lease(run_id)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, timeout=60
    )
    _set_holder(store, run_id, pid=int(gone.stdout))
    assert not store.lease_holder(run_id)["alive"]
    store.acquire_lease(run_id)  # no error: the holder is dead


def test_another_host_is_alive_until_its_heartbeat_is_stale(store, run_name):
    run_id = _run(store, run_name)
    store.acquire_lease(run_id)
    _set_holder(store, run_id, host="elsewhere.example", pid=1)
    with pytest.raises(RunBusyError, match="on host elsewhere.example"):
        store.acquire_lease(run_id)
    _set_holder(store, run_id, heartbeat_at=0.0)
    store.acquire_lease(run_id)


def test_holder_alive_rules():
    now = 1000.0
    assert holder_alive({"host": "h.example", "pid": 1, "heartbeat_at": now - 5}, now=now)
    assert not holder_alive({"host": "h.example", "pid": 1, "heartbeat_at": now - 61}, now=now)
    assert holder_alive({"host": "h.example", "pid": 1, "heartbeat_at": now - 61}, now=now, ttl=120)


def test_racing_acquirers_get_exactly_one_lease(tmp_path, run_name, request):
    # Threads with their own stores stand in for processes: one wins, the others are told.
    url = str(tmp_path / "race.db")
    with open_store(url) as store:
        run_id = _run(store, run_name)
    wins, refusals, failures = [], [], []
    barrier = threading.Barrier(6, timeout=30)

    def contend():
        with open_store(url) as mine:
            barrier.wait()
            try:
                wins.append(mine.acquire_lease(run_id))
            except RunBusyError:
                refusals.append(1)
            except Exception as exc:  # "database is locked" would land here
                failures.append(exc)

    threads = [threading.Thread(target=contend) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == [] and len(wins) == 1 and len(refusals) == 5


def test_writes_start_immediate_on_sqlite(tmp_path):
    statements = []
    with open_store(tmp_path / "s.db") as store:
        sa.event.listen(store._engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
        _run(store, "x")
        store.list_runs()
    assert "BEGIN IMMEDIATE" in statements
