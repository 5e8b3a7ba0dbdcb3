"""``tooleval.evaluate(path)`` on the compiled kernel's one-pass stream: compact, the same answers.

The oracles are the same call with the kernel turned off (the Python path of ``score_file``,
kept as scores and verdicts too) and the rows given in memory (every Result kept): summaries,
scores, rows, dicts, JSONL and errors must be equal. The compact paths make no object per row
(counted with the collector's own count, not timed).
"""

from __future__ import annotations

import gc
import os
from pathlib import Path
from unittest import mock

import orjson
import pytest

import tooleval
from tooleval.errors import DatasetError, InputError
from tooleval.metrics.engine import ENV_DISABLE, kernel_status

pytestmark = pytest.mark.skipif(
    kernel_status() != "compiled",
    reason="needs the compiled kernel (the Python path is the oracle)",
)


def _loose(expected, actual):  # a callable matcher: only Python scores it
    return expected == actual


METRICS = [
    "tool_call_accuracy",
    ("tool_correctness", {"args": _loose}),
    ("tool_call_f1", {"threshold": 0.6}),
]


def _rows(path: Path, n: int) -> Path:
    lines = []
    for i in range(n):
        expected = [{"name": "search", "args": {"q": f"q{i}"}}, "book"]
        called = [{"name": "search", "args": {"q": f"q{i}" if i % 3 else "x"}}]
        if i % 4:
            called.append({"name": "book", "args": {}})
        row = {"id": f"r{i}", "tools_called": called, "expected_tools": expected}
        if i % 9 == 4:
            row["expected_tools"] = None  # unscored
        if i % 7 == 2:
            row["messages"] = []  # handed back to Python
        lines.append(orjson.dumps(row))
    path.write_bytes(b"\n".join(lines) + b"\n\n")
    return path


def _python(path: Path, metrics=METRICS):
    with mock.patch.dict(os.environ, {ENV_DISABLE: "1"}):
        return tooleval.evaluate(path, metrics)


def test_the_compact_result_answers_as_the_python_one(tmp_path):
    data = _rows(tmp_path / "d.jsonl", 200)
    fast, slow = tooleval.evaluate(data, METRICS), _python(data)
    rows = [orjson.loads(line) for line in data.read_bytes().splitlines() if line.strip()]
    held = tooleval.evaluate(rows, METRICS)
    assert type(fast.rows).__name__ == type(slow.rows).__name__ == "StreamedRows"
    assert type(held.rows) is tuple
    assert fast.summaries == held.summaries and fast.to_jsonl() == held.to_jsonl()
    assert fast.summaries == slow.summaries
    assert repr(fast) == repr(slow)
    for name in fast.metrics:
        assert fast[name] == slow[name]
    assert fast.to_jsonl() == slow.to_jsonl()
    assert fast.to_dicts() == slow.to_dicts()
    assert len(fast) == len(slow) == 600
    assert list(fast) == list(slow)
    assert fast.rows[5] is fast.rows[5]  # decoded once
    assert fast.rows[-1].row_id == "r199"


def test_to_pandas_matches(tmp_path):
    pytest.importorskip("pandas")
    data = _rows(tmp_path / "d.jsonl", 50)
    fast, slow = tooleval.evaluate(data, METRICS).to_pandas(), _python(data).to_pandas()
    assert fast.equals(slow)


@pytest.mark.parametrize("kernel", [True, False], ids=["kernel", "python"])
def test_no_object_per_row_is_kept(tmp_path, kernel):
    data = _rows(tmp_path / "d.jsonl", 3000)
    with mock.patch.dict(os.environ, {} if kernel else {ENV_DISABLE: "1"}):
        gc.collect()
        before = len(gc.get_objects())
        result = tooleval.evaluate(data, ["tool_call_accuracy", "tool_call_f1"])
        gc.collect()
        assert len(gc.get_objects()) - before < 1000  # 6,000 results, no object graph
    assert result.summaries["tool_call_f1"].n == 3000


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b'{"id": "a", "tools_called": [], "expected_tools": []}\nnot json\n', "row 2"),
        (b'{"id": "a", "tools_called": [], "expected_tools": [{"name": 4}]}\n', "row 1"),
        (b'{"id": "a", "expected_tools": ["f"]}\n', "tools_called"),
    ],
)
def test_bad_rows_raise_the_python_error(tmp_path, content, needle):
    data = tmp_path / "bad.jsonl"
    data.write_bytes(content)
    with pytest.raises(InputError) as fast:
        tooleval.evaluate(data, METRICS)
    with pytest.raises(InputError) as slow:
        _python(data)
    assert str(fast.value) == str(slow.value)
    assert needle in str(fast.value) and str(data) in str(fast.value)


def test_empty_file_and_a_field_no_row_holds(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n \n")
    with pytest.raises(InputError, match="no rows to evaluate"):
        tooleval.evaluate(empty, ["tool_call_f1"])
    unbound = tmp_path / "gold.jsonl"
    unbound.write_bytes(b'{"id": "a", "tools_called": ["f"], "gold": ["f"]}\n' * 3)
    with pytest.raises(DatasetError) as fast:
        tooleval.evaluate(unbound, ["tool_call_f1"])
    with pytest.raises(DatasetError) as slow:
        _python(unbound, ["tool_call_f1"])
    assert str(fast.value) == str(slow.value)


def test_a_file_changed_after_evaluation_is_refused_when_rows_are_read(tmp_path):
    data = _rows(tmp_path / "d.jsonl", 20)
    result = tooleval.evaluate(data, ["tool_call_f1"])
    scores = result["tool_call_f1"]
    data.write_bytes(data.read_bytes() + b'{"id": "late", "tools_called": []}\n')
    assert result["tool_call_f1"] == scores  # kept, not read again
    with pytest.raises(InputError, match="changed after it was evaluated"):
        result.to_jsonl()
