"""Per-run aggregates: equal to counting every row, stored once, stale when rows change;
``tooleval aggregate``; the histogram's threshold colours and label."""

from __future__ import annotations

import dataclasses
import re

import pytest
from tests.web.seed import METRICS, seed_many, seed_support_runs

from tooleval.analysis.aggregates import aggregate_run, run_clusters, run_counts
from tooleval.analysis.clusters import cluster_failures
from tooleval.analysis.compare import compare_runs
from tooleval.cli.main import main
from tooleval.model import Result, Sample
from tooleval.report.charts import bin_counts, histogram_svg
from tooleval.report.compare import comparison_page
from tooleval.store.records import RowRecord


@pytest.fixture
def store(tmp_path):
    from tooleval.store import open_store

    opened = open_store(tmp_path / "runs.db")
    yield opened
    opened.close()


def _by_hand(store, run):
    """What the aggregates must equal: every row read and counted in Python."""
    rows = list(store.iter_rows(run.id))
    bins = {}
    for metric in run.summaries:
        scores = [r.result(metric).score for r in rows if r.result(metric)]
        bins[metric] = (
            bin_counts([s for s in scores if s is not None]),
            sum(s is None for s in scores),
        )
    categories = {}
    for row in rows:
        if row.category is None:
            continue
        c = categories.setdefault(row.category, [0, 0, 0, 0])
        c[0] += 1
        c[1] += row.passed is True
        c[2] += row.passed is False
        c[3] += row.error is not None
    classes = {}
    for row in rows:
        if row.failure_class:
            classes[row.failure_class] = classes.get(row.failure_class, 0) + 1
    return rows, bins, categories, classes


def test_counts_equal_counting_every_row(store):
    a, b = seed_support_runs(store)
    big = seed_many(store, 250)
    for run_id in (a, b, big):
        run = store.get_run(run_id)
        rows, bins, categories, classes = _by_hand(store, run)
        counts = run_counts(store, run)
        assert {x.metric: (x.counts, x.unscored) for x in counts.bins} == bins
        assert {
            c.category: [c.rows, c.passed, c.failed, c.errors] for c in counts.categories
        } == categories
        assert counts.classes == classes
        for cls, examples in counts.examples.items():
            first = [(r.index, r.row_id) for r in rows if r.failure_class == cls][:3]
            assert examples == first
        clusters, failures = run_clusters(store, run)
        expected = cluster_failures([r for r in rows if r.passed is not True], total_rows=len(rows))
        assert failures == sum(r.passed is not True for r in rows)
        assert [(c.failure_class, c.count, c.detail) for c in clusters] == [
            (c.failure_class, c.count, c.detail) for c in expected
        ]
        # Counted from the rows' stored keys: categories and first examples as well.
        assert [(c.categories, c.row_ids, c.indexes) for c in clusters] == [
            (c.categories, c.row_ids[:20], c.indexes[:20]) for c in expected
        ]


def test_rows_stored_without_a_cluster_key_are_clustered_from_the_rows(store):
    big = seed_many(store, 120)
    run = store.get_run(big)
    counted, failures = run_clusters(store, run, refresh=True)
    with store._write() as conn:  # as an older tooleval stored them
        conn.exec_driver_sql("UPDATE rows SET failure_detail = NULL")
    assert store.aggregates.undetailed_failures(run.id) == failures > 0
    read, again = run_clusters(store, run, refresh=True)
    assert again == failures
    assert [(c.failure_class, c.count, c.detail, c.categories) for c in read] == [
        (c.failure_class, c.count, c.detail, c.categories) for c in counted
    ]


def test_documents_are_written_once_and_recomputed_when_rows_change(store):
    a, _ = seed_support_runs(store)
    run = store.get_run(a)
    first = run_counts(store, run)
    stored = store.aggregates.load_aggregate(a, "counts/1", row_count=run.row_count)
    assert {k: v for k, v in stored.items() if k != "stamp"} == first.to_payload()
    # A stored document is read back as it is (proved by changing it in place).
    payload = dict(stored)
    payload["classes"] = {"missing_tool": 999}

    store.aggregates.save_aggregate(a, "counts/1", payload, row_count=run.row_count)
    assert run_counts(store, run).classes == {"missing_tool": 999}
    # A resumed run gains rows: the document no longer matches and is recomputed.
    store.reopen_run(a)
    extra = RowRecord(
        a,
        run.row_count,
        "late",
        Sample(input="late row", category="cancel"),
        (Result.scored("tool_correctness", 1.0, reason="", threshold=0.5),),
    )
    store.add_row(a, extra)
    store.finish_run(a)
    later = store.get_run(a)
    assert run_counts(store, later).classes != {"missing_tool": 999}
    assert store.aggregates.load_aggregate(a, "counts/1", row_count=later.row_count) is not None


