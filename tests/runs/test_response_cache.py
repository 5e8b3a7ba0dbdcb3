"""The response cache against a real HTTP agent: a re-run calls nothing, errors are not kept."""

from __future__ import annotations

import sqlite3

import pytest
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.errors import ConfigError
from tooleval.runs.plan import load_plan
from tooleval.runs.response_cache import HIT_WARNING, ResponseCache, default_cache_path
from tooleval.runs.runner import run_plan
from tooleval.store import open_store


def _plan(tmp_path, stub, **extra):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    stub.script(
        "cancel order 5502", tools=["lookup_order", "cancel_order"], fail_times=1, fail_status=500
    )
    return load_plan(write_plan(tmp_path, stub, metrics=["tool_correctness"], **extra))


def test_a_rerun_of_an_unchanged_dataset_calls_nothing(tmp_path, agent_stub):
    plan = _plan(tmp_path, agent_stub)
    cache = ResponseCache(tmp_path / "responses.db")
    with open_store(tmp_path / "runs.db") as store:
        first = run_plan(plan, store=store, cache=cache)
        assert first.run.error_count == 1  # the 500 is an error row, and not cached
        assert (cache.hits, cache.misses, len(cache)) == (0, 6, 5)
        calls = len(agent_stub.requests)
        second = run_plan(plan, store=store, cache=cache)
        # five answers from the cache; the row that failed is called again (and now works)
        assert len(agent_stub.requests) == calls + 1 and cache.hits == 5
        assert second.run.error_count == 0 and second.run.pass_rate("tool_correctness") == 1.0
        row = store.get_row(second.run_id, 0)
        assert HIT_WARNING in row.sample.metadata["connector_warnings"]
        assert [c.name for c in row.sample.actual_calls()] == ["lookup_order", "cancel_order"]
        assert row.raw_response["output"] == "done: cancel order 4471"
        third = run_plan(plan, store=store, cache=cache, repeat=2)
        # attempt 2 is its own entry: repeats are meant to call the agent again
        assert len(agent_stub.requests) == calls + 1 + 6 and third.run.row_count == 12
    cache.close()


def test_refresh_calls_again_and_overwrites(tmp_path, agent_stub):
    plan = _plan(tmp_path, agent_stub)
    with open_store(tmp_path / "runs.db") as store:
        run_plan(plan, store=store, cache=ResponseCache(tmp_path / "r.db"))
        agent_stub.script("where is order 7777", tools=["track_order"])
        calls = len(agent_stub.requests)
        run_plan(plan, store=store, cache=ResponseCache(tmp_path / "r.db", refresh=True))
        assert len(agent_stub.requests) == calls + 6
        cache = ResponseCache(tmp_path / "r.db")
        rerun = run_plan(plan, store=store, cache=cache)
        assert len(agent_stub.requests) == calls + 6 and cache.hits == 6
        assert [c.name for c in store.get_row(rerun.run_id, 4).sample.actual_calls()] == [
            "track_order"
        ]


def test_a_changed_request_or_connector_is_a_miss(tmp_path, agent_stub):
    plan = _plan(tmp_path, agent_stub)
    cache = ResponseCache(tmp_path / "r.db")
    with open_store(tmp_path / "runs.db") as store:
        run_plan(plan, store=store, cache=cache)
        other = load_plan(
            write_plan(
                tmp_path,
                agent_stub,
                metrics=["tool_correctness"],
                name="other",
            )
        )
        # same connector and rows, other plan name and file: still hits
        run_plan(other, store=store, cache=cache)
        assert cache.hits == 5
        changed = dict(plan.connector, body={"query": "{{input}}"})
        import dataclasses

        run_plan(dataclasses.replace(plan, connector=changed), store=store, cache=cache)
        assert cache.hits == 5


def test_a_damaged_cache_entry_is_a_miss_and_an_unopenable_cache_is_exit_2(tmp_path, agent_stub):
    plan = _plan(tmp_path, agent_stub)
    cache = ResponseCache(tmp_path / "r.db")
    with open_store(tmp_path / "runs.db") as store:
        run_plan(plan, store=store, cache=cache)
        with sqlite3.connect(tmp_path / "r.db") as conn:
            conn.execute("UPDATE responses SET response = x'00ff'")
        calls = len(agent_stub.requests)
        run_plan(plan, store=store, cache=cache)
        assert len(agent_stub.requests) == calls + 6
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="cannot open the response cache"):
        ResponseCache(tmp_path / "file" / "responses.db")


def test_the_cache_lives_beside_a_sqlite_store(tmp_path):
    assert default_cache_path(str(tmp_path / "runs.db")) == tmp_path / "responses.db"
    assert str(default_cache_path("postgresql://u@h/db")) == ".tooleval/responses.db"


def test_cache_with_a_rate_limit_and_a_conversation(tmp_path, agent_stub):
    import json

    import yaml

    agent_stub.script("hi 4471", tools=["lookup_order"], output="found")
    agent_stub.script("cancel it", tools=["cancel_order"], output="cancelled")
    row = {"id": "t1", "turns": ["hi 4471", "cancel it"], "expected_tools": ["lookup_order", "cancel_order"]}  # fmt: skip
    (tmp_path / "convs.jsonl").write_text(json.dumps(row) + "\n")
    plan = {
        "dataset": "convs.jsonl",
        "connector": {
            "url": agent_stub.url + "/agent",
            "body": {"id": "{{metadata.session_id}}", "input": "{{input}}"},
            "response": {"tools_called": "$.steps[?(@.type=='tool_call')].tool.name"},
            "conversation": {},
        },
        "metrics": ["tool_correctness"],
    }
    (tmp_path / "conv.yaml").write_text(yaml.safe_dump(plan))
    plan = load_plan(tmp_path / "conv.yaml")
    cache = ResponseCache(tmp_path / "r.db")
    with open_store(tmp_path / "runs.db") as store:
        first = run_plan(plan, store=store, cache=cache, max_rps=50)
        second = run_plan(plan, store=store, cache=cache, max_rps=50)
        assert first.run.pass_rate("tool_correctness") == 1.0
        assert second.run.pass_rate("tool_correctness") == 1.0
        row = store.get_row(second.run_id, 0)
    assert len(agent_stub.requests) == 2 and cache.hits == 1
    assert [c.name for c in row.sample.actual_calls()] == ["lookup_order", "cancel_order"]


def test_a_run_store_or_other_database_is_never_opened_as_the_cache(tmp_path):
    db = tmp_path / "runs.db"
    with open_store(db) as store:
        store.list_runs()
    size = db.stat().st_size
    with pytest.raises(ConfigError, match="is not a response cache.*run store") as info:
        ResponseCache(db)
    assert info.value.field == "--cache-file"
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    for path in (db, other):
        with pytest.raises(ConfigError, match="not a response cache"):
            ResponseCache(path)
    with sqlite3.connect(db) as conn:  # the store is untouched: no cache table was added
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    assert "responses" not in tables and db.stat().st_size == size
    text = tmp_path / "cases.jsonl"
    text.write_text('{"input": "hi"}\n')
    with pytest.raises(ConfigError, match="cannot open the response cache"):
        ResponseCache(text)
    assert text.read_text() == '{"input": "hi"}\n'
