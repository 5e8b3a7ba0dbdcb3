"""The runner's lease heartbeat: a thread that tells the store "this run is still worked".

The event loop may be busy (many rows in flight, a slow judge); a thread of
its own keeps renewing the lease every few seconds so the run is never
taken for dead while it works. When the store says another process took the
run over, :meth:`Heartbeat.check` stops the workers before their next row.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from tooleval.errors import ToolEvalError

if TYPE_CHECKING:
    from tooleval.store import Store

__all__ = ["Heartbeat"]


class Heartbeat:
    """Renews the run's lease from a thread, so a busy event loop never lets it lapse."""

    def __init__(self, store: Store, lease: Any, interval: float | None = None) -> None:
        from tooleval.store import HEARTBEAT_SECONDS

        self.store = store
        self.lease = lease
        self.interval = HEARTBEAT_SECONDS if interval is None else interval
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="tooleval-lease", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                if not self.store.renew_lease(self.lease):
                    self.lost = True
                    return
            except ToolEvalError:
                continue  # a busy store: try again at the next beat

    def check(self) -> None:
        if self.lost:
            from tooleval.store import RunBusyError

            raise RunBusyError(
                f"another process took run {self.lease.run_id} over (this one was thought "
                "dead); stopping without writing more rows",
                field="--resume",
            )
