"""Group commit: the rows finished while one transaction runs go into the next one.

The runner's workers hand each finished row to :class:`GroupCommit` and wait
for it to be durable before counting it done (so a resumed run never skips a
row that was not stored). One writer thread stores rows in order of arrival:
when it is idle a row is committed alone at once; while it is busy, the rows
that arrive wait and are then stored together in one transaction, so at high
concurrency the commit cost (SQLAlchemy's begin/commit, SQLite's journal
sync) is shared by many rows instead of paid per row. A failed transaction
fails every row in it (each waiter gets the error); nothing is dropped
silently.

>>> import asyncio
>>> stored = []
>>> async def demo():
...     commits = GroupCommit(lambda rows: stored.append(list(rows)))
...     try:
...         await asyncio.gather(*(commits.submit(i) for i in range(3)))
...     finally:
...         commits.close()
>>> asyncio.run(demo())
>>> sorted(r for batch in stored for r in batch)
[0, 1, 2]
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

__all__ = ["GroupCommit"]

T = TypeVar("T")


class GroupCommit(Generic[T]):
    """Stores items through ``write(batch)`` on one thread, batching what arrives meanwhile.

    Must be used from one event loop. :meth:`submit` returns a future done
    when the item's transaction committed (or failed with its error);
    :meth:`close` waits for the transaction in flight and starts no other:
    items still waiting then are not stored (their futures are cancelled).
    """

    def __init__(self, write: Callable[[Sequence[T]], Any]) -> None:
        self._write = write
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tooleval-store")
        self._waiting: list[tuple[T, asyncio.Future[None]]] = []
        self._busy = False
        self._closed = False

    def submit(self, item: T) -> asyncio.Future[None]:
        """Queue ``item``; the returned future is done once it is stored."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if self._closed:
            done.cancel()
            return done
        self._waiting.append((item, done))
        if not self._busy:
            self._start(loop)
        return done

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._waiting = self._waiting, []
        self._busy = True
        running = loop.run_in_executor(self._executor, self._write, [item for item, _ in batch])
        running.add_done_callback(lambda fut: self._finished(fut, batch, loop))

    def _finished(
        self,
        running: asyncio.Future[Any],
        batch: list[tuple[T, asyncio.Future[None]]],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self._busy = False
        error = running.exception() if not running.cancelled() else asyncio.CancelledError()
        for _, done in batch:
            if done.done():  # its waiter was cancelled; the row is stored all the same
                continue
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(None)
        if self._waiting and not self._closed:
            self._start(loop)

    def close(self) -> None:
        """Wait for the transaction in flight; cancel what was still waiting for the next."""
        self._closed = True
        for _, done in self._waiting:
            done.cancel()
        self._waiting = []
        self._executor.shutdown(wait=True)
