"""The environment protocol, replay, state diff and state_match, attacked as an agent could."""

from __future__ import annotations

import copy
import threading
import time

import pytest

from tooleval.environments import (
    ClassEnvironment,
    Environment,
    FunctionEnvironment,
    Limits,
    replay,
    state_diff,
    state_match,
)
from tooleval.errors import ConfigError
from tooleval.model import ToolCall


def _orders(initial=None, limits=None):
    def cancel(state, order_id: str, reason: str = "no longer needed"):
        order = state["orders"].get(order_id)
        if order is None:
            raise KeyError(f"no order {order_id}")
        order["status"] = "cancelled"
        order["reason"] = reason
        return f"cancelled {order_id}"

    def tag(state, order_id: str, tags: list):
        state["orders"][order_id].setdefault("tags", []).extend(tags)
        return state["orders"][order_id]["tags"]

    def spin(state, seconds: float):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        return "done"

    def grow(state, n: int):
        state["junk"] = list(range(n))
        return len(state["junk"])

    return FunctionEnvironment(
        {"cancel": cancel, "tag": tag, "spin": spin, "grow": grow},
        initial_state=initial
        or {"orders": {"W1": {"status": "pending"}, "W2": {"status": "pending"}}},
        limits=limits,
    )


def test_function_environment_runs_and_resets_from_a_copy():
    initial = {"orders": {"W1": {"status": "pending"}}}
    env = _orders(initial)
    assert isinstance(env, Environment)
    assert env.call("cancel", {"order_id": "W1"}).result == "cancelled W1"
    assert env.state()["orders"]["W1"]["status"] == "cancelled"
    assert initial["orders"]["W1"]["status"] == "pending"  # the caller's state is never touched
    env.reset()
    assert env.state()["orders"]["W1"] == {"status": "pending"}


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("delete_everything", {}, "unknown tool 'delete_everything'"),
        ("__import__", {"name": "os"}, "unknown tool '__import__'"),
        ("cancel.__globals__", {}, "unknown tool 'cancel.__globals__'"),
        ("_private", {}, "unknown tool '_private'"),
        (None, {}, "unknown tool None"),
        ("cancel", {"order_id": 7}, "argument 'order_id' must be str, got int"),
        ("cancel", {"order_id": "W1", "order": "W1"}, "unexpected keyword argument 'order'"),
        ("cancel", {}, "missing a required argument: 'order_id'"),
        ("cancel", ["W1"], "arguments must be an object, got list"),
        ("cancel", {"order_id": b"W1"}, "is a bytes, expected a JSON value"),
        ("cancel", {"order_id": "W9"}, "KeyError"),
        ("tag", {"order_id": "W1", "tags": "a"}, "argument 'tags' must be list"),
    ],
)
def test_hostile_calls_give_error_results_and_change_nothing(name, arguments, message):
    env = _orders()
    before = copy.deepcopy(env.state())
    outcome = env.call(name, arguments)
    assert outcome.is_error and message in outcome.result
    assert env.state() == before


def test_arguments_that_look_like_code_stay_text():
    env = _orders()
    code = "__import__('os').system('touch /tmp/tooleval_pwned')"
    outcome = env.call("cancel", {"order_id": "W1", "reason": code})
    assert not outcome.is_error
    assert env.state()["orders"]["W1"]["reason"] == code


def test_a_looping_tool_is_stopped_at_its_deadline():
    env = _orders(limits=Limits(call_seconds=0.2))
    started = time.monotonic()
    outcome = env.call("spin", {"seconds": 30})
    assert outcome.is_error and "deadline" in outcome.result
    assert time.monotonic() - started < 10
    assert env.call("cancel", {"order_id": "W1"}).result == "cancelled W1"  # still usable


def test_the_deadline_holds_in_a_worker_thread():
    env = _orders(limits=Limits(call_seconds=0.2))
    outcomes = []
    worker = threading.Thread(target=lambda: outcomes.append(env.call("spin", {"seconds": 30})))
    worker.start()
    worker.join(20)
    assert not worker.is_alive() and outcomes[0].is_error


def test_huge_states_and_results_are_refused():
    env = _orders(limits=Limits(state_items=1000, result_chars=None))
    assert env.call("grow", {"n": 5000}).result == 5000
    with pytest.raises(ConfigError, match="more than 1000 items"):
        env.state()
    with pytest.raises(ConfigError, match="more than 1000 items"):
        env.reset({"junk": list(range(5000))})
    small = _orders(limits=Limits(result_chars=10))
    assert small.call("tag", {"order_id": "W1", "tags": list(range(50))}).is_error


def test_call_count_is_bounded():
    env = _orders(limits=Limits(calls=2))
    for _ in range(2):
        env.call("cancel", {"order_id": "W1"})
    assert "more than 2 calls" in env.call("cancel", {"order_id": "W1"}).result


class Shop:
    def __init__(self, stock: dict | None = None, log: list | None = None):
        self.stock = stock or {}
        self.log = log if log is not None else []
        self._secret = "hidden"

    def sell(self, sku: str, qty: int = 1) -> int:
        self.stock[sku] -= qty
        self.log.append(sku)
        return self.stock[sku]

    @staticmethod
    def price(sku: str) -> float:
        return 9.5

    def _restock(self, sku: str) -> None:
        self.stock[sku] = 100


