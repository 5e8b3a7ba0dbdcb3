"""``create_app``'s readiness: 503 while the judge's model loads, 200 once it is loaded.

A real HTTP server on 127.0.0.1 and a real judge class whose ``load()`` waits for
the test to let it finish (a stand-in for a slow model load), answering with text.
"""

from __future__ import annotations

import threading

import httpx
import pytest
from tests.llm.test_serve import MESSAGES, Server

from tooleval.errors import JudgeError
from tooleval.llm.base import BaseJudge
from tooleval.llm.reply import JudgeReply

pytest.importorskip("fastapi", reason="serving a judge needs tooleval[web]")


class SlowLoadingJudge(BaseJudge):
    def __init__(self, fail: bool = False) -> None:
        super().__init__(cache=False)
        self.model = "slow"
        self.release = threading.Event()
        self.fail = fail

    def load(self):
        self.release.wait(30)
        if self.fail:
            raise JudgeError("weights are corrupt")
        return self

    def _generate(self, messages, schema):
        return JudgeReply(text="{}", tokens_in=3, tokens_out=1)


def test_health_is_loading_then_ready_and_requests_wait_for_nothing():
    judge = SlowLoadingJudge()
    with Server(judge) as server:
        root = server.base_url.removesuffix("/v1")
        loading = httpx.get(f"{root}/health")
        assert loading.status_code == 503 and loading.json()["status"] == "loading"
        early = httpx.post(f"{server.base_url}/chat/completions", json={"messages": MESSAGES})
        assert early.status_code == 503 and early.headers["retry-after"] == "2"
        assert "loading" in early.json()["error"]["message"]
        judge.release.set()
        server.app.state.judge_state.ready.wait(10)
        ready = httpx.get(f"{root}/ready")
        assert ready.status_code == 200 and ready.json()["status"] == "ready"
        assert ready.json()["load_seconds"] >= 0
        answer = httpx.post(f"{server.base_url}/chat/completions", json={"messages": MESSAGES})
        assert answer.status_code == 200
        assert answer.json()["choices"][0]["message"]["content"] == "{}"


def test_a_failed_load_is_reported_not_hidden():
    judge = SlowLoadingJudge(fail=True)
    judge.release.set()
    with Server(judge) as server:
        server.app.state.judge_state.ready.wait(10)
        root = server.base_url.removesuffix("/v1")
        health = httpx.get(f"{root}/health")
        assert health.status_code == 500
        assert health.json() == {
            "status": "failed",
            "model": "slow",
            "load_seconds": health.json()["load_seconds"],
            "error": "weights are corrupt",
        }
        chat = httpx.post(f"{server.base_url}/chat/completions", json={"messages": MESSAGES})
        assert chat.status_code == 503 and "weights are corrupt" in chat.text
