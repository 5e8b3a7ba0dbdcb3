"""``tooleval view`` and ``tooleval judge serve`` on a busy port: one line, exit 2, first.

The line names the port and what to do, and comes before "viewer on
http://..." and before the judge's model loads; ``--port 0`` serves on a free
port and prints the one it got.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from tests.procs import read_line

from tooleval.store import open_store


@pytest.fixture
def busy_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    yield sock.getsockname()[1]
    sock.close()


def _tooleval(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _assert_busy(proc: subprocess.CompletedProcess, port: int) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"127.0.0.1:{port} is already in use" in lines[0]
    assert "--port 0" in lines[0]
    return lines[0]


def test_view_on_a_busy_port_says_so_before_the_address(tmp_path, busy_port):
    open_store(tmp_path / "r.db").close()
    proc = _tooleval("view", "--store", str(tmp_path / "r.db"), "--port", str(busy_port))
    _assert_busy(proc, busy_port)
    assert "viewer on" not in proc.stdout + proc.stderr


def test_judge_serve_on_a_busy_port_says_so_before_loading(busy_port):
    started = time.monotonic()
    proc = _tooleval("judge", "serve", "--port", str(busy_port))
    _assert_busy(proc, busy_port)
    assert "loading" not in proc.stdout
    assert time.monotonic() - started < 30  # no model load before the refusal


def test_view_on_port_0_serves_on_the_port_it_prints(tmp_path):
    open_store(tmp_path / "r.db").close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tooleval.cli.main", "view", "--store", str(tmp_path / "r.db"),
         "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        line = read_line(proc, "stderr")
        assert "viewer on http://127.0.0.1:" in line
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        assert port > 0
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
                    assert reply.status == 200
                    break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the viewer never answered on the printed port")
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stderr.close()


def test_a_port_out_of_range_is_refused():
    proc = _tooleval("view", "--port", "70000")
    assert proc.returncode == 2 and "--port" in proc.stderr