def test_a_running_run_is_counted_but_not_stored(store):
    run_id = store.create_run("live", dataset={}, connector={}, metrics=METRICS)
    run = store.get_run(run_id)
    assert run_counts(store, run).categories == []
    assert store.aggregates.load_aggregate(run_id, "counts/1", row_count=0) is None
    from tooleval.errors import InputError

    with pytest.raises(InputError, match="still running"):
        aggregate_run(store, run_id)


def _listed(full, change=None, metric=None):
    from tooleval.report.compare import LISTED

    order = [change] if change else list(LISTED)
    groups = {}
    for d in full.rows:
        groups.setdefault((d.change, d.metric), []).append(d)
    return [
        d
        for c in order
        for (gc, m), items in groups.items()
        if gc == c and (metric is None or m == metric)
        for d in items
    ]


@pytest.mark.parametrize("chunk", [1000, 3])
def test_stored_comparison_pages_equal_the_full_comparison(store, monkeypatch, chunk):
    import tooleval.report.compare as comparison

    monkeypatch.setattr(comparison, "CHUNK", chunk)
    a, b = seed_support_runs(store)
    full = compare_runs(store, a, b, figures=_sides(store, a, b))
    first = comparison_page(store, a, b, limit=1000)  # computed, then stored
    assert first.comparison.metrics == full.metrics
    assert first.comparison.categories == full.categories
    assert first.deltas == _listed(full)
    for change in (None, "regressed", "fixed", "new"):
        for metric in (None, "tool_call_f1"):
            expected = _listed(full, change, metric)
            for offset, limit in ((0, 50), (1, 2), (2, 5), (len(expected), 5)):
                page = comparison_page(
                    store, a, b, change=change, metric=metric, offset=offset, limit=limit
                )
                assert page.total == len(expected), (change, metric)
                assert page.deltas == expected[offset : offset + limit], (change, metric, offset)
                assert page.comparison.metrics == full.metrics
    assert {d.change for d in _listed(full)} >= {"fixed", "regressed"}
    unchanged = comparison_page(store, a, b, change="unchanged")
    assert unchanged.total == 0 and unchanged.comparison.metrics == full.metrics


def test_deleting_a_run_deletes_its_aggregates(store):
    a, _ = seed_support_runs(store)
    run = store.get_run(a)
    run_counts(store, run)
    store.delete_run(a)
    import sqlalchemy as sa

    with store._read() as conn:
        left = conn.execute(
            sa.text("SELECT count(*) FROM run_aggregates WHERE run_id = :r"), {"r": a}
        )
        assert left.scalar() == 0


def test_aggregate_cli(store, tmp_path, capsys):
    a, b = seed_support_runs(store)
    url = str(tmp_path / "runs.db")
    assert main(["aggregate", a[:-1], "--store", url]) == 0
    assert "aggregates stored (23 rows" in capsys.readouterr().out
    assert main(["aggregate", "--all", "--store", url]) == 0
    out = capsys.readouterr().out
    assert a in out and b in out
    assert main(["aggregate", "--store", url]) == 2
    assert "give one RUN_ID or --all" in capsys.readouterr().err
    assert main(["aggregate", a, "--all", "--store", url]) == 2
    assert main(["aggregate", "nope", "--store", url]) == 2
    live = store.create_run("live", dataset={}, connector={}, metrics=[])
    assert main(["aggregate", live, "--store", url]) == 2
    assert "still running" in capsys.readouterr().err


def _fills(svg: str) -> dict[str, str]:
    """Bar label (from its tooltip) -> fill colour."""
    bars = re.findall(r'<rect [^>]*fill="(#[0-9a-f]+)"><title>([^<:]+):', svg)
    return {label: fill for fill, label in bars}


def test_histogram_at_threshold_one_draws_only_perfect_scores_green():
    svg = str(histogram_svg([1.0, 1.0, 0.95, 0.5], threshold=1.0, title="m"))
    fills = _fills(svg)
    assert fills["exactly 1.0"] == "#2f855a"
    assert fills["0.9–1.0"] == "#c53030"
    assert all(fill == "#c53030" for label, fill in fills.items() if label != "exactly 1.0")


