"""What the response cache reads back is checked like input: a wrong shape is a miss.

A real run against an agent on 127.0.0.1 fills the cache; every entry is then
replaced by valid JSON of another shape. The next run calls the agent for
every row (no connector errors), stores the fresh answers over the damaged
entries, and the run after that is served from the cache again.
"""

from __future__ import annotations

import sqlite3

import orjson
import pytest
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.runs.plan import load_plan
from tooleval.runs.response_cache import ResponseCache, _decode
from tooleval.runs.runner import run_plan
from tooleval.store import open_store

SHAPES = {
    "list": [1, 2],
    "null": None,
    "text": "lookup_order",
    "calls-as-text": {"tools_called": "lookup_order"},
    "call-without-name": {"tools_called": [{"args": {"id": 1}}]},
    "call-name-not-text": {"tools_called": [{"name": 7}]},
    "call-args-a-list": {"tools_called": [{"name": "lookup_order", "args": [1]}]},
    "calls-a-dict": {"tools_called": {"name": "lookup_order"}},
    "output-a-number": {"output": 5, "tools_called": []},
    "warnings-text": {"tools_called": [], "warnings": "hit"},
    "messages-text": {"tools_called": [], "messages": "hi"},
    "message-without-role": {"tools_called": [], "messages": [{"content": "hi"}]},
    "status-text": {"tools_called": [], "status": "200"},
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_wrong_shape_decodes_to_a_miss(shape):
    assert _decode(SHAPES[shape]) is None


def test_damaged_entries_are_misses_in_a_run_and_are_replaced(tmp_path, agent_stub):
    write_dataset(tmp_path / "cases.jsonl")
    script_correct(agent_stub)
    plan = load_plan(write_plan(tmp_path, agent_stub, metrics=["tool_correctness"]))
    path = tmp_path / "r.db"
    with open_store(tmp_path / "runs.db") as store:
        run_plan(plan, store=store, cache=ResponseCache(path))
        with sqlite3.connect(path) as conn:
            keys = [k for (k,) in conn.execute("SELECT key FROM responses ORDER BY key")]
            shapes = list(SHAPES.values())
            for i, key in enumerate(keys):
                blob = orjson.dumps(shapes[i % len(shapes)])
                conn.execute("UPDATE responses SET response = ? WHERE key = ?", (blob, key))
        calls = len(agent_stub.requests)
        cache = ResponseCache(path)
        damaged = run_plan(plan, store=store, cache=cache)
        assert len(agent_stub.requests) == calls + 6  # every row called the agent
        assert damaged.run.error_count == 0
        assert damaged.run.pass_rate("tool_correctness") == 1.0
        assert (cache.hits, cache.misses, cache.damaged) == (0, 6, 6)
        assert "6 damaged entries replaced" in cache.describe()
        again = ResponseCache(path)
        run_plan(plan, store=store, cache=again)
        assert len(agent_stub.requests) == calls + 6 and again.hits == 6
