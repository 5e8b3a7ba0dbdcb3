"""`tooleval score --table`: one table (a column per metric), failures first, bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tooleval.cli.main import main
from tooleval.evaluation.file_tally import ScoreTableRows

EXE = str(Path(sys.executable).with_name("tooleval"))


def write(path: Path, n: int, *, fail_every: int = 0, unscored_every: int = 0) -> Path:
    lines = []
    for i in range(n):
        row = {"id": f"r{i}", "category": "c", "tools_called": ["a"], "expected_tools": ["a"]}
        if fail_every and i % fail_every == 0:
            row["tools_called"] = ["b"]
        if unscored_every and i % unscored_every == 1:
            del row["expected_tools"]
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    return path


def table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("│ r")]


def test_one_table_with_a_column_per_metric_failures_first(tmp_path, capsys):
    data = write(tmp_path / "d.jsonl", 6, fail_every=4, unscored_every=5)
    out = tmp_path / "o.jsonl"
    metrics = ["--metric", "tool_correctness", "--metric", "tool_call_f1"]
    assert main(["score", str(data), *metrics, "--table", "-o", str(out)]) == 0
    shown = capsys.readouterr().out
    assert shown.count("per-row results") == 1
    header = next(line for line in shown.splitlines() if "tool_correctness" in line)
    assert "tool_call_f1" in header and "tools called" in header
    ids = [line.split("│")[1].strip() for line in table_lines(shown)]
    assert ids == ["r0", "r4", "r1", "r2", "r3", "r5"]  # failing, unscored, passing
    assert "0.00 FAIL" in table_lines(shown)[0] and "unscored" in table_lines(shown)[2]
    summary = shown[shown.index("summary per metric") :]
    assert summary.count("tool_correctness") == 1 and summary.count("tool_call_f1") == 1
    row = next(line for line in summary.splitlines() if "tool_correctness" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells == ["tool_correctness", "6", "3", "2", "1", "60.0%", "[23.1, 88.2]", "5", "0.600"]


def test_large_file_shows_the_first_failures_and_says_what_it_left_out(tmp_path):
    data = write(tmp_path / "d.jsonl", 20_000, fail_every=500)  # 40 failing rows
    out = tmp_path / "o.jsonl"
    done = subprocess.run(
        [EXE, "score", str(data), "--metric", "tool_correctness", "--table", "-o", "o.jsonl"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    rows = table_lines(done.stdout)
    assert len(rows) == 30 and all("FAIL" in line for line in rows)
    assert [line.split("│")[1].strip() for line in rows[:2]] == ["r0", "r500"]
    note = "… 10 failing rows and 19,960 passing rows not shown (--table-rows N shows more); every row is in --output o.jsonl"
    assert note in done.stdout
    assert len(out.read_text().splitlines()) == 20_000


def test_table_without_output_prints_the_table_alone(tmp_path, capsys):
    data = write(tmp_path / "d.jsonl", 12, fail_every=3)
    assert (
        main(["score", str(data), "--metric", "tool_correctness", "--table", "--table-rows", "2"])
        == 0
    )
    captured = capsys.readouterr()
    assert len(table_lines(captured.out)) == 2  # the table on stdout, no JSONL before it
    assert not [line for line in captured.out.splitlines() if line.startswith("{")]
    assert "--output FILE keeps every row" in captured.out
    assert main(["score", str(data), "--metric", "tool_correctness", "--table-rows", "0"]) == 2


def test_kernel_and_python_tables_agree(tmp_path):
    data = write(tmp_path / "d.jsonl", 3000, fail_every=7, unscored_every=11)
    args = [EXE, "score", str(data), "--metric", "tool_correctness", "--table", "--workers", "2"]
    fast = subprocess.run(
        [*args, "-o", str(tmp_path / "a")], capture_output=True, text=True, timeout=300
    )
    env = {**os.environ, "TOOLEVAL_NO_KERNEL": "1"}
    slow = subprocess.run(
        [*args, "-o", str(tmp_path / "b")], capture_output=True, text=True, timeout=300, env=env
    )
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout.replace(str(tmp_path / "a"), "OUT") == slow.stdout.replace(
        str(tmp_path / "b"), "OUT"
    )
    assert (
        "│ b   " in fast.stdout or "│ b " in fast.stdout
    )  # the calls are shown on the kernel path too


def test_all_rows_unscored_table(tmp_path, capsys):
    path = tmp_path / "d.jsonl"
    path.write_text(
        json.dumps({"id": "x", "tools_called": ["a"], "expected_tools": None})
        + "\n"
        + json.dumps({"id": "y", "tools_called": ["a"], "expected_tools": ["a"]})
        + "\n"
    )
    # one row has a reference, so the file is scored; the other is unscored
    assert (
        main(
            [
                "score",
                str(path),
                "--metric",
                "tool_correctness",
                "--table",
                "-o",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert [
        line.split("│")[1].strip()
        for line in table_lines(shown.replace("│ x", "│ rx").replace("│ y", "│ ry"))
    ] == ["rx", "ry"]


def test_collector_memory_is_bounded():
    rows = ScoreTableRows(limit=5)
    for i in range(100_000):
        rows.add(f"r{i}", lambda: None, [(float(i % 3 != 0), i % 3 != 0, "")])
    assert sum(len(kept) for kept in rows.kept.values()) <= 15
    assert rows.counts == {"failing": 33_334, "unscored": 0, "passing": 66_666}
    assert rows.left_out() == {"failing": 33_329, "unscored": 0, "passing": 66_666}


def test_results_are_the_same_bytes_with_or_without_table_and_gate(tmp_path):
    data = write(tmp_path / "d.jsonl", 500, fail_every=3, unscored_every=7)
    plain, watched = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    base = ["score", str(data), "--metric", "tool_correctness"]
    assert main([*base, "-o", str(plain)]) == 0
    extra = ["--table", "--min-pass-rate", "0.1", "--max-unscored-rate", "0.5"]
    assert main([*base, *extra, "-o", str(watched)]) == 0
    assert plain.read_bytes() == watched.read_bytes()