def test_histogram_threshold_inside_a_bar_and_label_inside_the_chart():
    svg = str(histogram_svg([0.52, 0.9], threshold=0.55, title="m"))
    fills = _fills(svg)
    assert fills["0.5–0.6"] == "#b7791f"  # mixed: the threshold cuts it
    assert fills["0.4–0.5"] == "#c53030" and fills["0.6–0.7"] == "#2f855a"
    for threshold in (0.0, 1.0):
        text = str(histogram_svg([0.5], threshold=threshold))
        label = re.search(r'<text x="([\d.]+)"[^>]*text-anchor="(\w+)"[^>]*>threshold', text)
        x, anchor = float(label[1]), label[2]
        assert anchor == ("start" if threshold == 0 else "end")
        assert 0 <= x <= 360


def test_report_of_a_bigger_run_reads_stored_aggregates(store):
    from tooleval.report import build_report

    run_id = seed_many(store, 300)
    text = build_report(store, run_id, max_rows=5)
    assert "5 of 300 rows shown" in text
    run = store.get_run(run_id)
    assert store.aggregates.load_aggregate(run_id, "clusters/1", row_count=300) is not None
    # Built again from the stored documents: same page.
    assert (
        build_report(store, run_id, max_rows=5).split("Generated by")[0]
        == text.split("Generated by")[0]
    )
    assert dataclasses.is_dataclass(run)


def test_cached_run_headers_equal_get_run_and_follow_a_resume(store):
    from tooleval.analysis.aggregates import cached_run, cached_runs

    a, b = seed_support_runs(store)
    for run_id in (a, b):
        assert cached_run(store, run_id) == store.get_run(run_id)
        assert cached_run(store, run_id) == store.get_run(run_id)  # now from the stored copy
    assert cached_runs(store) == store.list_runs()
    assert cached_runs(store, search="prompt") == store.list_runs(search="prompt")
    assert cached_runs(store, tag="baseline") == store.list_runs(tag="baseline")
    store.reopen_run(a)
    assert cached_run(store, a).status == "running"
    store.add_row(
        a,
        RowRecord(
            a, 23, "late", Sample(input="x"), (Result.scored("tool_call_f1", 1.0, reason=""),)
        ),
    )
    store.finish_run(a)
    assert cached_run(store, a) == store.get_run(a) and cached_run(store, a).row_count == 24
    from tooleval.errors import StoreError

    with pytest.raises(StoreError, match="no run"):
        cached_run(store, "nope")


def test_clusters_read_calls_kept_in_messages(store):
    from tooleval.analysis.clusters import classify_failure
    from tooleval.metrics.registry import score_sample
    from tooleval.model import AssistantMessage, ExpectedTools, ToolCall, UserMessage

    run_id = store.create_run("messages", dataset={}, connector={}, metrics=METRICS[1:])
    records = []
    for index in range(4):
        sample = Sample(
            messages=[
                UserMessage(f"refund order {index}"),
                AssistantMessage(tool_calls=(ToolCall("search_orders", {"q": str(index)}),)),
            ],
            expected_tools=ExpectedTools.of(["issue_refund"]),
            category="refund",
        )
        result = score_sample("tool_call_f1", sample, threshold=0.8)
        record = RowRecord(run_id, index, f"m{index}", sample, (result,))
        records.append(dataclasses.replace(record, failure_class=classify_failure(record)))
    store.add_rows(run_id, records)
    store.finish_run(run_id)
    slim = list(store.aggregates.iter_unpassed_slim(run_id))
    full = list(store.aggregates.iter_unpassed_rows(run_id))
    assert [r.sample.actual_calls() for r in slim] == [r.sample.actual_calls() for r in full]
    assert slim[0].sample.actual_calls()[0].name == "search_orders"
    clusters, failures = run_clusters(store, store.get_run(run_id))
    expected = cluster_failures(full, total_rows=4)
    assert failures == 4
    assert [(c.failure_class, c.detail, c.count) for c in clusters] == [
        (c.failure_class, c.detail, c.count) for c in expected
    ]


def _sides(store, a, b):
    """Both runs' read models, as every caller of compare_runs gives them."""
    from tooleval.analysis.figures import run_figures

    return run_figures(store, store.get_run(a)), run_figures(store, store.get_run(b))
