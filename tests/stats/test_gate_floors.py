"""Every gate floor is noise-aware: oracles from scipy/statsmodels, the rules, the bad inputs.

Each floor's interval is checked against an independent computation
(statsmodels' Wilson and cluster-robust OLS, scipy's t quantile and binomial
coefficients), and its outcome against the rule applied to the oracle's
bounds: pass when the lower bound >= T, fail when the upper bound < T,
uncertain in between.
"""

from __future__ import annotations

import dataclasses
import math
import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from scipy import stats as sps
from scipy.special import comb
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.proportion import proportion_confint
from tests.stats.conftest import METRIC, store_run

from tooleval.analysis.export import write_junit
from tooleval.analysis.gate import GateSpec, MetricGate, decide_floor, evaluate_gate, stored_gate
from tooleval.analysis.repeats import repeat_gate, summarise_run
from tooleval.analysis.summary_md import run_summary_markdown
from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.runs.plan import plan_from_dict
from tooleval.store import open_store
from tooleval.store.records import MetricSummary, RunInfo


def _rule(low: float, high: float, threshold: float) -> str:
    if low >= threshold:
        return "pass"
    if high < threshold:
        return "fail"
    return "uncertain"


def _t_oracle(values, confidence, *, se=None, df=None):
    x = np.asarray(values, dtype=float)
    se = sps.sem(x) if se is None else se
    df = len(x) - 1 if df is None else df
    half = sps.t.ppf(1 - (1 - confidence) / 2, df) * se
    return max(0.0, x.mean() - half), min(1.0, x.mean() + half)


@pytest.mark.parametrize(
    ("passed", "n", "confidence", "threshold"),
    [(17, 20, 0.95, 0.6), (42, 50, 0.95, 0.8), (190, 200, 0.9, 0.9), (120, 200, 0.99, 0.7),
     (3, 7, 0.8, 0.05), (0, 12, 0.95, 0.1), (12, 12, 0.95, 0.9)],
)  # fmt: skip
def test_pass_rate_floor_is_wilson_and_the_rule(passed, n, confidence, threshold):
    check = decide_floor(threshold, passed=passed, failed=n - passed, confidence=confidence)
    low, high = proportion_confint(passed, n, alpha=1 - confidence, method="wilson")
    assert check.interval.low == pytest.approx(low, abs=1e-9)
    assert check.interval.high == pytest.approx(high, abs=1e-9)
    assert check.outcome == _rule(low, high, threshold)
    assert (check.n, check.attempts, check.rule, check.required) == (
        n,
        (1, 1),
        "interval",
        threshold,
    )


def test_policies_decide_an_uncertain_floor():
    args = {"passed": 42, "failed": 8, "confidence": 0.95}  # 84% [71.5, 91.7] vs 80%
    assert not decide_floor(0.8, **args).passed  # the documented default: fail
    assert decide_floor(0.8, on_uncertain="pass", **args).passed
    assert decide_floor(0.8, on_uncertain="point", **args).passed  # 84% >= 80%
    assert not decide_floor(0.85, on_uncertain="point", **args).passed
    point = decide_floor(0.8, passed=42, failed=8)  # no confidence: the point estimate
    assert point.passed and point.rule == "point" and "[71.5, 91.7]" in point.message


def test_repeated_pass_rate_floor_is_a_t_interval_over_row_means(db):
    rng = random.Random(4)
    p = [rng.choice([0.1, 0.5, 0.9]) for _ in range(40)]
    rows = [[rng.random() < q for _ in range(3)] for q in p]
    run_id = store_run(db, "r", rows)
    spec = GateSpec(min_pass_rate=0.5, confidence=0.9)
    with open_store(db) as store:
        run = store.get_run(run_id)
        check = evaluate_gate(run, spec, rows=store.iter_rows(run_id)).checks[0]
    means = [sum(r) / 3 for r in rows]
    low, high = _t_oracle(means, 0.9)
    assert check.interval.low == pytest.approx(low, abs=1e-9)
    assert check.interval.high == pytest.approx(high, abs=1e-9)
    assert (check.n, check.attempts, check.outcome) == (40, (3, 3), _rule(low, high, 0.5))
    assert "n=40, K=3" in check.message


