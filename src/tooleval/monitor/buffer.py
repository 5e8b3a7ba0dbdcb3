"""The open sessions of a stopped receiver, kept in a file until it starts again.

A receiver stopped (SIGTERM) while sessions are still open must neither store
a phantom partial row for each nor store the whole session again once the
rest arrives after the restart. So :meth:`OtlpReceiver.stop
<tooleval.monitor.serve.OtlpReceiver.stop>` stores the sessions that went
idle as usual, and writes the span facts of the open ones here (JSON lines,
written atomically: a header naming the store they belong to, the
trace-to-session map, then one fact per line); the next start reads them
back into the buffer, as if they had just arrived, and removes the file. The
rest of a session then joins its first part, and the session is stored once,
whole, when it goes idle.

Each receiver's buffer is its own: named from its store
(:func:`default_buffer_path`), held under an exclusive lock while the
receiver runs (:class:`BufferLock`: a second receiver on it is refused), and
restored only into the store it came from (:func:`check_buffer`). A file
that is not a buffer is never read as one, nor replaced.

Read back like input, and nothing is lost: a line that cannot be read (a
record cut by a crash, a line that is not a fact) is counted and kept aside,
with the reason, in ``<buffer>.unreadable.jsonl`` (appended to, never
replaced), before the buffer is removed.

>>> import tempfile, pathlib
>>> from tooleval.traces.genai import SpanCall, SpanFacts
>>> path = pathlib.Path(tempfile.mkdtemp()) / "open.jsonl"
>>> write_open_sessions(path, [SpanFacts("t1", "s1", calls=[SpanCall("f")])], {"t1": "conv"},
...                     store="sqlite:///runs.db")
1
>>> facts, sessions, skipped = read_open_sessions(path)
>>> [f.trace_id for f in facts], sessions, skipped, path.exists()
(['t1'], {'t1': 'conv'}, 0, False)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from tooleval.errors import ConfigError
from tooleval.io_atomic import OPEN_SESSION_BUFFER, atomic_write, store_file
from tooleval.traces.genai import SpanFacts

__all__ = [
    "BufferLock",
    "check_buffer",
    "default_buffer_path",
    "read_open_sessions",
    "unreadable_path",
    "write_open_sessions",
]

_VERSION = 1


def default_buffer_path(store: str) -> Path:
    """The buffer of the receiver that writes to ``store`` (a resolved store URL).

    Beside a SQLite store file, named from it; for a server store, under
    ``.tooleval/`` named from a hash of the URL. Two receivers with two stores
    never share one.

    >>> default_buffer_path("sqlite:////data/a.db").as_posix()
    '/data/a.db.open-sessions.jsonl'
    >>> default_buffer_path("postgresql+psycopg://me@127.0.0.1/evals").name
    'open-sessions-632d267c520b.jsonl'
    """
    database = store_file(store)
    if database is not None:
        return Path(database + ".open-sessions.jsonl")
    digest = hashlib.sha256(store.encode("utf-8")).hexdigest()[:12]
    return Path(".tooleval") / f"open-sessions-{digest}.jsonl"


def _header(path: Path) -> dict[str, Any] | None:
    """The buffer's header line, None when ``path`` does not exist; ConfigError if not a buffer."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(65536)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", field="--buffer") from None
    if not first.strip():
        if path.stat().st_size == 0:
            return {}  # an empty file: nothing waits in it
        first = b""
    if not first.startswith(OPEN_SESSION_BUFFER.encode()):
        raise ConfigError(
            f"{path} is not an open-session buffer of a tooleval receiver (its first line "
            "is not the buffer's header); it is left alone: give another --buffer",
            field="--buffer",
        )
    try:
        header = json.loads(first)
    except ValueError:
        return {"store": None}  # the header itself was cut: read what follows as usual
    return header if isinstance(header, dict) else {"store": None}


