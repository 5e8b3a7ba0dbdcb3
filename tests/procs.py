"""Waiting on a test's subprocesses, always with a deadline.

A server that never prints its "listening on" line, or a killed process whose own child
still holds the pipe, would otherwise block ``readline()`` or ``communicate()`` for
ever. These helpers wait at most ``timeout`` seconds, then kill the process and fail the
test with what it wrote::

    from tests.procs import read_line, finish

    line = read_line(proc, startswith="listening on ")
    out, err = finish(proc)                 # communicate(timeout=60), kill on expiry
"""

from __future__ import annotations

import os
import select
import subprocess
import time

import pytest

DEFAULT_SECONDS = 60.0


def _remains(proc: subprocess.Popen) -> str:
    """Kill ``proc`` and gather what it left on its pipes (a few seconds at most)."""
    proc.kill()
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # a child of its own still holds the pipes
        return "(its pipes are still held open by a child process)"
    return f"stdout: {out!r}\nstderr: {err!r}"


def read_line(
    proc: subprocess.Popen,
    stream: str = "stdout",
    *,
    startswith: str | None = None,
    timeout: float = DEFAULT_SECONDS,
    seen: list[str] | None = None,
) -> str:
    """The next line ``proc`` writes on ``stream`` (or the first that starts with
    ``startswith``), within ``timeout`` seconds; the test fails otherwise. Every line
    read, the skipped ones too, is appended to ``seen`` when given.

    Reads the pipe's descriptor a byte at a time, so the text stream over it keeps no
    read-ahead and a later ``communicate()`` gets everything after the line."""
    pipe = getattr(proc, stream)
    fd = pipe.fileno()
    deadline = time.monotonic() + timeout
    skipped: list[str] = []
    while True:
        data = bytearray()
        while not data.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(
                    f"no line{f' starting {startswith!r}' if startswith else ''} on {stream} "
                    f"within {timeout:g} s (lines before: {skipped!r})\n{_remains(proc)}"
                )
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, 1)
            if not chunk:  # end of file: the process closed the stream or ended
                pytest.fail(
                    f"{stream} ended before a line{f' starting {startswith!r}' if startswith else ''}"
                    f" (read {bytes(data)!r}; lines before: {skipped!r})\n{_remains(proc)}"
                )
            data += chunk
        line = data.decode("utf-8", "replace")
        if seen is not None:
            seen.append(line)
        if startswith is None or line.startswith(startswith):
            return line
        skipped.append(line)


def finish(proc: subprocess.Popen, timeout: float = DEFAULT_SECONDS) -> tuple[str, str]:
    """``proc.communicate()`` within ``timeout`` seconds; on expiry the process is killed
    and the test fails with what it wrote."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the process did not end within {timeout:g} s\n{_remains(proc)}")


def wait_until(condition, what: str, timeout: float = DEFAULT_SECONDS, every: float = 0.1):
    """Poll ``condition()`` until it returns something true (returned), or fail the test
    naming ``what`` after ``timeout`` seconds: for a state another process reaches in its
    own time (a session gone idle and stored), where a fixed sleep is too short on a loaded
    machine and too long on a quiet one."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:g} s")
        time.sleep(every)
