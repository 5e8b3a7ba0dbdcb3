"""Servers on 127.0.0.1 that misbehave on purpose, for deadline tests.

Each is a raw socket server in a background thread (``http.server`` cannot
misbehave at the byte level):

- ``DripServer``: answers ``200`` with headers, then sends one byte of body
  every ``interval`` seconds, forever (``after_headers=False``: drips the
  status line and headers themselves);
- ``HangServer``: reads the request, sends the headers, then never sends a byte;
- ``never_accepting()``: a listening socket whose backlog is full, so a new
  connection is never accepted (connect hangs until the client's deadline).

    with DripServer() as server:
        connector = HttpConnector(server.url, timeout=0.5, retry=RetryPolicy(retries=0))
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

_HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"


class _RawServer:
    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.connections = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/agent"

    def __enter__(self) -> Any:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=5)
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            self.connections += 1
            thread = threading.Thread(target=self._serve_safely, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve_safely(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.settimeout(0.5)
            with contextlib.suppress(OSError):
                conn.recv(65536)  # the request (small in these tests)
            self.serve(conn)

    def serve(self, conn: socket.socket) -> None:
        """The base server closes at once; subclasses misbehave here."""


class DripServer(_RawServer):
    """200 and headers, then one byte every ``interval`` s (or the headers themselves dripped)."""

    def __init__(self, *, interval: float = 0.1, after_headers: bool = True) -> None:
        super().__init__()
        self.interval = interval
        self.after_headers = after_headers

    def serve(self, conn: socket.socket) -> None:
        if self.after_headers:
            conn.sendall(_HEADERS)
            payload = b" " * 1_000_000
        else:
            payload = _HEADERS
        for byte in payload:
            if self._stop.is_set():
                return
            conn.sendall(bytes([byte]))
            time.sleep(self.interval)


class HangServer(_RawServer):
    """Headers (or nothing, ``send_headers=False``), then silence until the client leaves."""

    def __init__(self, *, send_headers: bool = True) -> None:
        super().__init__()
        self.send_headers = send_headers

    def serve(self, conn: socket.socket) -> None:
        if self.send_headers:
            conn.sendall(_HEADERS)
        while not self._stop.wait(0.1):
            pass


@contextlib.contextmanager
def never_accepting() -> Iterator[str]:
    """A URL whose server never accepts: backlog 0 and filled, so connect waits."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    try:
        # Fill the accept queue (Linux accepts backlog+1, then drops SYNs).
        for _ in range(8):
            filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            filler.setblocking(False)
            with contextlib.suppress(BlockingIOError, OSError):
                filler.connect(("127.0.0.1", port))
            fillers.append(filler)
        time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/agent"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
