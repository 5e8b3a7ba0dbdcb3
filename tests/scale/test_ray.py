"""Ray Data results equal the single-process path, on a local 2-CPU cluster."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tooleval.errors import ConfigError
from tooleval.formats import sample_from_row
from tooleval.metrics.registry import score_sample
from tooleval.model import ToolCall
from tooleval.monitor.run import monitor_sessions
from tooleval.monitor.session import Session, TracedCall
from tooleval.scale.rows import decode_row, encode_row


def dataset_rows(n: int = 40) -> list[dict]:
    rows = []
    for i in range(n):
        called = [{"name": "get_weather", "args": {"city": "Paris" if i % 3 else "Rome"}}]
        if i % 4 == 0:
            called.append({"name": "send_email", "args": {"to": "a@b.c"}})
        row = {
            "id": f"r{i}",
            "input": f"weather {i}",
            "tools_called": called,
            "expected_tools": [{"name": "get_weather", "args": {"city": "Paris"}}],
            "category": "weather" if i % 2 else "mail",
        }
        if i % 10 == 7:
            row["expected_tools"] = None  # unbound: unscored, not 0
        if i % 10 == 9:
            row["expected_tools"] = "get_weather, send_email"  # text form stays text
        rows.append(row)
    return rows


def sessions(n: int = 30) -> list[Session]:
    out = []
    for i in range(n):
        calls = [
            TracedCall(ToolCall("search", {"q": j}), span_id=f"{i:08x}{j:08x}")
            for j in range(2 + i % 2)
        ]
        if i == 5:
            calls += [TracedCall(ToolCall("search", {"q": 99})) for _ in range(12)]
        if i % 7 == 0:
            calls.append(TracedCall(ToolCall("pay", {"n": 1}, is_error=True)))
        out.append(
            Session(f"s{i}", calls, output="All good." if i % 2 else "Sorry, payment failed.")
        )
    return out


def test_encode_decode_round_trip():
    for row in dataset_rows(12):
        assert decode_row(encode_row(row)) == row


def test_score_matches_single_process(ray_cluster):
    from tooleval.scale import ray as tray

    rows = dataset_rows()
    expected = {
        row["id"]: score_sample("tool_call_f1", sample_from_row(row), args="exact").to_dict()
        for row in rows
    }
    ds = tray.from_rows(rows, override_num_blocks=4)
    out = tray.score(ds, metric="tool_call_f1", args="exact", batch_size=7).take_all()
    assert len(out) == len(rows)
    got = {r["row_id"]: json.loads(r["result"]) for r in out}
    assert got == expected
    unbound = next(r for r in out if r["row_id"] == "r7")
    assert unbound["score"] is None and unbound["passed"] is None


def test_score_rejects_bad_metric_on_the_driver(ray_cluster):
    from tooleval.scale import ray as tray

    ds = tray.from_rows(dataset_rows(2))
    with pytest.raises(ConfigError):
        tray.score(ds, metric="no_such_metric")
    with pytest.raises(ConfigError, match="unknown parameter"):
        tray.score(ds, metric="tool_call_f1", bogus=1)


def test_detect_matches_single_process(ray_cluster):
    from tooleval.scale import ray as tray

    batch = sessions()
    report = monitor_sessions(batch)
    expected = {}
    for finding in report.findings:
        expected.setdefault((finding.session_id, finding.detector), []).append(finding.to_dict())
    ds = tray.from_sessions(batch, override_num_blocks=3)
    out = tray.detect(ds, batch_size=4).take_all()
    assert len(out) == len(batch) * 4
    got = {}
    for row in out:
        findings = json.loads(row["result"])["diagnosis"]["details"]["findings"]
        assert row["findings"] == len(findings)
        assert row["score"] == (0.0 if findings else 1.0)
        if findings:
            got[(row["session_id"], row["detector"])] = findings
    assert got == expected
    assert ("s5", "excessive_calls") in got  # the batch baseline was built across blocks


def test_detect_over_canonical_rows(ray_cluster):
    from tooleval.scale import ray as tray

    rows = [
        {"id": "a", "input": "x", "tools_called": [{"name": "f", "args": {"k": 1}}] * 3},
        {"id": "b", "input": "y", "tools_called": [{"name": "f", "args": {"k": 1}}]},
    ]
    out = tray.detect(tray.from_rows(rows), detectors=["retry_loop"]).take_all()
    assert sorted((r["session_id"], r["findings"]) for r in out) == [("a", 1), ("b", 0)]


def test_import_tooleval_does_not_import_ray():
    code = (
        "import sys, tooleval, tooleval.monitor, tooleval.scale, tooleval.scale.rows, "
        "tooleval.cli.monitor, tooleval.cli.trace; "
        "print('ray' in sys.modules, 'pyarrow' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["False", "False"], done.stderr
