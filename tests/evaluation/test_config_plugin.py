"""A bad configuration given through the pytest plugin is refused before any test runs.

The plugin's own settings (the ``tooleval_dataset`` marker's path and ``bind``) stop the
collection with one error (no traceback) naming the setting, the value, what is allowed and the likely
name; a metric option given to ``assert_tool_calls`` inside a test is the ConfigError of every
other entry point (tests/metrics/test_config_entry_points.py), never a skip or an unscored
pass; a judge's settings are checked as a plan's ``judge:`` is.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import tooleval
from tooleval.errors import ConfigError

pytest_plugins = ["pytester"]

ROWS = [{"id": "a", "input": "x", "tools_called": ["f"], "gold": ["f"]}]


def _project(pytester, body: str) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    (pytester.path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (pytester.path / "test_user.py").write_text(textwrap.dedent(body))


@pytest.mark.parametrize(
    ("bind", "says"),
    [
        ('{"expectd_tools": "gold"}', "did you mean 'expected_tools'"),
        ('{"expected_tools": "gld"}', "did you mean 'gold'"),
        ('["gold"]', "expected a mapping of field -> column"),
        ('{"expected_tools": 3}', "expected a column name (text)"),
    ],
)
def test_a_bad_bind_stops_the_collection(pytester, bind, says):
    _project(
        pytester,
        f"""
        import pytest

        @pytest.mark.tooleval_dataset("cases.jsonl", bind={bind})
        def test_row(tooleval_case):
            raise AssertionError("never run")
        """,
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED, out  # pytest's exit for collection errors
    assert says in out and "@pytest.mark.tooleval_dataset('cases.jsonl')" in out, out
    assert "never run" not in out and "pluggy" not in out and "Traceback" not in out, out
    result.assert_outcomes(errors=1)


def test_a_bad_option_in_a_test_is_a_config_error_not_a_skip(pytester):
    _project(
        pytester,
        """
        import pytest
        from tooleval.errors import ConfigError
        from tooleval.testing import assert_tool_calls

        @pytest.mark.tooleval_dataset("cases.jsonl", bind={"expected_tools": "gold"})
        def test_row(tooleval_case):
            with pytest.raises(ConfigError, match="did you mean 'strict'"):
                assert_tool_calls(tooleval_case.expected_tools, tooleval_case.tools_called,
                                  metric="tool_call_accuracy", order="stric")
            with pytest.raises(ConfigError, match="got 1.5"):
                assert_tool_calls(tooleval_case.expected_tools, tooleval_case.tools_called,
                                  threshold=1.5)
        """,
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("judge", "field", "says"),
    [
        ({"type": "opnai", "model": "m"}, "judge.type", "did you mean 'openai'"),
        ({"type": "openai", "modle": "m"}, "judge.modle", "did you mean 'model'"),
        ({"type": "openai", "model": "m", "temperature": "hot"}, "judge.temperature", "'hot'"),
        ({"type": "openai", "model": "m", "timeout": -1}, "judge.timeout", "number >= 0"),
        ({"type": "openai", "model": "m", "max_tokens": 2.5}, "judge.max_tokens", "whole"),
        ({"type": "local", "threads": "two"}, "judge.threads", "got 'two'"),
    ],
)
def test_bad_judge_settings_are_refused_before_any_row(monkeypatch, judge, field, says):
    monkeypatch.setenv("TOOLEVAL_JUDGE_API_KEY", "not-used")  # the settings fail first
    rows = [{"id": "a", "input": "x", "tools_called": ["f"], "expected_tools": ["f"]}]
    with pytest.raises(ConfigError) as caught:
        tooleval.evaluate(rows, ["task_success"], judge=judge)
    assert f"field {field}" in str(caught.value) and says in str(caught.value)


def test_a_plans_bad_judge_setting_fails_its_dry_run(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys
    from pathlib import Path

    monkeypatch.setenv("TOOLEVAL_JUDGE_API_KEY", "not-used")
    (tmp_path / "data.jsonl").write_text(json.dumps({**ROWS[0], "expected_tools": ["f"]}) + "\n")
    (tmp_path / "cfg_agent.py").write_text("def run(text):\n    return {'tools_called': ['f']}\n")
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "name: cfg\ndataset: {path: data.jsonl}\n"
        "connector: {type: python, target: 'cfg_agent:run'}\n"
        "metrics: [task_success]\n"
        "judge: {type: openai, model: m, tempreature: 0, base_url: 'http://127.0.0.1:9/v1'}\n"
    )
    exe = str(Path(sys.executable).with_name("tooleval"))
    done = subprocess.run(
        [exe, "run", str(plan), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "judge.tempreature" in done.stderr and "did you mean 'temperature'" in done.stderr
