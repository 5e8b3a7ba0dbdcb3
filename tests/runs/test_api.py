"""The Python API: run_plan with an in-process connector, and against PostgreSQL."""

from __future__ import annotations

import pytest
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.analysis import compare_runs
from tooleval.cli.main import main
from tooleval.connectors import CallableConnector
from tooleval.metrics.registry import MetricInfo, Param
from tooleval.model import Result
from tooleval.runs import load_plan, plan_from_dict, run_plan
from tooleval.runs.progress import LineProgress
from tooleval.store import open_store


def _fragile(sample, *, threshold=None):
    # Scores the number of calls; raises on one input to prove a scoring bug stays in its row.
    if "7777" in sample.user_input():
        raise RuntimeError("boom")
    return Result.scored("test_runs_fragile", min(1.0, len(sample.actual_calls()) / 2), reason="n")


FRAGILE = MetricInfo(
    name="test_runs_fragile",
    description="test metric: half a point per call",
    params={"threshold": Param(None, "pass threshold")},
    requires=("tools_called",),
    needs_judge=False,
    score_sample=_fragile,
)


def test_run_plan_with_a_callable_connector(tmp_path, temporary_metric):
    temporary_metric(FRAGILE)
    write_dataset(tmp_path / "cases.jsonl")
    expected = {text: tools for _, _, text, tools in CASES}

    async def agent(text: str) -> dict:
        return {"output": "ok", "tools_called": expected[text]}

    plan = plan_from_dict(
        {
            "name": "inproc",
            "dataset": "cases.jsonl",
            "connector": {},
            "metrics": [{"name": "test_runs_fragile", "threshold": 0.5}, "tool_correctness"],
            "gate": {"min_pass_rate": 1.0},
        },
        base_dir=tmp_path,
    )
    import io

    log = io.StringIO()
    with open_store(tmp_path / "r.db") as store:
        outcome = run_plan(
            plan,
            store=store,
            connector=CallableConnector(agent),
            concurrency=3,
            progress=LineProgress(log, every=2),
        )
        assert outcome.rows_run == 6 and outcome.rows_skipped == 0
        assert outcome.run.status == "finished"
        broken = store.get_row(outcome.run_id, 4)
        fragile = broken.result("test_runs_fragile")
        assert fragile.score is None and "RuntimeError: boom" in fragile.reason
        assert broken.result("tool_correctness").passed is True
        # The unscored row does not count against the pass rate; the gate passes.
        assert outcome.run.summaries["test_runs_fragile"].unscored == 1
        assert outcome.gate.passed
        # The run stored its own aggregates, as `tooleval run` does: views count nothing.
        rows = outcome.run.row_count
        for document in ("run/1", "counts/1", "clusters/1"):
            assert store.aggregates.load_aggregate(outcome.run_id, document, row_count=rows)
    assert log.getvalue().strip().splitlines()[-1].endswith("6/6 rows, 0 errors")


@pytest.mark.postgres
def test_runs_compare_and_resume_on_postgresql(tmp_path, agent_stub, pg_url, capsys):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    plan = write_plan(tmp_path, agent_stub, metrics=["tool_correctness", "tool_call_f1"])
    assert main(["run", str(plan), "--store", pg_url, "--quiet", "--min-pass-rate", "1"]) == 0
    agent_stub.script("cancel order 4471", tools=["cancel_order"])
    code = main(["run", str(plan), "--store", pg_url, "--quiet", "--min-pass-rate", "1"])
    assert code == 1
    with open_store(pg_url) as store:
        b, a = store.list_runs(limit=2)
        comparison = compare_runs(store, a.id, b.id, figures=_sides(store, a.id, b.id))
        assert [d.row_id for d in comparison.changed("regressed", "tool_call_f1")] == ["c1"]
        assert store.count_rows(b.id, metric="tool_call_f1", passed=False) == 1
        # Resuming a finished run of the same plan runs nothing again.
        outcome = run_plan(load_plan(plan), store=store, resume=b.id)
        assert (outcome.rows_run, outcome.rows_skipped) == (0, 6)
        assert outcome.run.row_count == 6
    assert main(["runs", "show", b.id, "--store", pg_url]) == 0
    assert "missing_tool" in capsys.readouterr().out  # cancel_order without lookup_order


def test_judged_metric_gets_the_plan_judge(tmp_path, agent_stub, temporary_metric):
    seen = []

    async def judged(sample, *, judge):
        seen.append(judge)
        return Result.scored("test_runs_judged_ok", 1.0, reason="judge says fine")

    temporary_metric(
        MetricInfo(
            name="test_runs_judged_ok",
            description="test metric that records the judge it was given",
            params={},
            requires=(),
            needs_judge=True,
            score_sample=lambda sample, *, judge: None,
            ascore_sample=judged,
        )
    )
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    judge = {
        "type": "openai",
        "model": "judge-m",
        "base_url": "http://127.0.0.1:9/v1",
        "cache": False,
    }
    plan = write_plan(tmp_path, agent_stub, metrics=["test_runs_judged_ok"], judge=judge)
    with open_store(tmp_path / "r.db") as store:
        outcome = run_plan(load_plan(plan), store=store)
        assert outcome.run.summaries["test_runs_judged_ok"].passed == len(CASES)
        assert outcome.run.config["judge"]["model"] == "judge-m"
    assert len(seen) == len(CASES) and seen[0].describe()["model"] == "judge-m"


def test_rich_progress_on_a_terminal():
    import io

    from rich.console import Console

    from tooleval.runs.progress import RichProgress, make_progress

    out = io.StringIO()
    progress = RichProgress(Console(file=out, force_terminal=True, width=120))
    progress.start(total=3, done=1, run_id="r-rich")
    progress.advance(error=True)
    progress.advance(error=False)
    progress.close()
    text = out.getvalue()
    assert "run r-rich" in text and "3/3" in text and "1 errors" in text
    assert type(make_progress(io.StringIO())).__name__ == "LineProgress"


def _sides(store, a, b):
    """Both runs' read models, as every caller of compare_runs gives them."""
    from tooleval.analysis.figures import run_figures

    return run_figures(store, store.get_run(a)), run_figures(store, store.get_run(b))
