"""File layouts: one-line documents streamed, stdin, gzip, protobuf, logs, broken input."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.errors import InputError
from tooleval.monitor.ingest import read_sessions
from tooleval.traces import files as otel_files
from tooleval.traces.otlp import IngestReport

REPO = Path(__file__).resolve().parents[2]


def _span(trace: int, span: int, tool: str, **extra) -> dict:
    return {
        "traceId": f"{trace:032x}",
        "spanId": f"{span:016x}",
        "name": f"execute_tool {tool}",
        "startTimeUnixNano": str(1_000 + span),
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
        ],
        **extra,
    }


def _request(*spans) -> dict:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def test_one_line_document_is_streamed_not_parsed_whole(tmp_path, monkeypatch):
    # a minified document on one line longer than the first-line limit goes to the streaming parser
    monkeypatch.setattr(otel_files, "FIRST_LINE_LIMIT", 64)
    doc = {"resourceSpans": [_request(_span(t, t, "f"))["resourceSpans"][0] for t in range(1, 40)]}
    path = tmp_path / "one.json"
    path.write_text(json.dumps(doc, separators=(",", ":")))
    stream = io.BufferedReader(io.BytesIO(path.read_bytes()))
    layout, _ = otel_files.sniff_layout(stream)
    assert layout == "document"
    with read_sessions(path) as sessions:
        assert len(list(sessions)) == 39 and sessions.report.lines == 1


def test_concatenated_documents_and_a_list_of_requests(tmp_path):
    path = tmp_path / "cat.json"
    path.write_text(
        json.dumps(_request(_span(1, 1, "a")), indent=1)
        + json.dumps(_request(_span(2, 2, "b")), indent=1)
    )
    with read_sessions(path) as sessions:
        assert sorted(c.name for s in sessions for c in s.calls) == ["a", "b"]
    listed = tmp_path / "list.json"
    listed.write_text(
        json.dumps([_request(_span(1, 1, "a")), _request(_span(2, 2, "b"))], indent=1)
    )
    with read_sessions(listed) as sessions:
        assert len(list(sessions)) == 2


def test_truncated_gzip_and_protobuf_keep_what_was_read(tmp_path):
    pytest.importorskip("opentelemetry.proto")
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    payloads = []
    for t in (1, 2):
        message = ParseDict(_request(_span(t, t, "f")), ExportTraceServiceRequest())
        # protobuf JSON ids are base64; ParseDict read hex text as base64, so set bytes directly
        message.resource_spans[0].scope_spans[0].spans[0].trace_id = bytes.fromhex(f"{t:032x}")
        message.resource_spans[0].scope_spans[0].spans[0].span_id = bytes.fromhex(f"{t:016x}")
        data = message.SerializeToString()
        payloads.append(len(data).to_bytes(4, "big") + data)
    path = tmp_path / "cut.pb"
    path.write_bytes(payloads[0] + payloads[1][:-5])
    with read_sessions(path) as sessions:
        assert len(list(sessions)) == 1
        assert any("cut short" in p.message for p in sessions.report.problems)
    zipped = tmp_path / "cut.json.gz"
    zipped.write_bytes(gzip.compress(json.dumps(_request(_span(1, 1, "f"))).encode() + b"\n")[:-10])
    with read_sessions(zipped) as sessions:  # the cut is in the trailer: the line was read
        assert len(list(sessions)) == 1
        assert any("gzip stream is cut short" in p.message for p in sessions.report.problems)
    lines = b"".join(json.dumps(_request(_span(t, t, "f"))).encode() + b"\n" for t in range(1, 200))
    zipped.write_bytes(gzip.compress(lines)[:-30])
    with read_sessions(zipped) as sessions:
        assert 0 < len(list(sessions)) < 199
        assert any("cut short" in p.message for p in sessions.report.problems)


def test_logs_only_file_and_bad_records(tmp_path):
    record = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "eventName": "gen_ai.choice",
        "body": {
            "kvlistValue": {
                "values": [
                    {
                        "key": "message",
                        "value": {
                            "kvlistValue": {
                                "values": [
                                    {
                                        "key": "tool_calls",
                                        "value": {
                                            "arrayValue": {
                                                "values": [
                                                    {
                                                        "kvlistValue": {
                                                            "values": [
                                                                {
                                                                    "key": "id",
                                                                    "value": {"stringValue": "c1"},
                                                                },
                                                                {
                                                                    "key": "function",
                                                                    "value": {
                                                                        "kvlistValue": {
                                                                            "values": [
                                                                                {
                                                                                    "key": "name",
                                                                                    "value": {
                                                                                        "stringValue": "search"
                                                                                    },
                                                                                },
                                                                                {
                                                                                    "key": "arguments",
                                                                                    "value": {
                                                                                        "stringValue": '{"q": 1}'
                                                                                    },
                                                                                },
                                                                            ]
                                                                        }
                                                                    },
                                                                },
                                                            ]
                                                        }
                                                    }
                                                ]
                                            }
                                        },
                                    }
                                ]
                            }
                        },
                    }
                ]
            }
        },
    }
    bad = {"traceId": "zz", "eventName": "gen_ai.choice"}
    other = {"traceId": "ab" * 16, "body": {"stringValue": "plain log line"}}
    path = tmp_path / "logs.jsonl"
    path.write_text(
        json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [record, bad, other]}]}]}) + "\n"
    )
    with read_sessions(path) as sessions:
        (session,) = list(sessions)
        assert [(c.name, c.call.args) for c in session.calls] == [("search", {"q": 1})]
        assert sessions.report.log_records == 3
        assert any("malformed log record" in p.message for p in sessions.report.problems)


def _cli(*args, stdin=b""):
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}
    return subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )


def test_stdin_empty_and_garbage_are_exit_2():
    empty = _cli("monitor", "-", "--no-store")
    assert empty.returncode == 2 and len(empty.stderr.decode().strip().splitlines()) == 1
    garbage = _cli("monitor", "-", "--no-store", stdin=b"\x93\x01\x02 not traces")
    assert garbage.returncode == 2
    piped = _cli(
        "trace",
        "sessions",
        "-",
        stdin=gzip.compress(json.dumps(_request(_span(1, 1, "f"))).encode()),
    )
    assert piped.returncode == 0 and piped.stdout.decode().startswith("0000")


def test_spooled_stdin_file_is_removed(monkeypatch, tmp_path):
    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(_request(_span(1, 1, "f"))).encode()))
    )
    with read_sessions("-", spill_dir=str(tmp_path)) as sessions:
        assert len(list(sessions)) == 1
        assert list(tmp_path.iterdir())
    assert list(tmp_path.iterdir()) == []


def test_empty_input_is_an_input_error(tmp_path):
    path = tmp_path / "empty.json"
    path.write_bytes(b"")
    with pytest.raises(InputError):
        read_sessions(path)
    assert IngestReport().to_dict()["unreadable_tool_use"] == {}