def _pass_k_oracle(rows, k, hat=True):
    values = []
    for row in rows:
        n, c = len(row), sum(row)
        if n < k:
            continue
        values.append(comb(c, k) / comb(n, k) if hat else 1 - comb(n - c, k) / comb(n, k))
    return values


@pytest.mark.parametrize(("estimator", "hat"), [("pass^k", True), ("pass@k", False)])
def test_pass_k_floor_uses_unbiased_rows_with_their_se_and_mixed_k(estimator, hat):
    rng = random.Random(9)
    rows = [[int(rng.random() < rng.random()) for _ in range(rng.choice([2, 3, 4, 5]))]
            for _ in range(60)]  # fmt: skip
    check = decide_floor(0.3, scores=rows, estimator=estimator, k=3, confidence=0.95)
    values = _pass_k_oracle(rows, 3, hat)
    left_out = sum(1 for r in rows if len(r) < 3)
    assert left_out and check.n == len(values) == 60 - left_out
    assert f"{left_out} rows with fewer than 3 attempts left out" in check.notes
    assert check.value == pytest.approx(np.mean(values))
    low, high = _t_oracle(values, 0.95)
    assert check.interval.low == pytest.approx(low, abs=1e-9)
    assert check.interval.high == pytest.approx(high, abs=1e-9)
    assert check.outcome == _rule(low, high, 0.3) and check.attempts == (2, 5)


def test_pass_hat_k_is_never_the_plug_in():
    rows = [[1, 1, 0]] * 30  # every row passes 2 of 3: pass^3 is 0, (2/3)^3 would be 0.30
    check = decide_floor(0.2, scores=rows, estimator="pass^k", k=3, confidence=0.95)
    assert check.value == 0.0 and check.outcome == "fail"
    # k = K: each row's pass^K is 0 or 1, so the rows are Bernoulli: Wilson over rows
    mixed = [[1, 1, 1]] * 20 + [[1, 0, 1]] * 10
    wilson = decide_floor(0.5, scores=mixed, estimator="pass^k", k=3, confidence=0.95)
    low, high = proportion_confint(20, 30, alpha=0.05, method="wilson")
    assert wilson.interval.method == "wilson"
    assert (wilson.interval.low, wilson.interval.high) == pytest.approx((low, high))


def test_gate_on_pass_hat_k_of_a_stored_run(db):
    rng = random.Random(2)
    rows = [[rng.random() < 0.9 for _ in range(4)] for _ in range(50)]
    run_id = store_run(db, "r", rows)
    spec = GateSpec(min_pass_rate=0.5, confidence=0.95)
    with open_store(db) as store:
        run = store.get_run(run_id)
        from_rows = evaluate_gate(run, spec, rows=store.iter_rows(run_id), gate_on="pass^k")
        summary = summarise_run(store, run)
    from_summary = repeat_gate(run, spec, summary, "pass^k")
    values = _pass_k_oracle([[int(v) for v in r] for r in rows], 4)
    low, high = proportion_confint(sum(values), 50, alpha=0.05, method="wilson")
    for check in (from_rows.checks[0], from_summary.checks[0]):
        assert check.what == "pass^4" and check.value == pytest.approx(np.mean(values))
        assert (check.interval.low, check.interval.high) == pytest.approx((low, high))
        assert check.outcome == _rule(low, high, 0.5) and "over 50 rows" in check.message
    with pytest.raises(ConfigError) as info:
        evaluate_gate(run, spec, gate_on="pass^k")  # neither rows nor the summary
    assert info.value.field == "--gate-on"


