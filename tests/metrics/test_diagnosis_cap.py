"""Output over input: a few megabytes of arguments give a bounded result file, the cut stated.

Real ``tooleval score`` processes, with the compiled kernel and without it
(``TOOLEVAL_NO_KERNEL``), score rows whose arguments and reference values are
megabytes long; every metric's line echoes each huge value as at most
``CAP_BYTES`` of its JSON and says how much was cut, and both paths write the
same bytes. Small values stay whole.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tooleval.metrics.reasons import CAP_BYTES

WAIT = 600  # seconds: a deadline for the child, never a measure
METRICS = ["tool_correctness", "tool_call_accuracy", "tool_call_f1", "trajectory_match"]
MARKER = "bytes of JSON, first"


def dataset(path: Path) -> int:
    big = "x" * 2_000_000
    rows = [
        {
            "id": "huge",
            "expected_tools": [
                {"name": "f", "args": {"q": big + "a", "n": list(range(100_000))}},
                {"name": "g", "args": {"d": {"k": [{"z": "東" * 5000}]}}},
            ],
            "tools_called": [
                {"name": "f", "args": {"q": big + "b", "n": list(range(100_001))}},
                {"name": "h", "args": {"w": "é" * 3000}},
            ],
            "output": "short",
            "metadata": {"output_contains": ["y" * 1_000_000, "short"]},
        },
        {
            "id": "small",
            "expected_tools": [{"name": "f", "args": {"q": "small", "n": [1, 2]}}],
            "tools_called": [{"name": "f", "args": {"q": "smalx", "n": [1, 2]}}],
            "output": "no",
            "metadata": {"output_contains": ["4471"]},
        },
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path.stat().st_size


def score(tmp_path: Path, data: Path, *, kernel: bool) -> bytes:
    out = tmp_path / f"out-{kernel}.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_NO_KERNEL"}
    if not kernel:
        env["TOOLEVAL_NO_KERNEL"] = "1"
    metrics = [a for m in [*METRICS, "output_contains"] for a in ("--metric", m)]
    cmd = [sys.executable, "-m", "tooleval", "score", str(data), *metrics, "-o", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=WAIT, env=env)
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, bytes, bytes]:
    tmp_path = tmp_path_factory.mktemp("cap")
    size = dataset(tmp_path / "big.jsonl")
    data = tmp_path / "big.jsonl"
    return size, score(tmp_path, data, kernel=True), score(tmp_path, data, kernel=False)


def test_output_is_bounded_and_says_what_was_cut(outputs: tuple[int, bytes, bytes]) -> None:
    size, written, _ = outputs
    assert size > 4_000_000
    assert len(written) < 100_000  # 5 metrics x 2 rows, each huge value shown in about 1 KB
    lines = [orjson.loads(line) for line in written.splitlines()]
    huge = {r["metric"]: r for r in lines if r["id"] == "huge"}
    checks = huge["tool_correctness"]["diagnosis"]["arguments"]
    q = next(c for c in checks if c["key"] == "q")
    assert q["expected"].startswith('"xxxx')
    assert q["expected"].endswith(f"... [cut: 2000003 bytes of JSON, first {CAP_BYTES} shown]")
    assert MARKER in huge["tool_correctness"]["diagnosis"]["missing"][0]["args"]
    assert MARKER in huge["tool_correctness"]["diagnosis"]["extra"][0]["args"]
    details = huge["output_contains"]["diagnosis"]["details"]
    assert details["values"][0].endswith(f"[cut: 1000002 bytes of JSON, first {CAP_BYTES} shown]")
    assert details["values"][1] == "short"
    assert "f.q expected '\"xxx" in huge["tool_correctness"]["reason"]


def test_small_values_stay_whole(outputs: tuple[int, bytes, bytes]) -> None:
    _, written, _ = outputs
    small = [orjson.loads(line) for line in written.splitlines() if b'"id":"small"' in line]
    assert len(small) == 5
    (check,) = [c for c in small[0]["diagnosis"]["arguments"] if c["key"] == "q"]
    assert (check["expected"], check["actual"]) == ("small", "smalx")
    assert "f.q expected 'small', got 'smalx'" in small[0]["reason"]
    assert MARKER.encode() not in b"".join(orjson.dumps(r) for r in small)


def test_kernel_and_python_write_the_same_bytes(outputs: tuple[int, bytes, bytes]) -> None:
    _, with_kernel, without = outputs
    assert with_kernel == without
