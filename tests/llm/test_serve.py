"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 serving the
real local model (``tooleval judge serve``). No mocks: this is the client's end-to-end test.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tooleval.cli.main import main
from tooleval.llm import LocalJudge, OpenAIJudge

pytestmark = pytest.mark.llm

SCHEMA = {
    "title": "flag",
    "type": "object",
    "properties": {"failed": {"type": "boolean"}},
    "required": ["failed"],
}
MESSAGES = [
    {
        "role": "user",
        "content": 'The tool said "ERROR: not found". Did it fail? JSON {"failed": bool}',
    }
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """uvicorn in a thread, serving create_app(judge) on 127.0.0.1."""

    def __init__(self, judge, *, structured_output=True):
        import uvicorn

        from tooleval.llm.serve import create_app

        self.app = create_app(judge, structured_output=structured_output)
        self.port = free_port()
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self):
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("judge server did not start")

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def served_judge():
    return LocalJudge(max_new_tokens=12, cache=False).load()


def test_client_gets_structured_output_from_the_served_model(served_judge, tmp_path):
    with Server(served_judge) as server:
        client = OpenAIJudge(
            "smollm2", base_url=server.base_url, cache=tmp_path / "c.db", max_tokens=None
        )
        reply = client.complete(MESSAGES, schema=SCHEMA)
        # The schema reached the local judge, which starts its reply with "{".
        assert reply.text.startswith("{")
        assert reply.tokens_in > 0 and 0 < reply.tokens_out <= 12
        assert reply.model == served_judge.model
        assert reply.parsed is not None or reply.parse_error is not None
        assert client.structured_supported is True
        assert server.app.state.requests == 1
        # Same prompt again: answered from the cache, the server sees nothing.
        again = client.complete(MESSAGES, schema=SCHEMA)
        assert again.cached and again.text == reply.text
        assert server.app.state.requests == 1
        assert client.usage.to_dict()["calls"] == 1


def test_client_falls_back_when_json_schema_is_refused(served_judge):
    with Server(served_judge, structured_output=False) as server:
        client = OpenAIJudge("smollm2", base_url=server.base_url, cache=False)
        reply = client.complete(MESSAGES, schema=SCHEMA)
        assert client.structured_supported is False
        assert server.app.state.requests == 2  # the refused request, then plain JSON
        assert reply.text  # a real reply, parsed or not
        models = httpx.get(f"{server.base_url}/models").json()
        assert models["data"][0]["id"] == served_judge.model


def test_check_command_against_the_server(served_judge, capsys):
    with Server(served_judge) as server:
        args = ["judge", "check", "--base-url", server.base_url, "--model", "smollm2"]
        code = main([*args, "--json"])
        assert server.app.state.requests == 2  # two probes with opposite answers
        report = json.loads(capsys.readouterr().out)
        # Without --json: what a person reads, one line per probe and the verdict.
        assert main(args) == code
        text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("judge smollm2: structured output")
    assert [line.split(":")[0].split()[-1] for line in text[1:3]] == [
        "failed_call",
        "successful_call",
    ]
    assert text[-1].startswith("check passed" if code == 0 else "check failed")
    assert report["judge"]["base_url"] == server.base_url
    assert [p["probe"] for p in report["probes"]] == ["failed_call", "successful_call"]
    assert [p["expected_tool_failed"] for p in report["probes"]] == [True, False]
    for probe in report["probes"]:
        assert probe["reply"].startswith("{")
        assert probe["status"] in ("correct", "wrong verdict", "repeats the example", "unparsable")
    assert code == (0 if report["passed"] else 1)
    assert report["structured_output"] is True


def test_serve_command_loads_the_model_before_answering():
    port = free_port()
    exe = Path(sys.executable).with_name("tooleval")
    proc = subprocess.Popen(
        [str(exe), "judge", "serve", "--port", str(port), "--max-new-tokens", "8"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        health = None
        for _ in range(600):
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None:
                    break
                time.sleep(0.1)
        assert health is not None, proc.stderr.read().decode() if proc.poll() else "no answer"
        # The port opens only once the model is loaded: the first answer is already "ready".
        assert health.status_code == 200, health.text
        assert health.json()["status"] == "ready"
        assert health.json()["model"].startswith("local:SmolLM2")
        assert health.json()["load_seconds"] > 0.1  # the model's own load, not a cache hit
        models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=5).json()
        assert models["data"][0]["id"].startswith("local:SmolLM2")
        bad = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={"x": 1})
        assert bad.status_code == 400
        assert "messages" in bad.json()["error"]["message"]
        reply = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            json={"messages": MESSAGES, "max_tokens": 3},
            timeout=60,
        ).json()
        assert reply["usage"]["completion_tokens"] <= 3
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    lines = out.decode()
    assert "plumbing only" in lines and "loaded in" in lines and "GET /health" in lines


def test_serve_command_refuses_a_gguf_without_chat_template(tmp_path, capsys):
    from tests.llm.tiny_gguf import write_tiny_llama

    path = write_tiny_llama(tmp_path / "base.gguf", chat_template=None)
    assert main(["judge", "serve", "--model-path", str(path), "--port", str(free_port())]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no chat template" in err[0] and "gguf-new-metadata" in err[0]


def test_request_max_tokens_caps_the_reply_and_reports_length(served_judge):
    with Server(served_judge) as server:
        url = f"{server.base_url}/chat/completions"
        short = httpx.post(url, json={"messages": MESSAGES, "max_tokens": 2}, timeout=60).json()
        assert short["usage"]["completion_tokens"] == 2
        assert short["choices"][0]["finish_reason"] == "length"
        newer = {"messages": MESSAGES, "max_completion_tokens": 1}
        assert httpx.post(url, json=newer, timeout=60).json()["usage"]["completion_tokens"] == 1
        # Never above the server's own cap (12 for this judge).
        big = httpx.post(url, json={"messages": MESSAGES, "max_tokens": 500}, timeout=60).json()
        assert big["usage"]["completion_tokens"] <= 12
        for bad in (0, -1, "5", 2.5, True):
            answer = httpx.post(url, json={"messages": MESSAGES, "max_tokens": bad}, timeout=10)
            assert answer.status_code == 400
            assert "max_tokens must be a positive integer" in answer.json()["error"]["message"]


def test_judge_command_without_action_is_usage_error(capsys):
    assert main(["judge"]) == 2
    assert main(["judge", "check", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "--model is required" in capsys.readouterr().err


def test_check_command_with_the_local_judge(served_judge, capsys):
    code = main(["judge", "check", "--local", "--max-new-tokens", "16", "--json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["judge"]["type"] == "local"
    assert "plumbing only" in report["judge"]["note"]
    for probe in report["probes"]:
        assert probe["reply"].startswith("{")
        assert 0 < probe["tokens_out"] <= 16
    # SmolLM2-135M does not answer both probes right: the check says so and exits 1.
    assert report["passed"] is False and code == 1
    assert "did not answer both probes correctly" in captured.err
