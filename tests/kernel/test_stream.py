"""`Engine.score_into`: the kernel reads, scores and writes a whole file (results to the fd).

The same bytes as the Python reference and as `Engine.score_lines`, in order, with rows the
kernel hands back scored by Python in their places; tiny blocks spread a small file over many
blocks in flight; a bad row stops the run with every row before it written.
"""

from __future__ import annotations

import io
from pathlib import Path
from unittest import mock

import pytest
from tests.kernel.support import KERNEL_ONLY, python_bytes, rows

from tooleval.errors import InputError
from tooleval.metrics import bind
from tooleval.metrics import engine as engine_module
from tooleval.metrics.engine import fastest_engine
from tooleval.scoring import score_line, score_stream

pytestmark = KERNEL_ONLY


def _score_into(metric, data: bytes, tmp_path: Path, threads: int, fallback=None) -> bytes:
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(data)
    seen: list[int] = []

    def python(number: int, line: bytes) -> bytes:
        seen.append(number)
        return score_line(metric, number, line)

    with source.open("rb") as src, target.open("wb") as out:
        out.write(b"")  # nothing buffered is lost or reordered
        rows = fastest_engine(metric).score_into(src, out, fallback or python, threads=threads)
    assert rows == sum(1 for line in data.splitlines() if line.strip())
    assert seen == sorted(seen)
    return target.read_bytes()


@pytest.mark.parametrize("threads", [1, 2, 5])
@pytest.mark.parametrize("metric_name", ["tool_correctness", "tool_call_accuracy"])
def test_many_blocks_give_the_python_bytes_in_order(threads, metric_name, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 300)  # a row or two per block
    metric = bind(metric_name)
    data = rows(150)
    assert _score_into(metric, data, tmp_path, threads) == python_bytes(metric, data)


@pytest.mark.parametrize("threads", [1, 3])
def test_lines_longer_than_a_read_and_a_last_line_without_newline(threads, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 7)  # every line spans several reads
    metric = bind("tool_call_f1")
    data = rows(30).rstrip(b"\n")
    assert _score_into(metric, data, tmp_path, threads) == python_bytes(metric, data + b"\n")


@pytest.mark.parametrize("data", [b"", b"\n\n  \n", b"\r\n"])
def test_empty_and_blank_files_write_nothing(data, tmp_path):
    assert _score_into(bind("tool_call_accuracy"), data, tmp_path, 2) == b""


@pytest.mark.parametrize("threads", [1, 3])
def test_a_bad_row_stops_after_every_row_before_it(threads, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 300)
    metric = bind("tool_call_accuracy")
    good = rows(60).splitlines(keepends=True)
    data = b"".join([*good[:40], b"{not json\n", *good[40:]])
    with pytest.raises(InputError) as info:
        _score_into(metric, data, tmp_path, threads)
    assert info.value.row == 41
    assert (tmp_path / "out.jsonl").read_bytes() == python_bytes(metric, b"".join(good[:40]))


def test_score_stream_to_a_file_uses_it_and_gives_the_lines_path_bytes(tmp_path):
    metric = bind("tool_call_accuracy")
    data = rows(80)
    (tmp_path / "in.jsonl").write_bytes(data)
    lines_path = mock.patch.object(
        engine_module.Engine, "score_lines", side_effect=AssertionError("not the file path")
    )
    source, target = (tmp_path / "in.jsonl").open("rb"), (tmp_path / "o.jsonl").open("wb")
    with source, target, lines_path:
        assert score_stream(metric, source, target, threads=2) == 80
    in_memory = io.BytesIO()  # no file descriptor: the lines path
    score_stream(metric, io.BytesIO(data), in_memory)
    assert (tmp_path / "o.jsonl").read_bytes() == in_memory.getvalue() == python_bytes(metric, data)


def test_not_files_are_left_to_score_lines(tmp_path):
    engine = fastest_engine(bind("tool_call_accuracy"))
    with (tmp_path / "o.jsonl").open("wb") as out:
        assert engine.score_into([b"{}\n"], out, lambda n, line: b"") is None  # no read()
    assert engine.score_into(io.BytesIO(b"{}\n"), io.BytesIO(), lambda n, line: b"") is None


def test_a_fallback_that_returns_text_is_a_type_error(tmp_path):
    data = b'{"id": "a", "tools_called": [], "expected_tools": [], "messages": []}\n'
    with pytest.raises(TypeError):
        _score_into(bind("tool_call_accuracy"), data, tmp_path, 1, fallback=lambda n, line: "x")