def test_mean_score_floor_is_a_t_interval_and_clustered_with_a_key(db):
    rng = random.Random(5)
    scores = [[round(rng.uniform(0.3, 1.0), 3)] for _ in range(80)]
    meta = [{"task": f"t{i // 8}"} for i in range(80)]
    verdicts = [[s[0] >= 0.5] for s in scores]
    run_id = store_run(db, "r", verdicts, scores=scores, metadata=meta)
    floor = {METRIC: MetricGate(min_mean_score=0.62)}
    y = np.array([s[0] for s in scores])
    groups = np.array([int(m["task"][1:]) for m in meta])
    with open_store(db) as store:
        run = store.get_run(run_id)
        plain = evaluate_gate(
            run, GateSpec(metrics=floor, confidence=0.95), rows=store.iter_rows(run_id)
        ).checks[0]
        clustered = evaluate_gate(
            run,
            GateSpec(metrics=floor, confidence=0.95, cluster_key="task"),
            rows=store.iter_rows(run_id),
        ).checks[0]
    counts = evaluate_gate(run, GateSpec(metrics=floor, confidence=0.95)).checks[0]
    low, high = _t_oracle(y, 0.95)
    assert plain.what == "mean score" and plain.interval.method == "t"
    assert (plain.interval.low, plain.interval.high) == pytest.approx((low, high), abs=1e-9)
    assert plain.outcome == _rule(low, high, 0.62)
    fit = OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    c_low, c_high = _t_oracle(y, 0.95, se=fit.bse[0], df=9)
    assert clustered.clusters == 10 and "10 clusters" in clustered.message
    assert (clustered.interval.low, clustered.interval.high) == pytest.approx((c_low, c_high))
    assert clustered.outcome == _rule(c_low, c_high, 0.62)
    # counts only: the widest spread [0, 1] allows, so never narrower than the rows' interval
    assert counts.interval.low <= plain.interval.low and counts.interval.high >= plain.interval.high
    assert any("counts only" in note for note in counts.notes)


@pytest.mark.parametrize(
    ("errors", "rows", "allowed", "outcome"),
    [(2, 400, 0.05, "pass"), (24, 400, 0.05, "uncertain"), (60, 200, 0.05, "fail")],
)
def test_error_ceiling_on_its_interval(errors, rows, allowed, outcome):
    run = RunInfo(
        id="r", name="n", created_at="t", status="finished", row_count=rows, error_count=errors,
        summaries={"m": MetricSummary("m", scored=rows - errors, passed=rows - errors)},
    )  # fmt: skip
    check = evaluate_gate(run, GateSpec(max_error_rate=allowed, confidence=0.95)).checks[-1]
    low, high = proportion_confint(errors, rows, alpha=0.05, method="wilson")
    assert (check.interval.low, check.interval.high) == pytest.approx((low, high))
    expected = "pass" if high <= allowed else "fail" if low > allowed else "uncertain"
    assert check.outcome == expected == outcome and check.passed == (outcome == "pass")
    # a budget of 0 is decided on the count, whatever the confidence
    zero = evaluate_gate(run, GateSpec(max_error_rate=0.0, confidence=0.95)).checks[-1]
    assert zero.rule == "count" and not zero.passed


