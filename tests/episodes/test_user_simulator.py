"""A simulated user talks to the agent in a served environment; its audit catches each planted fault.

Two real OpenAI-compatible servers on 127.0.0.1: the agent (cancels the order it
is asked about, then answers) and the simulator, whose script is chosen by a tag
in the row's instruction (a good user, a leak, an early stop, a role swap, a
loop, a server error). A broken user's audit is the row's own verdict: the
agent's metrics are unscored there, naming the fault, and the pass rate counts
only the good user's episode, judged on its end state like any other.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from tests.openai_server import OpenAIServer, completion

from tooleval.analysis.figures import run_figures
from tooleval.environments import FunctionEnvironment, register_environment
from tooleval.errors import ConfigError
from tooleval.model import Sample
from tooleval.runs import plan_from_dict, run_plan
from tooleval.serving import connector_from_config
from tooleval.serving.users import user_broke
from tooleval.simulators import audit_user
from tooleval.store import open_store


def _cancel(state, order_id: str):
    """Cancel an order."""
    state[order_id] = "cancelled"
    return f"order {order_id} cancelled"


register_environment(
    "episodes_orders",
    lambda config: FunctionEnvironment(
        {"cancel_order": _cancel}, initial_state={"W1": "pending", "W2": "pending"}
    ),
)

INSTRUCTION = (
    "[{tag}] You want order W1 cancelled because you no longer need the lamp; you are in a "
    "hurry and give no more details than you are asked for."
)
FAULTS = {
    "good": None,
    "leak": "leaked",
    "early": "ended_early",
    "swap": "role_swap",
    "loop": "looped",
}


def _agent(body, number):
    """Cancels the order the last user message names, then answers."""
    messages = body["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    asked = messages[last_user]["content"]
    acted = any(m["role"] == "tool" for m in messages[last_user:])
    if "W1" in asked and not acted:
        call = {
            "id": f"call_{number}",
            "type": "function",
            "function": {"name": "cancel_order", "arguments": json.dumps({"order_id": "W1"})},
        }
        return completion({"role": "assistant", "content": None, "tool_calls": [call]})
    return completion({"role": "assistant", "content": "Done. Anything else?"})


def _user(body, number):
    """The simulator: its script picked by the tag in its system prompt's instruction."""
    system = body["messages"][0]["content"]
    tag = system.split("[", 1)[1].split("]", 1)[0]
    spoke = sum(1 for m in body["messages"] if m["role"] == "assistant")
    lines = {
        "good": ["Hi, please cancel my order W1.", "###STOP###"],
        "leak": [INSTRUCTION.format(tag=tag).split("] ", 1)[1], "###STOP###"],
        "early": ["###STOP###"],
        "swap": ["Hello! How can I help you today with W1?", "###STOP###"],
        "loop": ["Cancel W1 please.", "Cancel W1 please.", "Cancel W1 please."],
    }[tag]
    text = lines[min(spoke, len(lines) - 1)]
    return completion({"role": "assistant", "content": text}, model="sim", number=number)