def test_class_environment_public_methods_only_and_fresh_instances():
    env = ClassEnvironment(Shop, initial_state={"stock": {"A": 3}, "log": []})
    assert env.tool_names == ["price", "sell"]
    assert env.call("sell", {"sku": "A"}).result == 2
    assert env.call("price", {"sku": "A"}).result == 9.5
    assert env.call("_restock", {"sku": "A"}).is_error
    assert env.call("__init__", {}).is_error
    assert env.state() == {"stock": {"A": 2}, "log": ["A"]}  # private attributes do not count
    env.reset()
    assert env.state() == {"stock": {"A": 3}, "log": []}  # no list shared with the last replay


def test_mutable_defaults_do_not_leak_between_replays():
    def add(state, item: str, bag: list = []):  # noqa: B006  (the hazard under test)
        bag.append(item)
        state["bag"] = list(bag)
        return len(bag)

    make = lambda: FunctionEnvironment({"add": add}, initial_state={})  # noqa: E731
    first = replay(make(), [ToolCall("add", {"item": "x", "bag": []})])
    second = replay(make(), [ToolCall("add", {"item": "x", "bag": []})])
    assert first.state == second.state == {"bag": ["x"]}


def test_environment_definition_errors():
    with pytest.raises(ConfigError, match="at least one tool"):
        FunctionEnvironment({})
    with pytest.raises(ConfigError, match="not starting with '_'"):
        FunctionEnvironment({"_x": lambda s: None})
    with pytest.raises(ConfigError, match="state as its first parameter"):
        FunctionEnvironment({"x": lambda: None})
    with pytest.raises(ConfigError, match="failed"):
        ClassEnvironment(Shop, initial_state={"unknown": 1})


def test_replay_does_not_run_unreadable_calls():
    run = replay(
        _orders(),
        [
            ToolCall.parse("cancel", "{not json"),
            ToolCall("cancel", None),
            ToolCall("cancel", {"order_id": "W2"}),
        ],
    )
    assert [o.executed for o in run.outcomes] == [False, False, True]
    assert "could not be read" in run.outcomes[0].result
    assert run.results()[2].result == "cancelled W2"


def test_state_diff_paths_order_and_scope():
    expected = {"orders": {"W1": {"status": "cancelled", "tags": ["a", "b"]}}, "n": 1}
    actual = {"orders": {"W1": {"status": "pending", "tags": ["b", "a"]}, "W 2": {}}, "n": 1.0}
    paths = [d.path for d in state_diff(expected, actual)]
    assert paths == [
        "orders.W1.status",
        "orders.W1.tags[0]",
        "orders.W1.tags[1]",
        'orders["W 2"]',
        "n",  # 1 and 1.0 differ: a state hash sees them apart
    ]
    assert [d.path for d in state_diff(expected, actual, list_order="ignore")] == [
        "orders.W1.status",
        'orders["W 2"]',
        "n",
    ]
    assert [d.path for d in state_diff(expected, actual, include=["orders.W1"])] == [
        "orders.W1.status",
        "orders.W1.tags[0]",
        "orders.W1.tags[1]",
    ]
    assert [d.path for d in state_diff(expected, actual, exclude=["orders", "n"])] == []
    with pytest.raises(ValueError, match="list_order"):
        state_diff({}, {}, list_order="sometimes")


def test_state_diff_survives_deep_nesting_and_odd_objects():
    deep_a: dict = {}
    deep_b: dict = {}
    a, b = deep_a, deep_b
    for _ in range(5000):
        a["x"], b["x"] = {}, {}
        a, b = a["x"], b["x"]
    b["y"] = 1
    assert len(state_diff(deep_a, deep_b)) == 1

    class Weird:
        def __eq__(self, other):
            raise RuntimeError("no")

    assert state_diff({"w": Weird()}, {"w": Weird()})[0].path == "w"


def _make():
    return _orders()


def test_state_match_same_state_by_another_route():
    gold = [ToolCall("cancel", {"order_id": "W1"})]
    actual = [
        ToolCall("cancel", {"order_id": "W404"}),  # errors, changes nothing
        ToolCall("cancel", {"order_id": "W1"}),
        ToolCall("cancel", {"order_id": "W1"}),  # same value again: same state
    ]
    result = state_match(gold, actual, environment=_make)
    assert result.score == 1.0 and result.passed
    assert result.diagnosis.details["actual_results"][0]["is_error"] is True


def test_state_match_reports_paths_and_first_divergence():
    gold = [ToolCall("cancel", {"order_id": "W1"}), ToolCall("cancel", {"order_id": "W2"})]
    actual = [
        ToolCall("cancel", {"order_id": "W1"}),
        ToolCall("tag", {"order_id": "W2", "tags": ["x"]}),
    ]
    result = state_match(gold, actual, environment=_make)
    assert result.score == 0.0
    details = result.diagnosis.details
    assert {d["path"] for d in details["differences"]} == {
        "orders.W2.status",
        "orders.W2.reason",
        "orders.W2.tags",
    }
    assert details["first_divergence"]["index"] == 1
    assert "first diverging call: call 2" in result.reason


def test_state_match_outputs_are_read_from_call_results():
    gold = [ToolCall("cancel", {"order_id": "W1"})]
    ok = state_match(gold, gold, environment=_make, outputs=["cancelled W1"])
    assert ok.score == 1.0
    missing = state_match(gold, gold, environment=_make, outputs=["refund issued"])
    assert missing.score == 0.0 and missing.diagnosis.details["missing_outputs"] == [
        "refund issued"
    ]


def test_state_match_unscored_when_it_cannot_replay():
    assert state_match(None, [], environment=_make).score is None
    assert "no arguments" in state_match([ToolCall("cancel", None)], [], environment=_make).reason

    def broken():
        return _orders(limits=Limits(state_items=3))

    result = state_match([], [], environment=broken)
    assert result.score is None and "cannot replay" in result.reason
