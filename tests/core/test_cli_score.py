"""`tooleval score` and `tooleval metrics`: the CLI contract other tools rely on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.cli.main import main

ROWS = [
    {
        "id": "a",
        "input": "cancel 4471",
        "messages": [
            {"role": "user", "content": "cancel 4471"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "cancel_order", "arguments": '{"order_id": "4417"}'},
                    }
                ],
            },
        ],
        "expected_tools": [{"name": "cancel_order", "args": {"order_id": "4471"}}],
    },
    {"id": "b", "tools_called": ["search", "fetch"], "expected_tools": "search, fetch"},
    {"id": "c", "tools_called": ["search"]},
    {"tools_called": [], "expected_tools": []},
]


def write_rows(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_score_writes_one_object_per_row_in_order(tmp_path):
    data = write_rows(tmp_path / "rows.jsonl", ROWS)
    out = tmp_path / "out.jsonl"
    code = main(["score", str(data), "--metric", "tool_correctness", "--output", str(out)])
    assert code == 0
    results = read_jsonl(out)
    assert [r["id"] for r in results] == ["a", "b", "c", "4"]
    for r in results:
        assert {"id", "metric", "score", "passed", "reason", "diagnosis", "params"} <= r.keys()
    assert results[0]["score"] == 0.0
    assert results[0]["diagnosis"]["arguments"][0]["expected"] == "4471"
    assert results[0]["diagnosis"]["arguments"][0]["actual"] == "4417"
    assert results[1]["score"] == 1.0
    # No expected_tools bound: unscored (null), never 0.
    assert results[2]["score"] is None and results[2]["passed"] is None
    assert "expected_tools" in results[2]["reason"]
    # A restraint row: nothing expected, nothing called.
    assert results[3]["score"] == 1.0


def test_options_parse_as_json(tmp_path):
    rows = [{"id": "x", "tools_called": ["b", "a"], "expected_tools": ["a", "b"]}]
    data = write_rows(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert main(["score", str(data), "--metric", "tool_call_accuracy", "-o", str(out)]) == 0
    assert read_jsonl(out)[0]["score"] == 0.0
    args = ["score", str(data), "--metric", "tool_call_accuracy", "--option", "order=flexible"]
    assert main([*args, "-o", str(out)]) == 0
    result = read_jsonl(out)[0]
    assert result["score"] == 1.0
    assert result["params"]["order"] == "flexible"


def test_stored_result_rescores_identically(tmp_path):
    from tooleval.formats import sample_from_row
    from tooleval.metrics import rescore
    from tooleval.model import Result

    data = write_rows(tmp_path / "rows.jsonl", ROWS[:2])
    out = tmp_path / "out.jsonl"
    opts = ["--option", "order=strict", "--option", 'argument_keys=["order_id"]']
    assert main(["score", str(data), "--metric", "tool_correctness", *opts, "-o", str(out)]) == 0
    for row, stored in zip(ROWS[:2], read_jsonl(out), strict=True):
        stored.pop("id")
        again = rescore(Result.from_dict(stored), sample_from_row(row))
        assert again.score == stored["score"]
        assert again.params == stored["params"]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"id": "a", "tools_called": [], "expected_tools": []}\nnot json\n', "row 2"),
        ('{"id": "a", "tools_called": [], "expected_tools": []}\n[1, 2]\n', "row 2"),
        ('{"id": "a", "expected_tools": 42, "tools_called": []}\n', "expected_tools"),
        ('{"id": "a", "messages": {"weird": true}}\n', "messages"),
    ],
)
def test_unreadable_input_exits_2_naming_row_and_field(tmp_path, capsys, content, needle):
    data = tmp_path / "bad.jsonl"
    data.write_text(content)
    code = main(["score", str(data), "--metric", "tool_correctness", "-o", str(tmp_path / "o")])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert needle in err[0]
    assert "row" in err[0]


def test_usage_errors_exit_2(tmp_path, capsys):
    data = write_rows(tmp_path / "rows.jsonl", ROWS[:1])
    assert main(["score", str(data), "--metric", "no_such_metric"]) == 2
    assert "tool_correctness" in capsys.readouterr().err  # lists the known metrics
    assert main(["score", str(data), "--metric", "tool_correctness", "--option", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "missing.jsonl"), "--metric", "tool_correctness"]) == 2
    assert main(["score", str(data), "--metric", "tool_correctness", "--option", "noequals"]) == 2


def test_table_and_subprocess(tmp_path):
    data = write_rows(tmp_path / "rows.jsonl", ROWS)
    out = tmp_path / "out.jsonl"
    exe = Path(sys.executable).with_name("tooleval")
    proc = subprocess.run(
        [str(exe), "score", str(data), "--metric", "tool_call_f1", "--table", "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "summary" in proc.stdout and "pass rate" in proc.stdout
    assert len(read_jsonl(out)) == 4


def test_metrics_command_lists_registry(capsys):
    assert main(["metrics", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    names = {row["name"] for row in table}
    assert {"tool_call_accuracy", "tool_call_f1", "tool_correctness", "trajectory_match"} <= names
    correctness = next(r for r in table if r["name"] == "tool_correctness")
    assert correctness["params"]["threshold"]["default"] == 0.5
    assert "expected_tools" in correctness["requires"]
    assert correctness["aliases"]["check_ordering"]["values"]["true"] == {"order": "strict"}
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    assert "tool_correctness" in out and "alias check_ordering=true" in out
