"""A throwaway PostgreSQL server for tests: Debian's initdb + pg_ctl on 127.0.0.1.

Any test area can use it (pytest runs from the repository root)::

    from tests.pg_server import postgres_server, PostgresUnavailable

    with postgres_server() as url:   # "postgresql://postgres@127.0.0.1:PORT/tooleval_test"
        ...

Test areas share one server per process (the session fixture ``postgres_cluster`` in
tests/conftest.py): each area's ``pg_url`` fixture asks for a database of its own on it
with :func:`create_database`, which costs milliseconds where a server costs an initdb.

The server runs from a temporary data directory on a free port with ``trust``
authentication for local connections only, and is stopped and deleted on exit.
As root, the server binaries run as the ``postgres`` user (``runuser``), since
PostgreSQL refuses to run as root. :class:`PostgresUnavailable` is raised when
no PostgreSQL binaries are installed (callers turn it into a skip).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["PostgresUnavailable", "create_database", "find_bindir", "postgres_server"]


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def find_bindir() -> Path:
    """The newest ``/usr/lib/postgresql/*/bin`` holding initdb and pg_ctl."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: (
            int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0
        ),
    )
    if not found:
        which = shutil.which("initdb")
        if which:
            return Path(which).parent
        raise PostgresUnavailable(
            "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb); "
            "install the Debian package `postgresql` (make system-deps does it)"
        )
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", "postgres", "--", *cmd]
    return ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(cmd)]


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(_as_server_user(cmd), capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed ({proc.returncode}): {proc.stderr or proc.stdout}")


@contextlib.contextmanager
def postgres_server(*, database: str = "tooleval_test") -> Iterator[str]:
    """Start a server, create ``database``, yield its ``postgresql://`` URL, stop it."""
    bindir = find_bindir()
    root = Path(tempfile.mkdtemp(prefix="tooleval-pg-"))
    data = root / "data"
    port = _free_port()
    if os.geteuid() == 0:
        import pwd

        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
    started = False
    try:
        _run(
            [
                str(bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            "initdb",
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        _run(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(root / "log"),
                "-w",
                "-t",
                "60",
                "start",
            ],
            "pg_ctl start",
        )
        started = True
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=port, user="postgres", dbname="postgres", autocommit=True
        ) as conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        yield f"postgresql://postgres@127.0.0.1:{port}/{database}"
    finally:
        if started:
            with contextlib.suppress(Exception):
                _run(
                    [str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                    "pg_ctl stop",
                )
        shutil.rmtree(root, ignore_errors=True)


def create_database(url: str, database: str) -> str:
    """Create ``database`` on the server of ``url`` and return the URL naming it."""
    import psycopg

    server, _, _ = url.rpartition("/")
    host_port = server.rsplit("@", 1)[1]
    host, _, port = host_port.partition(":")
    with psycopg.connect(
        host=host, port=int(port), user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "{database}"')
    return f"{server}/{database}"
