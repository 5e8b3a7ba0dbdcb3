"""The listening socket of a command that serves (``view``, ``judge serve``), opened first.

A busy port is said before anything else happens (before "viewer on http://...",
before a model loads for seconds), as one line that names the port and what to
do; ``--port 0`` asks the system for a free one, and the port really bound is
what the command prints.

>>> sock = listen("127.0.0.1", 0)
>>> port = bound_port(sock)
>>> try:
...     listen("127.0.0.1", port)
... except ConfigError as exc:
...     print(exc.message.split(";")[0])
port 127.0.0.1:... is already in use (another server, or a viewer still running)
>>> sock.close()
"""

from __future__ import annotations

import errno
import socket

from tooleval.errors import ConfigError

__all__ = ["bound_port", "check_port", "listen"]


def check_port(port: int) -> None:
    """ConfigError unless ``port`` is 0 (any free port) or 1-65535."""
    if not 0 <= port < 65536:
        raise ConfigError(
            f"expected a port between 1 and 65535 (or 0 for any free port), got {port}",
            field="--port",
        )


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening; ConfigError (one line) when it cannot be."""
    check_port(port)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(f"cannot listen on {host!r}: {exc.strerror}", field="--host") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        shown = f"[{host}]" if ":" in host else host
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {shown}:{port} is already in use (another server, or a viewer still "
                "running); pass --port 0 for a free port, or another --port",
                field="--port",
            ) from None
        if exc.errno == errno.EACCES:
            raise ConfigError(
                f"no permission to listen on {shown}:{port} (ports below 1024 need root); "
                "pass another --port, or --port 0 for a free one",
                field="--port",
            ) from None
        raise ConfigError(
            f"cannot listen on {shown}:{port}: {exc.strerror or exc}", field="--host"
        ) from None
    sock.set_inheritable(True)
    return sock


def bound_port(sock: socket.socket) -> int:
    """The port ``sock`` is bound to (what ``--port 0`` got)."""
    return int(sock.getsockname()[1])
