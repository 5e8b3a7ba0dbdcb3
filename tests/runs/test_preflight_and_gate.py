"""Issue 10, runs: what the preflight stops before any agent call, and errors in the gate.

Every test runs the real CLI against the agent stub on 127.0.0.1 and a real
SQLite store; "nothing was called" is checked on the stub's request log.
"""

from __future__ import annotations

import json

import pytest
import yaml
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.store import open_store


def _run(*args: str) -> int:
    return main(["run", *args, "--quiet"])


def _edit_plan(plan, **changes):
    data = yaml.safe_load(plan.read_text())
    for key, value in changes.items():
        section, _, inner = key.partition("__")
        if inner:
            data[section][inner] = value
        else:
            data[section] = value
    plan.write_text(yaml.safe_dump(data, sort_keys=False))
    return plan


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    return err


# ---------------------------------------------------------------- reproducer 1
def test_a_tool_metric_without_a_tool_call_source_stops_before_any_call(
    tmp_path, agent_stub, capsys
):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    plan = write_plan(tmp_path, agent_stub)
    _edit_plan(plan, connector__response={"output": "$.output"})
    db = tmp_path / "r.db"
    assert _run(str(plan), "--store", str(db)) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 0
    assert "connector.response" in err and "tools_called" in err
    assert "tool_correctness" in err and "would be unscored" in err
    assert agent_stub.requests == []
    with open_store(db) as store:
        assert store.list_runs() == []  # nothing stored either


def test_a_python_agent_that_reports_no_calls_is_unscored_not_zero(tmp_path, capsys):
    # Checked per row when the connector cannot be checked up front.
    write_dataset(tmp_path / "cases.jsonl")
    (tmp_path / "text_agent.py").write_text("def run(text):\n    return 'done: ' + text\n")
    plan = tmp_path / "p.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "dataset": "cases.jsonl",
                "connector": {"type": "python", "target": "text_agent:run"},
                "metrics": ["tool_correctness"],
            }
        )
    )
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        # Nothing was scored, so nothing passed: the default gate fails (docs/statistics.md).
        assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 1
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("text_agent", None)
    assert "no row was scored; a run where nothing passed fails" in capsys.readouterr().out
    with open_store(tmp_path / "r.db") as store:
        (run,) = store.list_runs()
        summary = run.summaries["tool_correctness"]
        assert (summary.scored, summary.unscored) == (0, len(CASES))
        row = store.get_row(run.id, 0)
        assert "reported no tool calls" in row.results[0].reason


# ---------------------------------------------------------------- reproducer 2
def _question_dataset(path):
    with path.open("w") as out:
        for row_id, _, text, tools in CASES:
            out.write(json.dumps({"id": row_id, "question": text, "expected_tools": tools}) + "\n")


def test_a_prompt_column_not_bound_to_input_stops_the_run(tmp_path, agent_stub, capsys):
    _question_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    err = _one_line_error(capsys)
    assert "prompt is empty in rows 1, 2, 3, 4, 5 and 1 more" in err
    assert "likely one is 'question'" in err and "bind: {input: question}" in err
    assert agent_stub.requests == []
    # dataset check says the same.
    assert main(["dataset", "check", str(tmp_path / "cases.jsonl")]) == 2
    out = capsys.readouterr().out
    assert "problem: no column is bound to input" in out and "--bind input=question" in out
    # Bound, the run goes.
    _edit_plan(plan, dataset={"path": "cases.jsonl", "bind": {"input": "question"}})
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 0
    assert (
        main(["dataset", "check", str(tmp_path / "cases.jsonl"), "--bind", "input=question"]) == 0
    )


def test_an_empty_prompt_in_some_rows_names_them(tmp_path, agent_stub, capsys):
    path = write_dataset(tmp_path / "cases.jsonl")
    with path.open("a") as out:
        out.write(json.dumps({"id": "blank", "input": "  ", "expected_tools": ["x"]}) + "\n")
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    assert "column input: the prompt is empty in row 7" in _one_line_error(capsys)


