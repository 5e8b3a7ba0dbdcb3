"""Dataset.require: a missing expected_tools binding stops a run before any agent call."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooleval.datasets import load_dataset
from tooleval.errors import DatasetError


def test_missing_expected_tools_names_columns_and_likely_one(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text(
        "question,expected,intent\n"
        '"cancel 4471","lookup_order, cancel_order",cancel\n'
        '"where is 12","[""lookup_order""]",shipping\n'
    )
    ds = load_dataset(path)
    with pytest.raises(DatasetError) as info:
        ds.require({"expected_tools"}, metric="tool_correctness")
    message = str(info.value)
    assert "metric tool_correctness needs 'expected_tools', but no column is bound" in message
    assert "['question', 'expected', 'intent']" in message
    assert "the likely one is 'expected' (--bind expected_tools=expected)" in message
    assert info.value.context["file"] == str(path)


def test_likely_column_found_by_content_when_name_says_nothing(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(
        '{"input": "cancel 4471", "gold": ["lookup_order", "cancel_order"], "label": "x"}\n'
        '{"input": "refund", "gold": ["issue_refund"], "label": "y"}\n'
    )
    with pytest.raises(DatasetError, match="the likely one is 'gold'"):
        load_dataset(path).require(["expected_tools"])


def test_no_guess_when_nothing_fits(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"input": "cancel order 4471 please", "notes": "long free text here"}\n')
    with pytest.raises(DatasetError) as info:
        load_dataset(path).require(["expected_tools"])
    assert "likely" not in str(info.value)


def test_bound_fields_pass(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}], "expected_tools": []}\n')
    ds = load_dataset(path)
    ds.require({"expected_tools", "input", "tools_called"})  # input via messages; calls from agent
    with pytest.raises(DatasetError, match="'reference' is needed"):
        ds.require({"reference"})


def test_explicit_binding_satisfies(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('input,tools\n"a b","x, y"\n')
    load_dataset(path, bind={"expected_tools": "tools"}).require({"expected_tools"})


def test_describe_is_storable(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('input,expected_tools\n"a b","x, y"\n')
    d = load_dataset(path).describe()
    assert d["rows"] == 1 and d["error_rows"] == 0 and len(d["sha256"]) == 64
    assert d["bindings"] == {"input": "input", "expected_tools": "expected_tools"}


def test_agent_produced_fields_skipped_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"input": "a", "expected_tools": ["x"]}\n')
    ds = load_dataset(path)
    ds.require({"output", "tools_called", "expected_tools"})
    with pytest.raises(DatasetError, match="'tools_called' is needed"):
        ds.require({"tools_called"}, produced=())
