"""`repeat`, `max_rps` and `cache` as plan keys; the command line overrides them."""

from __future__ import annotations

import pytest
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.errors import ConfigError
from tooleval.runs.plan import load_plan, plan_from_dict
from tooleval.store import open_store

BASE = {"dataset": "d.jsonl", "connector": {}, "metrics": ["tool_correctness"]}


def test_plan_keys_are_read_and_a_cache_file_resolves_from_the_plan_folder(tmp_path):
    plan = plan_from_dict(
        {**BASE, "repeat": 3, "max_rps": 20, "cache": "cache/responses.db"}, base_dir=tmp_path
    )
    assert (plan.repeat, plan.max_rps, plan.cache) == (3, 20.0, True)
    assert plan.cache_file == tmp_path / "cache" / "responses.db"
    bare = plan_from_dict({**BASE, "cache": True})
    assert (bare.repeat, bare.max_rps, bare.cache, bare.cache_file) == (None, None, True, None)
    off = plan_from_dict(BASE)
    assert (off.repeat, off.max_rps, off.cache, off.cache_file) == (None, None, False, None)


@pytest.mark.parametrize(
    "key,value,message",
    [
        ("repeat", 0, "field repeat: expected a whole number from 1 to 100, got 0"),
        ("repeat", 101, "field repeat: expected a whole number from 1 to 100"),
        ("repeat", True, "field repeat: expected a whole number"),
        ("repeat", "3", "field repeat: expected a whole number"),
        ("repeat", 2.5, "field repeat: expected a whole number"),
        ("max_rps", 0, "field max_rps: expected a number > 0"),
        ("max_rps", float("inf"), "field max_rps: expected a number > 0"),
        ("max_rps", float("nan"), "field max_rps: expected a number > 0"),
        ("max_rps", "fast", "field max_rps: expected a number of requests per second"),
        ("max_rps", False, "field max_rps: expected a number of requests per second"),
        ("cache", 1, "field cache: expected true, false or a cache file path, got int"),
        ("cache", "  ", "field cache: expected true, false or a cache file path"),
        ("cache", ["a.db"], "field cache: expected true, false or a cache file path"),
    ],
)
def test_bad_plan_keys_name_the_key(key, value, message):
    with pytest.raises(ConfigError) as caught:
        plan_from_dict({**BASE, key: value})
    assert message in str(caught.value)


def test_a_misspelt_key_lists_the_new_keys():
    with pytest.raises(ConfigError, match="cache, concurrency, .* max_rps, .* repeat, tags"):
        plan_from_dict({**BASE, "repeats": 3})


def _setup(tmp_path, stub, **extra):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(stub)
    stub.script("cancel order 5502", tools=["lookup_order", "cancel_order"], fail_times=1)
    stub.script("where is order 8888", tools=["search_orders"])
    extra.setdefault("gate", {"require_any_pass": False})  # rows fail on purpose
    return write_plan(tmp_path, stub, metrics=["tool_correctness"], concurrency=1, **extra)


def _attempts(db):
    with open_store(db) as store:
        run = store.list_runs()[0]
        return (run.config.get("repeat") or {}).get("n", 1)


def test_plan_repeat_and_cache_drive_the_run(tmp_path, agent_stub, capsys):
    plan = _setup(tmp_path, agent_stub, repeat=2, max_rps=500, cache="store/cache.db")
    assert load_plan(plan).repeat == 2
    db = tmp_path / "runs.db"
    args = ["run", str(plan), "--store", str(db), "--quiet", "--max-error-rate", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "repeats: 2 attempts per row, 6 rows complete" in out
    assert "hits" in out and "stored" in out  # the cache's tally: the plan turned it on
    assert (tmp_path / "store" / "cache.db").exists()
    assert not (tmp_path / "responses.db").exists()
    assert _attempts(db) == 2
    assert len(agent_stub.requests) == 12


def test_the_command_line_overrides_the_plan(tmp_path, agent_stub, capsys):
    plan = _setup(tmp_path, agent_stub, repeat=3, cache=True)
    db = tmp_path / "runs.db"
    args = ["run", str(plan), "--store", str(db), "--quiet", "--max-error-rate", "1"]
    assert main([*args, "--repeat", "1", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "repeats:" not in out and "hits" not in out
    assert not (tmp_path / "responses.db").exists()
    assert _attempts(db) == 1
    assert len(agent_stub.requests) == 6


def test_a_bad_plan_key_is_one_line_exit_2_before_any_call(tmp_path, agent_stub, capsys):
    plan = _setup(tmp_path, agent_stub, max_rps=-1)
    assert main(["run", str(plan), "--store", str(tmp_path / "r.db"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "max_rps" in err and "expected a number > 0" in err and "\n" not in err
    assert agent_stub.requests == []