def test_zero_rows_and_all_unscored_fail_every_floor(db):
    empty = RunInfo(id="r", name="n", created_at="t", status="finished",
                    summaries={"m": MetricSummary("m")})  # fmt: skip
    spec = GateSpec(
        min_pass_rate=0.5, metrics={"m": MetricGate(min_mean_score=0.5)}, confidence=0.95
    )
    result = evaluate_gate(empty, spec, rows=[])
    floors = [c for c in result.checks if c.name == "m"]
    assert len(floors) == 2 and all(c.rule == "no rows" and not c.passed for c in floors)
    assert not evaluate_gate(empty, dataclasses.replace(spec, on_uncertain="pass")).passed
    assert decide_floor(0.5, passed=0, failed=0).outcome == "fail"
    assert decide_floor(0.5, scores=[], confidence=0.9).rule == "no rows"
    run_id = store_run(db, "u", [[True], [False]])
    with open_store(db) as store:  # every row unscored: nothing to reach a floor with
        run = store.get_run(run_id)
        unscored = dataclasses.replace(
            run, summaries={METRIC: MetricSummary(METRIC, unscored=2)}, row_count=2
        )
        assert not evaluate_gate(unscored, GateSpec(min_pass_rate=0.1)).passed
        assert "no row was scored" in evaluate_gate(unscored, GateSpec()).checks[0].message


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (GateSpec(confidence=0.0), "gate.confidence"),
        (GateSpec(confidence=1.0), "gate.confidence"),
        (GateSpec(confidence=1.5), "gate.confidence"),
        (GateSpec(confidence=math.nan), "gate.confidence"),
        (GateSpec(min_pass_rate=1.5), "gate.min_pass_rate"),
        (GateSpec(min_pass_rate=-0.1), "gate.min_pass_rate"),
        (GateSpec(max_error_rate=2.0), "gate.max_error_rate"),
        (GateSpec(metrics={"m": MetricGate(min_mean_score=1.2)}), "gate.metrics.m.min_mean_score"),
        (GateSpec(metrics={"m": MetricGate(min_pass_rate=math.nan)}), "gate.metrics.m.min_pass_rate"),
        (GateSpec(on_uncertain="maybe"), "gate.on_uncertain"),
        (GateSpec(cluster_key=""), "gate.cluster_key"),
    ],
)  # fmt: skip
def test_bad_gate_is_a_config_error_naming_the_plan_key(spec, field):
    run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=1,
                  summaries={"m": MetricSummary("m", scored=1, passed=1)})  # fmt: skip
    with pytest.raises(ConfigError) as info:
        evaluate_gate(run, spec)
    assert info.value.field == field


def test_decide_floor_names_the_flag_it_was_given():
    keys = {"threshold": "--min-pass-rate", "confidence": "--confidence"}
    for kwargs, field in [
        ({"threshold": 1.2}, "--min-pass-rate"),
        ({"threshold": math.nan}, "--min-pass-rate"),
        ({"threshold": 0.5, "confidence": 95}, "--confidence"),
        ({"threshold": 0.5, "confidence": True}, "--confidence"),
        ({"threshold": 0.5, "on_uncertain": "coin"}, "on_uncertain"),
        ({"threshold": 0.5, "estimator": "pass^k", "k": 0, "scores": [[1]]}, "k"),
    ]:
        threshold = kwargs.pop("threshold")
        kwargs.setdefault("passed", 1) if "scores" not in kwargs else None
        kwargs.setdefault("failed", 1) if "scores" not in kwargs else None
        with pytest.raises(ConfigError) as info:
            decide_floor(threshold, keys=keys, **kwargs)
        assert info.value.field == field, kwargs
    with pytest.raises(ValueError, match="0/1 verdicts"):
        decide_floor(0.5, scores=[[0.5, 1]], estimator="pass^k", k=2)
    with pytest.raises(ValueError, match="either passed and failed counts or scores"):
        decide_floor(0.5, passed=1, failed=1, scores=[1])
    with pytest.raises(ValueError, match="clusters need each row's scores"):
        decide_floor(0.5, passed=1, failed=1, clusters=["a", "b"])
    with pytest.raises(ValueError, match="row 1: expected finite numbers"):
        decide_floor(0.5, scores=[0.5, math.inf])


def test_gate_on_needs_a_repeated_run_and_a_known_name():
    run = RunInfo(id="r", name="n", created_at="t", status="finished", row_count=1,
                  summaries={"m": MetricSummary("m", scored=1, passed=1)})  # fmt: skip
    for gate_on in ("pass^k", "pass^"):
        with pytest.raises(ConfigError) as info:
            evaluate_gate(run, GateSpec(min_pass_rate=0.5), gate_on=gate_on)
        assert info.value.field == "--gate-on"


