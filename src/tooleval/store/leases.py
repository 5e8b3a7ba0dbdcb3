"""Run leases: one process works a run at a time; a dead holder is detected.

A lease is one ``run_leases`` row per run: who holds it (a random token, the
pid and the host name) and when it last said it was alive (``heartbeat_at``,
seconds since the epoch, renewed every few seconds by the runner). Another
process may take the run over (``--resume``) only when the holder is gone:

- same host and the pid no longer exists: gone at once (a killed run is
  resumable immediately);
- otherwise: gone when its heartbeat is older than the time-to-live.

Every function here runs inside a write transaction the store opened
(``BEGIN IMMEDIATE`` on SQLite, a row lock on PostgreSQL), so two processes
asking at once get one answer each: one holds the lease, the other is told who.

>>> holder_alive({"host": "elsewhere", "pid": 1, "heartbeat_at": 100.0}, now=120.0, ttl=60)
True
>>> holder_alive({"host": "elsewhere", "pid": 1, "heartbeat_at": 100.0}, now=200.0, ttl=60)
False
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from tooleval.errors import RunBusyError
from tooleval.store import schema as t

__all__ = [
    "HEARTBEAT_SECONDS",
    "LEASE_TTL_SECONDS",
    "Lease",
    "RunBusyError",
    "acquire",
    "holder_alive",
    "read",
    "release",
    "renew",
]

#: How often a running run renews its lease.
HEARTBEAT_SECONDS = 5.0
#: A lease not renewed for this long belongs to a dead (or hung) process.
LEASE_TTL_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Lease:
    """A lease this process holds on a run."""

    run_id: str
    token: str
    pid: int
    host: str


def _host() -> str:
    return socket.gethostname()[:255] or "localhost"


def _pid_exists(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return False
    return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    # A killed child not yet reaped by its parent still "exists" for kill(0).
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            fields = stat.read().rsplit(")", 1)[-1].split()
    except OSError:
        return True
    return not fields or fields[0] != "Z"


def holder_alive(holder: Any, *, now: float | None = None, ttl: float = LEASE_TTL_SECONDS) -> bool:
    """Is the process that holds this lease row still working the run?"""
    now = time.time() if now is None else now
    if holder["host"] == _host() and not _pid_exists(int(holder["pid"])):
        return False
    return now - float(holder["heartbeat_at"]) <= ttl


def read(conn: sa.Connection, run_id: str) -> dict[str, Any] | None:
    """The lease row of a run (holder, pid, host, times), or None."""
    row = (
        conn.execute(sa.select(t.run_leases).where(t.run_leases.c.run_id == run_id))
        .mappings()
        .first()
    )
    return dict(row) if row is not None else None


def busy_message(run_id: str, holder: dict[str, Any], *, now: float | None = None) -> str:
    now = time.time() if now is None else now
    ago = max(0.0, now - float(holder["heartbeat_at"]))
    return (
        f"run {run_id} is being worked by pid {holder['pid']} on host {holder['host']} "
        f"(last heartbeat {ago:.0f}s ago); wait for it to finish, or stop that process "
        f"(kill -TERM {holder['pid']}) and then --resume {run_id}"
    )


def acquire(
    conn: sa.Connection, run_id: str, *, ttl: float = LEASE_TTL_SECONDS, dialect: str = "sqlite"
) -> Lease:
    """Take the run's lease (RunBusyError when a live process holds it)."""
    now = time.time()
    query = sa.select(t.run_leases).where(t.run_leases.c.run_id == run_id)
    if dialect == "postgresql":
        query = query.with_for_update()
    current = conn.execute(query).mappings().first()
    if current is not None and holder_alive(current, now=now, ttl=ttl):
        raise RunBusyError(busy_message(run_id, dict(current), now=now), field="--resume")
    lease = Lease(run_id, secrets.token_hex(8), os.getpid(), _host())
    values = {
        "holder": lease.token,
        "pid": lease.pid,
        "host": lease.host,
        "acquired_at": now,
        "heartbeat_at": now,
    }
    if current is None:
        conn.execute(t.run_leases.insert().values(run_id=run_id, **values))
    else:
        conn.execute(t.run_leases.update().where(t.run_leases.c.run_id == run_id).values(**values))
    return lease


def renew(conn: sa.Connection, lease: Lease) -> bool:
    """Refresh the heartbeat; False when another process took the run over."""
    changed = conn.execute(
        t.run_leases.update()
        .where(t.run_leases.c.run_id == lease.run_id, t.run_leases.c.holder == lease.token)
        .values(heartbeat_at=time.time())
    ).rowcount
    return bool(changed)


def release(conn: sa.Connection, lease: Lease) -> None:
    """Give the lease up (only if still ours)."""
    conn.execute(
        t.run_leases.delete().where(
            t.run_leases.c.run_id == lease.run_id, t.run_leases.c.holder == lease.token
        )
    )
