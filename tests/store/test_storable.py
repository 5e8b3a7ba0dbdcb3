"""A row is the unit of failure: content the store cannot hold as returned makes an error row.

Each class (deep nesting, oversize text, lone surrogates, integers outside 64
bits, NUL on PostgreSQL, over-wide row ids) is written through a real store
(SQLite file, then PostgreSQL) with a sound row beside it; and a real run
against an agent on 127.0.0.1 whose reply for one input is nested 400 deep
stores every row.
"""

from __future__ import annotations

import pytest
from tests.agent_stub import AgentStub
from tests.runs.support import script_correct, write_dataset, write_plan

from tooleval.cli.main import main
from tooleval.model import Result, Sample, ToolCall
from tooleval.store import RowRecord, open_store, storable


def _nested(depth: int, leaf=1):
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


def _sound(run_id: str, index: int) -> RowRecord:
    sample = Sample(input="ok", id=f"ok{index}", tools_called=[ToolCall("lookup", {"id": 1})])
    return RowRecord(run_id, index, f"ok{index}", sample, (Result("m", 1.0, True, "fine"),))


CLASSES = {
    "deep": (
        {"raw_response": _nested(400)},
        "raw_response.k.k.k.k.k.k.k.k nested deeper than 100 levels (depth-limited)",
    ),
    "deep-list-in-args": (
        {"tools_called": [ToolCall("f", {"a": [[[[[[[[[[[_nested(200)]]]]]]]]]]]})]},
        "depth-limited",
    ),
    "huge-int": ({"raw_response": {"n": 10**30}}, "raw_response.n held an integer outside 64 bits"),
    "oversize": ({"output": "x" * 5000}, "output was 5,000 characters long (truncated to 1,000)"),
    "long-row-id": ({"row_id": "r" * 400}, "row_id was 400 characters long (truncated to 300)"),
}


def _record(run_id: str, index: int, case: dict) -> RowRecord:
    sample = Sample(
        input="hi", id="bad", output=case.get("output"), tools_called=case.get("tools_called")
    )
    return RowRecord(
        run_id,
        index,
        case.get("row_id", "bad"),
        sample,
        (Result("m", 1.0, True, "fine"),),
        raw_response=case.get("raw_response"),
    )


@pytest.mark.parametrize("kind", sorted(CLASSES))
def test_each_class_is_stored_as_an_error_row_beside_the_others(store, run_name, kind, monkeypatch):
    monkeypatch.setattr(storable, "MAX_TEXT", 1000)
    case, why = CLASSES[kind]
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=[])
    store.add_row(run_id, _sound(run_id, 0))
    store.add_row(run_id, _record(run_id, 1, case))
    store.add_row(run_id, _sound(run_id, 2))
    rows = {r.index: r for r in store.iter_rows(run_id)}
    assert sorted(rows) == [0, 1, 2]
    bad = rows[1]
    assert bad.error.startswith("the row could not be stored as returned: ")
    assert why in bad.error
    assert bad.failure_class == "error"
    assert [(r.score, r.passed) for r in bad.results] == [(None, None)]
    assert bad.results[0].reason == f"not scored: {bad.error}"
    assert rows[0].error is None and rows[0].results[0].score == 1.0


def test_a_sound_row_is_stored_unchanged(store, run_name):
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=[])
    record = _record(run_id, 0, {"raw_response": _nested(90), "output": "é" * 100})
    store.add_row(run_id, record)
    (row,) = store.iter_rows(run_id)
    assert row.error is None and row.raw_response == _nested(90)
    assert row.sample.output == "é" * 100


def test_text_that_is_not_utf8_is_stored_with_the_replacement_character(store, run_name):
    # Lone surrogates (bytes that were not UTF-8, read with surrogateescape): the row
    # stays scored; U+FFFD in the stored text marks what was replaced.
    run_id = store.create_run(run_name, dataset={}, connector={}, metrics=[])
    case = {"output": "caf\udce9", "raw_response": {"t\udcff": ["x\udc80"]}}
    store.add_row(run_id, _record(run_id, 0, case))
    store.add_row(run_id, _sound(run_id, 1))
    rows = {r.index: r for r in store.iter_rows(run_id)}
    assert rows[0].sample.output == "caf\ufffd"
    assert rows[0].raw_response == {"t\ufffd": ["x\ufffd"]}
    assert rows[0].error is None and rows[0].results[0].score == 1.0 and rows[1].error is None


def test_a_run_whose_one_reply_is_nested_400_deep_stores_every_row(tmp_path, capsys):
    with AgentStub() as stub:
        write_dataset(tmp_path / "cases.jsonl")
        script_correct(stub)
        deep = {
            "output": "done",
            "steps": [{"type": "tool_call", "tool": {"name": "lookup_order"}}],
            "trace": _nested(400),
        }
        stub.script("where is order 7777", body=deep)
        plan = write_plan(tmp_path, stub)
        db = tmp_path / "r.db"
        code = main(["run", str(plan), "--store", str(db), "--quiet"])
    assert code == 1  # a gate on a failed row, never a failed run
    store = open_store(db)
    (run,) = store.list_runs()
    assert run.status == "finished"
    rows = list(store.iter_rows(run.id))
    assert len(rows) == 6
    (bad,) = [r for r in rows if r.error]
    assert bad.row_id == "s1" and "depth-limited" in bad.error
    assert "raw_response.trace" in bad.error
    store.close()


@pytest.mark.postgres
def test_postgresql_sessions_have_statement_and_lock_timeouts(pg_url):
    import sqlalchemy as sa

    store = open_store(pg_url)
    try:
        with store._engine.connect() as conn:
            statement = conn.execute(sa.text("SHOW statement_timeout")).scalar()
            lock = conn.execute(sa.text("SHOW lock_timeout")).scalar()
        assert (statement, lock) == ("5min", "1min")
    finally:
        store.close()


def test_sqlite_waits_for_a_lock_with_a_busy_timeout(tmp_path):
    import sqlalchemy as sa

    store = open_store(tmp_path / "r.db")
    try:
        with store._engine.connect() as conn:
            assert conn.execute(sa.text("PRAGMA busy_timeout")).scalar() == 30000
    finally:
        store.close()


_SOUND_VALUES = [
    None,
    {"a": [1, 2.5, True, None, "text", "naïve €"], "b": {"c": {"d": []}}},
    _nested(99),
    [2**63 - 1, -(2**63)],
]
_CHANGED_VALUES = [
    _nested(101),
    {"n": 2**63},
    {"s": "\ud800"},
    {"t": ("a", "b")},  # a tuple is written as a list
    {1: "non-text key"},
    {"nul": "a\x00b"},
]


@pytest.mark.parametrize("value", _SOUND_VALUES + _CHANGED_VALUES)
@pytest.mark.parametrize("nul", [False, True])
def test_values_kept_as_is_are_exactly_what_the_full_walk_returns(value, nul):
    # fit_row skips the copying walk for values _as_is accepts: it must accept only
    # values the walk would return unchanged (equal, of the same types, no note).
    fitter = storable._Fitter(nul=nul)
    walked = fitter.value(value, "raw_response")
    if storable._as_is(value, nul, 0):
        assert walked == value and repr(walked) == repr(value)
        assert fitter.changes == [] and not fitter.lossy
    else:
        assert value in _CHANGED_VALUES or (nul is False and value == {"nul": "a\x00b"})


def test_sound_values_take_the_short_way():
    for value in _SOUND_VALUES:
        assert storable._as_is(value, True, 0)
    for value in _CHANGED_VALUES:
        assert not storable._as_is(value, True, 0)