def test_a_cluster_key_missing_from_a_row_names_the_plan_key(db):
    run_id = store_run(db, "r", [[True], [False]])
    with open_store(db) as store, pytest.raises(ConfigError, match="row 'q0'") as info:
        run = store.get_run(run_id)
        evaluate_gate(run, GateSpec(min_pass_rate=0.5, cluster_key="task"),
                      rows=store.iter_rows(run_id))  # fmt: skip
    assert info.value.field == "gate.cluster_key"


def test_plan_cluster_key():
    base = {"dataset": {"path": "d.jsonl"}, "connector": {}, "metrics": ["m"]}
    plan = plan_from_dict({**base, "gate": {"min_pass_rate": 0.8, "cluster_key": "task"}})
    assert plan.gate.cluster_key == "task" and plan.gate.to_dict()["cluster_key"] == "task"
    for bad in ("", 3, ["task"]):
        with pytest.raises(ConfigError) as info:
            plan_from_dict({**base, "gate": {"cluster_key": bad}})
        assert info.value.field == "gate.cluster_key"


def test_stored_gates_old_and_new_still_show(db):
    run_id = store_run(db, "r", [[True]] * 42 + [[False]] * 8)
    with open_store(db) as store:
        run = store.get_run(run_id)
        rows = list(store.iter_rows(run_id))
    old = dataclasses.replace(run, config={"gate": {"min_pass_rate": 0.8}})  # before confidence
    check = stored_gate(old).checks[0]
    assert check.passed and check.rule == "point" and check.interval.method == "wilson"
    new = dataclasses.replace(
        run, config={"gate": {"min_pass_rate": 0.8, "confidence": 0.95, "on_uncertain": "pass"}}
    )
    sure = stored_gate(new, rows=rows).checks[0]
    assert sure.outcome == "uncertain" and sure.passed and sure.on_uncertain == "pass"
    broken = dataclasses.replace(run, config={"gate": {"min_pass_rate": 1.5}})
    [bad] = stored_gate(broken).checks
    assert not bad.passed and "gate.min_pass_rate" in bad.message
    junk = dataclasses.replace(
        run, config={"gate": {"min_pass_rate": 0.8, "confidence": "high", "on_uncertain": 3}}
    )
    assert stored_gate(junk).checks[0].rule == "point"  # unreadable noise keys: the defaults
    d = sure.to_dict()
    for key in ("name", "value", "required", "passed", "message", "interval", "outcome"):
        assert key in d  # the keys older readers know
    assert (d["n"], d["k"], d["rule"], d["what"]) == (50, 1, "interval", "pass rate")


def test_displays_carry_the_gate_interval(db, tmp_path, capsys, monkeypatch):
    rows = [[True]] * 42 + [[False]] * 8
    run_id = store_run(db, "g", rows)
    gate = GateSpec(min_pass_rate=0.8, confidence=0.95).to_dict()
    with open_store(db) as store:
        run = store.get_run(run_id)
        spec = GateSpec(min_pass_rate=0.8, confidence=0.95)
        result = evaluate_gate(run, spec, rows=store.iter_rows(run_id))
        path = write_junit(tmp_path / "j.xml", store, run, gate=result)
        text = run_summary_markdown(store, run_id, gate=result)
    suite = ET.parse(path).getroot().find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    low, high = proportion_confint(42, 50, alpha=0.05, method="wilson")
    assert float(props["gate_low"]) == pytest.approx(low, abs=1e-6)
    assert float(props["gate_high"]) == pytest.approx(high, abs=1e-6)
    assert (props["gate_rows"], props["gate_attempts_per_row"]) == ("50", "1")
    assert (props["gate_rule"], props["gate_threshold"]) == ("interval", "0.800000")
    assert props["gate"] == "uncertain" and props["gate_on_uncertain"] == "fail"
    line = next(x for x in text.splitlines() if "pass rate 84.0%" in x)
    assert "\\[71.5, 91.7\\]" in line and "n=50, K=1" in line and "uncertain at 95%" in line
    # runs show: the stored gate (the plan's, kept in the run's config) with its interval
    shown = store_run(db, "shown", rows, config={"gate": gate})
    assert main(["runs", "show", shown, "--store", str(db)]) == 0
    out = capsys.readouterr().out
    assert "gate (the plan's, checked on the stored run):" in out
    assert "FAIL  tool_correctness: pass rate 84.0% [71.5, 91.7] (95% wilson, n=50, K=1)" in out
    assert out.rstrip().endswith("gate failed")


