"""How a run calls its agent: the response cache and the rate limit around each connector.

The cache is outermost (a hit costs no call and no token of the rate
limit); every worker's connector shares one token bucket, so ``--max-rps``
holds for the whole run whatever ``--concurrency`` is.

>>> wrap_connectors(["c1", "c2"]) == ["c1", "c2"]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tooleval.runs.rate_limit import RateLimited, TokenBucket, check_rps
from tooleval.runs.response_cache import CachedConnector, ResponseCache

__all__ = ["wrap_connectors"]


def wrap_connectors(
    connectors: Sequence[Any], *, max_rps: float | None = None, cache: ResponseCache | None = None
) -> list[Any]:
    """The run's connectors with the cache and rate limit asked for (unchanged otherwise)."""
    rate = check_rps(max_rps)
    bucket = TokenBucket(rate) if rate is not None else None
    wrapped = []
    for connector in connectors:
        if bucket is not None:
            connector = RateLimited(connector, bucket)
        if cache is not None:
            connector = CachedConnector(connector, cache)
        wrapped.append(connector)
    return wrapped
