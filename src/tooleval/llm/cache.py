"""A SQLite cache of judge replies, so re-running an evaluation costs nothing.

A call is keyed by the judge model, the exact prompt messages, the requested
JSON schema and the generation parameters; any change to one of them is a new
key. The file is plain stdlib ``sqlite3`` (default ``.tooleval/judge-cache.db``,
created on first use, never at import).

>>> import tempfile, pathlib
>>> cache = JudgeCache(pathlib.Path(tempfile.mkdtemp()) / "c.db")
>>> key = cache_key("m", [{"role": "user", "content": "hi"}], None, {})
>>> cache.get(key) is None
True
>>> cache.put(key, JudgeReply(text="hello", model="m"))
>>> cache.get(key).text, len(cache)
('hello', 1)
>>> cache.close()
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tooleval.errors import JudgeError
from tooleval.llm.reply import JudgeReply

__all__ = ["DEFAULT_CACHE_PATH", "JudgeCache", "cache_key"]

DEFAULT_CACHE_PATH = Path(".tooleval") / "judge-cache.db"


def cache_key(
    model: str,
    messages: Sequence[Mapping[str, Any]],
    schema: Mapping[str, Any] | None,
    parameters: Mapping[str, Any],
) -> str:
    """A stable hex digest of everything that can change a judge's reply."""
    payload = {
        "model": model,
        "messages": [dict(m) for m in messages],
        "schema": schema,
        "parameters": dict(parameters),
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class JudgeCache:
    """Judge replies stored by :func:`cache_key` in one SQLite file (thread-safe)."""

    def __init__(self, path: str | Path = DEFAULT_CACHE_PATH) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS judge_replies ("
                    " key TEXT PRIMARY KEY, model TEXT NOT NULL,"
                    " reply TEXT NOT NULL, created REAL NOT NULL)"
                )
                conn.commit()
            except (OSError, sqlite3.Error) as exc:
                raise JudgeError(
                    f"cannot open the judge cache: {exc}; pass cache=False to disable it",
                    path=str(self.path),
                ) from exc
            self._conn = conn
        return self._conn

    def get(self, key: str) -> JudgeReply | None:
        with self._lock:
            row = (
                self._connect()
                .execute("SELECT reply FROM judge_replies WHERE key = ?", (key,))
                .fetchone()
            )
        if row is None:
            return None
        return JudgeReply.from_dict(json.loads(row[0]))

    def put(self, key: str, reply: JudgeReply) -> None:
        data = json.dumps({**reply.to_dict(), "cached": False}, ensure_ascii=False)
        with self._lock:
            conn = self._connect()
            conn.execute(
                "INSERT OR REPLACE INTO judge_replies (key, model, reply, created)"
                " VALUES (?, ?, ?, ?)",
                (key, reply.model, data, time.time()),
            )
            conn.commit()

    def clear(self) -> None:
        with self._lock:
            conn = self._connect()
            conn.execute("DELETE FROM judge_replies")
            conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._connect().execute("SELECT COUNT(*) FROM judge_replies").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"
