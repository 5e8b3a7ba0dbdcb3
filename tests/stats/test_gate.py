"""The gate: nothing passed never passes (issue 22 item 10), and the confidence-aware floors."""

from __future__ import annotations

import random
import sys

import pytest
import yaml
from tests.runs.support import write_dataset
from tests.stats.conftest import store_run

from tooleval.analysis.gate import GateSpec, MetricGate, evaluate_gate
from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.runs.plan import plan_from_dict
from tooleval.store import open_store
from tooleval.store.records import MetricSummary, RunInfo


def _run_info(passed, failed, errors=0, config=None):
    return RunInfo(
        id="r",
        name="n",
        created_at="t",
        status="finished",
        row_count=passed + failed + errors,
        error_count=errors,
        config=config or {},
        summaries={"m": MetricSummary("m", scored=passed + failed, passed=passed, failed=failed)},
    )


def test_no_gate_and_nothing_passed_fails_by_default():
    result = evaluate_gate(_run_info(0, 10), GateSpec())
    assert not result.passed and not result.configured
    message = next(c.message for c in result.checks if c.name == "m")
    assert "0 of 10 rows passed" in message and "require_any_pass: false" in message
    assert evaluate_gate(_run_info(1, 9), GateSpec()).passed
    # the explicit opt-outs
    assert evaluate_gate(_run_info(0, 10), GateSpec(require_any_pass=False)).passed
    assert evaluate_gate(_run_info(0, 10), GateSpec(min_pass_rate=0.0)).passed
    assert evaluate_gate(_run_info(0, 10), GateSpec(metrics={"m": MetricGate(0.0)})).passed


def _agent_plan(tmp_path, gate=None):
    write_dataset(tmp_path / "cases.jsonl")
    (tmp_path / "wrong_agent.py").write_text(
        "def run(text):\n    return {'output': 'ok', 'tools_called': ['delete_everything']}\n"
    )
    plan = {
        "dataset": "cases.jsonl",
        "connector": {"type": "python", "target": "wrong_agent:run"},
        "metrics": ["tool_correctness"],
    }
    if gate is not None:
        plan["gate"] = gate
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(plan))
    return path


@pytest.mark.parametrize(
    ("gate", "extra", "code"),
    [(None, [], 1), ({"require_any_pass": False}, [], 0), (None, ["--min-pass-rate", "0"], 0)],
)
def test_a_plan_without_gate_whose_metric_passes_nothing_exits_1(
    tmp_path, capsys, gate, extra, code
):
    plan = _agent_plan(tmp_path, gate)
    sys.path.insert(0, str(tmp_path))
    try:
        got = main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet", *extra])
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("wrong_agent", None)
    out = capsys.readouterr().out
    assert got == code
    if code:
        assert "a run where nothing passed fails by default" in out and "gate failed" in out
        assert "gate passed" not in out


def test_confidence_gate_pass_fail_uncertain():
    spec = GateSpec(min_pass_rate=0.8, confidence=0.95)
    sure = evaluate_gate(_run_info(190, 10), spec)  # 95% [91.0, 97.3]
    assert sure.passed and sure.checks[0].outcome == "pass"
    low = evaluate_gate(_run_info(120, 80), spec)  # 60%
    assert not low.passed and low.checks[0].outcome == "fail"
    close = evaluate_gate(_run_info(42, 8), spec)  # 84% of 50: the interval straddles 80%
    check = close.checks[0]
    assert check.outcome == "uncertain" and not check.passed  # the default policy is fail
    assert "uncertain at 95% (on_uncertain: fail, so failed)" in check.message
    assert evaluate_gate(
        _run_info(42, 8), GateSpec(min_pass_rate=0.8, confidence=0.95, on_uncertain="pass")
    ).passed
    assert evaluate_gate(
        _run_info(42, 8), GateSpec(min_pass_rate=0.8, confidence=0.95, on_uncertain="point")
    ).passed
    assert evaluate_gate(_run_info(42, 8), GateSpec(min_pass_rate=0.8)).passed  # point gate


def test_confidence_gate_of_a_repeated_run_uses_rows_not_pooled_attempts(db):
    rng = random.Random(1)
    p = [rng.choice([0.05, 0.95]) for _ in range(60)]  # all-or-nothing rows: attempts agree
    rows = [[rng.random() < q for _ in range(5)] for q in p]
    run_id = store_run(db, "r", rows)
    spec = GateSpec(min_pass_rate=0.3, confidence=0.95)
    with open_store(db) as store:
        run = store.get_run(run_id)
        exact = evaluate_gate(run, spec, rows=store.iter_rows(run_id)).checks[0]
    bound = evaluate_gate(run, spec).checks[0]  # no rows: each dataset row counted once
    pooled_width = 2 * 1.96 * (0.5 * 0.5 / 300) ** 0.5
    assert exact.interval.high - exact.interval.low > pooled_width * 1.5
    assert bound.interval.high - bound.interval.low > pooled_width * 1.5


def test_plan_gate_keys():
    base = {"dataset": {"path": "d.jsonl"}, "connector": {}, "metrics": ["m"]}
    plan = plan_from_dict(
        {**base, "gate": {"metric": "m", "min": 0.8, "confidence": 0.95, "on_uncertain": "point"}}
    )
    assert plan.gate.metrics["m"].min_pass_rate == 0.8
    assert (plan.gate.confidence, plan.gate.on_uncertain) == (0.95, "point")
    assert plan_from_dict(base).gate.on_uncertain == "fail"
    for gate, field in [
        ({"confidence": 95}, "gate.confidence"),
        ({"confidence": True}, "gate.confidence"),
        ({"on_uncertain": "maybe"}, "gate.on_uncertain"),
        ({"require_any_pass": "no"}, "gate.require_any_pass"),
        ({"metric": "m"}, "gate.min"),
        ({"metric": "m", "min": 0.5, "metrics": {"m": 0.4}}, "gate.metric"),
        ({"confidense": 0.9}, "gate.confidense"),
    ]:
        with pytest.raises(ConfigError) as info:
            plan_from_dict({**base, "gate": gate})
        assert info.value.field == field, gate


def test_run_flag_confidence_is_checked(tmp_path, capsys):
    plan = _agent_plan(tmp_path)
    code = main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--confidence", "95"])
    assert code == 2
    assert "--confidence" in capsys.readouterr().err


def test_gate_check_carries_its_interval_in_json():
    check = evaluate_gate(_run_info(42, 8), GateSpec(min_pass_rate=0.8, confidence=0.9)).checks[0]
    d = check.to_dict()
    assert d["outcome"] == "uncertain" and d["interval"]["method"] == "wilson"
    assert d["interval"]["confidence"] == 0.9
