"""In-process agents and scripted users run under a deadline: a call that never returns is
one row's error naming the deadline, the other rows go on, and the process always ends."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading

import pytest
import yaml

from tooleval.connectors import connector_from_config
from tooleval.connectors.conversation import ConversationConnector, ConversationSpec
from tooleval.connectors.python import CallableConnector
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample

# Seconds a test waits for something that ends at a deadline of a fraction of a second;
# generous for a loaded machine, and never what the test asserts.
WAIT = 120

_never = threading.Event()


def _blocks_in_c(text):
    _never.wait()  # a C-level wait: the stop request cannot reach it, the thread is left behind


def _spins(text):
    while True:  # Python bytecode: the stop request ends it
        pass


async def _awaits_for_ever(text):
    await asyncio.Event().wait()


def _answers(text):
    return {"output": "ok", "tools_called": ["lookup_order"]}


@pytest.mark.parametrize("fn", [_blocks_in_c, _spins, _awaits_for_ever])
def test_a_call_past_the_connector_timeout_is_an_error_naming_it(fn):
    connector = CallableConnector(fn, timeout=0.3, target=f"agents:{fn.__name__}")
    for run in (lambda: connector.call("hi"), lambda: asyncio.run(connector.acall("hi"))):
        with pytest.raises(ConnectorError) as info:
            run()
        message = info.value.message
        assert f"the agent function agents:{fn.__name__}" in message
        assert "deadline of 0.3 s" in message and "connector.timeout" in message


def test_other_rows_go_on_while_one_is_stuck():
    def agent(text):
        if text == "stuck":
            _never.wait()
        return {"output": text, "tools_called": ["lookup_order"]}

    connector = CallableConnector(agent, timeout=0.5)

    async def both():
        return await asyncio.gather(
            connector.acall("stuck"), connector.acall("fine"), return_exceptions=True
        )

    stuck, fine = asyncio.run(both())
    assert isinstance(stuck, ConnectorError) and "deadline" in stuck.message
    assert fine.output == "fine" and [c.name for c in fine.tools_called] == ["lookup_order"]


def test_a_fast_agent_is_unchanged_and_none_means_no_deadline():
    for timeout in (0.5, None):
        connector = CallableConnector(_answers, timeout=timeout)
        assert connector.call("x").output == "ok"
        assert asyncio.run(connector.acall("x")).output == "ok"
    assert "timeout" not in CallableConnector(_answers).describe()  # the default: not recorded
    assert CallableConnector(_answers, timeout=5).describe()["timeout"] == 5.0


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), "10", True])
def test_a_bad_timeout_is_refused_naming_the_field(value):
    with pytest.raises(ConfigError) as info:
        CallableConnector(_answers, timeout=value)
    assert info.value.context["field"] == "connector.timeout"
    config = {"type": "python", "target": "json:dumps", "timeout": value}
    with pytest.raises(ConfigError):
        connector_from_config(config)


def test_a_timeout_of_null_in_a_plan_means_none():
    connector = connector_from_config({"type": "python", "target": "json:dumps", "timeout": None})
    assert connector.timeout is None


def _conversation(tmp_path, monkeypatch, user_body: str) -> ConversationConnector:
    (tmp_path / "stuck_user_ud.py").write_text(textwrap.dedent(user_body))
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = ConversationSpec.from_config({"user": "stuck_user_ud:next_message"})
    return ConversationConnector(CallableConnector(_answers), spec)


def test_a_scripted_user_that_never_answers_is_the_rows_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_USER_CODE_DEADLINE", "0.3")
    body = """
        import threading
        def next_message(conversation, sample):
            if conversation:
                threading.Event().wait()
            return "hello"
    """
    connector = _conversation(tmp_path, monkeypatch, body)
    with pytest.raises(ConnectorError) as info:
        asyncio.run(connector.acall(Sample(id="r7", input="x")))
    message = info.value.message
    assert message.startswith("turn 2: the scripted user stuck_user_ud:next_message")
    assert "deadline of 0.3 s" in message and "TOOLEVAL_USER_CODE_DEADLINE" in message
    assert info.value.context.get("row") == "r7"


def test_a_bad_user_code_deadline_is_refused_when_the_connector_is_built(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLEVAL_USER_CODE_DEADLINE", "soon")
    body = "def next_message(conversation, sample):\n    return None\n"
    with pytest.raises(ConfigError, match="TOOLEVAL_USER_CODE_DEADLINE"):
        _conversation(tmp_path, monkeypatch, body)


@pytest.mark.parametrize("value", [float("nan"), 0, -2, "x"])
def test_a_conversation_timeout_must_be_finite_and_positive(value):
    with pytest.raises(ConfigError) as info:
        ConversationSpec.from_config({"timeout": value})
    assert info.value.context["field"] == "connector.conversation.timeout"


def test_a_run_whose_agent_never_returns_ends_with_error_rows(tmp_path):
    # A real `tooleval run` in its own process: the stuck rows are errors naming the
    # deadline, the other rows are scored, and the process exits although the stuck
    # threads are still blocked.
    (tmp_path / "stuck_agent_ud.py").write_text(
        textwrap.dedent(
            """
            import threading
            def run(text):
                if "stuck" in text:
                    threading.Event().wait()
                return {"output": "done", "tools_called": ["lookup_order"]}
            """
        )
    )
    rows = [
        {"id": "a", "input": "fine", "expected_tools": ["lookup_order"]},
        {"id": "b", "input": "stuck", "expected_tools": ["lookup_order"]},
        {"id": "c", "input": "stuck too", "expected_tools": ["lookup_order"]},
        {"id": "d", "input": "fine again", "expected_tools": ["lookup_order"]},
    ]
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    plan = {
        "name": "stuck",
        "dataset": {"path": "cases.jsonl"},
        "connector": {"type": "python", "target": "stuck_agent_ud:run", "timeout": 0.5},
        "metrics": ["tool_correctness"],
        "concurrency": 2,
    }
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    db = tmp_path / "runs.db"
    done = subprocess.run(
        [sys.executable, "-m", "tooleval", "run", "plan.yaml", "--store", str(db), "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 1, done.stderr
    assert "deadline of 0.5 s" in done.stderr + done.stdout
    from tooleval.store import open_store

    with open_store(db) as store:
        (run,) = store.list_runs()
        results = {row.sample.id: row for row in store.iter_rows(run.id)}
    assert {k for k, r in results.items() if r.error} == {"b", "c"}
    assert all("connector.timeout" in results[k].error for k in ("b", "c"))
    summary = run.summaries["tool_correctness"]
    assert (summary.passed, summary.failed) == (2, 0)  # the stuck rows are errors, not fails


@pytest.mark.parametrize(
    "config",
    [
        {"type": "http", "url": "http://127.0.0.1:9/a"},
        {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        {"type": "python", "target": "json:dumps"},
    ],
)
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1, 0, "30", False])
def test_every_connector_refuses_a_timeout_that_is_not_a_positive_finite_number(config, value):
    with pytest.raises(ConfigError) as info:
        connector_from_config({**config, "timeout": value})
    assert info.value.context["field"] == "connector.timeout"
