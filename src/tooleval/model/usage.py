"""Judge usage: calls, cache hits, tokens and latency, counted one way everywhere.

A judged metric keeps the usage of its row in ``diagnosis.details["judge"]``
(a :meth:`JudgeUsage.to_dict`); a judge keeps a running total; a stored run's
total is :meth:`JudgeUsage.from_results` over its rows. One class, so the
counters and their rules (a cached reply spends no tokens) live in one place.

>>> usage = JudgeUsage()
>>> usage.count(cached=False, tokens_in=12, tokens_out=3, latency_ms=40.0)
>>> usage.count(cached=True, tokens_in=12, tokens_out=3, latency_ms=0.0)
>>> usage.to_dict()
{'calls': 1, 'cached_calls': 1, 'tokens_in': 12, 'tokens_out': 3, 'latency_ms': 40.0}
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

__all__ = ["COUNTERS", "JudgeUsage"]

#: The whole-number counters of a usage record (``latency_ms`` is the one float).
COUNTERS = ("calls", "cached_calls", "tokens_in", "tokens_out")


class _Reply(Protocol):
    @property
    def cached(self) -> bool: ...
    @property
    def tokens_in(self) -> int: ...
    @property
    def tokens_out(self) -> int: ...
    @property
    def latency_ms(self) -> float: ...


class JudgeUsage:
    """Counts judge calls and tokens; thread-safe, shared by every row of a run.

    ``calls`` are calls that reached a model; ``cached_calls`` were answered
    from the cache (no tokens spent, so their tokens are not added).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls = 0
        self.cached_calls = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.latency_ms = 0.0

    def count(self, *, cached: bool, tokens_in: int, tokens_out: int, latency_ms: float) -> None:
        """Count one reply."""
        with self._lock:
            if cached:
                self.cached_calls += 1
                return
            self.calls += 1
            self.tokens_in += tokens_in
            self.tokens_out += tokens_out
            self.latency_ms += latency_ms

    def record(self, reply: _Reply) -> None:
        """Count one judge reply (anything with ``cached``, ``tokens_in/out``, ``latency_ms``)."""
        self.count(
            cached=reply.cached,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            latency_ms=reply.latency_ms,
        )

    def add(self, other: JudgeUsage | Mapping[str, Any]) -> None:
        """Add another accumulator, or a ``to_dict()`` (e.g. a row's recorded usage)."""
        data = other.to_dict() if isinstance(other, JudgeUsage) else other
        with self._lock:
            self.calls += int(data.get("calls", 0))
            self.cached_calls += int(data.get("cached_calls", 0))
            self.tokens_in += int(data.get("tokens_in", 0))
            self.tokens_out += int(data.get("tokens_out", 0))
            self.latency_ms += float(data.get("latency_ms", 0.0))

    @classmethod
    def from_results(cls, results: Iterable[Any]) -> JudgeUsage | None:
        """The sum of the usage judged metrics kept in ``diagnosis.details["judge"]``.

        None when no result carries one (no judged metric ran).
        """
        total, found = cls(), False
        for result in results:
            usage = result.diagnosis.details.get("judge") if result.diagnosis else None
            if isinstance(usage, Mapping):
                total.add(usage)
                found = True
        return total if found else None

    def to_dict(self) -> dict[str, Any]:
        with self._lock:
            return {
                "calls": self.calls,
                "cached_calls": self.cached_calls,
                "tokens_in": self.tokens_in,
                "tokens_out": self.tokens_out,
                "latency_ms": round(self.latency_ms, 3),
            }

    def __repr__(self) -> str:
        return f"JudgeUsage({self.to_dict()})"
