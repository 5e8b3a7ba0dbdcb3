"""HTTP connector: send each row to an agent endpoint, read the reply by JSONPath.

>>> c = HttpConnector("http://127.0.0.1:8000/agent", headers={"Authorization": "Bearer ${TOKEN}"},
...                   response={"tools_called": "$.steps[*].tool.name"})
>>> c.describe()["headers"]
['Authorization']
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
from collections.abc import Mapping
from typing import Any

from tooleval.connectors.clients import HttpClients
from tooleval.connectors.paths import ResponseMapping
from tooleval.connectors.response import AgentResponse, as_sample
from tooleval.connectors.retry import RetryPolicy, RetryTally, UnreadableBody, asend, send
from tooleval.connectors.template import BodyTemplate, resolve_env
from tooleval.errors import ConfigError, ConnectorError
from tooleval.model import Sample
from tooleval.urlsafe import mask_url, shown_url

__all__ = ["HttpConnector", "UnreadableBody", "safe_url"]

_METHODS = {"GET", "POST", "PUT", "PATCH"}


def safe_url(url: str) -> str:
    """The URL with its secrets masked (safe to store; see :mod:`tooleval.urlsafe`).

    >>> safe_url("https://bob:hunter2@agent.local/run?token=${AGENT_TOKEN}&sig=abc")
    'https://bob:***@agent.local/run?token=${AGENT_TOKEN}&sig=***'
    """
    return mask_url(url)


class HttpConnector(HttpClients):
    """Calls an agent over HTTP with retries, reads the reply by JSONPath.

    ``headers`` values may reference environment variables (``${AGENT_TOKEN}``),
    resolved at each call; only header *names* are ever described or stored.
    ``body`` is a JSON template (see :mod:`tooleval.connectors.template`);
    the default is ``{"input": "{{input}}"}``. ``response`` maps
    ``output`` / ``tools_called`` / ``tool_calls`` / ``tool_results`` to JSONPaths. Pass
    ``client`` (``httpx.Client``) or ``async_client`` (``httpx.AsyncClient``)
    to control transport; otherwise the connector creates and closes its own
    (async: aiohttp behind httpx's face, see :mod:`tooleval.connectors.aio`).
    """

    def __init__(
        self,
        url: str,
        *,
        method: str = "POST",
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        response: ResponseMapping | Mapping[str, Any] | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        client: Any = None,
        async_client: Any = None,
    ) -> None:
        if not isinstance(url, str) or not url.strip():
            raise ConfigError(
                "expected the agent's URL, e.g. http://127.0.0.1:8000/agent", field="connector.url"
            )
        scheme = urllib.parse.urlsplit(url).scheme
        if scheme not in {"http", "https"} and not url.startswith("${"):
            raise ConfigError(
                f"URL must start with http:// or https://, got {url!r}", field="connector.url"
            )
        method = str(method).upper()
        if method not in _METHODS:
            raise ConfigError(
                f"unsupported method {method!r}; expected one of {sorted(_METHODS)}",
                field="connector.method",
            )
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise ConfigError(
                f"expected a number of seconds > 0, got {timeout!r}", field="connector.timeout"
            )
        self.url = url
        self.method = method
        self.headers = dict(headers or {})
        for key, value in self.headers.items():
            if not isinstance(value, str):
                raise ConfigError(
                    f"header values must be strings, got {type(value).__name__}",
                    field=f"connector.headers.{key}",
                )
        self.body = BodyTemplate({"input": "{{input}}"} if body is None else body)
        self.params = BodyTemplate(dict(params), field="connector.params") if params else None
        self.mapping = (
            response
            if isinstance(response, ResponseMapping)
            else ResponseMapping.from_config(response)
        )
        self.timeout = float(timeout)
        self.retry = retry or RetryPolicy()
        self._init_clients(client, async_client)

    # ------------------------------------------------------------ describe
    def describe(self) -> dict[str, Any]:
        """Safe to store: URL (password masked), header names, template, paths."""
        out: dict[str, Any] = {
            "type": "http",
            "method": self.method,
            "url": safe_url(self.url),
            "headers": sorted(self.headers),
            "body": self.body.source,
            "timeout": self.timeout,
            "retry": self.retry.to_dict(),
            "response": self.mapping.describe(),
        }
        if self.params is not None:
            out["params"] = self.params.source
        return out

    # ------------------------------------------------------------ request
    def _request(self, sample: Sample) -> tuple[str, dict[str, Any]]:
        url = resolve_env(self.url, field="connector.url")
        headers = {
            key: resolve_env(value, field=f"connector.headers.{key}")
            for key, value in self.headers.items()
        }
        request: dict[str, Any] = {"headers": headers, "timeout": self.timeout}
        if self.method != "GET":
            request["json"] = self.body.render(sample)
        if self.params is not None:
            request["params"] = {
                k: v if isinstance(v, str | int | float) else json.dumps(v)
                for k, v in self.params.render(sample).items()
            }
        return url, request

    def _parse(
        self, http_response: Any, *, started: float, attempts: int, sample: Sample
    ) -> AgentResponse:
        latency = (time.perf_counter() - started) * 1000.0
        text = http_response.text
        if self.mapping.configured and not text.strip():
            raise UnreadableBody(
                f"{self.method} {shown_url(self.url)} returned an empty body, so the response "
                "paths cannot be applied",
                status=http_response.status_code,
                row=sample.id,
            )
        try:
            document: Any = http_response.json() if text.strip() else None
        except ValueError:
            if self.mapping.configured:
                raise UnreadableBody(
                    f"{self.method} {shown_url(self.url)} returned a body that is not JSON, so the "
                    f"response paths cannot be applied: {' '.join(text.split())[:200]}",
                    status=http_response.status_code,
                    row=sample.id,
                ) from None
            return AgentResponse(text, None, text, latency, http_response.status_code, attempts)
        if not self.mapping.configured:
            output = document if isinstance(document, str) else None
            return AgentResponse(
                output, None, document, latency, http_response.status_code, attempts
            )
        try:
            extracted = self.mapping.extract(document)
        except ConnectorError as exc:
            raise exc.with_context(status=http_response.status_code, row=sample.id) from None
        return AgentResponse(
            extracted.output,
            extracted.tools_called,
            document,
            latency,
            http_response.status_code,
            attempts,
            warnings=extracted.warnings,
        )

    def send_raw(self, sample: Sample | str) -> tuple[Any, int, float]:
        """Send one row and return ``(httpx.Response, attempts, started)`` unparsed.

        ``tooleval connector test`` uses this to show the raw reply even when
        the response paths fail on it.
        """
        sample = as_sample(sample)
        url, request = self._request(sample)
        client = self._sync_client()
        started = time.perf_counter()
        response, attempts = send(
            client,
            self.method,
            url,
            policy=self.retry,
            display_url=self.url,
            **request,
        )
        return response, attempts, started

    def _parse_or_retry(
        self, response: Any, tally: RetryTally, *, started: float, sample: Sample
    ) -> AgentResponse | float:
        """The parsed reply, or the seconds to wait before sending again (unreadable body)."""
        try:
            parsed = self._parse(response, started=started, attempts=tally.attempts, sample=sample)
        except UnreadableBody as exc:
            if not self.retry.invalid_body or tally.body >= self.retry.retries:
                raise exc.after(tally) from None
            tally.body += 1
            return self.retry.delay(tally.body)
        parsed.retries = tally.counts()
        return parsed

    def call(self, sample: Sample | str) -> AgentResponse:
        """Send one row (sync)."""
        sample = as_sample(sample)
        url, request = self._request(sample)
        client = self._sync_client()
        started = time.perf_counter()
        tally = RetryTally()
        while True:
            response, attempts = send(
                client,
                self.method,
                url,
                policy=self.retry,
                display_url=self.url,
                **request,
            )
            tally.sent(attempts)
            outcome = self._parse_or_retry(response, tally, started=started, sample=sample)
            if isinstance(outcome, AgentResponse):
                return outcome
            time.sleep(outcome)

    async def acall(self, sample: Sample | str) -> AgentResponse:
        """Send one row (async)."""
        sample = as_sample(sample)
        url, request = self._request(sample)
        client = self._async_transport()
        started = time.perf_counter()
        tally = RetryTally()
        while True:
            response, attempts = await asend(
                client,
                self.method,
                url,
                policy=self.retry,
                display_url=self.url,
                **request,
            )
            tally.sent(attempts)
            outcome = self._parse_or_retry(response, tally, started=started, sample=sample)
            if isinstance(outcome, AgentResponse):
                return outcome
            await asyncio.sleep(outcome)

    def __enter__(self) -> HttpConnector:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> HttpConnector:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
