"""compare_runs on stored runs, and the runs list / show / compare commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.analysis import compare_runs
from tooleval.cli.main import main
from tooleval.store import open_store


def _two_runs(tmp_path, stub):
    write_dataset(tmp_path / "cases.jsonl")
    db = tmp_path / "runs.db"
    exact = [{"name": "tool_correctness", "threshold": 1.0}]
    # A: refunds call search_orders instead of issue_refund; status rows are right.
    script_correct(stub)
    for _, category, text, _ in CASES:
        if category == "refund":
            stub.script(text, tools=["lookup_order", "search_orders"])
    plan_a = write_plan(
        tmp_path, stub, name="before", metrics=exact, gate={"require_any_pass": False}
    )
    assert main(["run", str(plan_a), "--store", str(db), "--quiet"]) == 0
    # B: refunds fixed, but one status row now calls an extra tool.
    script_correct(stub)
    stub.script("where is order 8888", tools=["lookup_order", "lookup_order"])
    plan_b = write_plan(
        tmp_path,
        stub,
        name="after",
        gate={"require_any_pass": False},
        metrics=[{"name": "tool_correctness", "threshold": 1.0, "params": {"order": "strict"}}],
    )
    code = main(["run", str(plan_b), "--store", str(db), "--quiet"])
    with open_store(db) as store:
        b, a = store.list_runs()
    return db, a.id, b.id, code


@pytest.fixture
def two_runs(tmp_path, agent_stub):
    db, a, b, code = _two_runs(tmp_path, agent_stub)
    assert code == 0
    return db, a, b


def test_compare_runs_fixed_regressed_per_metric_and_category(two_runs):
    db, a, b = two_runs
    with open_store(db) as store:
        comparison = compare_runs(store, a, b, figures=_sides(store, a, b))
    counts = comparison.metrics["tool_correctness"]
    assert (counts.fixed, counts.regressed, counts.unchanged) == (2, 1, 3)
    assert counts.pass_rate_a == pytest.approx(4 / 6) and counts.pass_rate_b == pytest.approx(5 / 6)
    assert {d.row_id for d in comparison.changed("fixed")} == {"r1", "r2"}
    assert [d.row_id for d in comparison.changed("regressed")] == ["s2"]
    assert comparison.categories["refund"]["tool_correctness"].fixed == 2
    assert comparison.categories["status"]["tool_correctness"].regressed == 1
    assert comparison.categories["cancel"]["tool_correctness"].unchanged == 2
    paths = {d.path: (d.a, d.b) for d in comparison.differences}
    assert paths == {"metrics.tool_correctness.params.order": (None, "strict")}
    assert not any(p.startswith("dataset") or p.startswith("connector") for p in paths)


def test_new_and_missing_rows(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    db = tmp_path / "r.db"
    plan = write_plan(tmp_path, agent_stub)
    assert main(["run", str(plan), "--store", str(db), "--quiet"]) == 0
    write_dataset(tmp_path / "fewer.jsonl", CASES[1:] + [("n1", "new", "hello", ["greet"])])
    agent_stub.script("hello", tools=["greet"])
    plan2 = write_plan(tmp_path, agent_stub, name="fewer", dataset="fewer.jsonl")
    assert main(["run", str(plan2), "--store", str(db), "--quiet"]) == 0
    with open_store(db) as store:
        b, a = store.list_runs()
        comparison = compare_runs(store, a.id, b.id, figures=_sides(store, a.id, b.id))
    assert [d.row_id for d in comparison.changed("missing")] == ["c1"]
    assert [d.row_id for d in comparison.changed("new")] == ["n1"]
    assert any(d.path == "dataset.path" for d in comparison.differences)


def test_compare_command_prints_differences_first(two_runs, capsys, tmp_path):
    db, a, b = two_runs
    out_json = tmp_path / "cmp.json"
    assert main(["compare", a, b, "--store", str(db), "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert out.index("configuration differences") < out.index("per metric")
    assert "metrics.tool_correctness.params.order" in out
    assert "regressed (1)" in out and "fixed (2)" in out
    assert orjson.loads(out_json.read_bytes())["metrics"]["tool_correctness"]["fixed"] == 2
    assert main(["compare", a, b, "--store", str(db), "--fail-on-any-regressed-row"]) == 1
    # one regressed and two fixed rows of six: noise, not a regression
    assert main(["compare", a, b, "--store", str(db), "--fail-on-regression"]) == 0
    assert main(["compare", a, "nope", "--store", str(db)]) == 2


def test_runs_list_and_show(two_runs, capsys):
    db, a, b = two_runs
    assert main(["runs", "list", "--store", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.index(b) < out.index(a) and "before" in out and "after" in out
    if a[:15] == b[:15]:  # both started in the same second
        assert main(["runs", "show", a[:15], "--store", str(db)]) == 2
        assert "ambiguous" in capsys.readouterr().err
    assert main(["runs", "show", a[:-2], "--store", str(db)]) == 0
    out = capsys.readouterr().out
    assert "per metric" in out and "per category" in out
    assert "2 failing rows → 1 cluster" in out
    assert "failing rows by class and category" not in out  # one category only
    assert "called search_orders instead of issue_refund" in out
    assert "lookup_order(), search_orders()" in out  # tools called next to expected
    assert "lookup_order, issue_refund" in out
    assert main(["runs", "show", a, "--store", str(db), "--category", "cancel"]) == 0
    assert "no failing rows" in capsys.readouterr().out
    assert main(["runs", "show", "zzz", "--store", str(db)]) == 2
    assert main(["runs", "list", "--store", str(db), "--tag", "nothing"]) == 0
    assert "no runs" in capsys.readouterr().out


def test_runs_show_names_plumbing(tmp_path, agent_stub, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    # The path points at the wrong key: every row extracts no tool.
    plan = write_plan(tmp_path, agent_stub)
    text = plan.read_text().replace("$.steps[?(@.type=='tool_call')].tool.name", "$.tools[*].name")
    plan.write_text(text)
    script_correct(agent_stub)
    db = tmp_path / "r.db"
    # Every row is an error (the path matches nothing): the default gate fails.
    assert main(["run", str(plan), "--store", str(db), "--quiet"]) == 1
    with open_store(db) as store:
        (run,) = store.list_runs()
        assert store.count_rows(run.id, failure_class="plumbing") == len(CASES)
    assert main(["runs", "show", run.id, "--store", str(db)]) == 0
    out = capsys.readouterr().out
    assert "6 failing rows → 1 cluster" in out and "plumbing" in out
    assert "│ cancel   │    2 │      0 │      2 │" in out  # per category: rows, failed, errors
    table = out[out.index("failing rows by class and category") :]
    assert "cancel" in table and "refund" in table and "status" in table


def test_cli_through_the_installed_script(two_runs):
    db, a, _ = two_runs
    script = Path(sys.executable).with_name("tooleval")
    proc = subprocess.run(
        [str(script), "runs", "show", a, "--store", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "missing_tool" in proc.stdout


def _sides(store, a, b):
    """Both runs' read models, as every caller of compare_runs gives them."""
    from tooleval.analysis.figures import run_figures

    return run_figures(store, store.get_run(a)), run_figures(store, store.get_run(b))