def check_buffer(path: Path, store: str) -> None:
    """Refuse, before any work, a buffer that is not one or belongs to another store.

    ``store`` is the resolved URL of the receiver's store. Raises
    :class:`~tooleval.errors.ConfigError` (field ``--buffer``).
    """
    header = _header(path)
    if not header:
        return
    theirs = header.get("store")
    if isinstance(theirs, str) and theirs != store:
        raise ConfigError(
            f"the open-session buffer {path} holds sessions of the store {theirs}, not of "
            f"{store}; they are restored only into the store they came from: start the "
            "receiver with that store, or give another --buffer",
            field="--buffer",
        )


class BufferLock:
    """An exclusive lock on a buffer for as long as its receiver runs.

    The lock is taken on ``<buffer>.lock`` (the buffer itself is replaced by
    each atomic write, so it cannot hold a lock); a second receiver on the
    same buffer is refused with :class:`~tooleval.errors.ConfigError`.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "b.jsonl"
    >>> with BufferLock(path):
    ...     BufferLock(path).acquire()
    Traceback (most recent call last):
    ...
    tooleval.errors.ConfigError: field --buffer: another receiver is running with the open-session buffer ...
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[bytes] | None = None

    def acquire(self) -> BufferLock:
        import fcntl

        lock = self.path.with_name(self.path.name + ".lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        handle = lock.open("ab")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ConfigError(
                f"another receiver is running with the open-session buffer {self.path} "
                f"(locked: {lock}); give this one its own --store or --buffer",
                field="--buffer",
            ) from None
        self._handle = handle
        return self

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()  # closing the descriptor drops the lock
            self._handle = None

    def __enter__(self) -> BufferLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def write_open_sessions(
    path: Path, facts: Sequence[SpanFacts], session_of: Mapping[str, str], *, store: str
) -> int:
    """Write the open sessions' facts of ``store`` to ``path`` (removed when there are none).

    Returns how many facts were written. A file at ``path`` that is not a
    buffer is never replaced (:class:`~tooleval.errors.ConfigError`).
    """
    _header(path)  # refuses a file that is not a buffer
    if not facts:
        path.unlink(missing_ok=True)
        return 0
    header = json.dumps({"tooleval": "open-session buffer", "version": _VERSION, "store": store})
    lines = [header, json.dumps({"session_of": dict(session_of)}, default=str)]
    lines += [json.dumps({"fact": fact.to_dict()}, default=str) for fact in facts]
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as handle:
        handle.write(("\n".join(lines) + "\n").encode("utf-8"))
    return len(facts)


def read_open_sessions(path: Path) -> tuple[list[SpanFacts], dict[str, str], int]:
    """``(facts, trace -> session, lines kept aside)`` from ``path``, which is then removed.

    Lines that cannot be read go to ``<path>.unreadable.jsonl`` with their
    line number and the reason, before the buffer is removed.
    """
    if _header(path) is None:
        return [], {}, 0
    text = path.read_text(encoding="utf-8", errors="replace")
    facts: list[SpanFacts] = []
    session_of: dict[str, str] = {}
    unreadable: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or (number == 1 and line.startswith(OPEN_SESSION_BUFFER)):
            continue
        try:
            record: Any = json.loads(line)
            if "session_of" in record:
                mapping = record["session_of"]
                session_of.update({str(k): str(v) for k, v in dict(mapping).items()})
            else:
                fact = SpanFacts.from_dict(record["fact"])
                if not isinstance(fact.trace_id, str) or not isinstance(fact.span_id, str):
                    raise TypeError("trace and span ids must be text")
                facts.append(fact)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            reason = f"{type(exc).__name__}: {exc}"
            unreadable.append({"line": number, "reason": reason, "text": line})
    if unreadable:
        _keep_aside(path, unreadable)
    path.unlink(missing_ok=True)
    return facts, session_of, len(unreadable)


def unreadable_path(path: Path) -> Path:
    """Where the unreadable lines of the buffer ``path`` are kept."""
    return path.with_name(path.name + ".unreadable.jsonl")


def _keep_aside(path: Path, records: list[dict[str, Any]]) -> None:
    aside = unreadable_path(path)
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with aside.open("a", encoding="utf-8") as handle:
        for record in records:
            record = {"buffer": str(path), "read_at": when, **record}
            handle.write(json.dumps(record) + "\n")
        handle.flush()
        with contextlib.suppress(OSError):
            os.fsync(handle.fileno())
