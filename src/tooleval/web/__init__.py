"""The local viewer: ``tooleval view`` serves stored runs on 127.0.0.1.

FastAPI and uvicorn come with the ``web`` extra and are imported only when
the viewer starts. The pages are built from :mod:`tooleval.report`'s shared
rendering layer and read runs only through the store's public read API.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
(True, True, False)
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooleval.store import StoreReader

__all__ = ["create_app", "is_loopback"]


def is_loopback(host: str) -> bool:
    """True when ``host`` only listens on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def create_app(
    store: StoreReader,
    *,
    host: str | None = None,
    allow_labels: bool = False,
    calibrations: Any = None,
) -> Any:
    """The viewer as a FastAPI app over ``store`` (see :mod:`tooleval.web.app`).

    ``host`` is the address it listens on: requests must name it, or
    127.0.0.1, localhost or [::1], in their ``Host`` header. ``allow_labels``:
    row pages may store human labels (read-only without it). ``calibrations(store, run)``
    (``tooleval.calibration.gate_calibrations``): judged rates beside their correction.
    """
    from tooleval.web.app import create_app as build

    return build(store, host=host, allow_labels=allow_labels, calibrations=calibrations)
