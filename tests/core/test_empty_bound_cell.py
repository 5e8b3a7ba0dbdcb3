"""An empty cell in a bound reference column says so (issue 37), and a JSONL ``NaN`` is named.

Every entry point and path: ``tooleval score --bind`` (the compiled kernel and
``TOOLEVAL_NO_KERNEL=1``) and ``tooleval.evaluate(bind=...)``, on JSONL, CSV
and Parquet files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tooleval
from tooleval.cli.main import main
from tooleval.errors import InputError

METRICS = ["tool_correctness", "tool_call_f1"]
ROWS = [
    {"id": "full", "tools_called": ["a"], "gold": ["a"]},
    {"id": "empty", "tools_called": ["a"], "gold": None},
    {"id": "blank", "tools_called": ["a"], "gold": ""},
    {"id": "none_expected", "tools_called": [], "gold": []},
]


def _write(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"rows.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    elif kind == "csv":
        lines = ["id,tools_called,gold"]
        for r in ROWS:
            gold = "" if not r["gold"] and r["gold"] != [] else json.dumps(r["gold"])
            cells = [r["id"], json.dumps(r["tools_called"]), gold]
            lines.append(",".join('"' + c.replace('"', '""') + '"' for c in cells))
        path.write_text("\n".join(lines) + "\n")
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        table = [{**r, "gold": r["gold"] if r["gold"] != "" else None} for r in ROWS]
        pq.write_table(pa.Table.from_pylist(table), path)
    return path


def _reasons(found: list[dict]) -> dict[str, str]:
    return {f"{x['id']}/{x['metric']}": x["reason"] for x in found}


def _check(reasons: dict[str, str]) -> None:
    for metric in METRICS:
        for row, number in (("empty", 2), ("blank", 3)):
            reason = reasons[f"{row}/{metric}"]
            assert f"row {number}, column gold is empty" in reason, reason
            assert "bind an expected_tools column" not in reason
        assert "column gold" not in reasons[f"full/{metric}"]
        assert reasons[f"none_expected/{metric}"].startswith("no calls expected")


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
@pytest.mark.parametrize("kernel", [True, False])
def test_score_bind_names_the_empty_cell(tmp_path, monkeypatch, kind, kernel):
    if not kernel:
        monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    data, out = _write(tmp_path, kind), tmp_path / "out.jsonl"
    args = ["score", str(data), "--bind", "expected_tools=gold", "-o", str(out)]
    for metric in METRICS:
        args += ["--metric", metric]
    assert main(args) == 0
    found = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(found) == len(ROWS) * len(METRICS)
    _check(_reasons(found))


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_evaluate_bind_names_the_empty_cell(tmp_path, kind):
    result = tooleval.evaluate(_write(tmp_path, kind), METRICS, bind={"expected_tools": "gold"})
    _check(_reasons(result.to_dicts()))
    assert result.summaries["tool_correctness"].unscored == 2


def test_a_missing_bound_key_is_named_too(tmp_path, monkeypatch):
    data = tmp_path / "rows.jsonl"
    data.write_text(
        '{"id": "x", "tools_called": ["a"], "gold": ["a"]}\n{"id": "y", "tools_called": ["a"]}\n'
    )
    out = tmp_path / "out.jsonl"
    assert (
        main(
            [
                "score",
                str(data),
                "--metric",
                "tool_correctness",
                "--bind",
                "expected_tools=gold",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    reason = json.loads(out.read_text().splitlines()[1])["reason"]
    assert "row 2 has no key 'gold'" in reason
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    found = tooleval.evaluate(rows, "tool_correctness", bind={"expected_tools": "gold"})
    assert "row 2 has no key 'gold'" in found.rows[1].reason


NAN_LINES = [
    '{"id": "a", "tools_called": [{"name": "f", "arguments": {"x": NaN}}], "expected_tools": ["f"]}',
    '{"id": "a", "tools_called": ["f"], "expected_tools": [{"name": "f", "arguments": {"x": -Infinity}}]}',
    '{"id": "a", "tools_called": ["f"], "expected_tools": [{"name": "f", "arguments": {"x": Infinity}}]}',
]
HINT = "(NaN and Infinity are not JSON: write null, a number or a string)"


@pytest.mark.parametrize("line", NAN_LINES)
@pytest.mark.parametrize("kernel", [True, False])
@pytest.mark.parametrize("metrics", [["tool_correctness"], METRICS])
def test_score_names_a_nan_token(tmp_path, monkeypatch, capsys, line, kernel, metrics):
    if not kernel:
        monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    data = tmp_path / "nan.jsonl"
    data.write_text('{"id": "ok", "tools_called": ["f"], "expected_tools": ["f"]}\n' + line + "\n")
    args = ["score", str(data), "-o", str(tmp_path / "out.jsonl")]
    for metric in metrics:
        args += ["--metric", metric]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "row 2: invalid JSON" in err and HINT in err


@pytest.mark.parametrize("line", NAN_LINES)
def test_evaluate_names_a_nan_token(tmp_path, line):
    data = tmp_path / "nan.jsonl"
    data.write_text(line + "\n")
    with pytest.raises(InputError, match=r"row 1: invalid JSON.*NaN and Infinity are not JSON"):
        tooleval.evaluate(data, "tool_correctness")


def test_other_invalid_json_gets_no_nan_hint(tmp_path, capsys):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"id": "a", "tools_called": [nan]}\n{"id": "b", "x": Nope}\n')
    assert main(["score", str(data), "--metric", "tool_correctness"]) == 2
    err = capsys.readouterr().err
    assert "invalid JSON" in err and "NaN and Infinity" not in err


@pytest.mark.parametrize("kernel", [True, False])
def test_the_table_shows_the_empty_cell(tmp_path, monkeypatch, capsys, kernel):
    if not kernel:
        monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    monkeypatch.setenv("COLUMNS", "400")
    data, out = _write(tmp_path, "jsonl"), tmp_path / "out.jsonl"
    args = ["score", str(data), "--bind", "expected_tools=gold", "--table", "-o", str(out)]
    assert main([*args, "--metric", "tool_correctness", "--metric", "tool_call_f1"]) == 0
    shown = capsys.readouterr()
    assert "row 2, column gold is empty" in shown.out + shown.err
    assert "bind an expected_tools column" not in shown.out + shown.err
