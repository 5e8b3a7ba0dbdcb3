"""``--max-rps``: a token bucket shared by every worker of a run.

``--concurrency`` bounds how many calls are in flight; ``--max-rps`` bounds
how many start per second (an agent behind a rate-limited model API). The
bucket holds at most ``burst`` tokens (default: one second's worth, at least
1), refills at ``rate`` per second, and each call takes one, waiting when
none is left. Retries inside the connector are not extra tokens (the
connector honours ``Retry-After`` itself).

>>> bucket = TokenBucket(50.0, clock=lambda: 0.0)
>>> [bucket.reserve() for _ in range(3)][:2], bucket.burst
([0.0, 0.0], 50.0)
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any

from tooleval.errors import ConfigError

__all__ = ["RateLimited", "TokenBucket", "check_rps"]


def check_rps(value: Any, option: str = "--max-rps") -> float | None:
    """A positive finite rate, or None; anything else is a ConfigError naming ``option``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"expected a number of requests per second, got {value!r}", field=option)
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(f"expected a number > 0, got {value!r}", field=option)
    return float(value)


class TokenBucket:
    """Tokens refill at ``rate`` per second up to ``burst``; :meth:`reserve` says how long to wait."""

    def __init__(
        self,
        rate: float,
        burst: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = check_rps(rate, "rate") or 1.0
        self.burst = max(1.0, self.rate if burst is None else float(burst))
        self._clock = clock
        self._tokens = self.burst
        self._last = clock()

    def reserve(self) -> float:
        """Take one token; return the seconds to wait before using it (0 when one was there)."""
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    async def acquire(self) -> None:
        """Wait for a token (callers on one event loop; reservations are taken in order)."""
        wait = self.reserve()
        if wait > 0:
            await asyncio.sleep(wait)


class RateLimited:
    """A connector whose calls each take a token from a shared :class:`TokenBucket`."""

    def __init__(self, inner: Any, bucket: TokenBucket) -> None:
        self.inner = inner
        self.bucket = bucket

    async def acall(self, sample: Any) -> Any:
        await self.bucket.acquire()
        return await self.inner.acall(sample)

    def call(self, sample: Any) -> Any:
        wait = self.bucket.reserve()
        if wait > 0:
            time.sleep(wait)
        return self.inner.call(sample)

    def describe(self) -> dict[str, Any]:
        describe = getattr(self.inner, "describe", None)
        return dict(describe()) if callable(describe) else {"type": type(self.inner).__name__}

    def __getattr__(self, name: str) -> Any:  # aclose, close, timeouts ... of the connector
        return getattr(self.inner, name)
