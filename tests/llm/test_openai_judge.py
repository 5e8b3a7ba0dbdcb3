"""OpenAIJudge fault shapes over httpx.MockTransport (the real endpoint test is test_serve)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from tooleval.errors import JudgeError
from tooleval.llm import OpenAIJudge

SCHEMA = {
    "title": "flag",
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}
MESSAGES = [{"role": "user", "content": "Is it ok?"}]


def completion(text: str, *, prompt_tokens=11, completion_tokens=4) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "served-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


class Script:
    """Answers requests from a list of (status, body, headers); records each request."""

    def __init__(self, *steps):
        self.steps = list(steps)
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(json.loads(request.content))
        status, body, headers = self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]
        return httpx.Response(status, json=body, headers=headers)


def judge_for(script: Script, **options) -> OpenAIJudge:
    options.setdefault("backoff", 0.001)
    return OpenAIJudge(
        "test-model",
        base_url="http://127.0.0.1:9/v1",
        cache=False,
        http_client=httpx.Client(transport=httpx.MockTransport(script)),
        **options,
    )


OK = (200, completion('{"ok": true}'), {})


def test_structured_output_requested_and_parsed():
    script = Script(OK)
    judge = judge_for(script)
    reply = judge.complete(MESSAGES, schema=SCHEMA)
    assert reply.parsed == {"ok": True}
    assert (reply.tokens_in, reply.tokens_out, reply.model) == (11, 4, "served-model")
    sent = script.requests[0]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == SCHEMA
    assert sent["temperature"] == 0.0
    assert judge.structured_supported is True
    assert judge.usage.calls == 1


def test_unsupported_json_schema_falls_back_and_is_remembered():
    refusal = {"error": {"message": "response_format json_schema is not supported"}}
    script = Script((400, refusal, {}), OK)
    judge = judge_for(script)
    assert judge.complete(MESSAGES, schema=SCHEMA).parsed == {"ok": True}
    assert judge.complete(MESSAGES, schema=SCHEMA).parsed == {"ok": True}
    assert ["response_format" in r for r in script.requests] == [True, False, False]
    assert judge.structured_supported is False


def test_other_400_is_an_error_not_a_fallback():
    script = Script((400, {"error": {"message": "context length exceeded"}}, {}))
    with pytest.raises(JudgeError) as info:
        judge_for(script).complete(MESSAGES, schema=SCHEMA)
    assert info.value.context["status"] == 400
    assert len(script.requests) == 1
    assert "longer than the judge model's context" in str(info.value)  # and what to do
    assert "max_chars" in str(info.value)


def test_structured_output_off_never_sends_response_format():
    script = Script(OK)
    judge_for(script, structured_output=False).complete(MESSAGES, schema=SCHEMA)
    assert "response_format" not in script.requests[0]


def test_retries_429_and_5xx_then_succeeds():
    script = Script(
        (429, {"error": {"message": "slow down"}}, {"retry-after": "0"}),
        (503, {"error": {"message": "busy"}}, {}),
        OK,
    )
    judge = judge_for(script)
    assert judge.complete(MESSAGES, schema=SCHEMA).parsed == {"ok": True}
    assert len(script.requests) == 3
    assert judge.usage.calls == 1


def test_gives_up_after_max_retries_with_status():
    script = Script((500, {"error": {"message": "boom"}}, {}))
    with pytest.raises(JudgeError) as info:
        judge_for(script, max_retries=2).complete(MESSAGES)
    assert len(script.requests) == 3
    assert info.value.context["status"] == 500
    assert "judge call to http://127.0.0.1:9/v1 failed" in str(info.value)


def test_auth_failure_names_the_key_settings():
    script = Script((401, {"error": {"message": "bad key"}}, {}))
    with pytest.raises(JudgeError, match="TOOLEVAL_JUDGE_API_KEY"):
        judge_for(script).complete(MESSAGES)
    assert len(script.requests) == 1


def test_unparsable_reply_is_kept_with_its_error():
    script = Script((200, completion("I think yes"), {}))
    reply = judge_for(script).complete(MESSAGES, schema=SCHEMA)
    assert reply.parsed is None
    assert reply.parse_error == "no JSON object found in the reply"
    assert reply.text == "I think yes"


def test_cache_answers_repeat_calls_without_requests(tmp_path):
    script = Script(OK)
    judge = OpenAIJudge(
        "test-model",
        base_url="http://127.0.0.1:9/v1",
        cache=tmp_path / "cache.db",
        http_client=httpx.Client(transport=httpx.MockTransport(script)),
    )
    first = judge.complete(MESSAGES, schema=SCHEMA)
    second = judge.complete(MESSAGES, schema=SCHEMA)
    assert len(script.requests) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.parsed == first.parsed
    assert judge.usage.to_dict()["calls"] == 1
    assert judge.usage.to_dict()["cached_calls"] == 1


def test_api_key_resolution(monkeypatch):
    for name in ("TOOLEVAL_JUDGE_API_KEY", "OPENAI_API_KEY", "TOOLEVAL_JUDGE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(JudgeError, match="no API key"):
        OpenAIJudge("m", cache=False)
    # A local server needs no key.
    OpenAIJudge("m", base_url="http://localhost:8000/v1", cache=False)
    with pytest.raises(JudgeError) as info:
        OpenAIJudge("m", api_key_env="MY_JUDGE_KEY", cache=False)
    assert info.value.field == "api_key_env"
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-test")
    judge = OpenAIJudge("m", api_key_env="MY_JUDGE_KEY", cache=False)
    assert "sk-test" not in json.dumps(judge.describe())
    monkeypatch.setenv("TOOLEVAL_JUDGE_API_KEY", "sk-2")
    OpenAIJudge("m", cache=False)


def test_bad_options_are_judge_errors():
    with pytest.raises(JudgeError):
        OpenAIJudge("", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(JudgeError):
        OpenAIJudge("m", base_url="http://127.0.0.1:9/v1", structured_output="maybe")
    with pytest.raises(JudgeError):
        OpenAIJudge("m", base_url="http://127.0.0.1:9/v1", max_concurrency=0)


async def test_async_respects_the_concurrency_limit():
    in_flight = 0
    peak = 0

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return httpx.Response(200, json=completion('{"ok": false}'))

    judge = OpenAIJudge(
        "test-model",
        base_url="http://127.0.0.1:9/v1",
        cache=False,
        max_concurrency=2,
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    messages = [[{"role": "user", "content": f"q{i}"}] for i in range(6)]
    replies = await asyncio.gather(*(judge.acomplete(m, schema=SCHEMA) for m in messages))
    assert [r.parsed for r in replies] == [{"ok": False}] * 6
    assert peak == 2
    assert judge.usage.calls == 6


async def test_async_retries_and_falls_back():
    refusal = {"error": {"message": "json_schema unsupported"}}
    steps = [(400, refusal), (502, {"error": {"message": "bad gateway"}}), (200, completion("{}"))]
    seen = []

    async def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        status, body = steps.pop(0)
        return httpx.Response(status, json=body)

    judge = OpenAIJudge(
        "test-model",
        base_url="http://127.0.0.1:9/v1",
        cache=False,
        backoff=0.001,
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
    )
    reply = await judge.acomplete(MESSAGES, schema={"type": "object"})
    assert reply.parsed == {}
    assert ["response_format" in r for r in seen] == [True, False, False]


def test_rate_limit_spaces_calls():
    from tooleval.llm.openai_judge import _RateLimiter

    limiter = _RateLimiter(600)  # one call every 0.1 s
    waits = [limiter.reserve() for _ in range(3)]
    assert waits[0] == 0.0
    assert waits[1] == pytest.approx(0.1, abs=0.02)
    assert waits[2] == pytest.approx(0.2, abs=0.02)
    assert _RateLimiter(None).reserve() == 0.0


async def test_close_releases_clients_and_the_judge_stays_usable(tmp_path):
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=completion('{"ok": true}'))

    judge = OpenAIJudge(
        "test-model",
        base_url="http://127.0.0.1:9/v1",
        cache=tmp_path / "c.db",
        async_http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
        http_client=httpx.Client(transport=httpx.MockTransport(Script(OK))),
    )
    assert (await judge.acomplete(MESSAGES, schema=SCHEMA)).parsed == {"ok": True}
    judge.complete([{"role": "user", "content": "other"}])
    await judge.aclose()
    assert len(judge._async_clients) == 0 and judge._sync_client is None
    # Reopened on demand: the cached reply is still there.
    assert (await judge.acomplete(MESSAGES, schema=SCHEMA)).cached


def test_one_judge_serves_several_event_loops():
    async def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=completion('{"ok": true}'))

    judge = OpenAIJudge("test-model", base_url="http://127.0.0.1:9/v1", cache=False)
    for _ in range(2):
        # A fresh transport per loop, as an httpx.AsyncClient belongs to one loop.
        judge._async_http_client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        reply = asyncio.run(judge.acomplete(MESSAGES, schema=SCHEMA))
        assert reply.parsed == {"ok": True}
    assert judge.usage.calls == 2
