"""Several metrics and ``--fields`` in one kernel pass: the bytes of the Python reference.

The kernel shares the comparison of a row's calls between metrics that compare
alike, and writes ``--fields`` lines straight from the scorer (no reason or
diagnosis built unless a field asks for it). The oracle is the pure-Python line
of every row and metric (``TOOLEVAL_NO_KERNEL``), cut by
:func:`tooleval.scoring.fields.project`; the table's kept rows keep the whole
lines whatever the fields.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.kernel.test_identity import BOUND, python_line, rows

from tooleval.metrics import bind
from tooleval.metrics.engine import kernel_status
from tooleval.scoring import score_stream_tallied
from tooleval.scoring.fields import FIELDS, PRESETS, FieldsWriter, project

pytestmark = pytest.mark.skipif(
    BOUND is None or kernel_status() != "compiled",
    reason="compiled kernel not built, or disabled by TOOLEVAL_NO_KERNEL",
)

fields_drawn = st.one_of(
    st.sampled_from([PRESETS["compact"], ("id", "score", "passed", "reason"), ()]),
    st.permutations(FIELDS).flatmap(
        lambda order: st.integers(1, len(FIELDS)).map(lambda n: order[:n])
    ),
).map(tuple)


def _stream(
    metrics: list[Any], data: bytes, fields: tuple[str, ...], keep: int
) -> tuple[bytes, Any]:
    out = io.BytesIO()
    target = FieldsWriter(out, fields) if fields else out
    done = score_stream_tallied(metrics, data.splitlines(keepends=True), target, keep=keep)
    assert done is not None
    return out.getvalue(), done[1]


def _reference(metrics: list[Any], lines: list[bytes]) -> list[list[bytes]] | None:
    """Every row's whole result lines (a list per row), None when a row is an input error."""
    found = []
    for number, line in enumerate(lines, start=1):
        results = [python_line(metric, number, line) for metric in metrics]
        if any(not isinstance(r, bytes) for r in results):
            return None
        found.append(results)
    return found  # type: ignore[return-value]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    drawn=st.lists(rows(), min_size=1, max_size=4),
    which=st.lists(st.integers(0, len(BOUND) - 1), min_size=1, max_size=3),
    fields=fields_drawn,
)
def test_several_metrics_and_fields_give_the_python_bytes(
    drawn: list[dict[str, Any]], which: list[int], fields: tuple[str, ...]
) -> None:
    metrics = [BOUND[k][2] for k in which]
    # a row Python refuses stops the stream (tests/kernel/test_streams.py): left out here
    lines = [
        line
        for line in (orjson.dumps(row) + b"\n" for row in drawn)
        if _reference(metrics, [line]) is not None
    ]
    reference = _reference(metrics, lines)
    if not lines or reference is None:
        return
    written, tally = _stream(metrics, b"".join(lines), fields, keep=len(lines))
    expected = b"".join(
        project(result, fields) if fields else result for row in reference for result in row
    )
    assert written == expected
    # the kept rows (every row here) hold the whole lines, whatever was written
    kept = {number: results for _, number, _, results in tally.kept}
    assert kept == {n: b"".join(row) for n, row in enumerate(reference, start=1)}


def test_bench_rows_with_three_metrics_compact_and_full(tmp_path: Path) -> None:
    """The rows `bench/score_metrics.py` times, 3 metrics, full and compact lines."""
    # the checkout's bench/ (the installed check copies tests/kernel out of the checkout)
    source = os.environ.get("TOOLEVAL_SOURCE_TREE") or Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(Path(source) / "bench"))
    from gen_rows import write_rows

    data = write_rows(tmp_path / "rows.jsonl", 300, [2, 3]).read_bytes()
    metrics = [bind(name) for name in ("tool_call_accuracy", "tool_call_f1", "tool_correctness")]
    reference = _reference(metrics, data.splitlines(keepends=True))
    assert reference is not None
    whole = b"".join(result for row in reference for result in row)
    for fields in [(), PRESETS["compact"], ("code", "reason", "diagnosis", "verdict")]:
        written, tally = _stream(metrics, data, fields, keep=5)
        assert written == (
            b"".join(project(r, fields) for r in whole.splitlines(keepends=True))
            if fields
            else whole
        )
        assert sum(tally.statuses.values()) == 300
        for _, number, _, results in tally.kept:
            assert results == b"".join(reference[number - 1])


def test_a_kept_row_whose_reason_only_python_writes_keeps_the_python_lines() -> None:
    """A compact line needs no reason, so the kernel writes it; the table still gets the whole line."""
    # an emoji in a mismatched argument: a reason the kernel leaves to Python
    row = {
        "id": "r",
        "tools_called": [{"name": "f", "args": {"q": "\U0001f600"}}],
        "expected_tools": [{"name": "f", "args": {"q": "x"}}],
    }
    line = orjson.dumps(row) + b"\n"
    metrics = [bind("tool_call_accuracy"), bind("tool_call_f1")]
    reference = _reference(metrics, [line])
    assert reference is not None
    written, tally = _stream(metrics, line, PRESETS["compact"], keep=1)
    assert written == b"".join(project(r, PRESETS["compact"]) for r in reference[0])
    assert b'"code":"arguments"' in written
    assert [results for *_, results in tally.kept] == [b"".join(reference[0])]


@pytest.mark.parametrize("first", ["tool_call_f1", "tool_correctness"])
def test_metrics_under_both_extra_keys_rules_keep_their_own_verdicts(first: str) -> None:
    """f1 ignores an extra argument key, tool_correctness counts it: the shared comparison
    serves both only for the calls without one."""
    row = {
        "id": "r",
        "tools_called": [
            {"name": "f", "args": {"q": 1, "extra": {"deep": [1]}}},
            {"name": "g", "args": {"q": 2}},
        ],
        "expected_tools": [{"name": "f", "args": {"q": 1}}, {"name": "g", "args": {"q": 2}}],
    }
    line = orjson.dumps(row) + b"\n"
    second = "tool_correctness" if first == "tool_call_f1" else "tool_call_f1"
    metrics = [bind(first), bind(second), bind("tool_call_accuracy")]
    reference = _reference(metrics, [line])
    assert reference is not None
    written, _ = _stream(metrics, line, (), keep=0)
    assert written == b"".join(reference[0])
    scores = {orjson.loads(r)["metric"]: orjson.loads(r)["score"] for r in reference[0]}
    assert scores["tool_call_f1"] == 1.0 and scores["tool_correctness"] == 0.5