def test_compare_fail_on_regression_follows_the_confidence(db, capsys):
    # 200 rows, 12 pass→fail and 3 fail→pass: McNemar exact p = 0.035 (scipy below)
    a = [[True]] * 150 + [[False]] * 50
    b = [[False]] * 12 + [[True]] * 138 + [[True]] * 3 + [[False]] * 47
    p = sps.binomtest(3, 15, 0.5).pvalue
    assert 0.01 < p < 0.05
    run_a, run_b = store_run(db, "a", a), store_run(db, "b", b)
    base = ["compare", run_a, run_b, "--store", str(db), "--fail-on-regression"]
    assert main([*base, "--confidence", "0.9"]) == 1
    assert "REGRESSION" in capsys.readouterr().out
    assert main([*base, "--confidence", "0.999"]) == 0
    out = capsys.readouterr().out
    assert "99.9%" in out or "100%" in out
    assert "INCONCLUSIVE" in out


def test_tooleval_run_gates_a_mean_score_on_the_rows(tmp_path, capsys):
    import json
    import sys

    from tests.stats.test_gate import _agent_plan

    gate = {"metrics": {"tool_correctness": {"min_mean_score": 0.5}}, "confidence": 0.9}
    plan = _agent_plan(tmp_path, gate)
    out = tmp_path / "run.json"
    sys.path.insert(0, str(tmp_path))
    try:
        code = main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet",
                     "--json", str(out)])  # fmt: skip
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("wrong_agent", None)
    assert code == 1
    [check, _errors] = json.loads(out.read_text())["gate"]["checks"]
    assert (check["what"], check["rule"], check["outcome"]) == ("mean score", "interval", "fail")
    assert check["n"] == 6 and check["notes"]  # every row scored 0: the exact bound is noted
    assert all("counts only" not in n for n in check["notes"])  # the runner read the rows
    assert "mean score 0.0%" in capsys.readouterr().out


def test_runs_export_checks_the_stored_noise_aware_gate_on_the_rows(db, tmp_path):
    import json

    gate = GateSpec(min_pass_rate=0.8, confidence=0.95, on_uncertain="point").to_dict()
    run_id = store_run(db, "x", [[True]] * 42 + [[False]] * 8, config={"gate": gate})
    out = tmp_path / "run.json"
    assert main(["runs", "export", run_id, "--store", str(db), "--json", str(out)]) == 0
    check = json.loads(out.read_text())["gate"]["checks"][0]
    assert (check["rule"], check["outcome"], check["passed"]) == ("interval", "uncertain", True)
    assert check["on_uncertain"] == "point" and check["n"] == 50
    flag = tmp_path / "flag.json"
    args = ["runs", "export", run_id, "--store", str(db), "--json", str(flag)]
    assert main([*args, "--min-pass-rate", "0.9"]) == 0  # the flag replaces the floor only
    check = json.loads(flag.read_text())["gate"]["checks"][0]
    assert (check["required"], check["outcome"], check["passed"]) == (0.9, "uncertain", False)
