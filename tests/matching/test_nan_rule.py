"""One rule for non-finite numbers: a NaN is the same as a NaN, at every entry point."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval
from tooleval.environments.diff import state_diff
from tooleval.environments.metric import state_match
from tooleval.environments.python import FunctionEnvironment
from tooleval.matching.values import Exact, Normalized, Numeric
from tooleval.model import ToolCall

NAN = float("nan")
EXE = str(Path(sys.executable).with_name("tooleval"))
METRICS = ["tool_call_f1", "tool_correctness", "tool_call_accuracy", "trajectory_match"]
ARGUMENTS = [
    {"x": NAN},
    {"x": [NAN, 1]},
    {"x": {"y": NAN}, "z": "a"},
    {"x": math.inf},
]


@pytest.mark.parametrize("arguments", ARGUMENTS, ids=["flat", "list", "nested", "inf"])
@pytest.mark.parametrize("args", ["exact", "numeric", "normalized"])
def test_identical_calls_with_nan_score_one_through_evaluate(arguments, args):
    row = {
        "tools_called": [{"name": "f", "arguments": arguments}],
        "expected_tools": [{"name": "f", "arguments": arguments}],
    }
    result = tooleval.evaluate([row], [(name, {"args": args}) for name in METRICS])
    for name in METRICS:
        (scored,) = [r.result for r in result.rows if r.result.metric == name]
        assert scored.score == 1.0, (name, scored.reason)
        assert "expected nan" not in scored.reason


def test_nan_differs_from_every_number_and_direct_calls_agree():
    for matcher in (Exact(), Numeric(), Numeric(abs_tol=1.0), Normalized()):
        assert matcher(NAN, NAN) == 1.0 and matcher([NAN], [NAN]) == 1.0, matcher
        assert matcher(NAN, 1.0) == 0.0 and matcher(1.0, NAN) == 0.0, matcher
    same = tooleval.metrics.tool_call_f1([ToolCall("f", {"x": NAN})], [ToolCall("f", {"x": NAN})])
    other = tooleval.metrics.tool_call_f1([ToolCall("f", {"x": NAN})], [ToolCall("f", {"x": 1.0})])
    assert same.score == 1.0 and other.score == 0.0
    minus = tooleval.metrics.tool_call_f1(
        [ToolCall("f", {"x": math.inf})], [ToolCall("f", {"x": -math.inf})]
    )
    assert minus.score == 0.0


def test_a_nan_in_a_csv_cell_scores_like_evaluate(tmp_path):
    path = tmp_path / "d.csv"
    call = json.dumps([{"name": "f", "arguments": {"x": NAN}}])  # Python's json writes NaN
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "tools_called", "expected_tools"])
        writer.writerow(["a", call, call])
    done = subprocess.run(
        [EXE, "score", str(path), "--metric", "tool_call_f1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["score"] == 1.0


def test_a_nan_in_environment_state_is_the_same_and_shown_as_text():
    assert state_diff({"a": NAN, "b": [NAN]}, {"a": NAN, "b": [NAN]}) == []
    assert state_diff({"b": [NAN, 1]}, {"b": [1, NAN]}, list_order="ignore") == []
    (difference,) = state_diff({"a": NAN}, {"a": 1.0})
    assert difference.to_dict() == {"path": "a", "expected": "NaN", "actual": 1.0}
    (difference,) = state_diff({"a": math.inf}, {"a": -math.inf})
    assert difference.to_dict()["expected"] == "Infinity"

    def make():
        return FunctionEnvironment(
            {"put": lambda state, key, value: state.update({key: float(value)})},
            initial_state={"level": NAN},
        )

    gold = [ToolCall("put", {"key": "v", "value": "nan"})]
    same = state_match(gold, gold, environment=make)
    assert same.score == 1.0, same.reason
    other = state_match(gold, [ToolCall("put", {"key": "v", "value": "1"})], environment=make)
    assert other.score == 0.0
    assert other.diagnosis.details["differences"] == [
        {"path": "v", "expected": "NaN", "actual": 1.0}
    ]
    assert "None" not in other.reason
