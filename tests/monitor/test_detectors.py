"""Each detector's true positives and the look-alikes it must leave alone."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tooleval.errors import ConfigError
from tooleval.model import ToolCall
from tooleval.monitor.detectors import (
    ToolBaseline,
    detector_result,
    error_ignored,
    excessive_calls,
    redundancy,
    retry_loop,
    run_detectors,
)
from tooleval.monitor.session import Session, TracedCall


def call(name, args=None, *, error=False, raw=None, span=None, start=None, result=None):
    tool_call = ToolCall.parse(name, raw if raw is not None else (args or {}))
    tool_call = tool_call.with_result(result, is_error=error)
    return TracedCall(tool_call, span_id=span, trace_id="t" * 32 if span else None, start_ns=start)


def session(*calls, output=None, output_ns=None):
    return Session("s", list(calls), output=output, output_ns=output_ns)


# ------------------------------------------------------------ redundancy


def test_redundancy_canonicalises_key_order_and_whitespace():
    s = session(
        call("get_user", raw='{"id": 7, "fields": ["a", "b"]}', span="a" * 16),
        call("other"),
        call("get_user", raw='{ "fields":["a","b"],\n "id":7 }', span="b" * 16),
    )
    [finding] = redundancy(s)
    assert finding.tool == "get_user" and finding.call_indices == (0, 2)
    assert finding.span_ids == ("a" * 16, "b" * 16)
    assert finding.evidence["arguments"] == '{"fields":["a","b"],"id":7}'


def test_redundancy_false_positives():
    # different arguments, different tools, and a repeat after a failure (a retry)
    assert redundancy(session(call("f", {"a": 1}), call("f", {"a": 2}), call("g", {"a": 1}))) == []
    assert redundancy(session(call("f", {"a": 1}, error=True), call("f", {"a": 1}))) == []
    # ... unless repeats after errors are asked for
    assert (
        len(
            redundancy(
                session(call("f", {"a": 1}, error=True), call("f", {"a": 1})), after_error=True
            )
        )
        == 1
    )


def test_redundancy_unparsable_arguments_compare_as_text():
    s = session(call("f", raw="{oops  x"), call("f", raw="{oops x"), call("f", raw="{other"))
    [finding] = redundancy(s)
    assert finding.call_indices == (0, 1)


# ------------------------------------------------------------ retry loop


def test_retry_loop_adjacent_run_and_threshold():
    s = session(
        call("poll", {"j": 1}), call("poll", {"j": 1}), call("poll", {"j": 1}), call("done")
    )
    [finding] = retry_loop(s)
    assert finding.evidence["shape"] == "adjacent" and finding.call_indices == (0, 1, 2)
    assert retry_loop(s, min_run=4) == []


def test_retry_loop_alternating_with_errors():
    s = session(
        call("pay", {"n": 1}, error=True),
        call("check_balance"),
        call("pay", {"n": 1}, error=True),
        call("check_balance", {"x": 1}),
        call("pay", {"n": 1}),
    )
    [finding] = retry_loop(s)
    assert finding.evidence["shape"] == "after_errors"
    assert finding.call_indices == (0, 2, 4) and finding.evidence["errors"] == 2


def test_retry_loop_false_positives():
    # three identical calls that are not adjacent and did not fail: not a loop
    s = session(
        call("get", {"a": 1}), call("x"), call("get", {"a": 1}), call("y"), call("get", {"a": 1})
    )
    assert retry_loop(s) == []
    # two in a row is below the default threshold; changing arguments is not a loop
    assert retry_loop(session(call("f"), call("f"))) == []
    assert retry_loop(session(call("f", {"p": 1}), call("f", {"p": 2}), call("f", {"p": 3}))) == []
    # a chain broken by a success does not count
    s = session(
        call("f", error=True), call("g"), call("f"), call("g", {"b": 1}), call("f", error=True)
    )
    assert retry_loop(s) == []


def test_retry_loop_adjacent_errors_reported_once():
    s = session(*[call("f", {"a": 1}, error=True) for _ in range(4)])
    assert [f.evidence["shape"] for f in retry_loop(s)] == ["adjacent"]


def test_retry_loop_rejects_bad_min_run():
    with pytest.raises(ConfigError):
        retry_loop(session(), min_run=1)


# ------------------------------------------------------------ error ignored


def test_error_ignored_true_positive():
    s = session(
        call("lookup", {"q": 1}),
        call("refund", {"id": 3}, error=True, result={"error": "declined"}, span="c" * 16),
        output="Done! Your refund has been issued.",
    )
    [finding] = error_ignored(s)
    assert finding.tool == "refund" and finding.span_ids == ("c" * 16,)
    assert finding.evidence["result"] == {"error": "declined"}


@pytest.mark.parametrize(
    "answer",
    [
        "Sorry, I could not issue the refund.",
        "The refund FAILED; please contact support.",
        "I was unable to process it.",
        "Unfortunately that didn't work.",
        "I can't do that right now.",
    ],
)
def test_error_ignored_acknowledged(answer):
    assert error_ignored(session(call("refund", error=True), output=answer)) == []


def test_error_ignored_false_positives():
    # retried (same tool, even with other arguments), no answer, or answer before the error
    retried = session(
        call("refund", {"id": 3}, error=True), call("refund", {"id": "3"}), output="Done."
    )
    assert error_ignored(retried) == []
    assert error_ignored(session(call("refund", error=True), output=None)) == []
    early = session(call("refund", error=True, start=200), output="Working on it.", output_ns=100)
    assert error_ignored(early) == []
    # a word merely containing an acknowledgement word does not count ("terror" is not "error")
    assert len(error_ignored(session(call("f", error=True), output="No terrors here."))) == 1


# ------------------------------------------------------------ excessive calls


def test_excessive_calls_total_limit():
    s = session(*[call("f", {"i": i}) for i in range(4)])
    [finding] = excessive_calls(s, max_calls=3)
    assert finding.evidence == {"shape": "total", "count": 4, "max_calls": 3}
    assert excessive_calls(s, max_calls=4) == []


def test_excessive_calls_far_above_usual():
    usual = [
        Session(f"u{i}", [call("search", {"q": j}) for j in range(2 + i % 2)]) for i in range(10)
    ]
    heavy = Session("heavy", [call("search", {"q": j}) for j in range(12)])
    baseline = ToolBaseline.from_sessions([*usual, heavy])
    [finding] = excessive_calls(heavy, baseline=baseline)
    assert finding.evidence["shape"] == "above_usual" and finding.evidence["count"] == 12
    assert finding.evidence["median"] == 3.0 and finding.evidence["mad"] == 1.0
    # ordinary sessions and a mildly busier one are not flagged
    assert all(excessive_calls(s, baseline=baseline) == [] for s in usual)
    mild = Session("mild", [call("search", {"q": j}) for j in range(4)])
    assert excessive_calls(mild, baseline=baseline) == []


def test_excessive_calls_needs_enough_sessions():
    few = [Session(f"u{i}", [call("f")]) for i in range(4)]
    heavy = Session("heavy", [call("f", {"i": i}) for i in range(20)])
    baseline = ToolBaseline.from_sessions([*few, heavy])
    assert len(excessive_calls(heavy, baseline=baseline)) == 1  # 5 sessions: enough
    assert excessive_calls(heavy, baseline=baseline, min_sessions=6) == []


def test_excessive_calls_one_extra_call_is_not_far_above():
    # a tool always called once: a session calling it twice is not an outlier
    ones = [Session(f"u{i}", [call("f")]) for i in range(50)]
    twice = Session("twice", [call("f", {"i": 1}), call("f", {"i": 2})])
    baseline = ToolBaseline.from_sessions([*ones, twice])
    assert excessive_calls(twice, baseline=baseline) == []


# ------------------------------------------------------------ registry


def test_run_detectors_and_results():
    s = session(*[call("f", {"a": 1}) for _ in range(3)])
    found = run_detectors(s, options={"retry_loop": {"min_run": 3}})
    assert sorted(k for k, v in found.items() if v) == ["redundancy", "retry_loop"]
    result = detector_result("retry_loop", found["retry_loop"], {"min_run": 3})
    assert result.metric == "detector:retry_loop" and result.score == 0.0 and not result.passed
    assert result.diagnosis.details["findings"][0]["call_indices"] == [0, 1, 2]
    clean = detector_result("error_ignored", [], {})
    assert clean.score == 1.0 and clean.passed


def test_unknown_detector_or_option_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown detector"):
        run_detectors(session(), detectors=["nope"])
    with pytest.raises(ConfigError, match="unknown option"):
        run_detectors(session(), options={"retry_loop": {"n": 2}})


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(["f", "g", "h"]), st.integers(0, 6), max_size=3),
        max_size=40,
    ),
    st.integers(0, 12),
)
def test_the_live_window_baseline_equals_the_baseline_of_its_sessions(sessions, window):
    """The live monitor's histograms, sessions entering and leaving its window, give the
    figures ``from_counts`` gives for the sessions in the window."""
    from collections import Counter, deque

    from tooleval.monitor.live import LiveMonitor

    live = LiveMonitor(baseline_window=window)
    kept: deque = deque(maxlen=window)
    for counts in sessions:
        live._remember(Counter(counts))
        kept.append(counts)
        assert (
            ToolBaseline.from_histograms(live._histograms).stats
            == ToolBaseline.from_counts(kept).stats
        )
