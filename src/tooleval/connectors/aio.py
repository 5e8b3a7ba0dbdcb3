"""The HTTP connector's own async transport: aiohttp, with the face of an httpx client.

Per request, httpx's async client costs about four times the CPU of an
aiohttp session (``bench/runner_cpu.py``: a zero-latency agent at concurrency
32 gets ~600-800 requests/s from plain httpx and ~2,500-3,700 from plain
aiohttp on the same 2 cores), and at high concurrency that CPU is what limits
``tooleval run``. So a connector that opens its own async client opens this
one. Everything the connector and :mod:`tooleval.connectors.retry` read stays
as it was with httpx:

- the request body is httpx's JSON encoding byte for byte (UTF-8, compact,
  NaN refused); query parameters are encoded by ``httpx.URL`` and replace
  the URL's own query, as httpx's ``params=`` does;
- ``timeout`` bounds connecting (pool wait included) and each read, as
  httpx's single number did;
- redirects are not followed (httpx's default): a 3xx is the reply;
- TLS uses the context httpx would build (certifi, ``SSL_CERT_FILE`` /
  ``SSL_CERT_DIR``);
- failures are raised as the httpx exception of the same kind
  (``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``,
  ``RemoteProtocolError``, ``ReadError``), so retries, messages and failure
  clusters do not change;
- replies expose ``status_code``, ``headers``, ``content``, ``text`` and
  ``json()`` decoded as httpx decodes them.

Proxies from the environment (``HTTP_PROXY`` and friends) are httpx's job:
:func:`env_proxies` tells the connector to keep its httpx client then.

>>> encode_json({"input": "café", "n": 1.5})
b'{"input":"caf\\xc3\\xa9","n":1.5}'
"""

from __future__ import annotations

import codecs
import functools
import json
import os
import urllib.request
from collections.abc import Mapping
from typing import Any

__all__ = ["AioClient", "AioResponse", "encode_json", "env_proxies"]

_PROXY_KEYS = ("http", "https", "all")


def env_proxies() -> bool:
    """True when the environment configures an HTTP(S) proxy (then httpx sends).

    >>> import os
    >>> saved = {k: os.environ.pop(k) for k in list(os.environ) if k.lower().endswith("_proxy")}
    >>> env_proxies()
    False
    >>> os.environ.update(saved)
    """
    found = urllib.request.getproxies_environment()
    return any(found.get(key) for key in _PROXY_KEYS)


def encode_json(value: Any) -> bytes:
    """The request body httpx's ``json=`` sends (compact, UTF-8, NaN refused)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(
        "utf-8"
    )


def _known(encoding: str | None) -> bool:
    if not encoding:
        return False
    try:
        codecs.lookup(encoding)
    except LookupError:
        return False
    return True


def _ssl_context() -> Any:
    """httpx's default TLS context, built once per ``SSL_CERT_FILE``/``SSL_CERT_DIR`` value."""
    return _ssl_context_for(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _ssl_context_for(cert_file: str | None, cert_dir: str | None) -> Any:
    import httpx

    del cert_file, cert_dir  # the cache key only: httpx reads the two variables itself
    return httpx.create_ssl_context()


class AioResponse:
    """A reply read to the end: what the connector and the retry loop look at."""

    __slots__ = ("_text", "content", "encoding", "headers", "status_code")

    def __init__(self, status: int, headers: Mapping[str, str], content: bytes, charset: Any):
        self.status_code = status
        self.headers = headers  # case-insensitive (aiohttp's CIMultiDictProxy)
        self.content = content
        # httpx: the Content-Type charset when Python knows it, else UTF-8.
        self.encoding = charset if _known(charset) else "utf-8"
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self.content.decode(self.encoding, errors="replace")
        return self._text

    def json(self) -> Any:
        return json.loads(self.content)


class AioClient:
    """An aiohttp session opened on first use (inside the running loop), closed by ``aclose``.

    ``limit`` caps the open connections, as the connector's httpx pool did.
    """

    def __init__(self, *, limit: int = 256) -> None:
        self.limit = limit
        self._session: Any = None
        self._loop: Any = None
        self._timeouts: dict[float, Any] = {}

    def _open(self) -> Any:
        import asyncio

        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is not None and self._loop is loop:
            return self._session
        # A session belongs to the loop it was opened in; a connector used again
        # from another asyncio.run() opens a new one (the old loop's sockets went with it).
        self._loop = loop
        connector = aiohttp.TCPConnector(limit=self.limit, ssl=_ssl_context())
        # trust_env off: proxies from the environment go through httpx (env_proxies).
        self._session = aiohttp.ClientSession(connector=connector, trust_env=False)
        return self._session

    async def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        timeout: float = 30.0,
    ) -> AioResponse:
        """Send one request and read the whole reply; transport failures raise httpx errors."""
        import aiohttp
        import httpx
        from yarl import URL

        session = self._open()
        sent = dict(headers or {})
        body = None
        if json is not None:
            body = encode_json(json)
            if not any(key.lower() == "content-type" for key in sent):  # the caller's wins
                sent["Content-Type"] = "application/json"
        # httpx's request(params=) replaces the URL's own query; so does this (same encoding).
        target = URL(str(httpx.URL(url, params=params)), encoded=True) if params else url
        limits = self._timeouts.get(timeout)
        if limits is None:
            limits = self._timeouts[timeout] = aiohttp.ClientTimeout(
                total=None, connect=timeout, sock_connect=timeout, sock_read=timeout
            )
        try:
            async with session.request(
                method,
                target,
                data=body,
                headers=sent,
                timeout=limits,
                allow_redirects=False,
            ) as reply:
                content = await reply.read()
                return AioResponse(reply.status, reply.headers, content, reply.charset)
        except aiohttp.ClientError as exc:
            raise _as_httpx(exc, method, url) from exc
        except TimeoutError as exc:  # a timeout aiohttp did not wrap
            raise httpx.ReadTimeout(str(exc) or "timed out") from exc

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _as_httpx(exc: BaseException, method: str, url: str) -> Exception:
    """The httpx exception of the same kind (retry rules and failure clusters read those)."""
    import aiohttp
    import httpx

    detail = str(exc) or type(exc).__name__
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(detail)
    if isinstance(exc, aiohttp.ServerTimeoutError):
        return httpx.ReadTimeout(detail)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx.ConnectError(detail)
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return httpx.RemoteProtocolError("Server disconnected without sending a response.")
    if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientResponseError):
        return httpx.RemoteProtocolError(detail)
    if isinstance(exc, aiohttp.ClientOSError | aiohttp.ServerConnectionError):
        return httpx.ReadError(detail)
    if isinstance(exc, aiohttp.InvalidURL):
        return httpx.InvalidURL(f"invalid URL for {method}: {detail}")
    return httpx.TransportError(detail)
