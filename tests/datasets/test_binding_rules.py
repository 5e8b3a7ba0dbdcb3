"""Bindings: one field, one column; the reference and the calls never share one; suggestions
never name the agent's calls as the reference; an empty bound cell says so."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval
from tooleval.datasets import load_dataset
from tooleval.datasets.binding import parse_bind_options, resolve_bindings, suggest_column
from tooleval.errors import ConfigError, DatasetError

EXE = str(Path(sys.executable).with_name("tooleval"))


def _score(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, "score", *args], capture_output=True, text=True, timeout=120)


def _csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.fixture
def table(tmp_path) -> Path:
    return _csv(
        tmp_path / "d.csv",
        ["id", "input", "tools", "gold", "gold2"],
        [
            ["r1", "do x", '["a"]', '["a"]', '["b"]'],
            ["r2", "do y", '["a"]', "", '["a"]'],
            ["r3", "do z", '["b"]', '["a"]', '["a"]'],
        ],
    )


@pytest.mark.parametrize(
    "binds",
    [
        ["expected_tools=gold", "expected_tools=gold2"],
        ["tools_called=tools", "tools_called=gold"],
        ["input=input", "input=id"],
        ["expected_tools=gold", "expected_tools=gold"],
    ],
)
def test_a_field_bound_twice_is_refused_before_any_row(table, binds):
    args = [str(table), "--metric", "tool_correctness"]
    for bind in binds:
        args += ["--bind", bind]
    done = _score(*args)
    assert done.returncode == 2 and done.stdout == ""
    field = binds[0].partition("=")[0]
    assert f"--bind {field} given twice" in done.stderr


@pytest.mark.parametrize(
    "binds",
    [
        ["expected_tools=gold", "tools_called=gold"],
        ["tools_called=tools", "expected_tools=tools"],
    ],
)
def test_one_column_for_the_reference_and_the_calls_is_refused(table, binds):
    args = [str(table), "--metric", "tool_correctness"]
    for bind in binds:
        args += ["--bind", bind]
    done = _score(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert "must come from different columns" in done.stderr


def test_binding_the_reference_to_the_calls_column_by_name_is_refused(tmp_path):
    rows = [{"id": "a", "tools_called": ["a"], "gold": ["a"]}]
    for data in (
        _jsonl(tmp_path / "d.jsonl", rows),
        _csv(tmp_path / "d.csv", ["id", "tools_called", "gold"], [["a", '["a"]', '["a"]']]),
    ):
        done = _score(
            str(data), "--metric", "tool_call_f1", "--bind", "expected_tools=tools_called"
        )
        assert done.returncode == 2 and done.stdout == ""
        assert "column 'tools_called' is bound to expected_tools and to tools_called" in done.stderr


def test_the_python_entry_points_refuse_crossed_bindings(table):
    crossed = {"expected_tools": "gold", "tools_called": "gold"}
    with pytest.raises(DatasetError, match="different columns"):
        load_dataset(table, bind=crossed)
    with pytest.raises((DatasetError, ConfigError), match="different columns"):
        tooleval.evaluate(table, "tool_correctness", bind=crossed)
    with pytest.raises(DatasetError, match="different columns"):
        resolve_bindings(["tools_called", "gold"], {"expected_tools": "tools_called"})
    with pytest.raises(DatasetError, match="given twice"):
        parse_bind_options(["category=a", "category=b"])


def test_the_suggestion_for_the_reference_is_never_the_agents_calls(table, tmp_path):
    done = _score(str(table), "--metric", "tool_correctness", "--bind", "tools_called=tools")
    assert done.returncode == 2
    assert (
        "--bind expected_tools=gold" in done.stderr and "expected_tools=tools)" not in done.stderr
    )
    done = _score(str(table), "--metric", "tool_correctness")
    assert "expected_tools=tools)" not in done.stderr
    rows = [{"calls": '["a"]', "expected": '["a"]'}, {"calls": '["b"]', "expected": '["b"]'}]
    assert suggest_column("expected_tools", ["id", "calls", "expected"], rows) == "expected"
    rows = [{"tools": '["a"]', "truth": '["a"]'}]
    assert suggest_column("expected_tools", ["tools", "truth"], rows) == "truth"
    rows = [{"tools_called": '["a"]', "tools": '["a"]'}]
    assert suggest_column("expected_tools", ["tools_called", "tools"], rows) == "tools"
    # one tool column and nothing else: it may well be the reference
    assert suggest_column("expected_tools", ["id", "tools"], [{"tools": '["a"]'}]) == "tools"


def test_an_empty_bound_cell_names_its_row_and_column(table):
    dataset = load_dataset(table, bind={"expected_tools": "gold", "tools_called": "tools"})
    empty = {row.number: row.empty_cells for row in dataset.rows}
    assert empty[2] == {"expected_tools": "row 2, column gold is empty"}
    assert empty[1] == {} and empty[3] == {}
    assert not any("no-value marker" in w for w in dataset.warnings)


def test_a_plan_key_given_twice_is_refused(tmp_path):
    from tooleval.runs.plan import load_plan

    plan = tmp_path / "plan.yaml"
    _jsonl(tmp_path / "d.jsonl", [{"id": "a", "input": "x", "expected_tools": ["a"]}])
    for body in (
        "dataset: {path: d.jsonl, bind: {expected_tools: gold, expected_tools: gold2}}\n",
        "dataset: {path: d.jsonl}\nmetrics:\n  - {name: tool_f1, params: {threshold: 0.5, "
        "threshold: 0.9}}\n",
    ):
        plan.write_text("name: t\nconnector: {type: python, target: 'x:y'}\n" + body)
        with pytest.raises(ConfigError, match="given twice in one mapping"):
            load_plan(plan)
