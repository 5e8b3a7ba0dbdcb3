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
import contextlib
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

__all__ = ["GroupCommit"]

T = TypeVar("T")

_STOP = object()

_Waiter = tuple[Any, "asyncio.Future[None]", asyncio.AbstractEventLoop]


class GroupCommit(Generic[T]):
    """Stores items through ``write(batch)`` on one thread, batching what arrives meanwhile.

    :meth:`submit` (from a running event loop) returns a future done when the
    item's transaction committed, or failed with its error. :meth:`close`
    stores what was submitted before it, then stops the thread; a submit
    after close is refused (its future is cancelled).
    """

    def __init__(self, write: Callable[[Sequence[T]], Any]) -> None:
        self._write = write
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name="tooleval-store", daemon=True)
        self._thread.start()

    def submit(self, item: T) -> asyncio.Future[None]:
        """Queue ``item``; the returned future is done once it is stored."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        # A worker cancelled while its last row commits never awaits this future; its
        # failure is the run's failure, already raised by the worker that did await one.
        # Retrieving it here keeps asyncio from printing "Future exception was never
        # retrieved" and the store error's traceback after the one-line message.
        done.add_done_callback(_retrieved)
        if self._closed:
            done.cancel()
        else:
            self._queue.put((item, done, loop))
        return done

    def _serve(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is _STOP:
                return
            batch: list[_Waiter] = [first]
            while True:  # everything that arrived while the last transaction ran
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is _STOP:
                    stopping = True
                    break
                batch.append(more)
            error: BaseException | None = None
            try:
                self._write([item for item, _, _ in batch])
            except BaseException as exc:  # handed to every waiter of this batch
                error = exc
            # A closed loop (RuntimeError) has nobody waiting any more.
            with contextlib.suppress(RuntimeError):
                batch[0][2].call_soon_threadsafe(_settle, batch, error)

    def close(self) -> None:
        """Store what was submitted, then stop the writer thread (waits for it)."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join()


def _retrieved(done: asyncio.Future[None]) -> None:
    if not done.cancelled():
        done.exception()


def _settle(batch: list[_Waiter], error: BaseException | None) -> None:
    for _, done, _ in batch:
        if done.done():  # its waiter was cancelled; the row is stored all the same
            continue
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(None)
