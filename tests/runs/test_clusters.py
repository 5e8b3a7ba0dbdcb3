"""Failure classes from diagnoses, and clusters across a run."""

from __future__ import annotations

from tooleval.analysis.clusters import classify_failure, cluster_failures, failure_detail
from tooleval.model import ArgumentCheck, Diagnosis, Result, Sample, ToolCall
from tooleval.store.records import RowRecord


def _call(name, **args):
    return {"name": name, "args": args or None, "index": 0}


def _row(
    index, diagnosis=None, *, passed=False, error=None, called=("x",), category="c", unscored=False
):
    if unscored:
        results = (Result.unscored("tool_correctness", "no expected_tools bound"),)
    elif error:
        results = (Result.unscored("tool_correctness", f"not scored: {error}"),)
    else:
        results = (
            Result.scored(
                "tool_correctness",
                1.0 if passed else 0.0,
                reason="",
                diagnosis=diagnosis or Diagnosis(),
            ),
        )
    sample = Sample(tools_called=[ToolCall(n) for n in called], category=category)
    return RowRecord("run", index, f"row-{index}", sample, results, error=error)


MISSING = Diagnosis(missing=[_call("issue_refund")])
SUBSTITUTED = Diagnosis(missing=[_call("issue_refund")], extra=[_call("search_orders")])
EXTRA = Diagnosis(extra=[_call("search"), _call("search")])
ORDER = Diagnosis(order_violations=["capture_payment must come before send_email"])
ARGUMENT = Diagnosis(arguments=[ArgumentCheck("issue_refund", "amount", 30, 300, 0.0)])
SAME_NAME = Diagnosis(
    missing=[_call("issue_refund", amount=30, order_id="4471")],
    extra=[_call("issue_refund", amount=300, order_id="4471")],
)


def test_each_class_and_its_detail():
    cases = [
        (_row(0, MISSING), "missing_tool", "missing issue_refund"),
        (_row(1, SUBSTITUTED), "missing_tool", "called search_orders instead of issue_refund"),
        (_row(2, EXTRA), "extra_tool", "extra search x2"),
        (_row(3, ORDER), "wrong_order", "capture_payment must come before send_email"),
        (_row(4, ARGUMENT), "wrong_argument", "wrong issue_refund.amount"),
        (_row(5, SAME_NAME), "wrong_argument", "wrong issue_refund.amount"),
        (_row(6, error="connector error: HTTP 503"), "error", "connector error: HTTP 503"),
        (_row(7, unscored=True), "unscored", "no expected_tools bound"),
        (_row(8), "below_threshold", "below threshold: tool_correctness"),
        (_row(9, passed=True), None, ""),
    ]
    for row, cls, detail in cases:
        assert classify_failure(row) == cls, row.index
        assert failure_detail(row) == detail, row.index


def test_a_missing_call_outranks_an_argument_mismatch():
    both = Diagnosis(missing=[_call("b")], arguments=[ArgumentCheck("a", "k", 1, 2, 0.0)])
    assert classify_failure(_row(0, both)) == "missing_tool"


def test_forty_failures_three_bugs():
    rows = (
        [_row(i, SUBSTITUTED, category="refund") for i in range(20)]
        + [_row(20 + i, EXTRA, category="search" if i % 2 else "status") for i in range(12)]
        + [_row(40 + i, ARGUMENT, category="refund") for i in range(8)]
        + [_row(60 + i, passed=True) for i in range(30)]
    )
    clusters = cluster_failures(rows)
    assert [(c.failure_class, c.count) for c in clusters] == [
        ("missing_tool", 20),
        ("extra_tool", 12),
        ("wrong_argument", 8),
    ]
    assert clusters[0].categories == {"refund": 20}
    assert clusters[1].categories == {"status": 6, "search": 6}
    assert clusters[0].row_ids[:2] == ("row-0", "row-1")
    assert clusters[2].indexes == tuple(range(40, 48))
    assert "selection" in clusters[0].hint


def test_plumbing_when_no_row_called_any_tool():
    rows = [
        _row(i, Diagnosis(missing=[_call(f"tool_{i}")]), called=(), category=str(i % 3))
        for i in range(6)
    ]
    (cluster,) = cluster_failures(rows)
    assert cluster.failure_class == "plumbing" and cluster.count == 6
    assert "tools_called path" in cluster.detail


def test_plumbing_when_every_row_fails_identically():
    rows = [_row(i, error="connector error: HTTP 404 Not Found", called=()) for i in range(4)]
    (cluster,) = cluster_failures(rows)
    assert cluster.failure_class == "plumbing"
    assert "HTTP 404" in cluster.detail


def test_plumbing_when_every_row_errors_with_its_own_row_named():
    rows = [
        _row(i, error=f"connector error: row q{i}, status 200: path matched nothing", called=())
        for i in range(3)
    ]
    (cluster,) = cluster_failures(rows)
    assert cluster.failure_class == "plumbing"
    assert cluster.detail == (
        "every row failed to reach the agent: "
        "connector error: response path matched nothing, HTTP 200"
    )


def test_not_plumbing_when_a_row_passes_or_rows_differ_or_the_run_is_tiny():
    same = [_row(i, MISSING) for i in range(5)]
    assert cluster_failures(same + [_row(9, passed=True)])[0].failure_class == "missing_tool"
    mixed = [_row(0, MISSING), _row(1, EXTRA), _row(2, ORDER)]
    assert {c.failure_class for c in cluster_failures(mixed)} == {
        "missing_tool",
        "extra_tool",
        "wrong_order",
    }
    assert cluster_failures(same[:2])[0].failure_class == "missing_tool"
    # Only the failed rows of a bigger run: never plumbing.
    assert cluster_failures(same, total_rows=50)[0].failure_class == "missing_tool"
    assert cluster_failures([]) == []


def test_one_extra_call_reported_by_two_metrics_is_one_call_and_clusters_count_rows():
    import tooleval

    rows = []
    for index in range(3):
        sample = Sample(
            expected_tools=[ToolCall("lookup_order", {"id": index})],
            tools_called=[
                ToolCall("lookup_order", {"id": index}),
                ToolCall("search_faq", {"q": "refund policy"}),
            ],
        )
        results = (
            tooleval.score_sample("tool_correctness", sample, threshold=1.0),
            tooleval.score_sample("tool_call_f1", sample),
        )
        assert [r.passed for r in results] == [False, False]
        assert all(len(r.diagnosis.extra) == 1 for r in results)  # both report the call
        rows.append(RowRecord("run", index, f"row-{index}", sample, results))
    assert failure_detail(rows[0]) == "extra search_faq"
    rows.append(_row(3, passed=True))  # not every row fails alike: no plumbing
    [cluster] = [c for c in cluster_failures(rows) if c.failure_class == "extra_tool"]
    assert cluster.detail == "extra search_faq" and cluster.count == 3
    assert cluster.row_ids == ("row-0", "row-1", "row-2")
    # two extra calls made are still two, whichever metrics report them
    twice = Diagnosis(extra=[_call("search_faq"), {**_call("search_faq"), "index": 1}])
    both = RowRecord(
        "run",
        9,
        "row-9",
        Sample(tools_called=[ToolCall("search_faq")] * 2),
        tuple(
            Result.scored(m, 0.0, reason="", diagnosis=twice)
            for m in ("tool_correctness", "tool_call_f1")
        ),
    )
    assert failure_detail(both) == "extra search_faq x2"