def _rows(path):
    rows = [
        {
            "id": tag,
            "input": "(the simulated user speaks)",
            "expected_tools": [{"name": "cancel_order", "args": {"order_id": "W1"}}],
            "metadata": {"instruction": INSTRUCTION.format(tag=tag), "persona": "a busy parent"},
        }
        for tag in FAULTS
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


class _Failing:
    """A simulator endpoint that answers every request with HTTP 500."""

    def __enter__(self):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(500)
                self.send_header("Content-Length", "0")
                self.end_headers()

        import threading

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _plan(tmp_path, agent_url, user_url):
    return plan_from_dict(
        {
            "dataset": "rows.jsonl",
            "connector": {
                "type": "openai",
                "base_url": agent_url,
                "model": "agent",
                "max_turns": 8,
                "user": {
                    "type": "openai",
                    "model": "sim",
                    "base_url": user_url,
                    "seed": 11,
                    "max_turns": 3,
                    "max_retries": 0,
                },
            },
            "environment": "episodes_orders",
            "metrics": ["state_match"],
        },
        base_dir=tmp_path,
    )


def test_each_planted_simulator_fault_is_its_own_verdict_and_a_good_user_is_judged(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    _rows(tmp_path / "rows.jsonl")
    with OpenAIServer(_agent) as agent, OpenAIServer(_user) as user:
        plan = _plan(tmp_path, agent.base_url, user.base_url)
        with open_store(tmp_path / "r.db") as store:
            outcome = run_plan(plan, store=store, concurrency=3)
            rows = {r.row_id: r for r in store.iter_rows(outcome.run_id)}
            run = store.get_run(outcome.run_id)
            figures = run_figures(store, run).get("state_match")
    good = rows["good"]
    assert good.error is None and good.results[0].passed
    simulator = good.sample.metadata["simulator"]
    assert simulator["audit"] == {"passed": True, "faults": [], "reasons": []}
    assert simulator["turns"] == 2 and simulator["model"]["seed"] == 11
    said = [m.content for m in good.sample.messages if m.role == "user"]
    assert said == ["Hi, please cancel my order W1.", "###STOP###"]
    assert run.connector["user"]["model"]["seed"] == 11  # the seed is stored with the run
    for tag, fault in FAULTS.items():
        if fault is None:
            continue
        row = rows[tag]
        # The audit is the row's own verdict, not a connector error.
        assert row.error is None, (tag, row.error)
        audit = row.sample.metadata["simulator"]["audit"]
        assert audit["passed"] is False and fault in audit["faults"], (tag, audit)
        # The agent is not judged on it: unscored, the reason shown.
        result = row.results[0]
        assert result.score is None and result.passed is None, tag
        assert "simulated user broke the episode" in result.reason and fault in result.reason
    assert "word for word" in rows["leak"].results[0].reason
    assert "without saying W1" in rows["early"].results[0].reason
    assert "speaks as the agent" in rows["swap"].results[0].reason
    assert "repeated itself" in rows["loop"].results[0].reason
    # Excluded from the agent's pass rate: only the good user's episode is counted.
    assert (figures.passed, figures.failed, figures.errors, figures.unscored) == (1, 0, 0, 4)
    assert figures.rate == 1.0


def test_a_simulator_that_errors_is_audited_not_blamed_on_the_agent(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with OpenAIServer(_agent) as agent, _Failing() as broken:
        connector = connector_from_config(
            {
                "type": "openai",
                "base_url": agent.base_url,
                "model": "agent",
                "user": {"type": "openai", "model": "sim", "base_url": broken, "max_retries": 0},
            },
            environment="episodes_orders",
        )
        response = connector.call(Sample(id="r", metadata={"instruction": "cancel W1"}))
    assert agent.requests == []  # the agent was never asked: the user never spoke
    audit = response.metadata["simulator"]["audit"]
    assert audit["faults"] == ["errored"] and "simulator failed" in audit["reasons"][0]
    assert "simulator audit: errored" in user_broke(response.metadata)


def test_user_configuration_mistakes_are_refused_up_front(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    base = {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"}
    with pytest.raises(ConfigError, match="connector.user.max_turns"):
        connector_from_config({**base, "user": {"type": "openai", "model": "s", "max_turns": 0}})
    with pytest.raises(ConfigError, match="connector.user"):
        connector_from_config({**base, "user": "alice"})
    with pytest.raises(ConfigError, match="connector.user.colour"):
        connector_from_config({**base, "user": {"type": "openai", "model": "s", "colour": 1}})
    with pytest.raises(ConfigError, match="talks to an openai connector"):
        connector_from_config({"url": "http://127.0.0.1:9/a", "user": {"type": "local"}})


def test_the_audit_on_its_own():
    instruction = "Cancel order W1 and change the address of order W2 to 5 Oak Ave."
    ok = audit_user(
        instruction, ["cancel W1", "and W2 to 5 Oak Ave", "###STOP###"], ["ok"], stopped=True
    )
    assert ok.passed
    assert audit_user(instruction, ["cancel W1", "###STOP###"], ["ok"], stopped=True).faults == [
        "ended_early"
    ]
    # Not stopped (max_turns reached): an unsaid item is not the user's early end.
    assert audit_user(instruction, ["cancel W1"], ["ok"], stopped=False).passed
    echoed = audit_user(
        instruction, ["Done. Anything else?"], ["Done. Anything else?"], stopped=False
    )
    assert echoed.faults == ["role_swap"]
    assert audit_user("", [], [], stopped=False, error="boom").faults == ["errored"]
