"""Retries with exponential back-off, shared by the HTTP-based connectors.

Connect errors, timeouts, 429 (honouring ``Retry-After``) and 5xx are retried;
any other 4xx is the caller's mistake and fails at once. A request's
``timeout`` bounds each whole attempt (connect, headers and the body read to
its end), not only each read: an agent that answers 200 and then drips one
byte at a time fails the attempt at its deadline as a ``ReadTimeout``. A 2xx reply whose
body cannot be read (not JSON when response paths are configured: a proxy's
HTML page, a truncated reply) is retried too when ``invalid_body`` is on (the
default); those retries are counted apart from the HTTP ones. The decision
and the delay are pure functions; the send loops (sync and async) only sleep.

>>> policy = RetryPolicy(retries=3, backoff=0.5, max_delay=4.0, jitter=0.0)
>>> [policy.delay(n) for n in (1, 2, 3, 4)]
[0.5, 1.0, 2.0, 4.0]
>>> policy.delay(1, retry_after="3")
3.0
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tooleval.errors import ConfigError, ConnectorError, UnreadableBody
from tooleval.urlsafe import mask_url

__all__ = ["RetryPolicy", "RetryTally", "UnreadableBody", "asend", "parse_retry_after", "send"]

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504}) | frozenset(range(505, 600))


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date).

    >>> parse_retry_after("2"), parse_retry_after("soon")
    (2.0, None)
    """
    if value is None:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``retries`` extra attempts after the first, delays ``backoff * 2**(n-1)``.

    Each delay gets up to ``jitter`` (a fraction) added at random so many
    clients do not retry in lock-step, and is capped at ``max_delay``; a
    ``Retry-After`` from the server replaces the computed delay (also capped).
    """

    retries: int = 2
    backoff: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.1
    invalid_body: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.invalid_body, bool):
            raise ConfigError(
                f"expected true or false, got {self.invalid_body!r}",
                field="connector.retry.invalid_body",
            )
        for name in ("retries", "backoff", "max_delay", "jitter"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(
                    f"expected a number >= 0, got {value!r}", field=f"connector.retry.{name}"
                )

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | int | None, *, field: str) -> RetryPolicy:
        if config is None:
            return cls()
        if isinstance(config, int) and not isinstance(config, bool):
            return cls(retries=config)
        if not isinstance(config, Mapping):
            raise ConfigError(
                "expected a number of retries or a mapping "
                "{retries, backoff, max_delay, jitter, invalid_body}",
                field=field,
            )
        allowed = {"retries", "backoff", "max_delay", "jitter", "invalid_body"}
        unknown = sorted(set(config) - allowed)
        if unknown:
            raise ConfigError(
                f"unknown key {unknown[0]!r}; expected one of {sorted(allowed)}",
                field=f"{field}.{unknown[0]}",
            )
        return cls(**dict(config))

    @property
    def attempts(self) -> int:
        return int(self.retries) + 1

    def delay(
        self, retry: int, *, retry_after: str | None = None, rng: random.Random | None = None
    ) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        server = parse_retry_after(retry_after)
        if server is not None:
            return min(server, self.max_delay)
        base = self.backoff * (2 ** (retry - 1))
        spread = (rng or random).uniform(0.0, self.jitter) if self.jitter else 0.0
        return min(base * (1.0 + spread), self.max_delay)

    def to_dict(self) -> dict[str, Any]:
        return {
            "retries": self.retries,
            "backoff": self.backoff,
            "max_delay": self.max_delay,
            "jitter": self.jitter,
            "invalid_body": self.invalid_body,
        }


def _retryable_exception(exc: BaseException) -> bool:
    import httpx

    return isinstance(exc, httpx.TimeoutException | httpx.NetworkError | httpx.RemoteProtocolError)


def _excerpt(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _failure(
    method: str,
    url: str,
    attempts: int,
    response: Any,
    exc: BaseException | None,
    *,
    sent: str | None = None,
):
    """The ConnectorError of a final failure, naming ``url`` (as shown: secrets masked).

    ``sent`` is the URL really requested: where a transport's message repeats
    it (an invalid URL), it is replaced by ``url`` so no secret slips through.
    """
    noun = "attempt" if attempts == 1 else "attempts"
    if response is not None:
        err = ConnectorError(
            f"{method} {url} failed after {attempts} {noun}: HTTP {response.status_code}: "
            f"{_excerpt(response.text) or '(empty body)'}",
            status=response.status_code,
        )
    else:
        kind = type(exc).__name__
        detail = str(exc) or kind
        if sent and sent != url:
            detail = detail.replace(sent, url)
        err = ConnectorError(f"{method} {url} failed after {attempts} {noun}: {kind}: {detail}")
    err.url = url  # type: ignore[attr-defined]
    err.attempts = attempts  # type: ignore[attr-defined]
    return err


def send(
    client: Any,
    method: str,
    url: str,
    *,
    policy: RetryPolicy,
    display_url: str | None = None,
    **request: Any,
):
    """Send with retries (sync); returns ``(response, attempts)`` or raises ConnectorError.

    Errors name the URL sent, with its secrets masked (a password, query values
    that look secret or came from a variable: ``display_url`` is the URL as
    configured, before ``${ENV}`` resolution; see :mod:`tooleval.urlsafe`).
    """
    shown = mask_url(url, template=display_url)
    attempt = 0
    while True:
        attempt += 1
        response, error = None, None
        try:
            response = _request_within(client, method, url, request)
        except Exception as exc:
            if not _retryable_exception(exc):
                raise _failure(method, shown, attempt, None, exc, sent=url) from exc
            error = exc
        if response is not None and response.status_code < 400:
            return response, attempt
        time.sleep(_pause_or_raise(policy, method, shown, attempt, response, error, url))


async def asend(
    client: Any,
    method: str,
    url: str,
    *,
    policy: RetryPolicy,
    display_url: str | None = None,
    **request: Any,
):
    """Send with retries (async); same contract as :func:`send`."""
    shown = mask_url(url, template=display_url)
    attempt = 0
    while True:
        attempt += 1
        response, error = None, None
        try:
            response = await _arequest_within(client, method, url, request)
        except Exception as exc:
            if not _retryable_exception(exc):
                raise _failure(method, shown, attempt, None, exc, sent=url) from exc
            error = exc
        if response is not None and response.status_code < 400:
            return response, attempt
        await asyncio.sleep(_pause_or_raise(policy, method, shown, attempt, response, error, url))


def _attempt_timeout(request: Mapping[str, Any]) -> float | None:
    timeout = request.get("timeout")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        return None
    return float(timeout)


def _over_deadline(timeout: float) -> Exception:
    import httpx

    return httpx.ReadTimeout(f"no complete reply within the attempt's {timeout:g} s timeout")


def _request_within(client: Any, method: str, url: str, request: Mapping[str, Any]) -> Any:
    """``client.request``, with the body read under the attempt's deadline (sync httpx).

    The reply is streamed so the deadline is checked between chunks, and the
    read timeout left for the body is what remains of the attempt.
    """
    timeout = _attempt_timeout(request)
    stream = getattr(client, "stream", None)
    if timeout is None or stream is None:
        return client.request(method, url, **request)
    from tooleval.http_deadline import attempt_deadline

    deadline = time.monotonic() + timeout
    with attempt_deadline(timeout), stream(method, url, **request) as response:
        remaining = max(0.001, deadline - time.monotonic())
        limits = response.request.extensions.get("timeout")
        if isinstance(limits, dict):  # httpcore reads it when the body read starts
            limits["read"] = min(limits.get("read") or remaining, remaining)
        chunks = []
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise _over_deadline(timeout)
        response._content = b"".join(chunks)  # what Response.read() keeps, read in time
    return response


async def _arequest_within(client: Any, method: str, url: str, request: Mapping[str, Any]) -> Any:
    """``await client.request`` with the whole attempt under the request's ``timeout``."""
    timeout = _attempt_timeout(request)
    try:
        async with asyncio.timeout(timeout):
            return await client.request(method, url, **request)
    except TimeoutError as exc:
        if timeout is None:
            raise
        raise _over_deadline(timeout) from exc


def _pause_or_raise(
    policy: RetryPolicy,
    method: str,
    shown: str,
    attempt: int,
    response: Any,
    error: BaseException | None,
    sent: str,
) -> float:
    """Seconds to wait before retrying a failed attempt; ConnectorError when it is final."""
    retryable = error is not None or response.status_code in RETRY_STATUSES
    if not retryable or attempt >= policy.attempts:
        raise _failure(method, shown, attempt, response, error, sent=sent) from error
    header = response.headers.get("retry-after") if response is not None else None
    return policy.delay(attempt, retry_after=header)


class RetryTally:
    """Attempts of one row: HTTP retries and unreadable-body retries counted apart."""

    def __init__(self) -> None:
        self.attempts = 0
        self.http = 0
        self.body = 0

    def sent(self, attempts: int) -> None:
        self.attempts += attempts
        self.http += attempts - 1

    def counts(self) -> dict[str, int]:
        return {k: v for k, v in (("http", self.http), ("invalid_body", self.body)) if v}