# ---------------------------------------------------------------- reproducer 4
def test_an_unset_variable_stops_the_run_and_dry_run_lists_every_problem(
    tmp_path, agent_stub, capsys, monkeypatch
):
    monkeypatch.delenv("AGENT_TOKEN_T10", raising=False)
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub)
    _edit_plan(
        plan,
        connector__headers={"Authorization": "Bearer ${AGENT_TOKEN_T10}"},
        connector__body={"input": "{{input}}", "user": "{{metadata.user}}"},
    )
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    err = _one_line_error(capsys)
    assert "connector.headers.Authorization" in err and "AGENT_TOKEN_T10 is not set" in err
    assert "(and 1 more problem: --dry-run lists them)" in err
    assert main(["run", str(plan), "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert "problem: connector.body" in captured.err and "no column 'user'" in captured.err
    assert "nothing was called" in captured.err
    assert agent_stub.requests == []
    monkeypatch.setenv("AGENT_TOKEN_T10", "secret")
    _edit_plan(plan, connector__body={"input": "{{input}}", "user": "{{category}}"})
    assert main(["run", str(plan), "--dry-run"]) == 0
    assert "preflight OK: 6 rows" in capsys.readouterr().out
    assert agent_stub.requests == []


# ---------------------------------------------------------------- reproducer 9
def test_no_value_cells_in_expected_tools_are_never_tool_names(tmp_path, agent_stub, capsys):
    path = tmp_path / "cases.csv"
    path.write_text(
        "id,input,expected_tools\n"
        'c1,cancel order 4471,"lookup_order, cancel_order"\n'
        "n1,cancel order 5502,nan\n"
        "n2,refund 30 USD on 4471,NULL\n"
        'n3,where is order 7777,"lookup_order, None"\n'
    )
    script_correct(agent_stub)
    plan = write_plan(tmp_path, agent_stub, dataset="cases.csv")
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 1  # n3 is an error row
    with open_store(tmp_path / "r.db") as store:
        (run,) = store.list_runs()
        rows = {r.row_id: r for r in store.iter_rows(run.id)}
    for row_id, marker in (("n1", "'nan'"), ("n2", "'NULL'")):
        result = rows[row_id].results[0]
        assert result.score is None
        assert f"column expected_tools holds {marker}" in result.reason
        assert "bind" not in result.reason  # the column is bound: never "bind a column"
    assert "'None' is not a tool name" in rows["n3"].error
    assert "column expected_tools" in rows["n3"].error
    assert agent_stub.attempts("where is order 7777") == 0
    assert rows["c1"].results[0].passed is True


def test_repeated_ids_stop_the_run(tmp_path, agent_stub, capsys):
    cases = [*CASES, ("c1", "cancel", "cancel order 9999", ["lookup_order"])]
    write_dataset(tmp_path / "cases.jsonl", cases)
    plan = write_plan(tmp_path, agent_stub)
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    err = _one_line_error(capsys)
    assert "1 id is used more than once: 'c1' in rows 1, 7" in err
    assert main(["dataset", "check", str(tmp_path / "cases.jsonl")]) == 2
    assert "id 'c1' is used by rows 1, 7" in capsys.readouterr().out


# ---------------------------------------------------------------- reproducer 3
def _errored_run(tmp_path, agent_stub, *options: str) -> tuple[int, str]:
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    for text in ("cancel order 5502", "where is order 8888"):
        agent_stub.script(text, fail_times=99, fail_status=500)
    plan = write_plan(tmp_path, agent_stub)
    code = main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet", *options])
    return code, plan


def test_error_rows_count_as_not_passed_in_the_gate(tmp_path, agent_stub, capsys):
    code, _ = _errored_run(tmp_path, agent_stub, "--min-pass-rate", "0.9")
    out = capsys.readouterr().out
    assert code == 1
    assert "tool_correctness: pass rate 66.7% (4 of 6 rows; 2 errors count as not passed)" in out
    assert "errors: 2/6 rows (33.3%) > 0.0% allowed (--max-error-rate, default 0)" in out
    assert (
        "│ tool_correctness │       0.5 │      4 │      0 │      2 │        0 │     66.7% │" in out
    )


def test_max_error_rate_allows_a_budget(tmp_path, agent_stub, capsys):
    code, _ = _errored_run(
        tmp_path, agent_stub, "--min-pass-rate", "0.6", "--max-error-rate", "0.4"
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "errors: 2/6 rows (33.3%) <= 40.0% allowed" in out


def test_max_error_rate_from_the_plan_and_bad_values(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(tmp_path, agent_stub, gate={"max_error_rate": 0.5})
    assert main(["run", str(plan), "--max-error-rate", "2", "--store", str(tmp_path / "r.db")]) == 2
    assert "field --max-error-rate: expected a number between 0 and 1, got 2.0" in (
        capsys.readouterr().err
    )


def test_the_python_api_gate_counts_errors(tmp_path, agent_stub):
    from tooleval.runs import load_plan, run_plan

    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    agent_stub.script("cancel order 5502", fail_times=99, fail_status=503)
    plan = load_plan(write_plan(tmp_path, agent_stub))
    with open_store(tmp_path / "r.db") as store:
        outcome = run_plan(plan, store=store)
    assert not outcome.gate.passed
    (errors,) = [c for c in outcome.gate.checks if c.name == "errors"]
    assert errors.value == pytest.approx(1 / 6) and errors.required == 0.0


def test_an_output_metric_without_an_output_path_stops_before_any_call(
    tmp_path, agent_stub, capsys
):
    write_dataset(tmp_path / "cases.jsonl")
    plan = write_plan(
        tmp_path, agent_stub, metrics=[{"name": "output_contains", "params": {"values": ["done"]}}]
    )
    _edit_plan(plan, connector__response={"tools_called": "$.steps[*].tool.name"})
    assert _run(str(plan), "--store", str(tmp_path / "r.db")) == 2
    err = _one_line_error(capsys)
    assert "output_contains read the agent's answer" in err and "{output:" in err
    assert agent_stub.requests == []


def test_a_python_agent_without_output_leaves_output_metrics_unscored(tmp_path):
    import sys

    write_dataset(tmp_path / "cases.jsonl")
    (tmp_path / "calls_agent.py").write_text(
        "def run(text):\n    return {'tools_called': ['lookup_order']}\n"
    )
    plan = tmp_path / "p.yaml"
    plan.write_text(
        yaml.safe_dump(
            {
                "dataset": "cases.jsonl",
                "connector": {"type": "python", "target": "calls_agent:run"},
                "metrics": [
                    {"name": "output_contains", "params": {"values": ["done"]}},
                    "tool_correctness",
                ],
            }
        )
    )
    sys.path.insert(0, str(tmp_path))
    try:
        main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet"])
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("calls_agent", None)
    with open_store(tmp_path / "r.db") as store:
        (run,) = store.list_runs()
        row = store.get_row(run.id, 4)  # s1 expects lookup_order only
        output, correctness = row.results
        assert output.score is None and "reported no output" in output.reason
        assert correctness.score == 1.0


def test_dry_run_counts_unreadable_rows_apart_from_ready_ones(tmp_path, agent_stub, capsys):
    data = write_dataset(tmp_path / "cases.jsonl")
    lines = data.read_text().splitlines()
    data.write_text("\n".join([lines[0], '{"id": "broken", "input":', *lines[1:]]) + "\n")
    plan = write_plan(tmp_path, agent_stub)
    assert main(["run", str(plan), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"preflight OK: {len(lines)} rows ready, 1 unreadable (error rows)" in out
    assert agent_stub.requests == []
