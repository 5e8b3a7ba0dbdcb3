"""The labelled judge benchmark (bench/judges/cases.jsonl) is consistent with itself."""

from __future__ import annotations

import json
from collections import Counter

from tooleval.formats import sample_from_row
from tooleval.judged import render_conversation
from tooleval.judged.registration import JUDGED_METRICS
from tooleval.metrics.registry import get_metric


def test_every_case_is_a_valid_labelled_row(repo_root):
    path = repo_root / "bench" / "judges" / "cases.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(rows) >= 40
    assert len({r["id"] for r in rows}) == len(rows)
    counts = Counter(r["metadata"]["metric"] for r in rows)
    assert set(counts) == set(JUDGED_METRICS)
    assert min(counts.values()) >= 10
    for number, row in enumerate(rows, start=1):
        sample = sample_from_row(row, row_number=number)
        meta = row["metadata"]
        info = get_metric(meta["metric"])
        assert set(meta.get("params", {})) <= set(info.params), row["id"]
        assert 0.0 <= meta["expected"] <= 1.0, row["id"]
        assert meta["why"], row["id"]
        assert render_conversation(sample).startswith(("USER:", "SYSTEM PROMPT:")), row["id"]
        if meta["metric"] == "tools_error":
            flags = meta["expected_flags"]
            assert len(flags) == len(sample.actual_calls()), row["id"]
            assert abs(flags.count(False) / len(flags) - meta["expected"]) < 1e-9, row["id"]
        if meta["metric"] == "topic_adherence":
            assert sample.reference_topics, row["id"]
        if meta["metric"] in ("goal_accuracy", "task_success"):
            assert meta["expected"] in (0.0, 1.0), row["id"]
