"""MCP traffic logs (one JSON-RPC message per line) read by ``tooleval monitor FILE``.

Each connection is a session (a new one starts at ``initialize`` or at a request id
its session already used); ``tools/call`` requests are the calls and their responses
the outcomes: ``isError``, a JSON-RPC error, or an error by text convention. Lines
that cannot be read are reported with their line number and the rest is kept.
"""

from __future__ import annotations

import json

from tooleval.cli.main import main
from tooleval.monitor.ingest import read_sessions


def _call(n, name, arguments=None):
    params = {"name": name} if name is not None else {}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}


def _ok(n, text, **extra):
    return {
        "jsonrpc": "2.0",
        "id": n,
        "result": {"content": [{"type": "text", "text": text}], **extra},
    }


def _write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18"},
    },
    {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18", "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 99, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 99, "result": {"tools": []}},
]


def _sessions(path):
    with read_sessions(path) as sessions:
        read = [
            (s.id, s.source, [(c.name, c.call.args, c.is_error, c.call.result) for c in s.calls])
            for s in sessions
        ]
        return read, sessions.report


def test_calls_and_their_outcomes_are_read_one_session_per_connection(tmp_path):
    path = _write(
        tmp_path / "mcp.jsonl",
        [
            *HANDSHAKE,
            _call(1, "charge", {"usd": 30}),
            _ok(1, "gateway down", isError=True),
            _call(2, "charge", {"usd": 30}),
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "internal error"}},
            _call(3, "lookup", {"order": 7}),
            _ok(3, "Error: no such order"),  # no isError: failed by its text
            _call(4, "refund", {"usd": 30}),
            {"jsonrpc": "2.0", "id": 4, "result": {"content": [], "structuredContent": {"ok": 1}}},
            *HANDSHAKE,  # a second connection
            _call(1, "charge", {"usd": 5}),
            _ok(1, "paid"),
            _call(1, "charge", {"usd": 6}),  # id 1 again without a handshake: a third one
        ],
    )
    read, report = _sessions(path)
    assert report.problems == []
    assert read == [
        (
            "line-1",
            "mcp",
            [
                ("charge", {"usd": 30}, True, "gateway down"),
                ("charge", {"usd": 30}, True, "internal error"),
                ("lookup", {"order": 7}, True, "Error: no such order"),
                ("refund", {"usd": 30}, False, {"ok": 1}),
            ],
        ),
        ("line-14", "mcp", [("charge", {"usd": 5}, False, "paid")]),
        ("line-21", "mcp", [("charge", {"usd": 6}, False, None)]),
    ]
    assert report.status_warning() is None  # MCP results carry their status


def test_lines_that_cannot_be_read_are_named_and_the_rest_is_kept(tmp_path):
    path = _write(
        tmp_path / "mcp.jsonl",
        [
            _ok(5, "orphan"),  # answers no request
            _call(1, None, {}),  # no tool name
            _call(2, "a", {}),
            _ok(2, "done"),
            _ok(2, "again"),  # answered twice
            _call(3, "b", "not an object"),
            {"jsonrpc": "2.0", "id": True, "method": "tools/call", "params": {"name": "c"}},
        ],
    )
    read, report = _sessions(path)
    assert read == [("line-3", "mcp", [("a", {}, False, "done")])]
    problems = {p.line: p.message for p in report.problems}
    assert sorted(problems) == [1, 2, 5, 6, 7]
    assert "response id 5 answers no open request" in problems[1]
    assert "params.name" in problems[2] and "tool name" in problems[2]
    assert "response id 2 answers no open request" in problems[5]
    assert "arguments" in problems[6]
    assert "JSON-RPC id" in problems[7]


def test_monitor_finds_a_retry_loop_in_an_mcp_log(tmp_path, capsys):
    lines = [*HANDSHAKE]
    for n in range(1, 5):
        lines += [_call(n, "poll_job", {"job": 1}), _ok(n, "still running", isError=True)]
    path = _write(tmp_path / "mcp.jsonl", lines)
    out = tmp_path / "findings.json"
    assert main(["monitor", str(path), "--json", str(out), "--no-store"]) == 0
    printed = capsys.readouterr().out
    assert "1 sessions, 4 tool calls" in printed
    data = json.loads(out.read_text())
    assert data["counts"]["retry_loop"] == 1
    assert data["counts"]["redundancy"] == 0  # repeats after failures are retries
