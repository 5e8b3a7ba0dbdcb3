"""BFCL multi-turn run live: BFCL's inference rules, one by one, and what is refused.

A scripted model on 127.0.0.1 plays each case through ``tooleval run``; the
written result is graded by BFCL's own checker and by tooleval alike. Needs
the installed bfcl-eval (its simulated APIs, data and function docs).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.episodes.bfcl_replayer import jsonl
from tests.openai_server import OpenAIServer

from tooleval.errors import ConfigError
from tooleval.runs import plan_from_dict, run_plan
from tooleval.store import open_store

pytest.importorskip("bfcl_eval", reason="BFCL's simulated APIs: pip install bfcl-eval")
pytest.importorskip("mpmath", reason="BFCL's MathAPI needs mpmath")

from tests.conformance.bfcl_multi_turn_reference import reference_verdict  # noqa: E402

from tooleval.benchmarks.bfcl.live import ADDITIONAL_FUNCTION_PROMPT, STEP_LIMIT  # noqa: E402
from tooleval.benchmarks.bfcl.multi_turn import check_entry  # noqa: E402
from tooleval.benchmarks.bfcl.multi_turn_data import package_data  # noqa: E402

ENVIRONMENT = "tooleval.serving.bfcl:multi_turn"


def _entry(category: str, entry_id: str | None = None) -> dict[str, Any]:
    rows = package_data(f"BFCL_v4_{category}.json", False)
    return rows[entry_id] if entry_id else next(iter(rows.values()))


def _truth(entry: dict[str, Any]) -> list[list[str]]:
    category = entry["id"].rsplit("_", 1)[0]
    return package_data(f"BFCL_v4_{category}.json", True)[entry["id"]]["ground_truth"]


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def _calls(*calls: tuple[str, str]) -> dict[str, Any]:
    return _completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": a}}
                for i, (n, a) in enumerate(calls)
            ],
        }
    )


TEXT = _completion({"role": "assistant", "content": "ok"})


def _run(tmp_path, rows, reply, *, repeat=None, connector=None):
    (tmp_path / "q.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with OpenAIServer(reply) as server:
        plan = plan_from_dict(
            {
                "dataset": "q.jsonl",
                "connector": {
                    "type": "openai",
                    "base_url": server.base_url,
                    "model": "m",
                    **(connector or {}),
                },
                "environment": {
                    "name": ENVIRONMENT,
                    "config": {"results_dir": str(tmp_path / "out")},
                },
                "metrics": ["bfcl_multi_turn"],
                **({"repeat": repeat} if repeat else {}),
            },
            base_dir=tmp_path,
        )
        with open_store(tmp_path / "runs.db") as store:
            outcome = run_plan(plan, store=store, concurrency=2)
            rows_by_id = {row.row_id: row for row in store.iter_rows(outcome.run_id)}
        return rows_by_id, list(server.requests)


def _written(tmp_path, category, folder="out"):
    return {r["id"]: r for r in jsonl(tmp_path / folder / f"BFCL_v4_{category}_result.json")}


def test_more_steps_than_bfcls_limit_force_quit_the_entry(tmp_path):
    entry = _entry("multi_turn_base")
    assert len(entry["question"]) > 1
    rows, requests = _run(tmp_path, [entry], lambda body, n: _calls(("pwd", "{}")))
    assert len(requests) == STEP_LIMIT + 1  # the 21st step with calls quits; no later turn runs
    line = _written(tmp_path, "multi_turn_base")[entry["id"]]
    assert len(line["result"]) == 1 and len(line["result"][0]) == STEP_LIMIT + 1
    row = rows[entry["id"]]
    assert row.sample.metadata["bfcl"]["live"]["force_quit"] is True
    assert any("step limit" in w for w in row.sample.metadata["connector_warnings"])
    verdict = reference_verdict(entry, _truth(entry), line["result"], "fc")
    assert verdict == (False, "multi_turn:force_terminated")
    assert (row.results[0].passed, row.results[0].diagnosis.details["bfcl_error_type"]) == verdict


def test_a_held_out_function_is_offered_from_its_turn_with_bfcls_prompt(tmp_path):
    entry = _entry("multi_turn_miss_func")
    (turn, names) = next(iter(entry["missed_function"].items()))
    turn = int(turn)
    rows, requests = _run(tmp_path, [entry], lambda body, n: TEXT)
    assert len(requests) == len(entry["question"])  # one text reply per turn ends it
    for index, body in enumerate(requests):
        offered = {t["function"]["name"] for t in body["tools"]}
        assert (set(names) <= offered) == (index >= turn), index
    said = [m["content"] for m in requests[turn]["messages"] if m["role"] == "user"]
    assert said[-1] == ADDITIONAL_FUNCTION_PROMPT
    line = _written(tmp_path, "multi_turn_miss_func")[entry["id"]]
    assert line["result"] == [["ok"]] * len(entry["question"])
    verdict = reference_verdict(entry, _truth(entry), line["result"], "fc")
    ours = check_entry(entry, _truth(entry), line["result"])
    assert (
        verdict == (ours.valid, ours.error_type) == (False, "multi_turn:empty_turn_model_response")
    )
    assert rows[entry["id"]].results[0].passed is False


def test_an_undecodable_step_ends_the_turn_and_is_kept_as_sent(tmp_path):
    entry = _entry("multi_turn_base")

    def reply(body, n):
        turn_start = max(i for i, m in enumerate(body["messages"]) if m["role"] == "user")
        if len(body["messages"]) - 1 == turn_start:  # the turn's first step
            return _calls(("ls", "{not json"))
        return TEXT

    rows, requests = _run(tmp_path, [entry], reply)
    assert len(requests) == len(entry["question"])  # nothing ran; each turn ended at its step
    line = _written(tmp_path, "multi_turn_base")[entry["id"]]
    assert line["result"][0] == [[{"ls": "{not json"}]]
    assert rows[entry["id"]].sample.metadata["episode"]["calls"] == []
    assert (
        reference_verdict(entry, _truth(entry), line["result"], "fc")[1]
        == (rows[entry["id"]].results[0].diagnosis.details["bfcl_error_type"])
    )


def test_a_step_with_one_call_bfcl_cannot_read_runs_none_of_its_calls(tmp_path):
    entry = _entry("multi_turn_base")
    script = iter([_calls(("pwd", "{}"), ("ls", "[1]"))])  # arguments "[1]": no object
    rows, requests = _run(tmp_path, [entry], lambda body, n: next(script, TEXT))
    assert [m["role"] for m in requests[1]["messages"]][-1] == "user"  # on to the next turn
    assert rows[entry["id"]].sample.metadata["episode"]["calls"] == []


def test_refused_calls_answer_their_error_to_the_model(tmp_path):
    entry = _entry("multi_turn_base")
    script = iter([_calls(("__import__", '{"name": "os"}'), ("exit", "{}"))])
    rows, requests = _run(tmp_path, [entry], lambda body, n: next(script, TEXT))
    answers = [m["content"] for m in requests[1]["messages"] if m["role"] == "tool"]
    assert answers == [
        "Error during execution: name '__import__' is not defined",
        "Error during execution: Function call exit is not allowed.",
    ]
    calls = rows[entry["id"]].sample.metadata["episode"]["calls"]
    assert [(c["name"], c.get("is_error")) for c in calls] == [("__import__", True), ("exit", True)]


def test_each_attempt_runs_on_fresh_instances_and_has_its_own_file(tmp_path):
    entry = _entry("multi_turn_base", "multi_turn_base_0")
    script = {"n": 0}

    def reply(body, n):
        # the first step of every turn makes a folder; a shared state would refuse the second
        turn_start = max(i for i, m in enumerate(body["messages"]) if m["role"] == "user")
        if len(body["messages"]) - 1 == turn_start and turn_start == 0:
            script["n"] += 1
            return _calls(("mkdir", '{"dir_name": "fresh"}'))
        return TEXT

    rows, _ = _run(tmp_path, [entry], reply, repeat=2)
    assert len(rows) == 2
    for row in rows.values():
        (call,) = row.sample.metadata["episode"]["calls"]
        assert call["result"] == "None" and not call.get("is_error")
    first = _written(tmp_path, "multi_turn_base")
    second = _written(tmp_path, "multi_turn_base", "out/attempt2")
    assert list(first) == list(second) == [entry["id"]]


def test_a_rerun_replaces_its_line_and_keeps_the_others(tmp_path):
    from tooleval.serving.bfcl import write_result_line

    out = tmp_path / "out"
    for entry_id, result in [
        ("multi_turn_base_2", 1),
        ("multi_turn_base_10", 2),
        ("multi_turn_base_2", 3),
    ]:
        write_result_line(out, "multi_turn_base", 1, {"id": entry_id, "result": result})
    lines = jsonl(out / "BFCL_v4_multi_turn_base_result.json")
    assert lines == [
        {"id": "multi_turn_base_2", "result": 3},
        {"id": "multi_turn_base_10", "result": 2},
    ]


def test_a_row_that_is_not_a_bfcl_entry_is_that_rows_error(tmp_path):
    entry = _entry("multi_turn_base")
    other = {"id": "ticket-1", "input": "refund my order"}
    rows, _ = _run(tmp_path, [entry, other], lambda body, n: TEXT)
    assert rows[entry["id"]].error is None
    assert "not a BFCL multi-turn entry" in rows["ticket-1"].error


def _plan(tmp_path, connector=None, config=None):
    return plan_from_dict(
        {
            "dataset": "q.jsonl",
            "connector": {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
            | (connector or {}),
            "environment": {"name": ENVIRONMENT, "config": config or {}},
            "metrics": ["bfcl_multi_turn"],
        },
        base_dir=tmp_path,
    )


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"result_dir": "x"}, "environment.config.result_dir"),
        ({"entry": "multi_turn_base_99999"}, "environment.config"),
        ({"results_dir": 3}, "environment.config.results_dir"),
    ],
)
def test_environment_config_mistakes_are_refused_when_the_plan_is_read(tmp_path, config, field):
    with pytest.raises(ConfigError) as caught:
        _plan(tmp_path, config=config)
    assert field in str(caught.value)


@pytest.mark.parametrize(
    "connector",
    [
        {"tools": [{"name": "f"}]},
        {"max_turns": 3},
        {"episode_timeout": 0},
        {"episode_timeout": "x"},
    ],
)
def test_connector_keys_bfcl_decides_itself_are_refused(tmp_path, connector):
    from tooleval.runs.parts import make_connector

    with pytest.raises(ConfigError) as caught:
        make_connector(_plan(tmp_path, connector=connector))
    assert f"connector.{next(iter(connector))}" in str(caught.value)


def test_a_results_dir_that_is_a_file_is_refused(tmp_path):
    from tooleval.serving import connector_from_config

    (tmp_path / "taken").write_text("x")
    with pytest.raises(ConfigError, match="not a folder"):
        connector_from_config(
            {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
            environment={"name": ENVIRONMENT, "config": {"results_dir": str(tmp_path / "taken")}},
        )


def test_the_environment_alone_serves_one_entry():
    from tooleval.model import Sample, ToolCall
    from tooleval.serving.sessions import EnvironmentTools

    tools = EnvironmentTools({"name": ENVIRONMENT, "config": {"entry": "multi_turn_base_1"}})
    names = {t["function"]["name"] for t in tools.tool_specs()}
    assert "ls" in names and "add" not in names
    session = tools.open(Sample(id="x"))
    done = session.call(ToolCall("pwd", {}))
    assert done.result.startswith('{"current_working_directory"')
    assert session.environment.state()["GorillaFileSystem"]["long_context"] is False


def test_without_an_entry_every_class_is_listed_and_a_row_state_picks_the_entry():
    from tooleval.model import Sample, ToolCall
    from tooleval.serving.sessions import EnvironmentTools

    tools = EnvironmentTools({"name": ENVIRONMENT})
    names = [t["function"]["name"] for t in tools.tool_specs()]
    assert {"ls", "add", "post_tweet"} <= set(names) and len(names) == len(set(names))
    entry = _entry("multi_turn_base", "multi_turn_base_1")
    row = Sample(id="r", metadata={"environment": {"initial_state": entry}})
    session = tools.open(row)
    assert session.call(ToolCall("add", {"a": 1, "b": 2})).result == (
        "Error during execution: name 'add' is not defined"
    )
    with pytest.raises(ConfigError, match="not an entry of BFCL"):
        tools.open(Sample(id="r", metadata={"environment": {"initial_state": {"id": "x"}}}))


def test_a_reply_that_is_no_chat_completion_is_that_rows_error(tmp_path):
    good = _entry("multi_turn_base", "multi_turn_base_0")
    bad = _entry("multi_turn_base", "multi_turn_base_1")
    first = bad["question"][0][0]["content"]

    def reply(body, n):
        said = [m["content"] for m in body["messages"] if m["role"] == "user"]
        return {"error": "overloaded"} if said[0] == first else TEXT

    rows, _ = _run(tmp_path, [good, bad], reply)
    assert rows[good["id"]].error is None
    assert "did not return a chat completion" in rows[bad["id"]].error
    # BFCL's line for a failed inference: its checker says inference_error, as tooleval does
    line = _written(tmp_path, "multi_turn_base")[bad["id"]]
    assert line["result"].startswith("Error during inference: ")
    assert reference_verdict(bad, _truth(bad), line["result"], "fc") == (
        False,
        "multi_turn:inference_error",
    )
    assert check_entry(bad, _truth(bad), line["result"]).error_type == "multi_turn:inference_error"


def test_an_entry_past_its_deadline_is_that_rows_error_and_bfcls_inference_error(tmp_path):
    import threading

    entry = _entry("multi_turn_base", "multi_turn_base_0")
    release = threading.Event()

    def reply(body, n):
        release.wait(30)  # answers only after the run: the episode's deadline passes first
        return TEXT

    try:
        rows, _ = _run(tmp_path, [entry], reply, connector={"episode_timeout": 0.5})
    finally:
        release.set()
    assert "did not end within its 0.5 s deadline" in rows[entry["id"]].error
    line = _written(tmp_path, "multi_turn_base")[entry["id"]]
    assert line["result"].startswith("Error during inference: ")


def test_a_row_without_bfcls_columns_runs_the_configured_entry(tmp_path):
    from tooleval.model import Sample
    from tooleval.serving import connector_from_config

    script = iter([_calls(("pwd", "{}"))])
    with OpenAIServer(lambda body, n: next(script, TEXT)) as server:
        connector = connector_from_config(
            {"type": "openai", "base_url": server.base_url, "model": "m"},
            environment={"name": ENVIRONMENT, "config": {"entry": "multi_turn_base_1"}},
        )
        response = connector.call(Sample(id="connector-test", input="Hello"))  # the sync path
        connector.close()
        said = [m["content"] for m in server.requests[0]["messages"] if m["role"] == "user"]
    entry = _entry("multi_turn_base", "multi_turn_base_1")
    assert said == [entry["question"][0][0]["content"]]
    assert [c.name for c in response.tools_called] == ["pwd"]
    assert response.metadata["bfcl"]["multi_turn"]["entry"]["id"] == "multi_turn_base_1"


@pytest.mark.parametrize(
    "category",
    ["multi_turn_base", "multi_turn_long_context", "multi_turn_miss_func", "multi_turn_miss_param"],
)
def test_a_model_playing_the_ground_truth_gets_bfcls_verdict_in_every_category(tmp_path, category):
    from tooleval.benchmarks.bfcl.multi_turn_env import parse_call_text

    entries = list(package_data(f"BFCL_v4_{category}.json", False).values())[:3]
    by_first = {}
    for entry in entries:
        turns = [
            [parse_call_text(text) for text in turn] for turn in _truth(entry)
        ]  # one step per reference call, keywords as JSON (BFCL's FC rendering)
        by_first[entry["id"]] = turns

    def reply(body, n):
        said = [m["content"] for m in body["messages"] if m["role"] == "user"]
        entry = next(
            e for e in entries if [m["content"] for t in e["question"] for m in t][:1] == said[:1]
        )
        turn = by_first[entry["id"]][len(said) - 1]
        last_user = max(i for i, m in enumerate(body["messages"]) if m["role"] == "user")
        step = sum(1 for m in body["messages"][last_user:] if m["role"] == "assistant")
        if step < len(turn):
            name, _args, kwargs = turn[step]
            return _calls((name, json.dumps(kwargs)))
        return TEXT

    rows, _ = _run(tmp_path, entries, reply)
    written = _written(tmp_path, category)
    for entry in entries:
        row = rows[entry["id"]]
        assert row.error is None, row.error
        bfcl = reference_verdict(entry, _truth(entry), written[entry["id"]]["result"], "fc")
        ours = (row.results[0].passed, row.results[0].diagnosis.details["bfcl_error_type"])
        assert ours == bfcl, entry["id"]
