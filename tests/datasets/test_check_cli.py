"""`tooleval dataset check`: per-column findings and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.cli.main import main

CLEAN = (
    "input,expected,category\n"
    + '"cancel 4471","[""lookup_order"", ""cancel_order""]",cancel\n' * 4
    + '"where is 12","lookup_order, get_shipping_eta",shipping\n' * 3
    + '"refund 12","[{""name"": ""issue_refund"", ""args"": {""order_id"": ""12""}}]",refund\n' * 2
    + '"cancel all","[]",restraint\n'
)


def test_clean_file_prints_shapes_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "d.csv"
    path.write_text(CLEAN)
    assert main(["dataset", "check", str(path), "--bind", "expected_tools=expected"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("expected "))
    assert "expected_tools" in line and "10/10" in line
    assert (
        "list of names 4 rows, text 'a, b' 3 rows, calls with args 2 rows, "
        "empty list (no call expected) 1 row" in line
    )
    assert "OK: 10 rows, no parse errors" in out


def test_errors_listed_by_row_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "d.csv"
    path.write_text(CLEAN + '"broken","[""a"",",x\n' + '"odd","a b",y\n')
    assert main(["dataset", "check", str(path), "--bind", "expected_tools=expected"]) == 2
    out = capsys.readouterr().out
    assert "row 11, column expected (expected_tools) looks like JSON but cannot be parsed" in out
    assert "row 12, column expected (expected_tools) 'a b' is not a tool name" in out
    assert "invalid JSON 1 row" in out
    assert "2 of 12 rows have errors" in out


def test_unbound_expected_tools_is_a_note_and_require_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "d.csv"
    path.write_text(CLEAN)
    assert main(["dataset", "check", str(path)]) == 0
    assert (
        "the likely column is 'expected' (--bind expected_tools=expected)"
        in capsys.readouterr().out
    )
    assert main(["dataset", "check", str(path), "--require", "expected_tools"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tooleval dataset: error: file ")
    assert "--bind expected_tools=expected" in err


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(
        '{"input": "a", "expected_tools": "x, y"}\n{"input": "b", "expected_tools": "[x"}\n'
    )
    assert main(["dataset", "check", str(path), "--json"]) == 2
    data = json.loads(capsys.readouterr().out)
    col = next(c for c in data["columns"] if c["column"] == "expected_tools")
    assert col["errors"][0]["row"] == 2 and col["shapes"] == {"text 'a, b'": 1, "invalid JSON": 1}
    assert data["ok"] is False


def test_bad_file_and_bad_bind_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["dataset", "check", str(tmp_path / "nope.csv")]) == 2
    assert "file not found" in capsys.readouterr().err
    path = tmp_path / "d.csv"
    path.write_text(CLEAN)
    assert main(["dataset", "check", str(path), "--bind", "expected_tools=missing"]) == 2
    assert "no column 'missing'" in capsys.readouterr().err


def test_subprocess_entry_point(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text(CLEAN)
    exe = Path(sys.executable).parent / "tooleval"
    done = subprocess.run(
        [str(exe), "dataset", "check", str(path), "--bind", "expected_tools=expected"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "OK: 10 rows" in done.stdout
