"""`Engine.score_lines` over many blocks on a thread pool: order, fallback rows, errors, memory.

Blocks are made tiny so a small file spreads over many blocks in flight at once.
"""

from __future__ import annotations

import io

import pytest
from tests.kernel.support import KERNEL_ONLY, handed_back, python_bytes, rows

from tooleval.errors import InputError
from tooleval.metrics import bind
from tooleval.metrics import engine as engine_module
from tooleval.metrics.engine import fastest_engine
from tooleval.scoring import score_line

pytestmark = KERNEL_ONLY


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_many_blocks_on_threads_give_the_python_bytes_in_order(threads, monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 300)  # a row or two per block
    metric = bind("tool_correctness")
    data = rows(120)
    engine = fastest_engine(metric)
    seen: list[int] = []

    def fallback(number: int, line: bytes) -> bytes:
        seen.append(number)
        return score_line(metric, number, line)

    got = b"".join(engine.score_lines(io.BytesIO(data), fallback, threads=threads))
    assert got == python_bytes(metric, data)
    assert seen == sorted(seen) and len(seen) == sum(1 for i in range(120) if handed_back(i))


def test_a_bad_row_stops_after_every_row_before_it_with_blocks_in_flight(monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 300)
    metric = bind("tool_call_accuracy")
    good = rows(40).splitlines(keepends=True)
    data = b"".join([*good[:20], b"{not json\n", *good[20:]])
    out: list[bytes] = []
    with pytest.raises(InputError) as info:
        for part in fastest_engine(metric).score_lines(
            io.BytesIO(data), lambda n, line: score_line(metric, n, line), threads=3
        ):
            out.append(part)
    assert info.value.row == 21
    assert b"".join(out) == python_bytes(metric, b"".join(good[:20]))


def test_blocks_in_flight_are_bounded(monkeypatch):
    # Memory stays flat: the reader is never more than threads + 1 blocks ahead of the writer.
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 300)
    metric = bind("tool_call_f1")
    data = rows(200)
    read = []

    class Source(io.BytesIO):
        def read(self, size: int = -1) -> bytes:
            read.append(size)
            return super().read(size)

    threads = 2
    parts = fastest_engine(metric).score_lines(
        Source(data), lambda n, line: score_line(metric, n, line), threads=threads
    )
    for written, _ in enumerate(parts, start=1):
        # blocks read so far, minus blocks whose parts were handed out, stays small
        assert len(read) <= written + threads + 2
    assert len(read) > 50  # the file did spread over many blocks


def _kernel_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name == "tooleval-kernel" and t.is_alive()]


def test_an_error_in_a_scoring_thread_reaches_the_reader_and_the_threads_stop():
    def failing(block: bytes, start: int, threads: int) -> list:
        raise RuntimeError(f"kernel failed at line {start}")

    blocks = iter([(1, b"{}\n"), (2, b"{}\n"), (3, b"{}\n")])
    with pytest.raises(RuntimeError, match="line 1"):
        list(engine_module._pipeline(failing, blocks, lambda n, line: b"", 2))
    assert _kernel_threads() == []


def test_a_reader_that_stops_early_stops_the_threads(monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 300)
    metric = bind("tool_call_f1")
    parts = fastest_engine(metric).score_lines(
        io.BytesIO(rows(100)), lambda n, line: score_line(metric, n, line), threads=3
    )
    next(parts)
    assert len(_kernel_threads()) == 3
    parts.close()
    assert _kernel_threads() == []
