"""Commands started with standard input, output or error closed (``cmd <&-``, a CI runner
with no stdin): no internal error, results on the files asked for, and '-' or a results
stream on a closed stdout refused with what to give instead."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.stdio import guard_closed_streams, stdin_bytes

TOOLEVAL = Path(sys.executable).with_name("tooleval")
ROW = {
    "id": "r1",
    "tools_called": [{"name": "f", "args": {"x": 1}}],
    "expected_tools": [{"name": "f", "args": {"x": 1}}],
}


def _closed(redirections: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``tooleval ARGS`` with ``redirections`` (e.g. ``0<&-``) applied by bash before exec.

    What the command writes on a stream left open is captured on fd 3/4 when the
    stream itself is closed, so each case can read what was said."""
    argv = " ".join(f"'{a}'" for a in (str(TOOLEVAL), *args))
    return subprocess.run(
        ["bash", "-c", f"exec {redirections}; exec {argv}"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(ROW) + "\n")
    return path


@pytest.mark.parametrize("closed", ["0<&-", "1>&-", "2>&-", "0<&- 1>&- 2>&-"])
def test_score_to_a_file_works_with_any_standard_stream_closed(tmp_path, rows, closed):
    out = tmp_path / "out.jsonl"
    done = _closed(
        closed, "score", str(rows), "--metric", "tool_call_accuracy", "--output", str(out),
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    (result,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert (result["id"], result["metric"], result["score"]) == ("r1", "tool_call_accuracy", 1.0)


def test_score_of_stdin_with_stdin_closed_is_refused_with_the_remedy(tmp_path):
    done = _closed("0<&-", "score", "-", "--metric", "tool_call_accuracy", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "standard input closed" in done.stderr and "give the file's path" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_results_for_a_closed_stdout_are_refused_and_point_at_output(tmp_path, rows):
    # stderr goes to fd 2 as usual; stdout is closed: the results have nowhere to go
    done = _closed("1>&-", "score", str(rows), "--metric", "tool_call_accuracy", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "standard output closed" in done.stderr and "--output FILE" in done.stderr
    assert "file rows.jsonl" not in done.stderr  # the stream is the problem, not the rows
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    "args",
    [["--version"], ["metrics"], ["score", "missing.jsonl", "--metric", "tool_call_accuracy"]],
    ids=["version", "metrics", "missing-file"],
)
def test_other_commands_with_every_stream_closed_exit_as_usual(tmp_path, args):
    done = _closed("0<&- 1>&- 2>&-", *args, cwd=tmp_path)
    assert done.returncode == (2 if "missing.jsonl" in args else 0)


def test_monitor_of_stdin_with_stdin_closed_is_refused(tmp_path):
    done = _closed("0<&-", "monitor", "-", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "standard input closed" in done.stderr and "Traceback" not in done.stderr


def test_a_child_of_a_guarded_process_gets_valid_standard_streams(tmp_path):
    # Without the guard, the first file opened after fd 0 was closed becomes the child's stdin.
    script = (
        "import os, subprocess, sys\n"
        "from tooleval.stdio import guard_closed_streams\n"
        "print(sorted(guard_closed_streams()), file=sys.stderr)\n"
        "log = open(sys.argv[1], 'w')\n"
        "print(log.fileno(), file=sys.stderr)\n"
        "child = subprocess.run(['readlink', '/proc/self/fd/0'], capture_output=True, text=True)\n"
        "print(child.stdout.strip(), file=sys.stderr)\n"
    )
    done = subprocess.run(
        ["bash", "-c", f"exec 0<&-; exec '{sys.executable}' -c \"$0\" \"$1\"", script,
         str(tmp_path / "log.txt")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    closed, log_fd, child_stdin = done.stderr.splitlines()[-3:]
    assert closed == "['stdin']", done.stderr
    assert int(log_fd) > 2  # the log did not take descriptor 0
    assert child_stdin == "/dev/null"


def test_in_process_nothing_is_closed_and_stdin_is_the_usual_stream():
    assert guard_closed_streams() == frozenset()
    assert stdin_bytes() is sys.stdin.buffer
