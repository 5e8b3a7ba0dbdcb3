"""``run_plan`` gates like ``tooleval run``: no floor in the plan, every scored row must pass."""

from __future__ import annotations

from tests.runs.support import CASES, write_dataset

from tooleval.connectors import CallableConnector
from tooleval.runs import plan_from_dict, run_plan
from tooleval.runs.plan import DEFAULT_FLOOR_LINE
from tooleval.store import open_store


def _run(tmp_path, gate):
    write_dataset(tmp_path / "cases.jsonl")
    expected = {text: tools for _, _, text, tools in CASES}

    async def agent(text: str) -> dict:
        # One row of six skips its lookup: five pass, one fails.
        tools = expected[text][1:] if "4471" in text and "cancel" in text else expected[text]
        return {"output": "ok", "tools_called": tools}

    spec = {"dataset": "cases.jsonl", "connector": {}, "metrics": ["tool_call_accuracy"]}
    if gate is not None:
        spec["gate"] = gate
    plan = plan_from_dict(spec, base_dir=tmp_path)
    with open_store(tmp_path / "r.db") as store:
        return run_plan(plan, store=store, connector=CallableConnector(agent), concurrency=2)


def test_without_floors_one_failed_row_fails_the_python_gate_and_the_summary_says_why(tmp_path):
    outcome = _run(tmp_path, None)
    assert outcome.run.summaries["tool_call_accuracy"].failed == 1
    assert not outcome.gate.passed and outcome.default_floor
    assert outcome.summary.endswith(f"gate failed; {DEFAULT_FLOOR_LINE}")
    check = next(c for c in outcome.gate.checks if c.name == "tool_call_accuracy")
    assert "5 of 6 scored rows passed, 1 failed" in check.message


def test_a_plan_floor_replaces_the_default(tmp_path):
    outcome = _run(tmp_path, {"min_pass_rate": 0.5})
    assert outcome.gate.passed and not outcome.default_floor
    assert DEFAULT_FLOOR_LINE not in outcome.summary
