"""``evaluate(path)`` of every format goes through ``score_file``: the same errors, the same answers.

JSONL, CSV, TSV, a JSON array and Parquet hold the same rows. For each, ``tooleval.evaluate``
and ``tooleval score`` (a real process) stop at the same bad row with the same message (the
remedy for a field no column holds is worded for the entry point: ``bind={...}`` or
``--bind``), and the rows they score give the same results as the rows given in memory. The
Python path keeps no object per row (counted with the collector's own count, not timed).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval
from tooleval.errors import DatasetError, InputError

EXE = str(Path(sys.executable).with_name("tooleval"))
KINDS = ["jsonl", "csv", "tsv", "json", "parquet"]
GOOD = [
    {"id": "a", "tools_called": ["f"], "expected_tools": ["f"], "category": "x"},
    {"id": "b", "tools_called": ["f", "g"], "expected_tools": ["f"], "category": "y"},
    {"id": "c", "tools_called": ["g"], "expected_tools": ["f", "g"]},
]


def _write(folder: Path, rows: list[dict], kind: str) -> Path:
    """The rows as a ``kind`` file: string cells as they are, the rest as JSON text."""
    path = folder / f"rows.{kind}"
    columns = list(dict.fromkeys(key for row in rows for key in row))

    def cell(row: dict, column: str) -> str | None:
        if column not in row:
            return None
        value = row[column]
        return value if isinstance(value, str) else json.dumps(value)

    if kind == "jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    elif kind == "json":
        path.write_text(json.dumps(rows))
    elif kind in ("csv", "tsv"):
        sep = "," if kind == "csv" else "\t"
        lines = [sep.join(columns)]
        for row in rows:
            cells = [cell(row, column) or "" for column in columns]
            lines.append(sep.join('"' + c.replace('"', '""') + '"' for c in cells))
        path.write_text("\n".join(lines) + "\n")
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        table = [{column: cell(row, column) for column in columns} for row in rows]
        pq.write_table(pa.Table.from_pylist(table), path)
    return path


def _score_error(path: Path, *, first: bool = True) -> str:
    """What ``tooleval score`` says of ``path`` (``first``: before any row is written)."""
    done = subprocess.run(
        [EXE, "score", str(path), "--metric", "tool_correctness"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    if first:
        assert done.stdout == ""  # refused before any row
    return done.stderr.strip().removeprefix("tooleval score: error: ")


BAD_CALL = [GOOD[0], {"id": "b", "tools_called": [{"name": 4}], "expected_tools": ["f"]}]
NO_REFERENCE = [{"id": "a", "tools_called": ["f"], "gold": ["f"]}]


@pytest.mark.parametrize("kind", KINDS)
def test_a_bad_row_is_the_same_error_from_evaluate_and_score(tmp_path, kind):
    path = _write(tmp_path, BAD_CALL, kind)
    with pytest.raises(InputError) as caught:
        tooleval.evaluate(path, ["tool_correctness"])
    said = str(caught.value)
    assert said == _score_error(path, first=False)  # the rows before it are streamed
    assert f"file {path}, row 2" in said and "tools_called[0].name" in said
    assert "expected a tool name, got a number (4)" in said


@pytest.mark.parametrize("kind", KINDS)
def test_a_field_no_row_holds_is_worded_for_the_entry_point(tmp_path, kind):
    path = _write(tmp_path, NO_REFERENCE, kind)
    with pytest.raises(DatasetError) as caught:
        tooleval.evaluate(path, ["tool_correctness"])
    said = str(caught.value)
    assert said.startswith(f"file {path}, field expected_tools: metric tool_correctness needs")
    assert "bind={'expected_tools': 'gold'}" in said and "--bind expected_tools=gold" in said
    cli = _score_error(path)
    assert cli.startswith(f"file {path}, field expected_tools: metric tool_correctness needs")
    assert "--bind expected_tools=gold" in cli and "bind={" not in cli


@pytest.mark.parametrize("kind", KINDS)
def test_a_bound_column_that_is_not_there_is_named(tmp_path, kind):
    path = _write(tmp_path, NO_REFERENCE, kind)
    with pytest.raises(DatasetError) as caught:
        tooleval.evaluate(path, ["tool_correctness"], bind={"expected_tools": "golden"})
    assert "'golden'" in str(caught.value) and "did you mean 'gold'" in str(caught.value)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("kind", ["csv", "tsv", "json", "parquet"])
def test_a_file_without_data_rows(tmp_path, kind):
    path = _write(tmp_path, GOOD, kind)
    if kind in ("csv", "tsv"):
        path.write_text(path.read_text().splitlines()[0] + "\n")
    elif kind == "json":
        path.write_text("[]")
    else:
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"id": pa.array([], pa.string())}), path)
    with pytest.raises(InputError) as caught:
        tooleval.evaluate(path, ["tool_correctness"])
    assert str(path) in str(caught.value)
    assert "no rows to evaluate" in str(caught.value) or "no data rows" in str(caught.value)


@pytest.mark.parametrize("kind", KINDS)
def test_every_format_scores_as_the_rows_in_memory(tmp_path, kind, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")  # the Python path (the kernel's has its tests)
    metrics = ["tool_correctness", ("tool_call_f1", {"threshold": 0.9})]
    held = tooleval.evaluate(GOOD, metrics)
    found = tooleval.evaluate(_write(tmp_path, GOOD, kind), metrics)
    assert type(found.rows).__name__ == "StreamedRows"
    assert found.summaries == held.summaries
    assert found["tool_call_f1"] == held["tool_call_f1"]
    assert found.to_jsonl() == held.to_jsonl()
    assert [(row.row_id, row.result) for row in found] == [(r.row_id, r.result) for r in held]
    assert repr(found) == repr(held)


def test_a_csv_keeps_no_object_per_row(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    rows = [
        {"id": f"r{i}", "tools_called": ["f"] if i % 3 else ["g"], "expected_tools": ["f"]}
        for i in range(3000)
    ]
    path = _write(tmp_path, rows, "csv")
    gc.collect()
    before = len(gc.get_objects())
    result = tooleval.evaluate(path, ["tool_correctness", "tool_call_f1"])
    gc.collect()
    assert len(gc.get_objects()) - before < 1000  # 6,000 results, no object graph
    assert result.summaries["tool_correctness"].passed == 2000
