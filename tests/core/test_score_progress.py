"""`tooleval score`'s progress bar: on a real terminal (a pty) only, never piped or under CI."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("tooleval"))

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


def data(tmp_path: Path, n: int = 4000) -> Path:
    path = tmp_path / "d.jsonl"
    row = {"tools_called": [{"name": "a", "args": {"x": 1}}], "expected_tools": ["a"]}
    path.write_text("".join(json.dumps({"id": f"r{i}", **row}) + "\n" for i in range(n)))
    return path


def environ(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["TOOLEVAL_NO_KERNEL"] = "1"  # Python: slow enough for the bar to be drawn
    env.update(extra)
    return env


def run_on_pty(args: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """Run with stderr on a pseudo-terminal; return the exit code, stdout and what the pty got."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read() if proc.stdout else b""
    code = proc.wait(timeout=120)
    os.close(master)
    return code, out, bytes(seen)


def test_a_terminal_gets_a_bar_that_is_gone_at_the_end(tmp_path):
    path = data(tmp_path)
    out = tmp_path / "o.jsonl"
    args = [EXE, "score", str(path), "--metric", "tool_correctness", "-o", str(out)]
    code, _, seen = run_on_pty(args, environ())
    assert code == 0
    assert b"scoring" in seen and b"/4000" in seen  # rows done of the file's rows
    assert len(out.read_text().splitlines()) == 4000


def test_no_bar_with_no_progress_or_under_ci(tmp_path):
    path = data(tmp_path, 500)
    base = [EXE, "score", str(path), "--metric", "tool_correctness"]
    for args, env in (
        ([*base, "--no-progress", "-o", str(tmp_path / "a")], environ()),
        ([*base, "-o", str(tmp_path / "b")], environ(CI="true")),
        ([*base, "-o", str(tmp_path / "c")], environ(CI="1")),
    ):
        code, _, seen = run_on_pty(args, env)
        assert code == 0 and seen == b"", (args, env.get("CI"), seen[:200])


def test_piped_stderr_gets_nothing_and_stdout_only_results(tmp_path):
    path = data(tmp_path, 500)
    done = subprocess.run(
        [EXE, "score", str(path), "--metric", "tool_correctness"],
        capture_output=True,
        env=environ(),
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == b""
    assert all(
        json.loads(line)["metric"] == "tool_correctness" for line in done.stdout.splitlines()
    )


def test_bar_with_table_and_gate_on_a_terminal_leaves_them_readable(tmp_path):
    path = data(tmp_path)
    args = [EXE, "score", str(path), "--metric", "tool_correctness", "--table"]
    args += ["--min-pass-rate", "0.9", "-o", str(tmp_path / "o.jsonl")]
    code, stdout, seen = run_on_pty(args, environ())
    assert code == 0
    assert b"gate passed" in seen and b"scoring" in seen
    assert b"summary per metric" in stdout  # the table is on stdout with -o
