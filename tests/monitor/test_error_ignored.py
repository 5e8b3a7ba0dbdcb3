"""error_ignored decided from structure: failed state-changing call, no recovery, effect claimed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tooleval.model import ToolCall
from tooleval.monitor.detectors import run_detectors
from tooleval.monitor.error_ignored import (
    admits_failure,
    claims_effect,
    error_ignored,
    is_state_changing,
)
from tooleval.monitor.session import Session, TracedCall

BENCH = Path(__file__).resolve().parents[2] / "bench" / "monitor_error_ignored.py"


def _call(name, error=False, **kw):
    return TracedCall(
        ToolCall(
            name, {"id": 1}, result={"error": "declined"} if error else {"ok": 1}, is_error=error
        ),
        **kw,
    )


@pytest.mark.parametrize(
    "answer",
    [
        "No problem! Your refund is on its way.",
        "Sorry for the wait! Your refund has been issued.",
        "No error on our side: the transfer went through.",
        "I can't wait for you to enjoy it: the table is booked!",
    ],
)
def test_claimed_effect_after_failed_write_is_flagged_despite_polite_words(answer):
    (finding,) = error_ignored(Session("s", [_call("issue_refund", error=True)], output=answer))
    assert finding.evidence["shape"] == "claimed_effect" and finding.evidence["state_changing"]


@pytest.mark.parametrize(
    "answer",
    [
        "The transfer was declined by the bank.",
        "I couldn't process the refund: the card was declined.",
        "Your refund has not been processed because of a network error.",
        "Sorry, there was a hiccup with that request.",
    ],
)
def test_reported_failure_is_not_flagged(answer):
    assert error_ignored(Session("s", [_call("issue_refund", error=True)], output=answer)) == []


def test_structure_before_words():
    claim = "Done! Your refund has been issued."
    # recovered: a later call of the same tool succeeded
    assert error_ignored(Session("s", [_call("refund", True), _call("refund")], output=claim)) == []
    # failed twice: one finding, on the last failure
    (finding,) = error_ignored(
        Session("s", [_call("refund", True), _call("refund", True)], output=claim)
    )
    assert finding.call_indices == (1,)
    # a later call of the tool whose outcome was never seen: undecidable, nothing reported
    unseen = TracedCall(ToolCall("refund", {"id": 1}), executed=False)
    assert error_ignored(Session("s", [_call("refund", True), unseen], output=claim)) == []
    # the answer came before the failure
    late = _call("refund", True, start_ns=200)
    assert error_ignored(Session("s", [late], output=claim, output_ns=100)) == []
    # a read-only tool's failure is flagged when the answer does not mention it
    (read,) = error_ignored(
        Session("s", [_call("get_order", True)], output="It shipped yesterday.")
    )
    assert read.evidence["shape"] == "unmentioned" and not read.evidence["state_changing"]


def test_state_changing_lists_override_names():
    assert is_state_changing("refund_order") and not is_state_changing("get_refund_status")
    assert not is_state_changing("do_it") and is_state_changing("do_it", state_changing=["do_it"])
    assert not is_state_changing("cancel_order", read_only=["cancel_order"])
    session = Session(
        "s", [_call("frobnicate", True)], output="All set, the widget has been frobnicated."
    )
    found = run_detectors(
        session,
        detectors=["error_ignored"],
        options={"error_ignored": {"state_changing": ["frobnicate"]}},
    )
    assert found["error_ignored"][0].evidence["shape"] == "claimed_effect"


def test_idioms_are_not_admissions():
    assert admits_failure("No problem! Done.") is None
    assert admits_failure("The payment failed.") == "failed"
    assert claims_effect("Your refund is on its way") == "is on its way"
    assert claims_effect("I could not do it") is None


def test_labelled_bench_set_scores():
    spec = importlib.util.spec_from_file_location("monitor_error_ignored_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    labelled = bench.load()
    new = bench.score(labelled, lambda s: bool(error_ignored(s)))
    old = bench.score(labelled, bench.old_rule)
    assert len(labelled) == 82
    assert new["precision"] == 1.0 and new["recall"] > old["recall"]
    assert new["fn"] == 2  # the two answers that mix an admission with a claim (documented)


def test_cli_state_changing_option(tmp_path, capsys, monkeypatch):
    import json

    from tooleval.cli.main import main

    monkeypatch.delenv("TOOLEVAL_STORE", raising=False)

    def attr(key, value):
        return {"key": key, "value": {"stringValue": value}}

    tool = {
        "traceId": "ab" * 16,
        "spanId": "01" * 8,
        "name": "execute_tool frobnicate",
        "startTimeUnixNano": "1",
        "status": {"code": 2, "message": "jammed"},
        "attributes": [
            attr("gen_ai.operation.name", "execute_tool"),
            attr("gen_ai.tool.name", "frobnicate"),
        ],
    }
    answer = json.dumps(
        [
            {
                "role": "assistant",
                "parts": [{"type": "text", "content": "All set, the widget has been frobnicated."}],
            }
        ]
    )
    chat = {
        "traceId": "ab" * 16,
        "spanId": "02" * 8,
        "name": "chat",
        "startTimeUnixNano": "2",
        "attributes": [
            attr("gen_ai.operation.name", "chat"),
            attr("gen_ai.output.messages", answer),
        ],
    }
    log = tmp_path / "traces.jsonl"
    log.write_text(
        json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [tool, chat]}]}]}) + "\n"
    )
    out = tmp_path / "f.json"
    assert (
        main(
            [
                "monitor",
                str(log),
                "--no-store",
                "--json",
                str(out),
                "--state-changing",
                "frobnicate",
            ]
        )
        == 0
    )
    (finding,) = json.loads(out.read_text())["findings"]
    assert finding["evidence"]["shape"] == "claimed_effect"
    assert main(["monitor", str(log), "--no-store", "--json", str(out)]) == 0
    (finding,) = json.loads(out.read_text())["findings"]
    assert finding["evidence"]["shape"] == "unmentioned"
