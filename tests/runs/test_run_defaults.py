"""`tooleval run` defaults that decide verdicts and what a failed run says (subprocess)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
import yaml
from tests.runs.support import script_correct, write_dataset, write_plan


def tooleval(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tooleval", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def _one_failing_row(tmp_path, stub, **extra):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    stub.script("where is order 8888", tools=["search_orders"])  # 5 of 6 rows pass
    return write_plan(tmp_path, stub, concurrency=1, **extra)


def test_without_floors_one_failed_row_fails_the_run_and_the_summary_says_why(tmp_path, agent_stub):
    plan = _one_failing_row(tmp_path, agent_stub)
    done = tooleval("run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gate: no floor in the plan, so every scored row must pass" in done.stdout
    assert "tool_correctness: 5 of 6 scored rows passed, 1 failed (default check: every" in (
        done.stdout
    )


def test_a_floor_in_the_plan_replaces_the_default(tmp_path, agent_stub):
    plan = _one_failing_row(tmp_path, agent_stub, gate={"min_pass_rate": 0.8})
    done = tooleval("run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no floor in the plan" not in done.stdout


def test_a_floor_on_the_command_line_replaces_the_default(tmp_path, agent_stub):
    plan = _one_failing_row(tmp_path, agent_stub)
    store = str(tmp_path / "r.db")
    done = tooleval("run", str(plan), "--store", store, "--quiet", "--min-pass-rate", "0.8")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no floor in the plan" not in done.stdout


def test_require_any_pass_false_keeps_a_gate_without_floors(tmp_path, agent_stub):
    plan = _one_failing_row(tmp_path, agent_stub, gate={"require_any_pass": False})
    done = tooleval("run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_run_against_an_agent_that_is_down_prints_the_cause(tmp_path):
    write_dataset(tmp_path / "cases.jsonl")
    url = f"http://127.0.0.1:{_closed_port()}/agent"
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "name": "down",
                "dataset": "cases.jsonl",
                "connector": {
                    "type": "http",
                    "url": url,
                    "retry": {"retries": 0},
                    "response": {"tools_called": "$.tools"},
                },
                "metrics": ["tool_correctness"],
            }
        )
    )
    done = tooleval("run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet")
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if "tooleval run: error in row" in line]
    assert len(lines) == 1, done.stderr  # one cause, said once, with how many rows had it
    assert "and 5 more" in lines[0] and url in lines[0]
    assert "connect" in lines[0].lower()


def test_the_preflight_notes_an_openai_connector_that_sees_one_turn(tmp_path):
    write_dataset(tmp_path / "cases.jsonl")
    plan = tmp_path / "plan.yaml"
    connector = {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    plan.write_text(
        yaml.safe_dump(
            {"dataset": "cases.jsonl", "connector": connector, "metrics": ["tool_correctness"]}
        )
    )
    done = tooleval("run", str(plan), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "note: connector: the openai connector has no tool_executor" in done.stdout
    assert "preflight OK" in done.stdout
    executor = tmp_path / "my_tools.py"
    executor.write_text("def run(call):\n    return {'ok': True}\n")
    plan.write_text(
        yaml.safe_dump(
            {
                "dataset": "cases.jsonl",
                "connector": {**connector, "tool_executor": "my_tools:run"},
                "metrics": ["tool_correctness"],
            }
        )
    )
    done = tooleval("run", str(plan), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "tool_executor" not in done.stdout


def test_error_rows_are_the_error_budgets_not_the_default_floors(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("where is order 8888", tools=["lookup_order"], fail_times=5)
    plan = write_plan(tmp_path, agent_stub, concurrency=1)
    store = str(tmp_path / "r.db")
    done = tooleval("run", str(plan), "--store", store, "--quiet", "--max-error-rate", "0.2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 of 5 scored rows passed, all passed" in done.stdout
    assert "tooleval run: error in row s2" in done.stderr


@pytest.mark.parametrize(
    "argv,needs",
    [
        (["--baseline", "r1"], "field --baseline: --baseline needs --summary-md"),
        (["--on-uncertain", "pass"], "field --on-uncertain: --on-uncertain needs --confidence"),
    ],
)
def test_an_option_that_needs_another_says_so_before_any_call(tmp_path, argv, needs):
    write_dataset(tmp_path / "cases.jsonl")
    plan = tmp_path / "plan.yaml"
    connector = {"type": "http", "url": f"http://127.0.0.1:{_closed_port()}/agent"}
    plan.write_text(
        yaml.safe_dump(
            {"dataset": "cases.jsonl", "connector": connector, "metrics": ["tool_correctness"]}
        )
    )
    store = tmp_path / "r.db"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    done = subprocess.run(
        [sys.executable, "-m", "tooleval", "run", str(plan), "--store", str(store), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 2
    assert needs in done.stderr
    assert not store.exists()  # refused before the store was made, nothing called
