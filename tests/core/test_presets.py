"""Verdict presets: one name for strict order, threshold 1 and intent keys, everywhere."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tooleval import evaluate
from tooleval.errors import ConfigError
from tooleval.metrics.presets import PRESETS, apply_preset, preset_options
from tooleval.runs.plan import plan_from_dict
from tooleval.testing import assert_tool_calls

from ..conftest import REPO_ROOT

# the wrong order: lookup after cancel; with defaults tool_correctness passes it (0.5, flexible)
WRONG_ORDER = {
    "id": "wrong-order",
    "tools_called": [
        {"name": "cancel_order", "args": {"order_id": "4471"}},
        {"name": "lookup_order", "args": {"order_id": "4471"}},
    ],
    "expected_tools": [
        {"name": "lookup_order", "args": {"order_id": "4471"}},
        {"name": "cancel_order", "args": {"order_id": "4471"}},
    ],
}
# an extra argument key the reference does not state (a request id): not a wrong intent
EXTRA_KEY = {
    "id": "extra-key",
    "tools_called": [{"name": "lookup_order", "args": {"order_id": "4471", "request_id": "r9"}}],
    "expected_tools": [{"name": "lookup_order", "args": {"order_id": "4471"}}],
}
# half the job: the cancel never made
HALF = {
    "id": "half",
    "tools_called": [{"name": "lookup_order", "args": {"order_id": "4471"}}],
    "expected_tools": WRONG_ORDER["expected_tools"],
}


def _verdicts(result) -> dict[str, bool]:
    return {row.row_id: row.result.passed for row in result.rows}


def test_the_release_preset_sets_order_threshold_and_intent_keys_where_declared():
    options = apply_preset("release", {"tool_correctness": {}, "tool_call_accuracy": {}})
    assert options["tool_correctness"] == {
        "order": "strict",
        "extra_keys": "ignore",
        "threshold": 1.0,
    }
    assert options["tool_call_accuracy"] == {"order": "strict", "threshold": 1.0}


def test_an_option_given_wins_over_the_preset_and_former_names_count_as_given():
    assert preset_options("release", "tool_correctness", {"threshold": 0.5})["threshold"] == 0.5
    # check_ordering=False is the former name of order=flexible: given, so kept
    assert preset_options("release", "tool_correctness", {"check_ordering": False})["order"] == (
        "flexible"
    )


@pytest.mark.parametrize("bad", ["relase", "", 3, None])
def test_an_unknown_preset_is_refused_naming_the_field(bad):
    with pytest.raises(ConfigError, match="unknown preset") as info:
        preset_options(bad, "tool_correctness", field="--preset")
    assert info.value.field == "--preset"
    if bad == "relase":
        assert "did you mean 'release'" in str(info.value)


def test_evaluate_with_the_release_preset_fails_wrong_order_and_half_jobs():
    rows = [WRONG_ORDER, EXTRA_KEY, HALF]
    default = _verdicts(evaluate(rows, "tool_correctness"))
    release = _verdicts(evaluate(rows, "tool_correctness", preset="release"))
    assert default == {"wrong-order": True, "extra-key": False, "half": True}
    assert release == {"wrong-order": False, "extra-key": True, "half": False}


def test_evaluate_keeps_an_option_given_with_the_metric_under_the_preset():
    result = evaluate(
        [WRONG_ORDER], [("tool_correctness", {"order": "flexible"})], preset="release"
    )
    assert _verdicts(result) == {"wrong-order": True}
    assert result.rows[0].result.params["threshold"] == 1.0


def test_assert_tool_calls_takes_the_preset():
    expected, actual = EXTRA_KEY["expected_tools"], EXTRA_KEY["tools_called"]
    with pytest.raises(AssertionError):
        assert_tool_calls(expected, actual)
    assert assert_tool_calls(expected, actual, preset="release").passed
    with pytest.raises(AssertionError):
        assert_tool_calls(
            WRONG_ORDER["expected_tools"], WRONG_ORDER["tools_called"], preset="release"
        )


def _plan(**extra):
    base = {"dataset": "d.jsonl", "connector": {"type": "http", "url": "http://127.0.0.1:9/a"}}
    return plan_from_dict({**base, **extra})


def test_a_plans_preset_sets_params_and_thresholds_under_its_own():
    plan = _plan(
        metrics=["tool_correctness", {"name": "tool_call_f1", "threshold": 0.8}],
        preset="release",
    )
    correctness, f1 = plan.metrics
    assert correctness.params == {"order": "strict", "extra_keys": "ignore"}
    assert correctness.threshold == 1.0
    assert f1.params == {"extra_keys": "ignore"} and f1.threshold == 0.8


def test_a_plans_unknown_preset_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown preset 'strict'") as info:
        _plan(metrics=["tool_correctness"], preset="strict")
    assert info.value.field == "preset"


def _score(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tooleval", "score", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_score_preset_release_decides_as_the_spelled_out_options(tmp_path):
    data = str(REPO_ROOT / "examples" / "support_agent.jsonl")
    preset = _score(data, "--metric", "tool_correctness", "--preset", "release")
    spelled = [f"--option={k}={json.dumps(v)}" for k, v in PRESETS["release"].items()]
    options = _score(data, "--metric", "tool_correctness", *spelled)
    assert preset.returncode == options.returncode == 0, preset.stderr + options.stderr
    assert preset.stdout == options.stdout
    assert '"order":"strict"' in preset.stdout and '"threshold":1.0' in preset.stdout


def test_score_refuses_an_unknown_preset_before_reading_a_row(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(WRONG_ORDER) + "\n")
    out = tmp_path / "out.jsonl"
    done = _score(str(data), "--metric", "tool_correctness", "--preset", "relase", "-o", str(out))
    assert done.returncode == 2
    assert "field --preset: unknown preset 'relase' (did you mean 'release'?)" in done.stderr
    assert not out.exists()
