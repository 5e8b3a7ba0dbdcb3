"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 serving the
real local model (``tooleval judge serve``). No mocks: this is the client's end-to-end test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from tooleval.cli.main import main
from tooleval.judge import LocalJudge, OpenAIJudge

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

        from tooleval.judge.serve import create_app

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
        code = main(["judge", "check", "--base-url", server.base_url, "--model", "smollm2"])
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if report["parsed"] is not None else 1)
    assert report["judge"]["base_url"] == server.base_url
    assert report["reply"].startswith("{")
    assert report["structured_output"] is True


def test_serve_command_runs_as_a_process():
    port = free_port()
    exe = Path(sys.executable).with_name("tooleval")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [str(exe), "judge", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        models = None
        for _ in range(300):
            try:
                models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).json()
                break
            except httpx.TransportError:
                time.sleep(0.1)
        assert models is not None, proc.stderr.read1().decode() if proc.poll() else "no answer"
        assert models["data"][0]["id"].startswith("local:SmolLM2")
        bad = httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={"x": 1})
        assert bad.status_code == 400
        assert "messages" in bad.json()["error"]["message"]
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_judge_command_without_action_is_usage_error(capsys):
    assert main(["judge"]) == 2
    assert main(["judge", "check", "--base-url", "http://127.0.0.1:9/v1"]) == 2
    assert "--model is required" in capsys.readouterr().err


def test_check_command_with_the_local_judge(served_judge, capsys):
    code = main(["judge", "check", "--local", "--max-new-tokens", "16"])
    report = json.loads(capsys.readouterr().out)
    assert report["judge"]["type"] == "local"
    assert report["reply"].startswith("{")
    assert 0 < report["tokens_out"] <= 16
    assert code == (0 if report["parsed"] is not None else 1)
