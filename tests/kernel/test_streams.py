"""Several metrics in one pass of the kernel (`score_stream_tallied`, `Kernel.score_streams`).

The oracle is the pure-Python path (`score_parsed` with every metric, TOOLEVAL_NO_KERNEL=1):
the same bytes in the same order (a row's metrics in the order given), with metrics the kernel
cannot take (a callable matcher) and rows it hands back scored by Python in their places; the
same error after the same rows; and counts equal to those of the Python results.
"""

from __future__ import annotations

import io
import os
from unittest import mock

import orjson
import pytest
from tests.kernel.support import KERNEL_ONLY, rows

from tooleval.errors import InputError
from tooleval.metrics import bind
from tooleval.metrics import engine as engine_module
from tooleval.metrics.engine import ENV_DISABLE
from tooleval.scoring import score_parsed, score_stream_tallied

pytestmark = KERNEL_ONLY


def _loose(expected, actual):  # a callable matcher: only Python scores it
    return expected == actual


SETS = {
    "three call metrics": [
        ("tool_call_accuracy", {}),
        ("tool_call_f1", {}),
        ("tool_correctness", {"order": "strict", "threshold": 1.0}),
    ],
    "a Python-only metric between": [
        ("tool_call_f1", {}),
        ("tool_correctness", {"args": _loose}),
        ("trajectory_match", {"coverage": "subset"}),
    ],
    "output_contains and calls": [
        ("output_contains", {"values": ["a"]}),
        ("tool_call_accuracy", {"order": "flexible"}),
    ],
}


def _bind_all(spec):
    return [bind(name, **options) for name, options in spec]


def _python(spec, data: bytes) -> bytes:
    out = io.BytesIO()
    with mock.patch.dict(os.environ, {ENV_DISABLE: "1"}):
        score_parsed(_bind_all(spec), data.splitlines(keepends=True), out)
    return out.getvalue()


def _counts(spec, data: bytes) -> dict[str, tuple[int, int, int, int, float]]:
    found: dict[str, list] = {name: [0, 0, 0, 0, 0.0] for name, _ in spec}
    for line in _python(spec, data).splitlines():
        result = orjson.loads(line)
        each = found[result["metric"]]
        each[0] += 1
        if result["score"] is None:
            each[3] += 1
            continue
        each[4] += result["score"]
        each[1 if result["passed"] else 2] += 1
    return {name: tuple(c) for name, c in found.items()}  # type: ignore[misc]


def _with_texts(data: bytes) -> bytes:
    """The rows with an `output` text (half of them holding 'a')."""
    lines = []
    for i, line in enumerate(data.splitlines()):
        if line.strip():
            row = orjson.loads(line)
            row["output"] = "a b" if i % 2 else "b"
            line = orjson.dumps(row)
        lines.append(line)
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("name", list(SETS))
def test_several_metrics_give_the_python_bytes_and_counts(name, threads, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 500)  # many blocks in flight
    spec = SETS[name]
    data = _with_texts(rows(120))
    source = tmp_path / "in.jsonl"
    source.write_bytes(data)
    with source.open("rb") as src, (tmp_path / "out.jsonl").open("wb") as out:
        done = score_stream_tallied(_bind_all(spec), src, out, threads=threads, keep=4)
    assert done is not None
    count, tally = done
    assert (tmp_path / "out.jsonl").read_bytes() == _python(spec, data)
    assert count == 120
    assert tally.metrics == _counts(spec, data)
    assert sum(tally.statuses.values()) == 120
    for status, number, line, results in tally.kept:
        assert status in ("failing", "unscored", "passing")
        assert data.splitlines(keepends=True)[number - 1] == line
        assert results.count(b"\n") == len(spec)


def test_lines_not_a_file_and_output_not_a_descriptor_give_the_same_bytes():
    spec = SETS["a Python-only metric between"]
    data = rows(40)
    out = io.BytesIO()
    done = score_stream_tallied(_bind_all(spec), data.splitlines(keepends=True), out)
    assert done is not None and done[0] == 40
    assert out.getvalue() == _python(spec, data)


def test_a_bad_row_stops_after_the_rows_before_it_with_the_python_error(tmp_path):
    spec = SETS["three call metrics"]
    good = rows(9)
    data = good + b'{"id": "x", "tools_called": [{"name": 42}]}\n' + rows(3)
    out = io.BytesIO()
    with pytest.raises(InputError) as kernel_error:
        score_stream_tallied(_bind_all(spec), io.BytesIO(data), out, threads=2)
    with pytest.raises(InputError) as python_error:
        _python(spec, data)
    assert str(kernel_error.value) == str(python_error.value)
    assert out.getvalue() == _python(spec, good)


def test_a_row_without_calls_is_refused_before_any_of_its_lines(tmp_path):
    # output_contains alone could score it; tool_call_accuracy needs the calls
    spec = SETS["output_contains and calls"]
    data = _with_texts(rows(4)) + b'{"id": "n", "output": "a"}\n'
    out = io.BytesIO()
    with pytest.raises(InputError, match="tools_called"):
        score_stream_tallied(_bind_all(spec), io.BytesIO(data), out)
    assert out.getvalue() == _python(spec, _with_texts(rows(4)))


def test_no_metric_the_kernel_takes_reads_nothing():
    source = io.BytesIO(rows(3))
    assert (
        score_stream_tallied([bind("tool_correctness", args=_loose)], source, io.BytesIO()) is None
    )
    assert source.tell() == 0


def test_kept_rows_are_the_first_of_each_kind(tmp_path):
    spec = SETS["three call metrics"]
    data = rows(60)
    done = score_stream_tallied(_bind_all(spec), io.BytesIO(data), io.BytesIO(), keep=2)
    assert done is not None
    kept = done[1].kept
    by_status: dict[str, list[int]] = {}
    for status, number, _line, _results in kept:
        by_status.setdefault(status, []).append(number)
    assert all(len(numbers) <= 2 for numbers in by_status.values())
    python = [orjson.loads(x) for x in _python(spec, data).splitlines()]
    first_failing = next(
        i for i in range(0, len(python), 3) if any(not r["passed"] for r in python[i : i + 3])
    )
    assert kept[0][0] == "failing" or "failing" not in by_status
    assert python[first_failing]["id"] == orjson.loads(kept[0][3].splitlines()[0])["id"]


def test_progress_is_told_the_rows_after_each_block(monkeypatch):
    monkeypatch.setattr(engine_module, "_BLOCK_BYTES", 400)
    told: list[int] = []
    data = rows(50)
    score_stream_tallied(
        _bind_all(SETS["three call metrics"]), io.BytesIO(data), io.BytesIO(), progress=told.append
    )
    assert told == sorted(told) and told[-1] == 50 and len(told) > 1
