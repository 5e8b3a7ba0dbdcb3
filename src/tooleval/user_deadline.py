"""Stop a call into user code that runs past its deadline (base: importable from anywhere).

Two tools, one for each kind of wait:

* :func:`deadline` (a tool call, in the thread that runs it): one watcher
  thread (started on first use, never at import) holds the armed deadlines;
  when one passes it raises :class:`CallTimeout` inside the thread running
  the call (``PyThreadState_SetAsyncExc``). Python code is stopped at its
  next bytecode; a single long C call (one huge multiplication) finishes
  first, which is why the state and results also have size limits.
* :func:`bounded` (every call into user code: an environment's factory,
  ``reset``, ``call``, ``state``; a callable argument matcher): the call runs
  in a daemon thread and the caller waits at most the deadline
  (:func:`user_code_seconds`, ``$TOOLEVAL_USER_CODE_DEADLINE``), so even a call blocked in C (``time.sleep``, a lock,
  a socket) cannot hold the row: the caller gets :class:`DeadlinePassed`
  naming the call and the deadline, the thread is asked to stop and is left
  behind (a daemon thread never keeps the process from ending).

>>> with deadline(1.0):
...     sum(range(10))
45
>>> bounded(lambda: 42, 1.0, what="reset()")
42

:func:`abounded` is :func:`bounded` for a coroutine: the event loop waits for
the daemon thread without blocking, so other rows go on meanwhile.
"""

from __future__ import annotations

import contextlib
import ctypes
import heapq
import itertools
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from tooleval.errors import ConfigError

T = TypeVar("T")

__all__ = [
    "DEADLINE_ENV",
    "USER_CODE_SECONDS",
    "CallTimeout",
    "DeadlinePassed",
    "abounded",
    "bounded",
    "deadline",
    "user_code_seconds",
]


class CallTimeout(BaseException):  # noqa: N818  (not an Exception: a tool's `except Exception` must not swallow it)
    """A tool call ran past its deadline."""


class DeadlinePassed(Exception):  # noqa: N818  (reads as what happened: the deadline passed)
    """A call into user code did not return within its deadline (the row is not scored)."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what} did not return within its deadline of {seconds:g} s")
        self.what = what
        self.seconds = seconds


_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
# (thread id, exception class or NULL to clear a pending one); CPython's id() is the address.
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.c_void_p)


class _Watcher:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._armed: dict[int, int] = {}  # token -> thread id
        self._fired: set[int] = set()
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> int:
        with self._cond:
            token = next(self._tokens)
            self._armed[token] = threading.get_ident()
            heapq.heappush(self._heap, (time.monotonic() + seconds, token))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="tooleval-deadline", daemon=True
                )
                self._thread.start()
            self._cond.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Forget ``token``; True when it fired (a pending stop is cancelled)."""
        with self._cond:
            thread = self._armed.pop(token, None)
            fired = token in self._fired
            self._fired.discard(token)
            if fired and thread is not None:
                _set_async_exc(thread, None)
            return fired

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._armed:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                when, token = self._heap[0]
                wait = when - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                self._fired.add(token)
                _set_async_exc(self._armed[token], id(CallTimeout))


_WATCHER = _Watcher()


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise :class:`CallTimeout` in this thread if the block runs over ``seconds``."""
    if seconds is None:
        yield
        return
    token = _WATCHER.arm(seconds)
    try:
        yield
    finally:
        try:
            fired = _WATCHER.disarm(token)
        except CallTimeout:  # delivered while disarming: it did run over
            _WATCHER.disarm(token)
            fired = True
        if fired:
            raise CallTimeout


#: The variable that sets the deadline of each call into user code (seconds).
DEADLINE_ENV = "TOOLEVAL_USER_CODE_DEADLINE"
#: The deadline of each call into user code when ``$TOOLEVAL_USER_CODE_DEADLINE`` is not set.
USER_CODE_SECONDS = 60.0


def user_code_seconds() -> float:
    """``$TOOLEVAL_USER_CODE_DEADLINE`` (a number of seconds > 0), or 60.

    Read when what calls user code is set up (a metric bound, a matcher
    built), so a bad value is a ConfigError before any row.

    >>> user_code_seconds() > 0
    True
    """
    text = os.environ.get(DEADLINE_ENV, "").strip()
    if not text:
        return USER_CODE_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(
            f"${DEADLINE_ENV} must be a number of seconds > 0, got {text!r}", field=DEADLINE_ENV
        )
    return seconds


class _Worker:
    """A daemon thread that runs calls for one calling thread, one at a time."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[tuple[Callable[[], Any], threading.Event, list[Any]]]
        self.tasks = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="tooleval-user-code", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            function, done, box = self.tasks.get()
            try:
                box.append((True, function()))
            except BaseException as exc:  # handed to the caller, whatever it is
                box.append((False, exc))
            done.set()


_workers = threading.local()


def bounded(function: Callable[[], T], seconds: float | None, *, what: str) -> T:
    """``function()``, or :class:`DeadlinePassed` when it has not returned within ``seconds``.

    ``function`` runs in a daemon worker thread (one per calling thread,
    reused); an exception it raises is raised here (a :class:`CallTimeout`
    from an inner :func:`deadline` included). A call past its deadline leaves
    its worker behind, asked to stop; the next call gets a new one.
    ``seconds=None`` calls it here, without a deadline.
    """
    if seconds is None:
        return function()
    worker: _Worker | None = getattr(_workers, "worker", None)
    if worker is None:
        worker = _workers.worker = _Worker()
    done = threading.Event()
    box: list[Any] = []
    worker.tasks.put((function, done, box))
    if not done.wait(seconds):
        _workers.worker = None
        if worker.thread.ident is not None:  # stop at its next bytecode (a C call ignores this)
            _set_async_exc(worker.thread.ident, id(CallTimeout))
        raise DeadlinePassed(what, seconds)
    ok, value = box[0]
    if not ok:
        raise value
    result: T = value
    return result


async def abounded(function: Callable[[], T], seconds: float | None, *, what: str) -> T:
    """Await ``function()`` run in a daemon thread; :class:`DeadlinePassed` past ``seconds``.

    What :func:`bounded` is for a synchronous caller, for an event loop: the
    loop stays free while the call runs, and a call past its deadline is asked
    to stop and left behind in its daemon thread (``asyncio.to_thread`` would
    leave it in an executor thread that the interpreter waits for at exit).

    >>> import asyncio
    >>> asyncio.run(abounded(lambda: 42, 1.0, what="the scripted user"))
    42
    """
    import asyncio

    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def run() -> None:
        try:
            outcome: tuple[bool, Any] = (True, function())
        except BaseException as exc:  # handed to the awaiting coroutine, whatever it is
            outcome = (False, exc)
        # RuntimeError: the loop closed while the call ran, so nobody waits any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, *outcome)

    thread = threading.Thread(target=run, name="tooleval-user-code", daemon=True)
    thread.start()
    if seconds is None:
        return await future
    try:
        async with asyncio.timeout(seconds):
            return await asyncio.shield(future)
    except TimeoutError:
        if thread.ident is not None and thread.is_alive():
            _set_async_exc(thread.ident, id(CallTimeout))
        raise DeadlinePassed(what, seconds) from None
