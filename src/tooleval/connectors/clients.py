"""The clients of an HTTP-speaking connector.

A client passed in (a test's ``httpx.MockTransport``, a shared pool) is used
as it is and never closed here; one the connector creates, lazily on first
use so nothing opens at import or construction, it also closes. The sync
client is httpx; the async one the HTTP connector sends with
(:meth:`HttpClients._async_transport`) is aiohttp behind httpx's face
(:mod:`tooleval.connectors.aio`), or httpx when the environment sets a proxy.
"""

from __future__ import annotations

from typing import Any

__all__ = ["HttpClients"]


class HttpClients:
    """Mixin holding a connector's sync and async httpx clients."""

    def _init_clients(self, client: Any, async_client: Any) -> None:
        self._client = client
        self._async_client = async_client
        self._owns_client = client is None
        self._owns_async_client = async_client is None
        self._aio: Any = None
        self._use_aio: bool | None = None

    def _sync_client(self) -> Any:
        if self._client is None:
            from tooleval.http_deadline import sync_client

            self._client = sync_client()
        return self._client

    def _async_http_client(self) -> Any:
        if self._async_client is None:
            import httpx

            self._async_client = httpx.AsyncClient(limits=httpx.Limits(max_connections=256))
        return self._async_client

    def _async_transport(self) -> Any:
        """What async requests go through: a client passed in, else aiohttp (httpx if proxied)."""
        if self._use_aio is None:
            from tooleval.connectors.aio import env_proxies

            self._use_aio = self._async_client is None and not env_proxies()
        if not self._use_aio:
            return self._async_http_client()
        if self._aio is None:
            from tooleval.connectors.aio import AioClient

            self._aio = AioClient()
        return self._aio

    def close(self) -> None:
        """Close the sync client if this connector created it."""
        if self._client is not None and self._owns_client:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        """Close every client this connector created."""
        if self._aio is not None:
            await self._aio.aclose()
            self._aio = None
        if self._async_client is not None and self._owns_async_client:
            await self._async_client.aclose()
            self._async_client = None
        self.close()
