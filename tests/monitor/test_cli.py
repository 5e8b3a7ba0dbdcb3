"""`tooleval monitor` and `tooleval trace` end to end on SDK-produced traces."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from tooleval.cli.main import main
from tooleval.formats import sample_from_row
from tooleval.store import open_store

LOOKUP = ("get_order", {"order_id": "1"}, {"status": "shipped"})


@pytest.fixture()
def traces(sdk, tmp_path) -> Path:
    sdk.genai_session("clean", "where is 1?", [LOOKUP], "Shipped.")
    sdk.genai_session("dup", "where is 1?", [LOOKUP, ("notify", {}, "ok"), LOOKUP], "Shipped.")
    sdk.genai_session(
        "loop", "status?", [("poll_job", {"id": 9}, {"state": "running"})] * 3, "Done"
    )
    failing = ("refund", {"order_id": "1"}, {"error": "refund window closed"}, "RefundError")
    sdk.genai_session("ignored", "refund 1", [LOOKUP, failing], "Your refund is on its way!")
    return sdk.write_jsonl(tmp_path / "traces.jsonl")


def test_monitor_prints_grouped_findings_and_writes_json(traces, tmp_path, capsys):
    out = tmp_path / "findings.json"
    assert main(["monitor", str(traces), "--json", str(out), "--no-store"]) == 0
    printed = capsys.readouterr().out
    assert "4 sessions" in printed
    # the poll loop also repeats a successful call, so it is redundant too
    assert "redundancy: 2 findings" in printed and "  get_order: 1" in printed
    assert "retry_loop: 1 finding" in printed and "  poll_job: 1" in printed
    assert "error_ignored: 1 finding" in printed and "  refund: 1" in printed
    assert "excessive_calls: 0 findings" in printed
    data = json.loads(out.read_text())
    assert data["counts"] == {
        "redundancy": 2,
        "retry_loop": 1,
        "error_ignored": 1,
        "excessive_calls": 0,
    }
    by_detector = {f["detector"]: f for f in data["findings"]}
    redundant = {f["session_id"] for f in data["findings"] if f["detector"] == "redundancy"}
    assert redundant == {"dup", "loop"}
    assert by_detector["retry_loop"]["session_id"] == "loop"
    assert by_detector["error_ignored"]["session_id"] == "ignored"
    assert len(by_detector["error_ignored"]["span_ids"]) == 1
    assert data["ingest"]["problems"] == []


def test_fail_on_sets_exit_code(traces, capsys):
    assert main(["monitor", str(traces), "--no-store", "--fail-on", "retry_loop"]) == 1
    assert "retry_loop found something" in capsys.readouterr().err
    assert main(["monitor", str(traces), "--no-store", "--fail-on", "excessive_calls"]) == 0
    # a lower limit makes excessive_calls find the looping session
    assert (
        main(
            [
                "monitor",
                str(traces),
                "--no-store",
                "--max-calls",
                "2",
                "--fail-on",
                "excessive_calls",
            ]
        )
        == 1
    )


def test_detector_selection_and_bad_names(traces, capsys):
    out_args = ["monitor", str(traces), "--no-store", "--detector", "retry_loop", "--min-run", "4"]
    assert main(out_args) == 0
    printed = capsys.readouterr().out
    assert "retry_loop: 0 findings" in printed and "redundancy" not in printed
    assert main(["monitor", str(traces), "--fail-on", "nonsense"]) == 2
    assert "unknown detector 'nonsense'" in capsys.readouterr().err
    assert main(["monitor", str(traces.parent / "missing.jsonl")]) == 2


def test_findings_stored_as_a_run(traces, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(["monitor", str(traces), "--store", url]) == 0
    assert "stored as run" in capsys.readouterr().out
    store = open_store(url)
    try:
        [run] = store.list_runs()
        assert run.connector == {"type": "traces"} and run.status == "finished"
        assert {m.name for m in run.metrics} == {
            "detector:redundancy",
            "detector:retry_loop",
            "detector:error_ignored",
            "detector:excessive_calls",
        }
        rows = {r.row_id: r for r in store.iter_rows(run.id)}
        assert set(rows) == {"clean", "dup", "loop", "ignored"}
        assert rows["clean"].result("detector:redundancy").score == 1.0
        loop = rows["loop"].result("detector:retry_loop")
        assert loop.score == 0.0 and loop.diagnosis.details["findings"][0]["tool"] == "poll_job"
        assert [c.name for c in rows["dup"].sample.tools_called] == [
            "get_order",
            "notify",
            "get_order",
        ]
    finally:
        store.close()


def test_store_from_environment(traces, tmp_path, monkeypatch, capsys):
    url = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv("TOOLEVAL_STORE", url)
    assert main(["monitor", str(traces)]) == 0
    store = open_store(url)
    try:
        assert len(store.list_runs()) == 1
    finally:
        store.close()
    assert main(["monitor", str(traces), "--no-store"]) == 0


def _hex_to_b64(record):
    for key in ("traceId", "spanId"):
        if key in record:
            record[key] = base64.b64encode(bytes.fromhex(record[key])).decode()
    return record


def test_emit_evaluation_events_as_otlp_logs(traces, tmp_path, sdk):
    events = tmp_path / "events.jsonl"
    assert main(["monitor", str(traces), "--no-store", "--emit", str(events)]) == 0
    records = []
    for line in events.read_text().splitlines():
        data = json.loads(line)
        for resource in data["resourceLogs"]:
            for scope in resource["scopeLogs"]:
                for record in scope["logRecords"]:
                    records.append(record)
        # the file is a valid ExportLogsServiceRequest (ids re-encoded for protobuf's parser)
        for resource in data["resourceLogs"]:
            for scope in resource["scopeLogs"]:
                scope["logRecords"] = [_hex_to_b64(dict(r)) for r in scope["logRecords"]]
        ParseDict(data, ExportLogsServiceRequest())
    assert len(records) == 4
    attrs = {
        r["attributes"][0]["value"]["stringValue"]: {a["key"]: a["value"] for a in r["attributes"]}
        for r in records
    }
    assert all(r["eventName"] == "gen_ai.evaluation.result" for r in records)
    ignored = attrs["error_ignored"]
    assert ignored["gen_ai.evaluation.score.value"] == {"doubleValue": 0.0}
    assert ignored["gen_ai.evaluation.score.label"] == {"stringValue": "fail"}
    assert "refund" in ignored["gen_ai.evaluation.explanation"]["stringValue"]
    # the event is attached to the failed execute_tool span
    refund_span = next(s for s in sdk.spans() if s.name == "execute_tool refund")
    record = next(
        r for r in records if r["attributes"][0]["value"]["stringValue"] == "error_ignored"
    )
    assert record["spanId"] == format(refund_span.context.span_id, "016x")
    assert record["traceId"] == format(refund_span.context.trace_id, "032x")


def test_emit_passes(traces, tmp_path):
    events = tmp_path / "events.jsonl"
    assert main(["monitor", str(traces), "--no-store", "--emit", str(events), "--emit-passes"]) == 0
    labels = [
        a["value"]["stringValue"]
        for line in events.read_text().splitlines()
        for r in json.loads(line)["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
        for a in r["attributes"]
        if a["key"] == "gen_ai.evaluation.score.label"
    ]
    assert labels.count("fail") == 4 and labels.count("pass") == 4 * 4 - 4


def test_trace_to_case_writes_an_unbound_row(traces, tmp_path, capsys):
    out = tmp_path / "cases.jsonl"
    assert main(["trace", "to-case", str(traces), "--session", "ignored", "-o", str(out)]) == 0
    [line] = out.read_text().splitlines()
    row = json.loads(line)
    assert row["input"] == "refund 1"
    assert [c["name"] for c in row["tools_called"]] == ["get_order", "refund"]
    assert row["tools_called"][1]["is_error"] is True
    assert row["expected_tools"] is None and row["metadata"]["needs_expected_tools"] is True
    assert [m["role"] for m in row["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    sample = sample_from_row(row)
    assert sample.expected_tools is None  # unbound: metrics say "unscored", not "restraint"
    assert [c.name for c in sample.actual_calls()] == ["get_order", "refund"]
    # --append collects several cases into one dataset
    assert (
        main(["trace", "to-case", str(traces), "--session", "dup", "-o", str(out), "--append"]) == 0
    )
    assert len(out.read_text().splitlines()) == 2


def test_trace_to_case_unknown_session_and_listing(traces, capsys):
    assert main(["trace"]) == 2  # an action is required
    assert main(["trace", "to-case", str(traces), "--session", "nope"]) == 2
    assert "no session 'nope'" in capsys.readouterr().err
    assert main(["trace", "sessions", str(traces)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0] for line in listed] == ["clean", "dup", "loop", "ignored"]


def test_conversation_logs_in_importer_formats(tmp_path, capsys):
    def openai(session_id, calls, answer):
        messages = [{"role": "user", "content": "hi"}]
        for i, (name, args, result) in enumerate(calls):
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"c{i}",
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                    ],
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)}
            )
        messages.append({"role": "assistant", "content": answer})
        return {"id": session_id, "messages": messages}

    anthropic = {
        "id": "claude-1",
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "weather", "input": {"c": "P"}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "down",
                        "is_error": True,
                    }
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It is sunny."}]},
        ],
    }
    path = tmp_path / "conversations.jsonl"
    lines = [
        json.dumps(openai("o-1", [("search", {"q": "x"}, ["a"])] * 3, "found it")),
        "not json",
        json.dumps(anthropic),
    ]
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "f.json"
    assert main(["monitor", str(path), "--no-store", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["sessions"] == 2
    found = {(f["detector"], f["session_id"]) for f in data["findings"]}
    assert ("retry_loop", "o-1") in found and ("error_ignored", "claude-1") in found
    assert data["ingest"]["problems"][0]["line"] == 2


def test_cli_subprocess(traces, tmp_path):
    exe = Path(sys.executable).parent / "tooleval"
    done = subprocess.run(
        [str(exe), "monitor", str(traces), "--no-store", "--fail-on", "redundancy"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "redundancy: 2 findings" in done.stdout
