"""`tooleval rescore`: a new run from stored answers, other metrics, no agent call."""

from __future__ import annotations

import pytest
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.runs.rescore import parse_metric_specs
from tooleval.store import open_store


def _first_run(tmp_path, stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    # r2 calls one extra tool: f1 = 0.8, exact_match fails it.
    stub.script("refund 12 USD on 9001", tools=["lookup_order", "issue_refund", "search_orders"])
    stub.script("cancel order 5502", fail_times=99, fail_status=500)
    plan = write_plan(tmp_path, stub, metrics=["tool_correctness"])
    db = tmp_path / "runs.db"
    assert main(["run", str(plan), "--store", str(db), "--quiet", "--max-error-rate", "1"]) == 0
    with open_store(db) as store:
        (run,) = store.list_runs()
    return db, run.id


def test_rescore_makes_a_new_run_without_calling_the_agent(tmp_path, agent_stub, capsys):
    db, first = _first_run(tmp_path, agent_stub)
    calls = len(agent_stub.requests)
    argv = ["rescore", first, "--metric", "tool_call_f1", "--threshold", "0.7", "--store", str(db)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "nothing was called" in out and f"tooleval compare {first} " in out
    assert len(agent_stub.requests) == calls
    with open_store(db) as store:
        new = next(r for r in store.list_runs() if r.id != first)
        assert new.config["rescored_from"] == first and new.status == "finished"
        assert [(m.name, m.threshold) for m in new.metrics] == [("tool_call_f1", 0.7)]
        assert new.row_count == 6 and new.error_count == 1
        r2 = store.get_row(new.id, 3).result("tool_call_f1")
        assert r2.score == pytest.approx(0.8) and r2.passed is True
        failed = store.get_row(new.id, 1)
        assert failed.error and failed.result("tool_call_f1").score is None
        assert "not scored: connector error" in failed.result("tool_call_f1").reason
    assert main(["compare", first, new.id, "--store", str(db)]) == 0
    assert "tool_call_f1" in capsys.readouterr().out


def test_rescore_options_change_the_scores(tmp_path, agent_stub):
    db, first = _first_run(tmp_path, agent_stub)
    argv = ["rescore", first, "--metric", "tool_correctness", "--store", str(db)]
    assert main([*argv, "--option", "exact_match=true", "--name", "strict"]) == 0
    with open_store(db) as store:
        new = next(r for r in store.list_runs() if r.name == "strict")
        assert new.metrics[0].params == {"exact_match": True}
        # exact: the extra call now fails the row that passed before
        assert store.get_row(first, 3).result("tool_correctness").passed is True
        assert store.get_row(new.id, 3).result("tool_correctness").passed is False
        assert store.get_row(new.id, 0).result("tool_correctness").passed is True


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--metric", "no_such_metric"], "no_such_metric"),
        (["--metric", "tool_call_f1", "--option", "nope=1"], "--option: metric 'tool_call_f1' has"),
        (["--metric", "a", "--metric", "b", "--option", "x=1"], "METRIC.x"),
        (["--metric", "tool_call_f1", "--threshold", "2"], "between 0 and 1"),
        ([], "--metric"),
    ],
)
def test_rescore_usage_errors_are_one_line_exit_2(tmp_path, agent_stub, capsys, argv, message):
    db, first = _first_run(tmp_path, agent_stub)
    capsys.readouterr()
    assert main(["rescore", first, "--store", str(db), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_unknown_run_is_exit_2(tmp_path, capsys):
    from tooleval.store import open_store

    db = tmp_path / "runs.db"
    open_store(db).close()
    assert main(["rescore", "nope", "--metric", "tool_call_f1", "--store", str(db)]) == 2
    assert "no run 'nope'" in capsys.readouterr().err


def test_missing_store_is_exit_2_and_creates_nothing(tmp_path, capsys):
    db = tmp_path / "typo" / "runs.db"
    assert main(["rescore", "nope", "--metric", "tool_call_f1", "--store", str(db)]) == 2
    assert "no run store at" in capsys.readouterr().err
    assert not db.parent.exists()


def test_parse_metric_specs_names_the_unknown_metric_of_an_option():
    with pytest.raises(ConfigError, match="names metric 'zzz'"):
        parse_metric_specs(["tool_call_f1"], ["zzz.args=ignore"])


@pytest.mark.parametrize(
    "names,options,thresholds,message",
    [
        (["a", "b"], [], ["0.5"], "METRIC=X"),
        (["a"], ["noequals"], [], "KEY=VALUE"),
        (["a"], [], ["b=0.5"], "names metric 'b'"),
    ],
)
def test_parse_metric_specs_errors(names, options, thresholds, message):
    with pytest.raises(ConfigError, match=message):
        parse_metric_specs(names, options, thresholds)


def test_a_former_parameter_name_is_translated_and_recorded_by_its_current_name(
    tmp_path, agent_stub
):
    db, first = _first_run(tmp_path, agent_stub)
    argv = ["rescore", first, "--metric", "tool_correctness", "--store", str(db)]
    assert main([*argv, "--option", "check_ordering=true", "--name", "seed names"]) == 0
    assert main([*argv, "--option", "order=strict", "--name", "current names"]) == 0
    with open_store(db) as store:
        runs = {r.name: r for r in store.list_runs()}
        old, new = runs["seed names"], runs["current names"]
        assert old.metrics[0].params == new.metrics[0].params == {"order": "strict"}
        for index in range(new.row_count):
            got = store.get_row(old.id, index).result("tool_correctness")
            want = store.get_row(new.id, index).result("tool_correctness")
            assert got == want and "check_ordering" not in got.params
    code = main([*argv, "--option", "check_ordering=true", "--option", "order=flexible"])
    assert code == 2
