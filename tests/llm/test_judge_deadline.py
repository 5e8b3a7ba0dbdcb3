"""A judge request ends at the judge's ``timeout``: real misbehaving servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time

import openai  # noqa: F401  (imported before timing: the SDK takes seconds to load)
import pytest
from tests.misbehaving import DripServer, HangServer

from tooleval.errors import JudgeError
from tooleval.llm.openai_judge import OpenAIJudge

TIMEOUT = 0.6
# Slack for a loaded shared machine (load ~30 seen); without the deadline these never end.
BOUND = TIMEOUT + 10
MESSAGES = [{"role": "user", "content": "grade this"}]


def _judge(url: str) -> OpenAIJudge:
    base = url.rsplit("/", 1)[0] + "/v1"
    return OpenAIJudge("m", base_url=base, api_key="k", timeout=TIMEOUT, max_retries=0, cache=False)


@pytest.mark.parametrize(
    "server",
    [
        lambda: DripServer(interval=0.05),
        lambda: DripServer(interval=0.05, after_headers=False),
        lambda: HangServer(),
    ],
    ids=["drip-body", "drip-headers", "hang-after-headers"],
)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_judge_request_ends_at_its_timeout(server, mode):
    with server() as running:
        judge = _judge(running.url)
        judge._client()  # the SDK client is built before timing (seconds under load)
        started = time.monotonic()
        with pytest.raises(JudgeError):
            if mode == "sync":
                judge.complete(MESSAGES)
            else:
                asyncio.run(judge.acomplete(MESSAGES))
        elapsed = time.monotonic() - started
        judge.close()
    assert elapsed < BOUND, elapsed
