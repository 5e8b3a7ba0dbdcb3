"""The standard streams as a command uses them, including when the caller closed them.

A process can be started with standard input, output or error closed (``cmd <&-``, a
CI runner or service manager with no stdin). Python then sets ``sys.stdin`` (or
``sys.stdout``, ``sys.stderr``) to ``None``, and the next file the process opens takes
the free descriptor 0, 1 or 2, so a child process would read or write that file as its
standard stream. :func:`guard_closed_streams` (called first by ``tooleval``'s ``main``)
puts ``/dev/null`` on every closed descriptor and names the streams that were closed;
:func:`stdin_bytes` and :func:`stdout_bytes` then refuse a closed stream with an error
that says what to give instead, rather than reading nothing or writing into the void.

>>> guard_closed_streams()  # nothing closed here
frozenset()
"""

from __future__ import annotations

import os
import sys
from typing import IO

from tooleval.errors import ConfigError

_NAMES = ("stdin", "stdout", "stderr")
_closed: set[str] = set()


def _fd_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def guard_closed_streams() -> frozenset[str]:
    """Put ``/dev/null`` on each closed standard descriptor; the names of those closed.

    A stream counts as closed when its descriptor is not open or Python set it to
    ``None``. The null device keeps later ``open()`` calls off descriptors 0-2 and
    gives child processes valid standard streams. Reading a closed stdin or writing
    results to a closed stdout through :func:`stdin_bytes` / :func:`stdout_bytes`
    stays an error; messages for a closed stderr go to the null device.
    """
    for fd, name in enumerate(_NAMES):
        if getattr(sys, name) is not None and _fd_open(fd):
            continue
        _closed.add(name)
        if not _fd_open(fd):
            null = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)  # inheritable, as a standard stream must be
                os.close(null)
            else:  # os.open took the free descriptor itself: not inheritable yet
                os.set_inheritable(fd, True)
        mode = "r" if fd == 0 else "w"
        setattr(sys, name, open(fd, mode, closefd=False, encoding="utf-8"))  # noqa: SIM115
    return frozenset(_closed)


def stdin_bytes(what: str = "the input") -> IO[bytes]:
    """Standard input as bytes, for a path given as ``-``; an error when it was closed.

    >>> stdin_bytes() is sys.stdin.buffer
    True
    """
    if "stdin" in _closed or sys.stdin is None:
        raise ConfigError(
            f"{what} is '-' (standard input), but this process was started with standard "
            "input closed: give the file's path instead, or pipe the data in"
        )
    return sys.stdin.buffer


def stdout_bytes(what: str = "the results", option: str = "--output FILE") -> IO[bytes]:
    """Standard output as bytes, where a command writes its results; an error when closed.

    Example::

        out = stdout_bytes()  # sys.stdout.buffer, or a ConfigError that names --output FILE
        out.write(b'{"id": "r1"}\n')
    """
    if "stdout" in _closed or sys.stdout is None:
        raise ConfigError(
            f"{what} go to standard output, but this process was started with standard "
            f"output closed: give {option} to write them to a file"
        )
    return sys.stdout.buffer
