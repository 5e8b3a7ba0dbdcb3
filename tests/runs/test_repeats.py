"""--repeat N against a real HTTP agent: attempts stored, pass^k / pass@k, flaky rows, gate."""

from __future__ import annotations

import pytest
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.analysis.repeats import analyse_repeats, pass_at_k, pass_hat_k, repeat_gate, repeat_of
from tooleval.errors import ConfigError
from tooleval.runs.plan import GateSpec, load_plan
from tooleval.runs.runner import run_plan
from tooleval.store import open_store


def _setup(tmp_path, stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    # c2 fails its first call (an error attempt), then works: flaky.
    stub.script("cancel order 5502", tools=["lookup_order", "cancel_order"], fail_times=1)
    # s2 always calls the wrong tool: fails every attempt, never flaky.
    stub.script("where is order 8888", tools=["search_orders"])
    return load_plan(write_plan(tmp_path, stub, metrics=["tool_correctness"], concurrency=1))


def test_every_row_runs_n_times_and_each_attempt_is_stored(tmp_path, agent_stub):
    plan = _setup(tmp_path, agent_stub)
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store, repeat=3)
        assert outcome.rows_run == 18 and outcome.run.row_count == 18
        assert outcome.run.config["repeat"] == {"n": 3, "stride": 6}
        assert repeat_of(outcome.run) == (3, 6)
        rows = list(store.iter_rows(outcome.run_id))
        assert [r.row_id for r in rows[:7]] == ["c1", "c2", "r1", "r2", "s1", "s2", "c1#2"]
        assert rows[13].sample.metadata["attempt"] == 3
        assert rows[13].sample.metadata["dataset_row_id"] == "c2"
        summary = analyse_repeats(rows, 3, 6)
    assert agent_stub.attempts("cancel order 4471") == 3
    by_id = {r.row_id: r for r in summary.rows}
    assert by_id["c2"].verdicts == (None, True, True) and by_id["c2"].flaky
    assert by_id["s2"].passed == 0 and not by_id["s2"].flaky
    assert [r.row_id for r in summary.flaky] == ["c2"]
    # pass^3: 4 of 6 rows passed every time; pass@3: 5 of 6 passed once.
    assert summary.pass_hat() == pytest.approx(4 / 6)
    assert summary.pass_at() == pytest.approx(5 / 6)
    assert summary.pass_hat(1) == pytest.approx((4 + 2 / 3) / 6)
    assert summary.pass_hat(category="cancel") == pytest.approx(0.5)
    assert summary.pass_at(category="status") == pytest.approx(0.5)
    data = summary.to_dict()
    assert data["flaky"] == ["c2"] and data["categories"]["cancel"]["flaky"] == 1


def test_the_gate_reads_pass_hat_k_or_pass_at_k(tmp_path, agent_stub):
    plan = _setup(tmp_path, agent_stub)
    with open_store(tmp_path / "runs.db") as store:
        outcome = run_plan(plan, store=store, repeat=3)
        summary = analyse_repeats(store.iter_rows(outcome.run_id), 3, 6)
    gate = GateSpec(min_pass_rate=0.8, max_error_rate=0.2)
    hat = repeat_gate(outcome.run, gate, summary, "pass^k")
    at = repeat_gate(outcome.run, gate, summary, "pass@k")
    attempts = repeat_gate(outcome.run, gate, summary, "attempts")
    assert not hat.passed and "pass^3 66.7% over 6 rows < 80.0%" in hat.checks[0].message
    assert at.passed and "pass@3 83.3%" in at.checks[0].message
    assert not attempts.passed  # 14 of 18 attempts = 77.8%
    with pytest.raises(ConfigError, match="--gate-on"):
        repeat_gate(outcome.run, gate, summary, "pass^")


def test_a_stopped_repeated_run_runs_only_the_missing_attempts(tmp_path, agent_stub):
    import sqlite3

    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    with open_store(db) as store:
        first = run_plan(plan, store=store, repeat=3)
    with sqlite3.connect(db) as conn:  # as a run killed during its third attempt leaves it
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("DELETE FROM results WHERE row_index >= 14")
        conn.execute("DELETE FROM rows WHERE row_index >= 14")
    calls = len(agent_stub.requests)
    with open_store(db) as store:
        store.finish_run(first.run_id, "interrupted")
        again = run_plan(plan, store=store, resume=first.run_id)
        assert again.rows_run == 4 and again.rows_skipped == 14
        assert again.run.row_count == 18
        rows = list(store.iter_rows(first.run_id))
        assert [r.row_id for r in rows[14:]] == ["r1#3", "r2#3", "s1#3", "s2#3"]
    assert len(agent_stub.requests) == calls + 4
    assert agent_stub.attempts("refund 30 USD on 4471") == 4


def test_json_export_and_runs_show_report_the_repeats(tmp_path, agent_stub, capsys):
    import json

    from tooleval.cli.main import main

    plan = _setup(tmp_path, agent_stub)
    db = tmp_path / "runs.db"
    with open_store(db) as store:
        outcome = run_plan(plan, store=store, repeat=3)
    out = tmp_path / "r.json"
    assert main(["runs", "export", outcome.run_id, "--store", str(db), "--json", str(out)]) == 0
    repeats = json.loads(out.read_text())["repeats"]
    assert repeats["n"] == 3 and repeats["flaky"] == ["c2"]
    assert repeats["pass_hat_k"]["3"] == pytest.approx(4 / 6)
    c2 = next(r for r in repeats["rows"] if r["row_id"] == "c2")
    assert c2["verdicts"] == [None, True, True] and c2["spread"] == 0.0
    capsys.readouterr()
    assert main(["runs", "show", outcome.run_id, "--store", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "repeats: 3 attempts per row" in shown and "c2: 2/3 passed [EPP]" in shown


def test_a_repeated_run_resumes_with_its_own_count(tmp_path, agent_stub):
    plan = _setup(tmp_path, agent_stub)
    with open_store(tmp_path / "runs.db") as store:
        first = run_plan(plan, store=store, repeat=2)
        store.finish_run(first.run_id, "interrupted")
        calls = len(agent_stub.requests)
        with pytest.raises(ConfigError, match="--repeat 2"):
            run_plan(plan, store=store, resume=first.run_id, repeat=3)
        again = run_plan(plan, store=store, resume=first.run_id)
        assert again.rows_run == 0 and again.rows_skipped == 12
    assert len(agent_stub.requests) == calls


@pytest.mark.parametrize("bad", [0, -1, 101, True, 2.5, "3"])
def test_bad_repeat_counts_are_refused(tmp_path, agent_stub, bad):
    plan = _setup(tmp_path, agent_stub)
    with open_store(tmp_path / "runs.db") as store, pytest.raises(ConfigError, match="repeat"):
        run_plan(plan, store=store, repeat=bad)
    assert agent_stub.requests == []


def test_estimators_match_their_definitions():
    assert pass_hat_k(5, 5, 3) == 1.0 and pass_hat_k(5, 2, 3) == 0.0
    assert pass_hat_k(4, 2, 1) == pytest.approx(0.5)
    assert pass_at_k(4, 1, 2) == pytest.approx(0.5)
    assert pass_at_k(3, 3, 1) == 1.0
    assert len(CASES) == 6
