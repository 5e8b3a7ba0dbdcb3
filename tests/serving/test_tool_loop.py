"""An environment served to the openai connector's tool loop: calls executed and recorded by tooleval.

The agent is a real OpenAI-compatible server on 127.0.0.1 (tests/openai_server.py)
whose replies are decided from each request (stateless, so concurrent episodes
never take each other's steps).
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from tests.openai_server import OpenAIServer, completion

from tooleval.connectors import connector_from_config as plain_connector
from tooleval.environments import FunctionEnvironment, Limits, register_environment
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample
from tooleval.runs import plan_from_dict, run_plan
from tooleval.serving import EnvironmentTools, connector_from_config, tool_specs
from tooleval.store import open_store


def _put(state, key: str, value: int):
    """Store value under key."""
    if key == "boom":
        raise ValueError("the tool broke")
    state[key] = value
    return {"stored": key}


def _get(state, key: str):
    """Read a key."""
    return state.get(key)


_BUILT: list[FunctionEnvironment] = []


def _kv(config):
    env = FunctionEnvironment({"put": _put, "get": _get}, initial_state=dict(config))
    _BUILT.append(env)
    return env


register_environment("serving_kv", _kv)


def _tool_calls(number, calls):
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"c{number}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for i, (name, args) in enumerate(calls)
        ],
    }


def scripted(steps_for):
    """A reply function: ``steps_for(user_text)`` lists the tool-call steps, then 'done'."""

    def reply(body, number):
        messages = body["messages"]
        user = next(m["content"] for m in messages if m["role"] == "user")
        turn = sum(1 for m in messages if m["role"] == "assistant")
        steps = steps_for(user)
        if turn < len(steps):
            return completion(_tool_calls(number, steps[turn]), finish="tool_calls")
        return completion({"role": "assistant", "content": "done"})

    return reply


def _connector(server, **extra):
    config = {"type": "openai", "base_url": server.base_url, "model": "m", **extra}
    return connector_from_config(config, environment=extra.pop("plan_environment", None))


def test_calls_are_executed_by_the_environment_and_recorded():
    steps = [[("put", json.dumps({"key": "a", "value": 1}))], [("get", '{"key": "a"}')]]
    with OpenAIServer(scripted(lambda _: steps)) as server:
        connector = _connector(server, environment="serving_kv")
        response = connector.call(Sample(id="r1", input="store a"))
    assert [(c.name, c.result) for c in response.tools_called] == [
        ("put", {"stored": "a"}),
        ("get", 1),
    ]
    # The tools offered were derived from the environment's functions.
    offered = {t["function"]["name"]: t["function"] for t in server.requests[0]["tools"]}
    assert offered["put"]["parameters"]["required"] == ["key", "value"]
    assert offered["put"]["description"] == "Store value under key."
    # The model saw each result as a tool message.
    assert server.requests[1]["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "c1_0",
        "content": '{"stored": "a"}',
    }
    episode = response.metadata["episode"]
    assert episode["environment"] == "serving_kv"
    assert [(c["name"], c["args"], c["result"]) for c in episode["calls"]] == [
        ("put", {"key": "a", "value": 1}, {"stored": "a"}),
        ("get", {"key": "a"}, 1),
    ]
    assert all(c["ms"] >= 0 for c in episode["calls"])
    filled = response.apply_to(Sample(id="r1", metadata={"k": 1}))
    assert filled.metadata["k"] == 1 and filled.metadata["episode"] == episode


def test_bad_arguments_a_raising_tool_and_an_unknown_tool_are_results_not_crashes():
    steps = [
        [("put", '{"key": "x"')],  # not JSON
        [("put", json.dumps({"key": "x", "value": "text"}))],  # wrong type
        [("put", json.dumps({"key": "boom", "value": 1}))],  # the tool raises
        [("rm", "{}")],  # no such tool
    ]
    with OpenAIServer(scripted(lambda _: steps)) as server:
        response = _connector(server, environment="serving_kv").call(Sample(id="r", input="x"))
    calls = response.metadata["episode"]["calls"]
    assert [c.get("is_error") for c in calls] == [True] * 4
    assert [c.get("executed", True) for c in calls] == [False, False, True, False]
    assert "could not be read" in calls[0]["result"]
    assert "must be int" in calls[1]["result"]
    assert "ValueError: the tool broke" in calls[2]["result"]
    assert "unknown tool 'rm'" in calls[3]["result"]
    assert response.output == "done"  # the model saw the errors and ended the episode


def test_one_fresh_environment_per_row_and_attempt_even_concurrently():
    def steps_for(user):
        return [[("put", json.dumps({"key": user, "value": 1}))], [("get", '{"key": "seed"}')]]

    with OpenAIServer(scripted(steps_for)) as server:
        connector = _connector(server, environment={"name": "serving_kv", "config": {"seed": 7}})

        async def episodes():
            rows = [Sample(id=f"r{i}", input=f"k{i}") for i in range(6)]
            return await asyncio.gather(*(connector.acall(s) for s in rows))

        before = len(_BUILT)
        responses = asyncio.run(episodes())
    assert len(_BUILT) - before >= 6  # a new instance for every episode
    for i, response in enumerate(responses):
        assert [c.result for c in response.tools_called] == [{"stored": f"k{i}"}, 7]
    states = [env.state() for env in _BUILT[before:] if len(env.state()) > 1]
    assert sorted(tuple(sorted(s)) for s in states) == sorted((f"k{i}", "seed") for i in range(6))


def test_an_episode_past_its_deadline_is_the_rows_error():
    release = threading.Event()

    def wait(state):
        release.wait(30)
        return "late"

    register_environment(
        "serving_slow",
        lambda config: FunctionEnvironment(
            {"wait": wait}, initial_state={}, limits=Limits(call_seconds=None)
        ),
    )
    with OpenAIServer(scripted(lambda _: [[("wait", "{}")]])) as server:
        connector = _connector(server, environment="serving_slow", episode_timeout=0.2)

        async def episode():
            try:
                await connector.acall(Sample(id="slow", input="x"))
            finally:
                release.set()  # the tool's thread ends, so the loop can close

        with pytest.raises(ConnectorError, match="episode_timeout"):
            asyncio.run(episode())


def test_the_row_may_name_its_own_initial_state():
    steps = [[("get", '{"key": "a"}')]]
    with OpenAIServer(scripted(lambda _: steps)) as server:
        connector = _connector(server, environment="serving_kv")
        row = Sample(id="r", input="x", metadata={"environment": {"initial_state": {"a": 42}}})
        assert connector.call(row).tools_called[0].result == 42


def test_configuration_mistakes_are_refused_up_front(tmp_path):
    base = {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    with pytest.raises(ConfigError, match="not both"):
        connector_from_config({**base, "environment": "serving_kv", "tool_executor": "json:dumps"})
    with pytest.raises(ConfigError, match="openai connector"):
        connector_from_config({"url": "http://127.0.0.1:9/a", "environment": "serving_kv"})
    with pytest.raises(ConfigError, match="give environment or user too"):
        connector_from_config({**base, "episode_timeout": 5})
    with pytest.raises(ConfigError, match="unknown environment"):
        connector_from_config({**base, "environment": "serving_nope"})
    with pytest.raises(ConfigError, match="tooleval.serving"):
        plain_connector({**base, "environment": "serving_kv"})
    with pytest.raises(ConfigError, match="episode_timeout"):
        connector_from_config({**base, "environment": "serving_kv", "episode_timeout": 0})
    # A plan's environment serves an openai connector without a tool executor.
    plan = plan_from_dict(
        {"dataset": "d.jsonl", "connector": base, "metrics": ["tool_correctness"]}
        | {"environment": "serving_kv"},
        base_dir=tmp_path,
    )
    assert plan.environment == {"name": "serving_kv", "config": {}}


def test_given_tools_win_and_an_environment_without_a_tool_list_needs_them():
    class Bare:
        def reset(self, initial_state=None):
            self.s = {}

        def call(self, name, arguments):
            raise RuntimeError("never asked")

        def state(self):
            return self.s

    register_environment("serving_bare", lambda config: Bare())
    with pytest.raises(ConfigError, match="give the connector's tools"):
        EnvironmentTools({"name": "serving_bare"}).tool_specs()
    given = [{"name": "anything"}]
    connector = connector_from_config(
        {
            "type": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "environment": "serving_bare",
            "tools": given,
        }
    )
    assert connector.describe()["tools"] == ["anything"]
    with OpenAIServer(scripted(lambda _: [[("anything", "{}")]])) as server:
        connector = _connector(server, environment="serving_bare", tools=given)
        call = connector.call(Sample(id="r", input="x")).tools_called[0]
    assert call.is_error and "the environment raised RuntimeError" in call.result
    assert tool_specs(_kv({}), "kv")[1]["function"]["name"] == "put"


def _write_rows(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_run_stores_the_recorded_calls_and_state_match_reads_the_end_state(tmp_path):
    _write_rows(
        tmp_path / "d.jsonl",
        [
            {"id": "good", "input": "good", "expected_tools": [{"put": {"key": "a", "value": 1}}]},
            {"id": "bad", "input": "bad", "expected_tools": [{"put": {"key": "a", "value": 1}}]},
            {
                "id": "broken",
                "input": "broken",
                "expected_tools": [],
                "metadata": {"environment": {"name": "serving_missing"}},
            },
        ],
    )

    def steps_for(user):
        value = 1 if user == "good" else 2
        return [[("put", json.dumps({"key": "a", "value": value}))]]

    with OpenAIServer(scripted(steps_for)) as server:
        plan = plan_from_dict(
            {
                "dataset": "d.jsonl",
                "connector": {"type": "openai", "base_url": server.base_url, "model": "m"},
                "metrics": ["state_match", {"name": "tool_call_f1", "params": {"args": "exact"}}],
                "environment": "serving_kv",
                "repeat": 2,
            },
            base_dir=tmp_path,
        )
        with open_store(tmp_path / "r.db") as store:
            outcome = run_plan(plan, store=store, concurrency=4)
            rows = list(store.iter_rows(outcome.run_id))
    by_id: dict[str, list] = {}
    for row in rows:
        by_id.setdefault(row.row_id.split("#")[0], []).append(row)
    assert {k: len(v) for k, v in by_id.items()} == {"good": 2, "bad": 2, "broken": 2}
    for row in by_id["good"]:
        assert row.error is None
        assert [r.passed for r in row.results] == [True, True]
        assert row.sample.metadata["episode"]["calls"][0]["args"] == {"key": "a", "value": 1}
    for row in by_id["bad"]:
        assert [r.passed for r in row.results] == [False, False]
    for row in by_id["broken"]:  # one row's environment could not start: its error, not the run's
        assert "environment could not start" in row.error and "serving_missing" in row.error
