"""`tooleval run` end to end: real agent stub over HTTP, real SQLite store."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import orjson
import pytest
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.store import open_store


def _run(*args: str) -> int:
    return main(["run", *args, "--quiet"])


def test_a_run_stores_every_row_with_results(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("refund 12 USD on 9001", tools=["lookup_order", "search_orders"])
    plan = write_plan(
        tmp_path,
        agent_stub,
        metrics=["tool_correctness", {"name": "tool_call_f1", "threshold": 0.6}],
        gate={"require_any_pass": False},  # a failing row on purpose; no floor
    )
    db = tmp_path / "runs.db"
    assert _run(str(plan), "--store", str(db)) == 0
    out = capsys.readouterr().out
    assert "tool_correctness" in out and "no pass-rate floor configured" in out
    assert "errors: 0/6 rows" in out
    with open_store(db) as store:
        (run,) = store.list_runs()
        assert run.status == "finished" and run.row_count == 6 and run.error_count == 0
        assert run.tags == ("test",) and run.dataset["rows"] == 6
        assert run.connector["url"].endswith("/agent")
        assert [m.name for m in run.metrics] == ["tool_correctness", "tool_call_f1"]
        row = store.get_row(run.id, 3)
        assert row.row_id == "r2" and row.category == "refund"
        assert [c.name for c in row.sample.actual_calls()] == ["lookup_order", "search_orders"]
        assert row.raw_response["steps"][1]["tool"]["name"] == "lookup_order"
        assert row.latency_ms > 0
        f1 = row.result("tool_call_f1")
        assert f1.threshold == 0.6 and f1.score == pytest.approx(0.5) and f1.passed is False
        assert row.failure_class == "missing_tool"
        assert store.count_rows(run.id, passed=True) == 5
    assert agent_stub.attempts("cancel order 4471") == 1


def test_connector_failure_is_a_row_error_not_a_zero(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("cancel order 5502", fail_times=99, fail_status=500)
    plan = write_plan(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    junit = tmp_path / "out" / "junit.xml"
    # An error row fails the gate by default (--max-error-rate 0) ...
    assert _run(str(plan), "--store", str(db), "--junit", str(junit)) == 1
    with open_store(db) as store:
        (run,) = store.list_runs()
        assert (run.row_count, run.error_count) == (6, 1)
        summary = run.summaries["tool_correctness"]
        assert (summary.scored, summary.passed, summary.unscored) == (5, 5, 1)
        (bad,) = store.iter_rows(run.id, failure_class="error")
        assert bad.row_id == "c2" and "500" in bad.error
        assert bad.results[0].score is None and "not scored" in bad.results[0].reason
    root = ET.parse(junit).getroot()
    assert root.get("errors") == "1" and root.get("failures") == "0"
    (error,) = root.iter("error")
    assert "500" in error.get("message")


def test_junit_and_json_outputs(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("where is order 7777", tools=["lookup_order", "lookup_order"])
    plan = write_plan(
        tmp_path,
        agent_stub,
        metrics=[{"name": "tool_correctness", "threshold": 1.0}, "tool_call_f1"],
        gate={"require_any_pass": False},  # a failing row on purpose; no floor
    )
    db, junit, report = tmp_path / "r.db", tmp_path / "j.xml", tmp_path / "r.json"
    assert _run(str(plan), "--store", str(db), "--junit", str(junit), "--json", str(report)) == 0
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["support.tool_correctness", "support.tool_call_f1"]
    for suite in suites:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", suite.get("timestamp"))
        props = {p.get("name"): p.get("value") for p in suite.iter("property")}
        assert props["metric"] in suite.get("name") and props["run_id"]
        cases = suite.findall("testcase")
        assert len(cases) == len(CASES) == int(suite.get("tests"))
        assert int(suite.get("failures")) == len(suite.findall("testcase/failure"))
        assert {c.get("classname") for c in cases} == {suite.get("name")}
        assert all(float(c.get("time")) >= 0 for c in cases)
    assert root.get("tests") == str(2 * len(CASES))
    failed = [c for c in suites[0].findall("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["s1 [status]"]
    failure = failed[0].find("failure")
    assert failure.get("type") == "extra_tool"
    assert "extra call: lookup_order" in failure.text
    assert "actual:   lookup_order(), lookup_order()" in failure.text
    document = orjson.loads(report.read_bytes())
    assert document["run"]["row_count"] == 6
    assert len(document["rows"]) == 6 and len(document["rows"][0]["results"]) == 2
    assert document["gate"]["configured"] is False
    assert document["rows"][4]["failure_class"] == "extra_tool"


def test_gate_exit_codes(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("cancel order 4471", tools=["cancel_order"])  # 5 of 6 pass
    exact = [{"name": "tool_correctness", "threshold": 1.0}]
    plan = write_plan(
        tmp_path, agent_stub, metrics=exact, gate={"metrics": {"tool_correctness": 0.8}}
    )
    db = str(tmp_path / "r.db")
    assert _run(str(plan), "--store", db) == 0
    assert "gate pass" in capsys.readouterr().out
    assert _run(str(plan), "--store", db, "--min-pass-rate", "0.9") == 1
    out = capsys.readouterr().out
    assert "gate FAIL  tool_correctness: pass rate 83.3% < 90.0%" in out
    strict = write_plan(
        tmp_path,
        agent_stub,
        name="strict",
        metrics=exact,
        gate={"metrics": {"tool_correctness": 0.9}},
    )
    assert _run(str(strict), "--store", db) == 1
    errors = write_plan(
        tmp_path, agent_stub, name="errs", metrics=exact, gate={"max_error_rate": 0.0}
    )
    agent_stub.script("where is order 8888", fail_times=99)
    assert _run(str(errors), "--store", db) == 1
    assert "errors: 1/6 rows" in capsys.readouterr().out


def test_unbound_expected_tools_stops_before_calling_the_agent(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl", column="gold_tools")
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    err = capsys.readouterr().err
    assert "expected_tools" in err and "--bind expected_tools=gold_tools" in err
    assert agent_stub.requests == []
    # Binding it in the plan makes the same dataset run.
    bound = write_plan(
        tmp_path,
        agent_stub,
        name="bound",
        dataset={"path": "cases.jsonl", "bind": {"expected_tools": "gold_tools"}},
    )
    script_correct(agent_stub)
    assert _run(str(bound), "--store", str(tmp_path / "r.db")) == 0


def test_unreadable_cell_is_kept_as_an_unscored_row(tmp_path, agent_stub):
    path = write_dataset(tmp_path / "cases.jsonl")
    with path.open("a") as out:
        out.write('{"id": "bad", "input": "x", "expected_tools": 42}\n')
    script_correct(agent_stub)
    plan = write_plan(tmp_path, agent_stub)
    db = tmp_path / "r.db"
    assert _run(str(plan), "--store", str(db)) == 1  # an error row fails the default gate
    with open_store(db) as store:
        (run,) = store.list_runs()
        row = store.get_row(run.id, 6)
        assert row.row_id == "bad" and "row could not be read" in row.error
        assert row.results[0].passed is None and row.failure_class == "error"
    assert agent_stub.attempts("x") == 0


@pytest.mark.parametrize(
    ("plan_text", "message"),
    [
        (
            "dataset: d.jsonl\nconnector: {}\nmetrics: [tool_correctness]\nconcurency: 2\n",
            "field concurency: unknown key",
        ),
        (
            "dataset: d.jsonl\nconnector: {}\nmetrics: [{name: nope}]\n",
            "field metrics[0].name: unknown metric 'nope'",
        ),
        (
            "dataset: d.jsonl\nconnector: {}\nmetrics: [{name: tool_correctness, params: {colour: 1}}]\n",
            "field metrics[0].params.colour",
        ),
        (
            "dataset: d.jsonl\nconnector: {}\nmetrics: [{name: tool_correctness, threshold: 2}]\n",
            "field metrics[0].threshold: expected a number between 0 and 1",
        ),
        ("dataset: d.jsonl\nconnector: {}\nmetrics: []\n", "field metrics: expected a non-empty"),
        ("connector: {}\nmetrics: [tool_correctness]\n", "field dataset: required key"),
        (
            "dataset: d.jsonl\nconnector: {}\nmetrics: [tool_correctness]\nconcurrency: 0\n",
            "field concurrency: expected a whole number >= 1",
        ),
        (
            "dataset: d.jsonl\nconnector: {}\nmetrics: [a]\ngate: {metrics: {b: 0.5}}\n",
            "field gate.metrics.b: the gate names a metric",
        ),
        ("dataset: [oops\n", "invalid YAML at line"),
        ("- just\n- a list\n", "a plan is a mapping"),
        (
            "dataset: missing.jsonl\nconnector: {url: 'http://127.0.0.1:9/a'}\n"
            "metrics: [tool_correctness]\n",
            "missing.jsonl",
        ),
        (
            "dataset: d.jsonl\nconnector: {type: carrier-pigeon}\nmetrics: [tool_correctness]\n",
            "connector",
        ),
        (
            "dataset: d.jsonl\nconnector: {url: 'http://127.0.0.1:9/a'}\n"
            "metrics: [{name: tool_correctness, params: {order: sideways}}]\n",
            "field metrics[0].params.order",
        ),
    ],
)
def test_bad_plans_exit_2_naming_the_key(tmp_path, capsys, plan_text, message):
    write_dataset(tmp_path / "d.jsonl")
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text)
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.count("\n") == 1  # one line, no traceback


def test_bad_cli_values_exit_2(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(tmp_path / "nope.yaml")) == 2
    assert "plan file not found" in capsys.readouterr().err
    assert _run(str(plan), "--min-pass-rate", "1.5", "--store", str(tmp_path / "r.db")) == 2
    assert "--min-pass-rate" in capsys.readouterr().err
    assert _run(str(plan), "--concurrency", "0", "--store", str(tmp_path / "r.db")) == 2
    assert _run(str(plan), "--store", "mysql://x/y") == 2
    assert "unsupported store URL" in capsys.readouterr().err
    assert _run(str(plan), "--store", str(tmp_path / "r.db"), "--resume", "nope") == 2
    assert "no run 'nope'" in capsys.readouterr().err
    assert agent_stub.requests == []


def test_judged_metric_without_judge_is_a_config_error(
    tmp_path, agent_stub, capsys, temporary_metric
):
    from tooleval.metrics.registry import MetricInfo
    from tooleval.model import Result

    temporary_metric(
        MetricInfo(
            name="test_runs_judged",
            description="a judged metric for this test",
            params={},
            requires=(),
            needs_judge=True,
            score_sample=lambda sample, *, judge: Result.scored("test_runs_judged", 1.0, reason=""),
        )
    )
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub, metrics=["test_runs_judged"])
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    assert "field judge: test_runs_judged need(s) an LLM judge" in capsys.readouterr().err


def test_unscored_rows_are_skipped_testcases(tmp_path, agent_stub):
    path = write_dataset(tmp_path / "cases.jsonl")
    with path.open("a") as out:
        out.write('{"id": "no-ref", "input": "hello", "expected_tools": null}\n')
    script_correct(agent_stub)
    plan = write_plan(tmp_path, agent_stub)
    db, junit = tmp_path / "r.db", tmp_path / "j.xml"
    assert _run(str(plan), "--store", str(db), "--junit", str(junit)) == 0
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("skipped"), root.get("errors")) == ("7", "1", "0")
    (case,) = [c for c in root.iter("testcase") if c.find("skipped") is not None]
    assert case.get("name") == "no-ref"
    assert "expected_tools" in case.find("skipped").get("message")
    with open_store(db) as store:
        (run,) = store.list_runs()
        row = store.get_row(run.id, 6)
        assert row.error is None and row.failure_class == "unscored"
        assert run.summaries["tool_correctness"].unscored == 1


async def test_run_plan_inside_a_running_event_loop_says_to_await_arun_plan(tmp_path, agent_stub):
    from tooleval.errors import ConfigError
    from tooleval.runs import load_plan, run_plan

    write_dataset(tmp_path / "cases.jsonl")
    plan = load_plan(write_plan(tmp_path, agent_stub))
    with open_store(tmp_path / "r.db") as store, pytest.raises(ConfigError, match="arun_plan"):
        run_plan(plan, store=store)
    assert agent_stub.requests == []
