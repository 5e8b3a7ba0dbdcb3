"""The judge protocol, usage accounting, and the caching base every judge shares.

A judge answers chat messages: ``complete(messages, *, schema=None)`` returns a
:class:`~tooleval.llm.reply.JudgeReply`; ``acomplete`` is its async twin.
:class:`BaseJudge` adds, once for every backend, the reply cache, JSON parsing
against ``schema`` and the :class:`~tooleval.model.usage.JudgeUsage` counters a runner reads.

>>> usage = JudgeUsage()
>>> usage.record(JudgeReply(text="{}", tokens_in=12, tokens_out=3))
>>> usage.record(JudgeReply(text="{}", tokens_in=12, tokens_out=3, cached=True))
>>> usage.to_dict()["calls"], usage.to_dict()["cached_calls"], usage.to_dict()["tokens_in"]
(1, 1, 12)
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from tooleval.errors import JudgeError
from tooleval.llm.cache import DEFAULT_CACHE_PATH, JudgeCache, cache_key
from tooleval.llm.reply import JudgeReply, parse_json_reply
from tooleval.model.usage import JudgeUsage

__all__ = [
    "BaseJudge",
    "CacheSetting",
    "Judge",
    "JudgeUsage",
    "normalise_messages",
    "resolve_cache",
    "rows_at_once",
]

CacheSetting = JudgeCache | str | Path | bool | None


@runtime_checkable
class Judge(Protocol):
    """Anything that answers chat messages, optionally as JSON matching ``schema``."""

    model: str
    usage: JudgeUsage

    def complete(
        self, messages: Sequence[Mapping[str, Any]], *, schema: Mapping[str, Any] | None = None
    ) -> JudgeReply: ...

    async def acomplete(
        self, messages: Sequence[Mapping[str, Any]], *, schema: Mapping[str, Any] | None = None
    ) -> JudgeReply: ...

    def describe(self) -> dict[str, Any]: ...


_ROLES = {"system", "user", "assistant"}


def normalise_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Check chat messages and return them as plain ``{"role", "content"}`` dicts."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence) or not messages:
        raise JudgeError("judge messages must be a non-empty list of {role, content} dicts")
    out = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise JudgeError("expected a {role, content} dict", field=f"messages[{index}]")
        role = message.get("role")
        content = message.get("content")
        if role not in _ROLES:
            raise JudgeError(
                f"role must be one of {sorted(_ROLES)}, got {role!r}", field=f"messages[{index}]"
            )
        if not isinstance(content, str):
            raise JudgeError("content must be a string", field=f"messages[{index}].content")
        out.append({"role": role, "content": content})
    return out


def rows_at_once(judge: Any, given: int | None = None, default: int = 4) -> int:
    """Rows to judge at once: ``given``, else the judge's ``batch_rows``, else ``default``.

    The local judge decodes ``batch_rows`` (8) rows' replies as one batch, so
    ``score``, ``rescore`` and ``calibrate`` judge that many rows at a time unless
    told otherwise; an HTTP judge has no batch and gets ``default``.

    >>> rows_at_once(object()), rows_at_once(object(), 2)
    (4, 2)
    """
    if given is not None:
        return given
    value = getattr(judge, "batch_rows", None)
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else default
    )


def resolve_cache(cache: CacheSetting) -> JudgeCache | None:
    """``True`` → the default file, a path → that file, ``False``/``None`` → no cache."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return JudgeCache(DEFAULT_CACHE_PATH)
    if isinstance(cache, JudgeCache):
        return cache
    if isinstance(cache, str | Path):
        return JudgeCache(cache)
    raise JudgeError(f"cache must be a path, True, False or a JudgeCache, got {cache!r}")


class BaseJudge:
    """Cache, parsing and usage around a backend's ``_generate`` / ``_agenerate``.

    Subclasses set ``model`` and implement ``_generate(messages, schema) ->
    JudgeReply`` (text, tokens, latency; parsing is done here), optionally
    ``_agenerate``, and ``parameters()`` (everything besides the prompt that
    changes the reply; part of the cache key).
    """

    model: str = ""

    def __init__(self, *, cache: CacheSetting = True, usage: JudgeUsage | None = None) -> None:
        self.cache = resolve_cache(cache)
        self.usage = usage if usage is not None else JudgeUsage()

    def parameters(self) -> dict[str, Any]:
        return {}

    def describe(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "model": self.model, **self.parameters()}

    def close(self) -> None:
        """Release the cache file (the judge stays usable; it reopens on demand)."""
        if self.cache is not None:
            self.cache.close()

    async def aclose(self) -> None:
        self.close()

    def _generate(self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None):
        raise JudgeError(f"{type(self).__name__} does not implement _generate")

    async def _agenerate(self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None):
        # Backends without native async run the blocking call off the event loop.
        return await asyncio.to_thread(self._generate, messages, schema)

    def _key(self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None) -> str:
        return cache_key(self.model, messages, schema, self.parameters())

    def _lookup(
        self, messages: Sequence[Mapping[str, Any]], schema: Mapping[str, Any] | None
    ) -> tuple[list[dict[str, str]], str, JudgeReply | None]:
        """The normalised messages, their cache key and the cached reply (None on a miss)."""
        normal = normalise_messages(messages)
        key = self._key(normal, schema)
        return normal, key, self._from_cache(key, schema)

    def _from_cache(self, key: str, schema: Mapping[str, Any] | None) -> JudgeReply | None:
        if self.cache is None:
            return None
        hit = self.cache.get(key)
        if hit is None:
            return None
        # Parse the stored text again so a cached reply reads as the current parser reads it.
        parsed, error = parse_json_reply(hit.text, schema) if schema is not None else (None, None)
        reply = JudgeReply(
            **{**hit.to_dict(), "parsed": parsed, "parse_error": error, "cached": True}
        )
        self.usage.record(reply)
        return reply

    def _finish(self, key: str, raw: JudgeReply, schema: Mapping[str, Any] | None) -> JudgeReply:
        parsed, error = parse_json_reply(raw.text, schema) if schema is not None else (None, None)
        reply = JudgeReply(
            text=raw.text,
            parsed=parsed,
            tokens_in=raw.tokens_in,
            tokens_out=raw.tokens_out,
            latency_ms=raw.latency_ms,
            model=raw.model or self.model,
            cached=False,
            parse_error=error,
            input_cut=raw.input_cut,
        )
        if self.cache is not None:
            self.cache.put(key, reply)
        self.usage.record(reply)
        return reply

    def complete(
        self, messages: Sequence[Mapping[str, Any]], *, schema: Mapping[str, Any] | None = None
    ) -> JudgeReply:
        """Answer ``messages``; with ``schema``, ``reply.parsed`` is the checked JSON object."""
        normal, key, hit = self._lookup(messages, schema)
        if hit is not None:
            return hit
        return self._finish(key, self._generate(normal, schema), schema)

    async def acomplete(
        self, messages: Sequence[Mapping[str, Any]], *, schema: Mapping[str, Any] | None = None
    ) -> JudgeReply:
        """Async twin of :meth:`complete` (same cache, same parsing)."""
        normal, key, hit = self._lookup(messages, schema)
        if hit is not None:
            return hit
        return self._finish(key, await self._agenerate(normal, schema), schema)
