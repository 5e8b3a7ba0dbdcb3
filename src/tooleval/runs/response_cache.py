"""An opt-in cache of agent responses, keyed by connector config + rendered request.

``tooleval run PLAN --cache`` keeps every successful agent response in a
SQLite file beside the store (``responses.db`` in the store file's folder,
``.tooleval/responses.db`` for a PostgreSQL store, or ``--cache-file``). A
re-run of an unchanged dataset against an unchanged agent (a metric-tuning
loop) then calls nothing: the key is the SHA-256 of the connector's
description (URL, header names, paths, template) plus the request it would
send for the row (URL, rendered body and query for HTTP; input and messages
for other connectors) and the attempt number of ``--repeat`` (attempts are
meant to differ, so each has its own entry). Header values (API keys) are
not part of the key and nothing secret is stored. Errors are never cached.
``--refresh-cache`` calls the agent for every row and overwrites the
entries; ``--no-cache`` (the default) neither reads nor writes. What is read
back is checked like input: an entry that is not JSON, or JSON of another
shape (a list, ``tools_called`` that is not a list of named calls, an output
that is not text) is a miss: the agent is called and the entry replaced.

>>> key = request_key({"type": "http", "url": "u"}, {"json": {"input": "x"}}, attempt=1)
>>> len(key), key == request_key({"url": "u", "type": "http"}, {"json": {"input": "x"}}, attempt=1)
(64, True)
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from tooleval.errors import ConfigError, ToolEvalError
from tooleval.model import ToolCall, message_from_dict

__all__ = ["CachedConnector", "ResponseCache", "default_cache_path", "request_key"]

CACHE_FILE = "responses.db"
HIT_WARNING = "response served from the response cache (the agent was not called)"


def request_key(config: Any, request: Any, *, attempt: int = 1) -> str:
    """The cache key: SHA-256 of canonical JSON of config, request and attempt."""
    payload = orjson.dumps(
        {"config": config, "request": request, "attempt": attempt},
        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
        default=str,
    )
    return hashlib.sha256(payload).hexdigest()


def default_cache_path(store_url: str | None) -> Path:
    """``responses.db`` beside a SQLite store file, else ``.tooleval/responses.db``.

    >>> default_cache_path("sqlite:///ci/runs.db").as_posix()
    'ci/responses.db'
    """
    from tooleval.store import resolve_store_url

    url = resolve_store_url(store_url)
    if url.startswith("sqlite:///") and ":memory:" not in url:
        return Path(url[len("sqlite:///") :]).parent / CACHE_FILE
    return Path(".tooleval") / CACHE_FILE


class ResponseCache:
    """Responses by key in one SQLite table; safe to share between a run's workers.

    Pass one to ``run_plan(plan, store=..., cache=ResponseCache(path))``;
    ``refresh=True`` calls the agent for every row and overwrites the entries.

    >>> import tempfile, pathlib
    >>> cache = ResponseCache(pathlib.Path(tempfile.mkdtemp()) / "responses.db")
    >>> key = request_key({"type": "http"}, {"input": "hi"})
    >>> cache.get(key) is None
    True
    >>> cache.put(key, {"output": "hello"})
    >>> cache.get(key), len(cache)
    ({'output': 'hello'}, 1)
    >>> cache.describe().endswith("1 hits, 1 calls, 1 stored")
    True
    >>> cache.close()
    """

    def __init__(self, path: str | Path, *, refresh: bool = False) -> None:
        self.path = Path(path)
        self.refresh = refresh
        self.hits = 0
        self.misses = 0
        self.writes = 0
        self.damaged = 0
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
            _refuse_other_database(self._conn, self.path)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, "
                "response BLOB NOT NULL, created_at REAL NOT NULL)"
            )
            self._conn.commit()
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"cannot open the response cache {str(self.path)!r}: {exc}", field="--cache"
            ) from None
        except ConfigError:
            self._conn.close()
            raise

    def get(self, key: str) -> dict[str, Any] | None:
        if self.refresh:
            self.misses += 1
            return None
        with self._lock:
            found = self._conn.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if found is None:
            self.misses += 1
            return None
        try:
            data = orjson.loads(found[0])
        except orjson.JSONDecodeError:  # a damaged entry is a miss, then overwritten
            data = None
        if not isinstance(data, dict):
            with self._lock:
                self.misses += 1
                self.damaged += 1
            return None
        self.hits += 1
        return data

    def damaged_entry(self) -> None:
        """The entry :meth:`get` returned has the wrong shape: counted as a miss, not a hit."""
        with self._lock:
            self.hits -= 1
            self.misses += 1
            self.damaged += 1

    def put(self, key: str, response: dict[str, Any]) -> None:
        blob = orjson.dumps(response, default=str)
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, response, created_at) VALUES (?, ?, ?)",
                (key, blob, time.time()),
            )
            self._conn.commit()
        self.writes += 1

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def describe(self) -> str:
        damaged = f", {self.damaged} damaged entries replaced" if self.damaged else ""
        return (
            f"response cache {self.path}: {self.hits} hits, {self.misses} calls, "
            f"{self.writes} stored{damaged}"
        )


def _refuse_other_database(conn: sqlite3.Connection, path: Path) -> None:
    """A SQLite file holding tables other than the cache's is someone else's (a run store)."""
    tables = sorted(
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not name.startswith("sqlite_")
    )
    if tables and "responses" not in tables:
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise ConfigError(
            f"{str(path)!r} is not a response cache: it is a SQLite database holding other "
            f"tables ({shown}), such as a run store; give the cache its own file with "
            "--cache-file (or cache: FILE in the plan)",
            field="--cache-file",
        )


def _encode(response: Any) -> dict[str, Any]:
    data = response.to_dict()
    data["messages"] = (
        None if response.messages is None else [m.to_dict() for m in response.messages]
    )
    data.pop("retries", None)  # how the original call went, not part of the answer
    return data


def _calls_shape(value: Any) -> bool:
    """A list of call dicts, each naming its tool (what :func:`_encode` writes)."""
    return isinstance(value, list) and all(
        isinstance(c, dict)
        and isinstance(c.get("name"), str)
        and c["name"]
        and (c.get("args") is None or isinstance(c.get("args"), dict))
        for c in value
    )


def _entry_shape(data: Any) -> bool:
    """True when a cache entry has the shape :func:`_encode` writes, read back like input."""
    if not isinstance(data, dict):
        return False
    output, calls, messages = data.get("output"), data.get("tools_called"), data.get("messages")
    warnings, status = data.get("warnings", []), data.get("status")
    return (
        (output is None or isinstance(output, str))
        and (calls is None or _calls_shape(calls))
        and (
            messages is None
            or (
                isinstance(messages, list)
                and all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages)
            )
        )
        and isinstance(warnings, list)
        and all(isinstance(w, str) for w in warnings)
        and (status is None or (isinstance(status, int) and not isinstance(status, bool)))
    )


def _decode(data: Any) -> Any:
    """The cached AgentResponse, or None when the entry is damaged (then it is a miss)."""
    from tooleval.connectors.response import AgentResponse

    if not _entry_shape(data):
        return None
    calls = data.get("tools_called")
    messages = data.get("messages")
    try:
        return AgentResponse(
            output=data.get("output"),
            tools_called=None if calls is None else [ToolCall.from_dict(c) for c in calls],
            raw=data.get("raw"),
            latency_ms=0.0,
            status=data.get("status"),
            attempts=0,
            messages=None if messages is None else [message_from_dict(m) for m in messages],
            warnings=(*data.get("warnings", ()), HIT_WARNING),
        )
    except (ToolEvalError, TypeError, ValueError, KeyError, AttributeError):
        return None  # a shape the checks above let through but the model refuses


class CachedConnector:
    """A connector that answers from a :class:`ResponseCache` when it can."""

    def __init__(self, inner: Any, cache: ResponseCache) -> None:
        self.inner = inner
        self.cache = cache
        describe = getattr(inner, "describe", None)
        self._config = dict(describe()) if callable(describe) else {"type": type(inner).__name__}

    def key(self, sample: Any) -> str:
        from tooleval.connectors.response import as_sample
        from tooleval.runs.rate_limit import RateLimited

        sample = as_sample(sample)
        target = self.inner
        while isinstance(target, RateLimited):
            target = target.inner
        if getattr(type(target), "_request", None) is not None:
            # The HTTP connector: what it would send, header values left out.
            url, request = target._request(sample)
            request = {k: v for k, v in request.items() if k not in {"headers", "timeout"}}
            request["url"] = url
        else:
            request = {
                "input": sample.input,
                "messages": [m.to_dict() for m in sample.messages],
                "id": sample.id,
                # conversations read their turns there; extra columns only make more misses
                "metadata": sample.metadata,
            }
        return request_key(self._config, request, attempt=sample.metadata.get("attempt", 1))

    def _cached(self, key: str) -> Any:
        found = self.cache.get(key)
        if found is None:
            return None
        response = _decode(found)
        if response is None:
            self.cache.damaged_entry()  # called again, then replaced by put()
        return response

    async def acall(self, sample: Any) -> Any:
        key = self.key(sample)
        cached = self._cached(key)
        if cached is not None:
            return cached
        response = await self.inner.acall(sample)
        self.cache.put(key, _encode(response))
        return response

    def call(self, sample: Any) -> Any:
        key = self.key(sample)
        cached = self._cached(key)
        if cached is not None:
            return cached
        response = self.inner.call(sample)
        self.cache.put(key, _encode(response))
        return response

    def describe(self) -> dict[str, Any]:
        return dict(self._config)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
