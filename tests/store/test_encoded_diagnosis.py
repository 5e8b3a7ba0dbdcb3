"""A result the kernel scored in process is stored without decoding its diagnosis, and reads back
equal to the Python reference's (SQLite and PostgreSQL; NUL characters still replaced)."""

from __future__ import annotations

import pytest

from tooleval.metrics import bind
from tooleval.metrics.engine import kernel_status
from tooleval.model import Sample, ToolCall
from tooleval.store.records import RowRecord

C = ToolCall


def _samples() -> list[Sample]:
    return [
        Sample(
            tools_called=[C("lookup", {"id": "4471", "deep": {"a": [1, 2.5, None]}}), C("refund")],
            expected_tools=[C("lookup", {"id": "4471", "deep": {"a": [1, 2.5, None]}})],
        ),
        Sample(
            tools_called=[C("cancel", {"id": "9", "note": 'é ✓ \\ "'})],
            expected_tools=[C("cancel", {"id": "8", "note": 'é ✓ \\ "'}), C("notify")],
        ),
        Sample(
            tools_called=[C("nul", {"text": "a\x00b"})], expected_tools=[C("nul", {"text": "x"})]
        ),
    ]


def _reference(metric: str, sample: Sample, monkeypatch) -> object:
    monkeypatch.setenv("TOOLEVAL_NO_KERNEL", "1")
    try:
        return bind(metric).score(sample)
    finally:
        monkeypatch.delenv("TOOLEVAL_NO_KERNEL")


@pytest.mark.parametrize("metric", ["tool_call_accuracy", "tool_correctness"])
def test_kernel_results_round_trip_through_the_store(store, run_name, metric, monkeypatch):
    bound = bind(metric)
    results = [bound.score(sample) for sample in _samples()]
    if kernel_status() == "compiled":
        assert results[0].encoded_diagnosis() is not None, "the kernel scored it in process"
    run = store.create_run(run_name, dataset={}, connector={}, metrics=[])
    store.add_rows(
        run,
        [
            RowRecord(run, i, f"r{i}", sample, (result,))
            for i, (sample, result) in enumerate(zip(_samples(), results, strict=True))
        ],
    )
    stored = {row.index: row.results[0] for row in store.iter_rows(run)}
    for i, sample in enumerate(_samples()):
        expected = _reference(metric, sample, monkeypatch)
        got = stored[i]
        if i == 2:  # a NUL: PostgreSQL stores U+FFFD instead (SQLite keeps it)
            assert got.diagnosis.arguments[0].actual in ("a\x00b", "a\ufffdb")
            assert (got.score, got.reason) == (expected.score, expected.reason)
        else:
            assert got == expected


def test_a_read_or_changed_diagnosis_is_stored_as_it_is_now(store, run_name):
    sample = _samples()[1]
    result = bind("tool_correctness").score(sample)
    result.diagnosis.details["note"] = "added after scoring"
    assert result.encoded_diagnosis() is None
    run = store.create_run(run_name, dataset={}, connector={}, metrics=[])
    store.add_rows(run, [RowRecord(run, 0, "r0", sample, (result,))])
    (row,) = list(store.iter_rows(run))
    assert row.results[0].diagnosis.details["note"] == "added after scoring"
