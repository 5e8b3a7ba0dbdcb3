"""A judge behind any OpenAI-compatible chat endpoint.

OpenAI itself, vLLM, Ollama, llama.cpp's server, LM Studio, LiteLLM and other
proxies all speak ``POST {base_url}/chat/completions``. The client asks for
JSON-schema structured output (``response_format={"type": "json_schema"}``);
an endpoint that answers 400 saying it does not support that is remembered and
asked again with plain JSON instructions only (every judged prompt already
spells out the JSON it wants).

The API key comes from ``api_key``, else the variable named by ``api_key_env``,
else ``TOOLEVAL_JUDGE_API_KEY``, else ``OPENAI_API_KEY``. A ``base_url`` on
127.0.0.1/localhost needs no key (local servers ignore it).

Calls are limited to ``max_concurrency`` at a time, optionally to
``requests_per_minute``, and retried with exponential backoff on 429, 5xx,
timeouts and dropped connections (``Retry-After`` is honoured).

>>> judge = OpenAIJudge("qwen2.5:7b", base_url="http://127.0.0.1:11434/v1", cache=False)
>>> judge.describe()["base_url"], "api_key" in judge.describe()
('http://127.0.0.1:11434/v1', False)
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlparse

from tooleval._extras import install_hint
from tooleval.errors import JudgeError, JudgeTimeout
from tooleval.http_deadline import attempt_deadline
from tooleval.llm.base import BaseJudge, CacheSetting, JudgeUsage
from tooleval.llm.reply import JudgeReply
from tooleval.urlsafe import mask_url, mask_urls_in

__all__ = ["OpenAIJudge"]

_LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "0.0.0.0"}
_UNSUPPORTED_HINTS = ("response_format", "json_schema", "not supported", "unsupported")
# How OpenAI, vLLM, llama.cpp's server and others word "the prompt is longer than the context".
_CONTEXT_HINTS = (
    "context length",
    "context_length",
    "context size",
    "context window",
    "maximum context",
    "too many tokens",
    "prompt is too long",
)
CONTEXT_ADVICE = (
    "the prompt is longer than the judge model's context: make the judge read less with "
    "the metric's max_chars option, or serve the model with a longer context (llama.cpp -c, "
    "vLLM --max-model-len, Ollama num_ctx)"
)


def _is_local(base_url: str | None) -> bool:
    return bool(base_url) and (urlparse(base_url).hostname or "") in _LOCAL_HOSTS


class _RateLimiter:
    """Spaces call starts at least ``60 / requests_per_minute`` seconds apart."""

    def __init__(self, requests_per_minute: float | None) -> None:
        self.interval = 60.0 / requests_per_minute if requests_per_minute else 0.0
        self._lock = threading.Lock()
        self._next = 0.0

    def reserve(self) -> float:
        """Claim the next slot; returns how long to wait before using it."""
        if not self.interval:
            return 0.0
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
            return start - now


class OpenAIJudge(BaseJudge):
    """Judge through the official ``openai`` SDK against any compatible endpoint."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = 1024,
        seed: int | None = None,
        structured_output: bool | str = "auto",
        max_concurrency: int = 4,
        requests_per_minute: float | None = None,
        max_retries: int = 4,
        backoff: float = 1.0,
        timeout: float = 120.0,
        cache: CacheSetting = True,
        usage: JudgeUsage | None = None,
        http_client: Any = None,
        async_http_client: Any = None,
    ) -> None:
        super().__init__(cache=cache, usage=usage)
        if not model or not isinstance(model, str):
            raise JudgeError("a judge model name is required", field="model")
        if structured_output not in (True, False, "auto"):
            raise JudgeError(
                f"structured_output must be true, false or 'auto', got {structured_output!r}",
                field="structured_output",
            )
        if max_concurrency < 1:
            raise JudgeError("max_concurrency must be at least 1", field="max_concurrency")
        self.model = model
        self.base_url = base_url or os.environ.get("TOOLEVAL_JUDGE_BASE_URL") or None
        self.api_key_env = api_key_env
        self._api_key = self._resolve_key(api_key, api_key_env)
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.seed = seed
        self.structured_output = structured_output
        # None = not tried yet; False once the endpoint has refused json_schema.
        self._structured_ok: bool | None = (
            None if structured_output == "auto" else bool(structured_output)
        )
        self.max_concurrency = int(max_concurrency)
        self.requests_per_minute = requests_per_minute
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.timeout = float(timeout)
        # Injectable httpx clients (tests use httpx.MockTransport for fault shapes).
        self._http_client = http_client
        self._async_http_client = async_http_client
        self._sync_client: Any = None
        # Keyed by event loop (weakly): async clients and semaphores belong to one loop.
        self._async_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._thread_slots = threading.BoundedSemaphore(self.max_concurrency)
        self._loop_slots: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._limiter = _RateLimiter(requests_per_minute)
        self._client_lock = threading.Lock()

    def _resolve_key(self, api_key: str | None, api_key_env: str | None) -> str:
        if api_key:
            return api_key
        if api_key_env:
            value = os.environ.get(api_key_env)
            if not value:
                raise JudgeError(
                    f"environment variable {api_key_env} (api_key_env) is not set",
                    field="api_key_env",
                )
            return value
        for name in ("TOOLEVAL_JUDGE_API_KEY", "OPENAI_API_KEY"):
            if os.environ.get(name):
                return os.environ[name]
        if _is_local(self.base_url):
            return "not-needed"
        raise JudgeError(
            "no API key for the judge: set TOOLEVAL_JUDGE_API_KEY (or OPENAI_API_KEY), "
            "pass api_key_env=, or point base_url at a local server"
        )

    @property
    def structured_supported(self) -> bool | None:
        """Whether the endpoint accepted ``json_schema`` output (None: not asked yet)."""
        return self._structured_ok

    def parameters(self) -> dict[str, Any]:
        out: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.seed is not None:
            out["seed"] = self.seed
        return out

    def describe(self) -> dict[str, Any]:
        shown = mask_url(self.base_url) if self.base_url else None
        out = {"type": "openai", "model": self.model, "base_url": shown}
        if self.api_key_env:
            out["api_key_env"] = self.api_key_env
        return {**out, **self.parameters(), "structured_output": self.structured_output}

    # ------------------------------------------------------------ clients

    def close(self) -> None:
        """Close the HTTP client and the cache file."""
        with self._client_lock:
            client, self._sync_client = self._sync_client, None
        if client is not None:
            client.close()
        super().close()

    async def aclose(self) -> None:
        """Close every client, awaiting the async ones bound to the running loop."""
        loop = asyncio.get_running_loop()
        with self._client_lock:
            clients, self._async_clients = self._async_clients, weakref.WeakKeyDictionary()
        client = clients.get(loop)
        if client is not None:
            await client.close()
        self.close()

    def _client(self) -> Any:
        with self._client_lock:
            if self._sync_client is None:
                openai = _import_openai()

                from tooleval.http_deadline import sync_client

                self._sync_client = openai.OpenAI(
                    api_key=self._api_key,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=0,  # retries are ours, so they are counted and tested
                    # our own client's sockets end each request at the attempt deadline
                    http_client=self._http_client or sync_client(),
                )
            return self._sync_client

    def _aclient(self) -> Any:
        # An AsyncOpenAI client is bound to the loop it first ran on.
        loop = asyncio.get_running_loop()
        with self._client_lock:
            if loop not in self._async_clients:
                openai = _import_openai()

                self._async_clients[loop] = openai.AsyncOpenAI(
                    api_key=self._api_key,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=self._async_http_client,
                )
            return self._async_clients[loop]

    def _aslots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if loop not in self._loop_slots:
            self._loop_slots[loop] = asyncio.Semaphore(self.max_concurrency)
        return self._loop_slots[loop]

    # ------------------------------------------------------------ requests

    def _request(self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None) -> dict:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if self.seed is not None:
            request["seed"] = self.seed
        if schema is not None and self._structured_ok is not False:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": str(schema.get("title", "verdict")),
                    "schema": _portable(schema),
                    "strict": False,
                },
            }
        return request

    def _reply(self, response: Any, started: float, structured: bool) -> JudgeReply:
        if structured and self._structured_ok is None:
            self._structured_ok = True
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise JudgeError("the judge endpoint returned no choices", field="choices")
        text = choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        return JudgeReply(
            text=text,
            tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
            tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
            latency_ms=(time.perf_counter() - started) * 1000,
            model=getattr(response, "model", None) or self.model,
        )

    def _classify(self, exc: Exception, structured: bool, attempt: int) -> str:
        """'fallback', 'retry' or 'fail' for an SDK exception."""
        import openai

        status = getattr(exc, "status_code", None)
        if structured and self.structured_output == "auto" and status in (400, 422):
            text = str(exc).lower()
            if any(hint in text for hint in _UNSUPPORTED_HINTS):
                return "fallback"
        retryable = isinstance(
            exc, openai.APIConnectionError | openai.APITimeoutError | TimeoutError
        ) or (status is not None and (status == 429 or status >= 500))
        if retryable and attempt < self.max_retries:
            return "retry"
        return "fail"

    def _delay(self, exc: Exception, attempt: int) -> float:
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                return min(float(header), 60.0)
            except ValueError:
                pass
        # Exponential backoff with jitter so parallel rows do not retry in lockstep.
        return self.backoff * (2**attempt) * (0.5 + random.random() / 2)

    def _error(self, exc: Exception) -> JudgeError:
        status = getattr(exc, "status_code", None)
        hint = ""
        if status in (401, 403):
            hint = " (check the API key: TOOLEVAL_JUDGE_API_KEY / api_key_env)"
        elif status == 404:
            hint = f" (check base_url and that model {self.model!r} exists there)"
        where = mask_url(self.base_url) if self.base_url else "https://api.openai.com/v1"
        said = mask_urls_in(str(exc))  # a client's message may quote the URL it tried
        if any(
            words in said.lower() for words in _CONTEXT_HINTS
        ):  # the advice first: it is cut last
            return JudgeError(f"{CONTEXT_ADVICE} ({where} said: {said})", status=status)
        return JudgeError(f"judge call to {where} failed: {said}{hint}", status=status)

    def _next_try(
        self, error: Exception, structured: bool, attempt: int
    ) -> tuple[int, float | None]:
        """After a failed request: the next attempt number and the pause before it.

        No pause (None) when structured output is dropped for plain JSON; a
        JudgeError when the failure is final.
        """
        action = self._classify(error, structured, attempt)
        if action == "fallback":
            self._structured_ok = False
            return attempt, None
        if action == "retry":
            return attempt + 1, self._delay(error, attempt)
        raise self._error(error) from error

    def _generate(
        self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None
    ) -> JudgeReply:
        client = self._client()
        attempt = 0
        while True:
            request = self._request(messages, schema)
            structured = "response_format" in request
            with self._thread_slots:
                time.sleep(self._limiter.reserve())
                started = time.perf_counter()
                try:
                    with attempt_deadline(self.timeout):
                        response = client.chat.completions.create(**request)
                except Exception as exc:
                    error = exc
                else:
                    return self._reply(response, started, structured)
            attempt, pause = self._next_try(error, structured, attempt)
            if pause is not None:
                time.sleep(pause)

    async def _agenerate(
        self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None
    ) -> JudgeReply:
        client = self._aclient()
        attempt = 0
        while True:
            request = self._request(messages, schema)
            structured = "response_format" in request
            async with self._aslots():
                await asyncio.sleep(self._limiter.reserve())
                started = time.perf_counter()
                try:
                    async with asyncio.timeout(self.timeout):
                        response = await client.chat.completions.create(**request)
                except TimeoutError:
                    error: Exception = JudgeTimeout(
                        f"no complete reply within the judge's {self.timeout:g} s timeout"
                    )
                except Exception as exc:
                    error = exc
                else:
                    return self._reply(response, started, structured)
            attempt, pause = self._next_try(error, structured, attempt)
            if pause is not None:
                await asyncio.sleep(pause)

    def __repr__(self) -> str:
        shown = mask_url(self.base_url) if self.base_url else None
        return f"OpenAIJudge(model={self.model!r}, base_url={shown!r})"


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as exc:
        raise JudgeError(
            f"the OpenAI-compatible judge needs the judge extra: {install_hint('judge')}"
        ) from exc
    return openai


# Keywords only the local judge's constrained decoder reads (one review per call, in order):
# endpoints get the shared schema, as before them.
_LOCAL_KEYWORDS = frozenset({"prefixItems", "const"})


def _portable(schema: Any) -> Any:
    """``schema`` without the local-only keywords, at every depth.

    >>> _portable({"type": "array", "prefixItems": [{"const": 1}], "items": {"type": "integer"}})
    {'type': 'array', 'items': {'type': 'integer'}}
    """
    if isinstance(schema, Mapping):
        return {k: _portable(v) for k, v in schema.items() if k not in _LOCAL_KEYWORDS}
    if isinstance(schema, list):
        return [_portable(v) for v in schema]
    return schema
