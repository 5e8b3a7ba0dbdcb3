"""``state_match``'s first divergence, found by stepping two replays, equals the snapshot algorithm's.

The oracle below is the algorithm ``state_match`` used before: replay each
call list to the end, keep the canonical text of the whole state after every
call, and take the first index where the two lists of texts differ (or the
shorter length). The planted failures include states that part and meet again,
lists that differ only in order (the canonical text sorts them), values equal
under ``==`` but of another type, unreadable calls, and tau-bench's own
airline and retail databases with the mutants of tests/episodes/tau_agents.py.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.environments import FunctionEnvironment, state_match
from tooleval.environments.diff import _key, same_key
from tooleval.environments.replay import run_call
from tooleval.model import ToolCall


def snapshot_divergence(environment, expected, actual, initial_state=None) -> dict[str, Any]:
    """The old algorithm: the canonical text of the whole state after every call of both lists."""

    def snapshots(calls):
        env = environment()
        env.reset(initial_state)
        kept = []
        for call in calls:
            run_call(env, call)
            kept.append(_key(env.state()))
        return kept

    gold, run = snapshots(expected), snapshots(actual)
    steps = min(len(gold), len(run))
    index = next((i for i in range(steps) if gold[i] != run[i]), steps)
    return {
        "index": index,
        "expected": str(expected[index]) if index < len(expected) else None,
        "actual": str(actual[index]) if index < len(actual) else None,
    }


class _Thing:
    """Equal only to itself, written the same by every instance (the canonical text uses repr)."""

    def __repr__(self) -> str:
        return "Thing()"


def _store():
    def put(state, key: str, value: Any = None):
        state["items"][key] = value
        return "ok"

    def drop(state, key: str):
        state["items"].pop(key)
        return "ok"

    def push(state, key: str, value: Any = None):
        state["items"].setdefault(key, []).append(value)
        return "ok"

    def shuffle(state, key: str):
        state["items"][key] = list(reversed(state["items"][key]))
        return "ok"

    def wrap(state, key: str):
        state["items"][key] = tuple(state["items"][key])
        return "ok"

    def obj(state, key: str):
        state["items"][key] = _Thing()
        return "ok"

    def nan(state, key: str):
        state["items"][key] = math.nan
        return "ok"

    def negzero(state, key: str):
        state["items"][key] = -0.0
        return "ok"

    return FunctionEnvironment(
        {
            "put": put,
            "drop": drop,
            "push": push,
            "shuffle": shuffle,
            "wrap": wrap,
            "obj": obj,
            "nan": nan,
            "negzero": negzero,
        },
        initial_state={"items": {"a": [1, 2], "n": 0.0}},
    )


def C(name: str, **args: Any) -> ToolCall:
    return ToolCall(name, args)


PLANTED = {
    "differ_at_first_call": ([C("put", key="x", value=1)], [C("put", key="x", value=2)]),
    "differ_later": (
        [C("put", key="x", value=1), C("put", key="y", value=1), C("put", key="z", value=1)],
        [C("put", key="x", value=1), C("put", key="y", value=2), C("put", key="z", value=1)],
    ),
    # part after call 1 and meet again after call 2: the first divergence is still call 1
    "part_and_meet_again": (
        [C("put", key="x", value=1), C("put", key="y", value=1), C("put", key="z", value=2)],
        [C("put", key="y", value=1), C("put", key="x", value=1), C("put", key="z", value=3)],
    ),
    "int_against_float": (
        [C("put", key="x", value=1), C("put", key="y", value=1)],
        [C("put", key="x", value=1.0), C("put", key="y", value=1)],
    ),
    "int_against_bool": ([C("put", key="x", value=1)], [C("put", key="x", value=True)]),
    # -0.0 == 0.0, but their texts differ; the end states differ at w
    "negative_zero": (
        [C("put", key="z", value=0), C("negzero", key="n"), C("put", key="w", value=1)],
        [C("put", key="z", value=0), C("put", key="n", value=0.0), C("put", key="w", value=2)],
    ),
    "nan_is_nan": (
        [C("nan", key="x"), C("put", key="y", value=1)],
        [C("nan", key="x"), C("put", key="y", value=2)],
    ),
    # a list in another order has the same canonical text: no divergence there
    "order_only": (
        [C("shuffle", key="a"), C("put", key="y", value=1)],
        [C("put", key="q", value=0), C("put", key="y", value=1)],
    ),
    "tuple_against_list": (
        [C("wrap", key="a"), C("put", key="y", value=1)],
        [C("put", key="b", value=0), C("put", key="y", value=2)],
    ),
    # objects the walk cannot decide: their canonical texts (the same repr) do
    "objects_by_their_text": (
        [C("put", key="k", value=1), C("obj", key="o"), C("put", key="y", value=1)],
        [C("put", key="k", value=1), C("obj", key="o"), C("put", key="y", value=2)],
    ),
    "none_against_absent": ([C("put", key="x")], [C("push", key="x")]),
    "unreadable_call": (
        [C("put", key="x", value=1), C("put", key="y", value=1)],
        [ToolCall.parse("put", "{x"), C("put", key="y", value=1)],
    ),
    "no_arguments": ([C("drop", key="a")], [ToolCall("drop", None)]),
    "failing_call": ([C("drop", key="a")], [C("drop", key="zz")]),
    "actual_longer": (
        [C("put", key="x", value=1)],
        [C("put", key="x", value=1), C("put", key="y", value=1)],
    ),
    "expected_longer": (
        [C("put", key="x", value=1), C("drop", key="a")],
        [C("put", key="x", value=1)],
    ),
    "nothing_done": ([C("put", key="x", value=1)], []),
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_first_divergence_is_the_snapshot_algorithms(name):
    expected, actual = PLANTED[name]
    result = state_match(expected, actual, environment=_store)
    oracle = snapshot_divergence(_store, expected, actual)
    assert result.score == 0.0, name  # every planted pair ends apart
    found = result.diagnosis.details["first_divergence"]
    assert found == oracle, name
    assert f"call {oracle['index'] + 1}:" in result.reason


def test_planted_failures_cover_meeting_again_and_order_only():
    # the cases that tell a prefix bisection or a plain == apart from the snapshot algorithm
    expected, actual = PLANTED["part_and_meet_again"]
    assert snapshot_divergence(_store, expected, actual)["index"] == 0
    expected, actual = PLANTED["order_only"]
    assert snapshot_divergence(_store, expected, actual)["index"] == 0  # put q vs shuffle
    expected, actual = PLANTED["tuple_against_list"]
    assert snapshot_divergence(_store, expected, actual)["index"] == 0


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True, width=16),
    st.sampled_from(["", "a", "1", "True"]),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "1"]), inner, max_size=3),
        st.dictionaries(st.sampled_from([1, True, "x"]), inner, max_size=2),
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES, _VALUES)
def test_same_key_is_equal_canonical_text(a, b):
    assert same_key(a, b) == (_key(a) == _key(b))
    assert same_key(a, a) == (_key(a) == _key(a))


def test_same_key_on_nested_values():
    # lists inside lists 150 deep: the canonical text grows with the value, not
    # exponentially with the depth (each level's text used to be escaped again)
    deep_a: Any = {"x": 1}
    deep_b: Any = {"x": 1}
    for level in range(150):
        deep_a, deep_b = [deep_a, level], [deep_b, level]
    assert same_key(deep_a, deep_b) and _key(deep_a) == _key(deep_b)
    assert len(_key(deep_a)) < 100 * 150
    deep_b[0][0][0][1] = 1.0
    assert not same_key(deep_a, deep_b) and _key(deep_a) != _key(deep_b)


def test_tau_bench_mutants_report_the_snapshot_divergence(shared_data):
    pytest.importorskip("pydantic", reason="tau-bench's tools need pydantic")
    from tests.conformance.tau_replay_reference import SOURCE
    from tests.episodes.tau_agents import MUTATIONS, variants
    from tests.episodes.tau_conformance import tau_tasks

    from tooleval.serving.tau_bench import airline, retail

    if not (SOURCE / "tau_bench" / "envs").is_dir():
        pytest.skip(f"tau-bench's source not found at {SOURCE}")
    checked = []
    # the oracle writes out tau-bench's whole database after every call: every mutant on
    # retail, one on airline (whose database is three times larger) keep the test short
    kinds = {
        "airline": ("wrong_argument",),
        "retail": ("drop_write", "extra_write", "reorder_writes"),
    }
    for domain, factory in (("airline", airline), ("retail", retail)):
        tasks = tau_tasks(shared_data, domain)
        if tasks is None:
            pytest.skip(f"tau-bench's {domain} tasks not found under {shared_data}")
        make = lambda factory=factory: factory({"source": str(SOURCE)})  # noqa: E731
        # the shortest tasks with two writes: every mutant applies, the oracle stays cheap
        order = sorted(range(len(tasks)), key=lambda i: (len(tasks[i]["actions"]), i))
        task = next(
            tasks[i] for i in order if len(variants(domain, _gold(tasks[i]))) == 1 + len(MUTATIONS)
        )
        for kind, actions in variants(domain, _gold(task)).items():
            if kind not in kinds[domain]:
                continue
            expected = [ToolCall(n, k) for n, k in _gold(task)]
            actual = [ToolCall(n, k) for n, k in actions]
            result = state_match(expected, actual, environment=make)
            if result.score == 1.0:
                continue  # a mutant that leaves the same database: nothing to explain
            found = result.diagnosis.details["first_divergence"]
            assert found == snapshot_divergence(make, expected, actual), (domain, kind)
            checked.append((domain, kind))
    assert {d for d, _ in checked} == {"airline", "retail"} and len(checked) >= 3, checked


def _gold(task: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(a["name"], a["kwargs"]) for a in task["actions"]]
