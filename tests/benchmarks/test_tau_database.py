"""tau-bench replay over the shared database: records copied when read, verdicts as on a full copy.

A small domain built here (its tools are plain functions over ``data``, as
tau-bench's are) replays the same actions on a
:class:`~tooleval.benchmarks.tau_bench.database.Database` and on a full copy
of the data: the rewards, observations and gold hashes must be the same, and
the shared originals never change, whatever the tools do to the tables.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from tooleval.benchmarks.tau_bench import replay as tau_replay
from tooleval.benchmarks.tau_bench.database import Database, SharedTables, canonical
from tooleval.benchmarks.tau_bench.replay import Action, consistent_hash, replay_reward
from tooleval.benchmarks.tau_bench.replay_source import TauDomain

DATA = {
    "users": {
        "ann": {"cash": 10, "orders": ["o1"], "tags": {"vip": True}},
        "bob": {"cash": 0, "orders": [], "tags": {}},
    },
    "orders": {"o1": {"user": "ann", "items": [1, 2], "status": "open"}},
}


def _pay(data: dict[str, Any], user: str, amount: int) -> str:
    data["users"][user]["cash"] -= amount
    return json.dumps(data["users"][user])


def _cancel(data: dict[str, Any], order: str) -> str:
    data["orders"][order]["status"] = "cancelled"
    data["orders"][order]["items"].append(0)
    return "ok"


def _find(data: dict[str, Any], cash: int) -> str:  # reads by iterating, as search tools do
    return json.dumps([name for name, user in data["users"].items() if user["cash"] == cash])


def _poison(data: dict[str, Any]) -> str:  # changes the records it iterated: the originals
    for user in data["users"].values():
        user["cash"] = -1
    return "poisoned"


def _table_ops(data: dict[str, Any], key: str) -> str:
    users = data["users"]
    users.setdefault(key, {"cash": 1})
    popped = users.pop("bob", None)
    merged = {**users}
    merged["ann"]["tags"]["merged"] = True  # {**table} reads through the copy
    copied = users.copy()
    copied["ann"]["cash"] += 1
    return json.dumps([popped, sorted(merged), len(users)])


def _new_table(data: dict[str, Any]) -> str:
    data["audit"] = {"x": 1}
    return "ok"


def _replace_table(data: dict[str, Any]) -> str:
    data["orders"] = {"o1": {"user": "ann", "items": [1, 2], "status": "open"}}
    return "ok"


TOOLS = {
    "pay": _pay,
    "cancel": _cancel,
    "find": _find,
    "poison": _poison,
    "table_ops": _table_ops,
    "new_table": _new_table,
    "replace_table": _replace_table,
}


def _domain(shared: bool) -> TauDomain:
    raw = orjson.dumps(DATA)
    return TauDomain(
        "retail",
        dict(TOOLS),
        frozenset({"transfer"}),
        "sha256:test",
        Path("."),
        raw,
        SharedTables.parse(raw) if shared else None,
    )


def _a(name: str, **kwargs: Any) -> Action:
    return Action(name, kwargs)


CASES = {
    "same writes": ([_a("pay", user="ann", amount=3)], [_a("pay", user="ann", amount=3)]),
    "other amount": ([_a("pay", user="ann", amount=3)], [_a("pay", user="ann", amount=4)]),
    "other record": ([_a("pay", user="ann", amount=0)], [_a("pay", user="bob", amount=0)]),
    "int vs float": ([_a("pay", user="ann", amount=3)], [_a("pay", user="ann", amount=3.0)]),
    "read only": ([_a("find", cash=10)], []),
    "nested list": ([_a("cancel", order="o1")], [_a("cancel", order="o1"), _a("find", cash=0)]),
    "missing key": ([_a("pay", user="zed", amount=1)], []),
    "table ops": ([_a("table_ops", key="cy")], [_a("table_ops", key="cy")]),
    "table ops vs none": ([_a("table_ops", key="cy")], []),
    "poison": ([_a("poison")], [_a("poison")]),
    "poison vs none": ([], [_a("poison")]),
    "new table": ([_a("new_table")], [_a("new_table")]),
    "new table vs none": ([_a("new_table")], []),
    "replaced, same content": ([_a("replace_table")], []),
    "replaced vs a write": ([_a("replace_table")], [_a("cancel", order="o1")]),
}


@pytest.mark.parametrize("name", CASES)
def test_a_replay_on_the_shared_database_matches_one_on_a_full_copy(name):
    gold, actions = CASES[name]
    results = []
    for shared in (True, False):
        tau_replay._gold_cache.clear()
        domain = _domain(shared)
        results.append(replay_reward(domain, gold, [], actions, tau_hash=True))
        if domain.shared is not None:  # the originals are as parsed, after any tool
            assert domain.shared.intact(domain.shared.tables, domain.shared.tables)
    ours, plain = results
    assert (ours.reward, ours.observations, ours.gt_data_hash) == (
        plain.reward,
        plain.observations,
        plain.gt_data_hash,
    )
    assert plain.gt_data_hash == consistent_hash(_expected_gold(gold))


def _expected_gold(gold: list[Action]) -> dict[str, Any]:
    data = orjson.loads(orjson.dumps(DATA))
    for action in gold:
        with contextlib.suppress(Exception):  # the replay answers errors as text too
            TOOLS[action.name](data, **action.kwargs)
    return data


def test_the_expected_verdicts_of_the_cases():
    verdicts = {}
    for name, (gold, actions) in CASES.items():
        tau_replay._gold_cache.clear()
        verdicts[name] = replay_reward(_domain(True), gold, [], actions).r_actions
    assert verdicts == {
        "same writes": True,
        "other amount": False,
        "other record": True,  # paying 0 leaves every record as it was
        "int vs float": False,  # 7 and 7.0 hash apart in tau-bench
        "read only": True,
        "nested list": True,
        "missing key": True,
        "table ops": True,
        "table ops vs none": False,
        "poison": True,
        "poison vs none": False,
        "new table": True,
        "new table vs none": False,
        "replaced, same content": True,
        "replaced vs a write": False,
    }


def test_a_record_is_copied_when_read_and_the_originals_stay():
    shared = SharedTables.parse(orjson.dumps(DATA))
    database = Database(shared)
    ann = database.data["users"]["ann"]
    ann["orders"].append("o2")
    assert shared.tables["users"]["ann"]["orders"] == ["o1"]
    assert database.data["users"]["ann"] is ann  # read again: the same copy
    assert Database(shared).data["users"]["ann"]["orders"] == ["o1"]
    footprint = database.footprint()
    assert footprint is not None and set(footprint.records) == {("users", "ann")}
    assert footprint.records[("users", "ann")] == canonical(ann)


def test_iterating_then_changing_an_original_is_found():
    shared = SharedTables.parse(orjson.dumps(DATA))
    database = Database(shared)
    assert database.intact()
    list(database.data["users"].values())[0]["cash"] = 99
    assert not database.intact()
    shared.renew()
    assert shared.tables["users"]["ann"]["cash"] == 10
    assert Database(shared).intact()


def test_data_that_is_not_an_object_of_tables_is_refused_by_the_shared_form():
    for raw in (b"[1]", b'{"users": [1, 2]}'):
        with pytest.raises(ValueError, match="object of tables"):
            SharedTables.parse(raw)


def test_differences_are_listed_in_the_databases_order_whatever_the_hash_seed():
    """The touched records were gathered in a set: the order (and the limit's cut) changed
    from one process to the next. They are listed in the database's order now."""
    users = {f"u{i}": {"cash": 10, "orders": [], "tags": {}} for i in range(8)}
    raw = orjson.dumps({"users": users, "orders": {}})
    domain = TauDomain(
        "retail", dict(TOOLS), frozenset(), "sha256:test", Path("."), raw, SharedTables.parse(raw)
    )
    tau_replay._gold_cache.clear()
    gold = [_a("pay", user=f"u{i}", amount=1) for i in (7, 1, 5, 3)]
    actions = [_a("pay", user=f"u{i}", amount=2) for i in (6, 0, 4, 2)]
    replayed = replay_reward(domain, gold, [], actions)
    paths = [d["path"] for d in replayed.differences or []]
    assert [p.split(".")[1] for p in paths] == [f"u{i}" for i in range(8)], paths
