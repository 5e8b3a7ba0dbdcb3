"""An environment served as plain JSON endpoints per tool, bound per row and attempt.

Real parts: the episode server on 127.0.0.1, httpx as the client, and, in a
run, an HTTP agent (a real server on 127.0.0.1) that calls its tools itself at
the URL each row is handed (``{{metadata.serving.tools_url}}`` in the body).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

pytest.importorskip("mcp", reason="the mcp extra (pip install 'tooleval[mcp]')")

from tooleval.environments import FunctionEnvironment, Limits, register_environment  # noqa: E402
from tooleval.model import Sample  # noqa: E402
from tooleval.runs import plan_from_dict, run_plan  # noqa: E402
from tooleval.serving.bindings import Episodes  # noqa: E402
from tooleval.serving.http_app import HEADER, MAX_BODY, EpisodeServer, urls  # noqa: E402
from tooleval.serving.sessions import EnvironmentTools  # noqa: E402
from tooleval.store import open_store  # noqa: E402


def _cancel(state, order_id: str):
    """Cancel an order."""
    if order_id not in state:
        raise KeyError(f"no order {order_id}")
    state[order_id] = "cancelled"
    return f"order {order_id} cancelled"


register_environment(
    "http_orders",
    lambda config: FunctionEnvironment(
        {"cancel_order": _cancel}, initial_state={"W1": "pending", "W2": "pending"}
    ),
)


@pytest.fixture
def served():
    episodes = Episodes(EnvironmentTools({"name": "http_orders", "config": {}}))
    server = EpisodeServer(episodes, open_episodes=True)
    base = server.start()
    try:
        yield episodes, base
    finally:
        server.stop()


def test_tool_endpoints_run_and_record_every_call_bound_by_path_or_header(served):
    episodes, base = served
    binding = episodes.bind(Sample(id="r1"))
    handed = urls(base, binding.token)
    with httpx.Client(timeout=60) as client:
        listed = client.get(handed["tools_url"])
        assert [t["function"]["name"] for t in listed.json()] == ["cancel_order"]
        ok = client.post(f"{handed['tools_url']}/cancel_order", json={"order_id": "W1"})
        assert ok.status_code == 200
        assert ok.json() == {"result": "order W1 cancelled", "is_error": False}
        raised = client.post(
            f"{base}/tools/cancel_order", json={"order_id": "W9"}, headers={HEADER: binding.token}
        )
        assert raised.status_code == 200 and raised.json()["is_error"]
        assert "KeyError" in raised.json()["result"]
        for body in (b"{not json", b"[1, 2]", b'"W1"', b"[" * 100_000, b" " * (MAX_BODY + 1)):
            bad = client.post(f"{handed['tools_url']}/cancel_order", content=body)
            assert bad.status_code == 400 and bad.json()["is_error"], body
        wrong = client.post(f"{handed['tools_url']}/cancel_order", json={"id": "W2"})
        assert wrong.json()["is_error"] and "missing a required argument" in wrong.json()["result"]
        unknown = client.post(f"{handed['tools_url']}/refund", json={})
        assert unknown.json()["is_error"] and "unknown tool 'refund'" in unknown.json()["result"]
    record = episodes.release(binding.token)
    assert [c.get("executed", True) for c in record["calls"]] == [True, True] + [False] * 7
    assert "not JSON" in record["calls"][2]["result"]
    assert "RecursionError" in record["calls"][5]["result"]
    assert "bytes" in record["calls"][6]["result"]
    assert "got list" in record["calls"][3]["result"]
    assert binding.session.environment.state() == {"W1": "cancelled", "W2": "pending"}


def test_tokens_of_ended_episodes_missing_or_foreign_are_refused(served):
    episodes, base = served
    first, second = episodes.bind(Sample(id="A#1")), episodes.bind(Sample(id="A#2"))
    with httpx.Client(timeout=60) as client:
        missing = client.post(f"{base}/tools/cancel_order", json={"order_id": "W1"})
        assert missing.status_code == 404
        # Attempt 2's token only reaches attempt 2's environment.
        client.post(
            f"{base}/tools/cancel_order", json={"order_id": "W1"}, headers={HEADER: second.token}
        )
        assert first.session.environment.state()["W1"] == "pending"
        assert second.session.environment.state()["W1"] == "cancelled"
        episodes.release(first.token)
        ended = client.post(
            f"{base}/tools/cancel_order", json={"order_id": "W2"}, headers={HEADER: first.token}
        )
        assert ended.status_code == 410 and "row 'A' (attempt 1)" in ended.json()["error"]
        assert client.get(f"{base}/episodes/{first.token}/tools").status_code == 410
    assert episodes.release(second.token)["calls"][0]["args"] == {"order_id": "W1"}


def test_standalone_server_opens_and_ends_episodes(served):
    _, base = served
    with httpx.Client(timeout=60) as client:
        opened = client.post(
            f"{base}/episodes",
            json={"id": "mine", "metadata": {"environment": {"initial_state": {"W7": "pending"}}}},
        )
        assert opened.status_code == 201
        handed = opened.json()
        client.post(f"{handed['tools_url']}/cancel_order", json={"order_id": "W7"})
        record = client.delete(f"{base}/episodes/{handed['token']}").json()
        assert [(c["name"], c["result"]) for c in record["calls"]] == [
            ("cancel_order", "order W7 cancelled")
        ]
        assert client.delete(f"{base}/episodes/{handed['token']}").status_code == 404
        assert client.post(f"{base}/episodes", content=b"[]").status_code == 400


class _Agent:
    """An HTTP agent on 127.0.0.1: cancels the order its task names at the tools URL it is given."""

    def __enter__(self):
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                order = body["task"].split()[-1]
                with httpx.Client(timeout=60) as client:
                    answer = client.post(
                        f"{body['tools']}/cancel_order", json={"order_id": order}
                    ).json()
                reply = json.dumps(
                    {"answer": answer["result"], "claimed": ["cancel_order", "refund"]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/agent"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_a_run_hands_each_row_its_tools_url_and_judges_what_tooleval_recorded(tmp_path):
    rows = [
        {
            "id": "w1",
            "input": "cancel W1",
            "expected_tools": [{"cancel_order": {"order_id": "W1"}}],
        },
        {
            "id": "w9",
            "input": "cancel W9",
            "expected_tools": [{"cancel_order": {"order_id": "W2"}}],
        },
    ]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with _Agent() as agent_url:
        plan = plan_from_dict(
            {
                "dataset": "d.jsonl",
                "connector": {
                    "url": agent_url,
                    "body": {"task": "{{input}}", "tools": "{{metadata.serving.tools_url}}"},
                    # What the agent claims is ignored: tooleval recorded what ran.
                    "response": {"output": "$.answer", "tools_called": "$.claimed"},
                    "serve": "http",
                },
                "environment": "http_orders",
                "metrics": ["state_match", "tool_correctness"],
                "repeat": 2,
            },
            base_dir=tmp_path,
        )
        with open_store(tmp_path / "r.db") as store:
            outcome = run_plan(plan, store=store, concurrency=4)
            stored = list(store.iter_rows(outcome.run_id))
            run = store.get_run(outcome.run_id)
    assert run.connector["serve"]["transport"] == "http"
    assert len(stored) == 4
    for row in stored:
        assert row.error is None
        episode = row.sample.metadata["episode"]
        assert episode["transport"] == "http" and episode["environment"] == "http_orders"
        assert [c.name for c in row.sample.tools_called] == ["cancel_order"]
        assert "serving" not in row.sample.metadata  # the token is not stored
        passed = [r.passed for r in row.results]
        assert passed == ([True, True] if row.row_id.startswith("w1") else [False, False])


def test_a_call_past_its_deadline_answers_so_and_is_recorded():
    release = threading.Event()

    def wait(state):
        """Block until released."""
        release.wait(60)
        return "late"

    register_environment(
        "http_slow",
        lambda config: FunctionEnvironment(
            {"wait": wait}, initial_state={}, limits=Limits(call_seconds=None)
        ),
    )
    episodes = Episodes(EnvironmentTools({"name": "http_slow", "config": {}}), call_deadline=0.3)
    server = EpisodeServer(episodes)
    base = server.start()
    try:
        binding = episodes.bind(Sample(id="slow"))
        with httpx.Client(timeout=60) as client:
            answer = client.post(f"{base}/tools/wait", json={}, headers={HEADER: binding.token})
        release.set()  # the tool's thread ends
        assert answer.status_code == 200 and answer.json()["is_error"]
        assert "no result within 0.3 s" in answer.json()["result"]
        record = episodes.release(binding.token)
        assert record["calls"][0]["is_error"] and "deadline" in record["calls"][0]["result"]
    finally:
        release.set()
        server.stop()
