"""`tooleval score --workers N`: same bytes as in-process scoring, same errors."""

from __future__ import annotations

import json

from tooleval.cli.main import main
from tooleval.scoring import stream as score_cli


def rows(n: int) -> list[dict]:
    out = []
    for i in range(n):
        expected = [{"name": "lookup", "args": {"id": str(i), "opts": {"deep": [1, True]}}}]
        called = [
            {"name": "lookup", "args": {"id": str(i if i % 3 else i + 1), "opts": {"deep": [1, 1]}}}
        ]
        if i % 4 == 0:
            called.append({"name": "cancel", "args": {"id": str(i)}})
        row = {"tools_called": called, "expected_tools": expected}
        if i % 5:
            row["id"] = f"r{i}"
        out.append(row)
    return out


def write(path, items, *, blank_every: int = 0):
    lines = []
    for i, item in enumerate(items):
        lines.append(item if isinstance(item, str) else json.dumps(item))
        if blank_every and i % blank_every == 0:
            lines.append("")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_workers_write_the_same_bytes_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(score_cli, "_CHUNK_LINES", 7)  # many chunks, some in flight at once
    data = write(tmp_path / "rows.jsonl", rows(60), blank_every=11)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    base = ["score", str(data), "--metric", "tool_correctness", "--option", "order=strict"]
    assert main([*base, "-o", str(one)]) == 0
    assert main([*base, "-o", str(two), "--workers", "2"]) == 0
    assert one.read_bytes() == two.read_bytes()
    ids = [json.loads(line)["id"] for line in one.read_text().splitlines()]
    assert ids[:3] == ["1", "r1", "r2"]  # unnamed rows are numbered by their line
    assert len(ids) == 60


def test_workers_stop_at_the_first_bad_row_leaving_no_output_file(tmp_path, monkeypatch, capsys):
    # Issue 10, reproducer 14: a file holding the rows before the bad one looked complete.
    monkeypatch.setattr(score_cli, "_CHUNK_LINES", 4)
    items = [*rows(9), "not json", *rows(5)]
    data = write(tmp_path / "bad.jsonl", items)
    out = tmp_path / "out.jsonl"
    code = main(["score", str(data), "--metric", "tool_call_f1", "-o", str(out), "--workers", "2"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "row 10" in err[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [data]  # no temporary file left either


def test_workers_on_stdout_write_the_rows_before_the_bad_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(score_cli, "_CHUNK_LINES", 4)
    data = write(tmp_path / "bad.jsonl", [*rows(9), "not json", *rows(5)])
    code = main(["score", str(data), "--metric", "tool_call_f1", "--workers", "2"])
    captured = capsys.readouterr()
    assert code == 2 and "row 10" in captured.err
    assert len(captured.out.splitlines()) == 9


def test_workers_must_be_positive(tmp_path, capsys):
    data = write(tmp_path / "rows.jsonl", rows(2))
    assert main(["score", str(data), "--metric", "tool_call_f1", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
