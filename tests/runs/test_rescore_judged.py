"""`tooleval rescore` with judged metrics: the judge is called, the agent never is.

A real run against the agent stub on 127.0.0.1 is stored in a real SQLite
store, then rescored with ``task_success`` judged by an OpenAI-compatible
server on 127.0.0.1 (``tests/judge_server.py``) and by the bundled local model
(``llm`` marker): the runs' rules for rows the agent failed, the judge's
cache and token counts, and the stored aggregates of the new run.
"""

from __future__ import annotations

import pytest
from tests.judge_server import JudgeServer
from tests.runs.support import CASES, script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.model.usage import JudgeUsage
from tooleval.runs.rescore import parse_metric_specs, rescore_run
from tooleval.store import open_store


def _first_run(tmp_path, stub, cases=CASES):
    write_dataset(tmp_path / "cases.jsonl", cases)
    script_correct(stub, cases)
    stub.script(
        "refund 30 USD on 4471", tools=["lookup_order", "issue_refund"], output="CARD-DECLINED"
    )
    stub.script("cancel order 5502", fail_times=99, fail_status=500)
    plan = write_plan(tmp_path, stub, metrics=["tool_correctness"])
    db = tmp_path / "runs.db"
    assert main(["run", str(plan), "--store", str(db), "--quiet", "--max-error-rate", "1"]) == 0
    with open_store(db) as store:
        (run,) = store.list_runs()
    return db, run.id


def _new_run(store, *old):
    return next(r for r in store.list_runs() if r.id not in old)


def test_rescore_with_a_judge_on_an_openai_compatible_endpoint(tmp_path, agent_stub, capsys):
    db, first = _first_run(tmp_path, agent_stub)
    agent_calls = len(agent_stub.requests)
    with JudgeServer() as server:
        judge = ["--judge", "openai", "--judge-option", "model=served"]
        judge += ["--judge-option", f"base_url={server.base_url}"]
        judge += ["--judge-option", f"cache={tmp_path / 'judge-cache.db'}", "--concurrency", "2"]
        argv = ["rescore", first, "--metric", "tool_correctness", "--metric", "task_success"]
        assert main([*argv, *judge, "--store", str(db)]) == 0
        captured = capsys.readouterr()
        assert "no agent was called" in captured.out
        assert "tooleval rescore: judge 5 calls, 0 from the cache" in captured.err
        assert len(server.calls) == 5  # the row the agent failed costs no judge call
        assert len(agent_stub.requests) == agent_calls
        with open_store(db) as store:
            new = _new_run(store, first)
            assert new.config["rescored_from"] == first and new.status == "finished"
            assert new.config["judge"]["model"] == "served"
            assert [m.name for m in new.metrics] == ["tool_correctness", "task_success"]
            by_id = {row.row_id: row for row in store.iter_rows(new.id)}
            assert by_id["c1"].result("task_success").score == 1.0
            assert by_id["r1"].result("task_success").score == 0.0  # the judge saw the answer
            failed = by_id["c2"].result("task_success")
            assert failed.score is None and failed.reason.startswith("not scored: connector error")
            usage = JudgeUsage.from_results(r for row in by_id.values() for r in row.results)
            assert usage is not None and usage.calls == 5 and usage.tokens_in == 50
            summary = new.summaries["task_success"]
            assert (summary.passed, summary.failed, summary.unscored) == (4, 1, 1)
            for document in ("run/1", "counts/1", "clusters/1"):  # aggregates stored with it
                assert store.aggregates.load_aggregate(new.id, document, row_count=new.row_count)
        # the same judge again: every reply from its cache, nothing sent
        assert main([*argv, *judge, "--store", str(db), "--name", "again"]) == 0
        assert "judge 0 calls, 5 from the cache" in capsys.readouterr().err
        assert len(server.calls) == 5


def test_rescore_judged_metrics_from_python(tmp_path, agent_stub):
    from tooleval.llm import judge_from_config

    db, first = _first_run(tmp_path, agent_stub)
    with JudgeServer() as server, open_store(db) as store:
        judge = judge_from_config(
            {"type": "openai", "model": "served", "base_url": server.base_url, "cache": False}
        )
        specs = parse_metric_specs(["task_success"], thresholds=["0.5"])
        new_id = rescore_run(store, first, specs, judge=judge, concurrency=1)
        scores = [row.result("task_success").score for row in store.iter_rows(new_id)]
        assert sorted(scores, key=str) == sorted([1.0, None, 0.0, 1.0, 1.0, 1.0], key=str)
        with pytest.raises(ConfigError, match="need\\(s\\) an LLM judge"):
            rescore_run(store, first, specs)
        with pytest.raises(ConfigError, match="--concurrency"):
            rescore_run(store, first, specs, judge=judge, concurrency=0)


def test_judge_flags_are_one_line_errors(tmp_path, agent_stub, capsys, monkeypatch):
    monkeypatch.delenv("TOOLEVAL_JUDGE", raising=False)
    db, first = _first_run(tmp_path, agent_stub)
    capsys.readouterr()
    base = ["rescore", first, "--store", str(db)]
    assert main([*base, "--metric", "task_success"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--judge local" in err and "\n" not in err
    assert main([*base, "--metric", "tool_call_f1", "--judge", "local"]) == 2
    assert "no metric of tool_call_f1 is judged" in capsys.readouterr().err
    assert main([*base, "--metric", "task_success", "--judge", "gpt"]) == 2
    assert "expected 'openai' or 'local'" in capsys.readouterr().err
    assert main([*base, "--metric", "task_success", "--judge", "local", "--concurrency", "0"]) == 2
    assert "--concurrency must be 1 or more" in capsys.readouterr().err
    with open_store(db) as store:
        assert len(store.list_runs()) == 1  # nothing was stored by a refused command


@pytest.mark.llm
def test_rescore_with_the_bundled_local_judge(tmp_path, agent_stub, capsys):
    from tooleval.errors import JudgeError
    from tooleval.llm.local import find_smollm2_gguf

    try:
        find_smollm2_gguf()
    except JudgeError as exc:
        pytest.skip(str(exc))
    db, first = _first_run(tmp_path, agent_stub, cases=CASES[:1])  # one row: slow model
    argv = ["rescore", first, "--metric", "task_success", "--judge", "local"]
    assert main([*argv, "--judge-option", "cache=false", "--store", str(db)]) == 0
    assert "tooleval rescore: judge" in capsys.readouterr().err
    with open_store(db) as store:
        new = _new_run(store, first)
        (row,) = store.iter_rows(new.id)
        result = row.result("task_success")
        # SmolLM2 often writes malformed JSON: unscored with the reason, never a 0
        assert result.score in (0.0, 1.0) or "judge reply" in result.reason
        assert new.config["judge"]["type"] == "local"
