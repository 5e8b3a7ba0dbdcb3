"""Synchronous calls that start an event loop, made safe inside a running one.

``asyncio.run`` refuses to start where a loop already runs on the thread (a
notebook cell, an async web handler). :func:`run_off_the_loop` calls ``work``
(a function that starts its own loop) here when no loop runs, else on a thread
of its own, and waits for it: the caller's loop is blocked for that time, as any
synchronous call blocks it, and ``work``'s exceptions reach the caller.

>>> import asyncio
>>> run_off_the_loop(lambda: asyncio.run(asyncio.sleep(0, "done")))
'done'
>>> async def inside():
...     return run_off_the_loop(lambda: asyncio.run(asyncio.sleep(0, "still done")))
>>> asyncio.run(inside())
'still done'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["run_off_the_loop"]

T = TypeVar("T")


def run_off_the_loop(work: Callable[[], T], *, name: str = "tooleval") -> T:
    """``work()`` here, or on a thread named ``name`` when an event loop runs on this one."""
    import asyncio  # here: asyncio pulls in ssl, too slow for every command

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix=name) as pool:
        return pool.submit(work).result()
