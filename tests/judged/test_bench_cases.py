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


def test_bench_runner_scores_a_judge_against_the_labels(repo_root, recorded, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "judge_bench_run", repo_root / "bench/judges/run.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cases = bench.load_cases(repo_root / "bench" / "judges" / "cases.jsonl")
    first_two = [c for c in cases if c[1]["metric"] == "tools_error"][:2]
    # Recorded replies: right about the first case (wrong order id), wrong about the second
    # (a clean cancel flagged as a parameter error on call 1).
    wrong_id = {"category": "parameter_error", "evidence": "4417"}
    judge = recorded(
        {"calls": [{"call": 1, "errors": []}, {"call": 2, "errors": [wrong_id]}]},
        {"calls": [{"call": 1, "errors": [wrong_id]}, {"call": 2, "errors": []}]},
    )
    rows = []
    for sample, meta in first_two:
        result = bench.score_case(sample, meta, judge)
        rows.append(result)
    summary = bench.summarise(rows, judge, 0.0)
    entry = summary["metrics"]["tools_error"]
    assert (entry["cases"], entry["correct"], entry["unscored"]) == (2, 1, 0)
    assert entry["call_flag_accuracy"] == 0.75  # 3 of 4 per-call flags right
    assert entry["copied_example"] == summary["copied_example"] == 0
    bench.print_table(summary)
    assert "tools_error" in capsys.readouterr().out


def test_bench_runner_counts_judges_that_copy_the_example(repo_root, recorded):
    import importlib.util

    from tooleval.judged.prompts import TASK_SUCCESS_EXAMPLE

    spec = importlib.util.spec_from_file_location(
        "judge_bench_run", repo_root / "bench/judges/run.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cases = bench.load_cases(repo_root / "bench" / "judges" / "cases.jsonl")
    sample, meta = next(c for c in cases if c[1]["metric"] == "task_success")
    judge = recorded(TASK_SUCCESS_EXAMPLE, TASK_SUCCESS_EXAMPLE)
    summary = bench.summarise([bench.score_case(sample, meta, judge)], judge, 0.0)
    assert summary["copied_example"] == summary["metrics"]["task_success"]["copied_example"] == 1
    assert summary["unscored"] == 1 and summary["accuracy"] == 0.0
