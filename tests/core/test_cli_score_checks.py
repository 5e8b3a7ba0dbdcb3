"""`tooleval score` as a process: what is refused before any row, what goes where, progress lines.

Everything checkable before the first row is checked before the first row (nothing on
stdout, exit 2 with one line naming the option); `--table` alone prints the table and no
JSONL; several metrics in one pass of the compiled kernel give the bytes, table and gate
of the pure-Python path; off a terminal, progress is a plain line on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

EXE = str(Path(sys.executable).with_name("tooleval"))


def _rows(path: Path, n: int) -> Path:
    lines = []
    for i in range(n):
        expected = [{"name": "search", "args": {"q": f"q{i}"}}, "book"]
        called = [{"name": "search", "args": {"q": f"q{i}" if i % 3 else "other"}}]
        if i % 4:
            called.append({"name": "book", "args": {}})
        row = {"id": f"r{i}", "tools_called": called, "expected_tools": expected}
        if i % 9 == 4:
            row.pop("expected_tools")  # unscored
        if i % 7 == 2:
            row["messages"] = []  # a row the kernel hands back to Python
        lines.append(orjson.dumps(row))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _score(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, "score", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "CI": "true", **(env or {})},
    )


def _refused(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # not one row written before the refusal
    err = done.stderr.strip()
    assert "\n" not in err and "Traceback" not in err
    for needle in needles:
        assert needle in err


def test_the_same_metric_twice_is_refused(tmp_path):
    data = _rows(tmp_path / "d.jsonl", 5)
    done = _score(str(data), "--metric", "tool_call_f1", "--metric", "tool_call_f1")
    _refused(done, "--metric tool_call_f1 given twice", "--option tool_call_f1.KEY=VALUE")


@pytest.mark.parametrize(
    "given",
    [["--judge", "openai"], ["--judge-option", "model=x"], ["--concurrency", "3"]],
)
def test_judge_options_without_a_judged_metric_are_refused(tmp_path, given):
    data = _rows(tmp_path / "d.jsonl", 5)
    done = _score(str(data), "--metric", "tool_call_f1", *given)
    _refused(done, f"{given[0]} is for judged metrics", "tool_call_f1")


@pytest.mark.parametrize("rows", [3, 3000])  # one block, and many
def test_a_bound_column_no_row_has_is_refused_before_any_row(tmp_path, rows):
    data = _rows(tmp_path / "d.jsonl", rows)
    done = _score(str(data), "--metric", "tool_call_f1", "--bind", "expected_tools=nosuch")
    _refused(done, "bind expected_tools=nosuch", "no row has a key 'nosuch'")


def test_a_needed_field_no_row_holds_is_refused_before_any_row(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_bytes(b'{"id": "a", "tools_called": [], "gold": ["f"]}\n' * 50)
    done = _score(str(data), "--metric", "tool_correctness", "--metric", "tool_call_f1")
    _refused(done, "needs 'expected_tools'", "--bind expected_tools=gold")


def test_a_column_present_only_in_the_last_row_is_accepted(tmp_path):
    data = _rows(tmp_path / "d.jsonl", 2000)
    with data.open("ab") as out:
        out.write(b'{"id": "z", "tools_called": [], "gold": ["f"]}\n')
    done = _score(str(data), "--metric", "tool_call_f1", "--bind", "expected_tools=gold")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 2001


def test_table_without_output_prints_no_jsonl(tmp_path):
    data = _rows(tmp_path / "d.jsonl", 40)
    done = _score(str(data), "--metric", "tool_call_f1", "--metric", "tool_correctness", "--table")
    assert done.returncode == 0, done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert "per-row results" in done.stdout and "summary per metric" in done.stdout


@pytest.mark.parametrize("workers", ["1", "2"])
def test_several_metrics_table_and_gate_match_the_python_path(tmp_path, workers):
    data = _rows(tmp_path / "d.jsonl", 600)
    args = [str(data), "--metric", "tool_call_accuracy", "--metric", "tool_call_f1"]
    args += ["--metric", "tool_correctness", "--option", "tool_correctness.order=strict"]
    args += ["--table", "--table-rows", "7", "--min-pass-rate", "tool_call_f1=0.5"]
    args += ["--max-unscored-rate", "0.05", "--workers", workers]
    fast = _score(*args, "-o", str(tmp_path / "fast.jsonl"))
    slow = _score(*args, "-o", str(tmp_path / "slow.jsonl"), env={"TOOLEVAL_NO_KERNEL": "1"})
    assert fast.returncode == slow.returncode == 1  # the unscored ceiling fails
    assert (tmp_path / "fast.jsonl").read_bytes() == (tmp_path / "slow.jsonl").read_bytes()
    assert fast.stdout.replace("fast.jsonl", "OUT") == slow.stdout.replace("slow.jsonl", "OUT")
    assert fast.stderr == slow.stderr
    assert "gate FAIL  tool_call_accuracy unscored" not in fast.stderr  # named by metric
    assert "tool_call_accuracy: unscored" in fast.stderr


def test_progress_lines_off_a_terminal(tmp_path):
    data = _rows(tmp_path / "d.jsonl", 300)
    every = {"TOOLEVAL_PROGRESS_SECONDS": "0"}  # a line at every update, whatever the speed
    done = _score(str(data), "--metric", "tool_call_f1", "-o", str(tmp_path / "o"), env=every)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("tooleval score: ") for line in lines)
    assert "300 of 300 rows (100%)" in done.stderr and "rows/s" in done.stderr
    assert lines[-1].startswith("tooleval score: 300 rows in ")
    quiet = _score(
        str(data), "--metric", "tool_call_f1", "-o", str(tmp_path / "o"), "--no-progress", env=every
    )
    assert quiet.returncode == 0 and quiet.stderr == ""
