"""A bad option value is refused before any row, at every entry point, never an unscored row.

One check (``tooleval.model.metric.check_option`` through ``bind`` / ``check_params``)
serves ``tooleval score --option``, a plan's ``params`` (``--dry-run`` too),
``evaluate()``, ``tooleval rescore``, ``assert_tool_calls`` and direct calls.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tooleval
from tooleval.errors import ConfigError
from tooleval.testing import assert_tool_calls

EXE = str(Path(sys.executable).with_name("tooleval"))

ROWS = [
    {
        "id": "a",
        "input": "do x",
        "tools_called": [{"name": "x", "arguments": {"k": 1}}],
        "expected_tools": ["x"],
    },
    {"id": "b", "input": "do y", "tools_called": [], "expected_tools": ["x"]},
]

# (metric, --option, what the message must say)
BAD = [
    ("tool_correctness", "threshold=1.5", "threshold must be a number in [0, 1] or null, got 1.5"),
    ("tool_correctness", "threshold=abc", "got 'abc'"),
    ("tool_call_f1", "threshold=-0.1", "got -0.1"),
    ("tool_call_accuracy", "order=stric", "did you mean 'strict'"),
    ("tool_call_f1", "args=exactt", "did you mean 'exact'"),
    ("tool_correctness", "argument_keys=5", "argument_keys must be a list"),
    ("trajectory_match", "coverage=all", "coverage must be one of"),
    ("state_match", "environment=nofile.py:make", "cannot import 'nofile.py'"),
    ("state_match", "environment=no_such_environment", "unknown environment"),
]


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(cwd), env.get("PYTHONPATH", "")]))
    return subprocess.run(
        [EXE, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
    )


def _dataset(folder: Path) -> Path:
    path = folder / "data.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


@pytest.mark.parametrize(("metric", "option", "says"), BAD, ids=[b[1] for b in BAD])
def test_score_refuses_a_bad_option_before_any_row(tmp_path, metric, option, says):
    data = _dataset(tmp_path)
    done = _run("score", str(data), "--metric", metric, "--option", option, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # not one row streamed
    assert says in done.stderr and f"metric {metric!r}" in done.stderr
    assert "could not score" not in done.stderr


def _plan(folder: Path, metric: str, params: dict) -> Path:
    _dataset(folder)
    (folder / "cfg_agent.py").write_text("def run(text):\n    return {'tools_called': ['x']}\n")
    plan = folder / "plan.yaml"
    plan.write_text(
        "name: cfg\n"
        "dataset: {path: data.jsonl}\n"
        "connector: {type: python, target: 'cfg_agent:run'}\n"
        f"metrics:\n  - name: {metric}\n    params: {json.dumps(params)}\n"
    )
    return plan


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"threshold": "abc"}, "got 'abc'"),
        ({"threshold": 1.5}, "got 1.5"),
        ({"args": "exactt"}, "did you mean 'exact'"),
        ({"order": "Stric"}, "did you mean 'strict'"),
    ],
)
def test_a_plan_with_a_bad_param_fails_its_dry_run(tmp_path, params, says):
    plan = _plan(tmp_path, "tool_correctness", params)
    done = _run("run", str(plan), "--dry-run", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    key = next(iter(params))
    assert f"metrics[0].params.{key}" in done.stderr and says in done.stderr


def test_rescore_refuses_a_bad_option_before_any_row(tmp_path):
    from tooleval.store import open_store

    plan = _plan(tmp_path, "tool_correctness", {})
    db = tmp_path / "runs.db"
    done = _run("run", str(plan), "--store", str(db), "--quiet", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    with open_store(db) as store:
        (run,) = store.list_runs()
    run_id = run.id
    for metric, option, says in BAD:
        done = _run(
            "rescore",
            run_id,
            "--metric",
            metric,
            "--option",
            option,
            "--store",
            str(db),
            cwd=tmp_path,
        )
        assert done.returncode == 2, (option, done.stdout, done.stderr)
        assert says in done.stderr, (option, done.stderr)
    with open_store(db) as store:
        assert len(store.list_runs()) == 1  # no run was made of unscored rows


@pytest.mark.parametrize(("metric", "option", "says"), BAD, ids=[b[1] for b in BAD])
def test_evaluate_raises_config_error_instead_of_unscored_rows(tmp_path, metric, option, says):
    key, _, text = option.partition("=")
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    with pytest.raises(ConfigError) as caught:
        tooleval.evaluate(ROWS, [(metric, {key: value})])
    assert says in str(caught.value)


def test_assert_tool_calls_and_direct_calls_refuse_the_same_values():
    with pytest.raises(ConfigError, match="threshold must be a number"):
        assert_tool_calls(["x"], ["x"], threshold=1.5)
    with pytest.raises(ConfigError, match="did you mean 'strict'"):
        assert_tool_calls(["x"], ["x"], metric="tool_call_accuracy", order="stric")
    with pytest.raises(ConfigError, match="did you mean 'exact'"):
        tooleval.metrics.tool_call_f1(["x"], ["x"], args="exactt")
    with pytest.raises(ConfigError, match="got nan"):
        tooleval.metrics.tool_correctness(["x"], ["x"], threshold=float("nan"))
