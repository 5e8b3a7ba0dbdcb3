"""The attempt deadline inside the sync httpx client's sockets (connectors and judges).

httpx's timeouts bound each socket operation; an agent that drips its status
line, headers or body one byte at a time resets them forever. The sync
client a connector opens itself reads and writes through
:class:`DeadlineBackend`, whose streams never wait past the deadline of the
attempt running on this thread (set by :func:`attempt_deadline`). The async
transports get the same bound from ``asyncio.timeout``
(:mod:`tooleval.connectors.retry`).

>>> with attempt_deadline(2.0):
...     0.0 < remaining(5.0) <= 2.0
True
>>> remaining(5.0)
5.0
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["DeadlineBackend", "attempt_deadline", "remaining", "sync_client"]

_local = threading.local()


@contextlib.contextmanager
def attempt_deadline(seconds: float | None) -> Iterator[None]:
    """Every socket wait on this thread ends by ``seconds`` from now (None: no deadline)."""
    saved = getattr(_local, "deadline", None)
    _local.deadline = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _local.deadline = saved


def remaining(timeout: float | None) -> float | None:
    """``timeout``, shortened to what is left of this thread's attempt deadline."""
    deadline = getattr(_local, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    return left if timeout is None else min(timeout, left)


def _check(timeout: float | None, what: str) -> float | None:
    left = remaining(timeout)
    if left is not None and left <= 0:
        import httpcore

        error = httpcore.ConnectTimeout if what == "connect" else httpcore.ReadTimeout
        raise error("the attempt's timeout passed")
    return left


class _DeadlineStream:
    """A network stream whose reads and writes end by the attempt deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._inner.read(max_bytes, _check(timeout, "read"))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _check(timeout, "write"))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: Any = None):
        upgraded = self._inner.start_tls(ssl_context, server_hostname, _check(timeout, "connect"))
        return _DeadlineStream(upgraded)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend:
    """httpcore's sync backend, with every wait shortened to the attempt deadline."""

    def __init__(self) -> None:
        import httpcore

        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: Any = None, **options: Any) -> Any:
        stream = self._inner.connect_tcp(host, port, _check(timeout, "connect"), **options)
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path: str, timeout: Any = None, **options: Any) -> Any:
        stream = self._inner.connect_unix_socket(path, _check(timeout, "connect"), **options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def sync_client() -> Any:
    """An ``httpx.Client`` whose sockets honour :func:`attempt_deadline`.

    Proxied clients (``HTTP_PROXY``...) keep httpx's own pools; the body read
    is still bounded between chunks by the send loop.
    """
    import httpx

    client = httpx.Client()
    pool = getattr(client._transport, "_pool", None)
    if pool is not None and hasattr(pool, "_network_backend"):
        pool._network_backend = DeadlineBackend()  # httpx has no public hook for it
    return client
