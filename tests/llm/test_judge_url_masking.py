"""The judge client never shows a secret in a URL: errors, ``describe()`` (stored with runs), repr."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from tooleval.errors import JudgeError

pytest.importorskip("openai", reason="the OpenAI-compatible judge client needs the judge extra")

from tooleval.llm.openai_judge import OpenAIJudge  # noqa: E402


class _NotFound(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.dumps({"error": {"message": "model not found", "type": "invalid_request"}})
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_failed_call_names_the_url_without_its_password(port):
    judge = OpenAIJudge(
        "m",
        base_url=f"http://bob:hunter2@127.0.0.1:{port}/v1",
        api_key="k",
        cache=False,
        max_retries=0,
    )
    with pytest.raises(JudgeError) as caught:
        judge.complete([{"role": "user", "content": "hi"}])
    message = str(caught.value)
    assert f"http://bob:***@127.0.0.1:{port}/v1" in message and "hunter2" not in message
    assert "check base_url" in message  # a 404 says what to check


def test_describe_and_repr_mask_the_url():
    judge = OpenAIJudge(
        "m", base_url="https://proxy.test/v1?api_key=s3cret&region=eu", api_key="k", cache=False
    )
    assert judge.describe()["base_url"] == "https://proxy.test/v1?api_key=***&region=eu"
    assert "s3cret" not in repr(judge) and "region=eu" in repr(judge)
