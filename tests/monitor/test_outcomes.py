"""Tool outcomes read from every conversation format, by status or by convention (issue 37).

OpenAI chat and Responses tool outputs carry no status: ``"Error: payment
gateway unavailable"`` or ``{"error": "timeout"}`` is the failure, and the
ingest says the outcomes were read from text. Anthropic ``is_error``, Gemini
``{"error": ...}``, LangChain ``status``, MCP ``isError`` and an OTel span's
status say so themselves; a span with no status whose result is an error text
counts too. A repeat after a failure is a retry (``retry_loop``), never
``redundancy``. Real files through the real commands.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooleval.cli.main import main
from tooleval.formats.outcome import error_in_result

ARGS = {"order": 7, "amount": 30}
ASK = "Refund order 7 please"
CLAIM = "Your refund of 30 USD has been issued."


def openai_chat(sid: str, *results: str, final: str = CLAIM) -> dict:
    messages: list[dict] = [{"role": "user", "content": ASK}]
    for n, result in enumerate(results):
        call = {"id": f"c{n}", "type": "function",
                "function": {"name": "issue_refund", "arguments": json.dumps(ARGS)}}  # fmt: skip
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    messages.append({"role": "assistant", "content": final})
    return {"id": sid, "messages": messages}


def responses(sid: str, output: str) -> dict:
    return {"id": sid, "input": [
        {"role": "user", "content": ASK},
        {"type": "function_call", "call_id": "c1", "name": "issue_refund",
         "arguments": json.dumps(ARGS)},
        {"type": "function_call_output", "call_id": "c1", "output": output},
        {"role": "assistant", "content": CLAIM}]}  # fmt: skip


def anthropic(sid: str, content: str, is_error: bool | None = None) -> dict:
    block: dict = {"type": "tool_result", "tool_use_id": "tu1", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return {"id": sid, "messages": [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "tu1",
                                           "name": "issue_refund", "input": ARGS}]},
        {"role": "user", "content": [block]},
        {"role": "assistant", "content": [{"type": "text", "text": CLAIM}]}]}  # fmt: skip


def gemini(sid: str, response: dict) -> dict:
    return {"id": sid, "contents": [
        {"role": "user", "parts": [{"text": ASK}]},
        {"role": "model", "parts": [{"functionCall": {"name": "issue_refund", "args": ARGS}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "issue_refund",
                                                         "response": response}}]},
        {"role": "model", "parts": [{"text": CLAIM}]}]}  # fmt: skip


def langchain(sid: str, content: str, status: str = "success") -> dict:
    return {"id": sid, "messages": [
        {"type": "human", "data": {"content": ASK}},
        {"type": "ai", "data": {"content": "", "tool_calls": [{"name": "issue_refund",
                                                               "args": ARGS, "id": "1"}]}},
        {"type": "tool", "data": {"content": content, "tool_call_id": "1", "status": status}},
        {"type": "ai", "data": {"content": CLAIM}}]}  # fmt: skip


# session id -> (conversation, failed?, format carries a status?)
FAILED = {
    "oc-error-text": (openai_chat("oc-error-text", "Error: payment gateway unavailable"), "openai_chat"),
    "oc-error-object": (openai_chat("oc-error-object", '{"error": "card declined"}'), "openai_chat"),
    "oc-status-failed": (openai_chat("oc-status-failed", '{"status": "failed", "message": "no"}'), "openai_chat"),
    "oc-exception": (openai_chat("oc-exception", "TimeoutError: gateway read timed out"), "openai_chat"),
    "oc-http": (openai_chat("oc-http", "HTTP 503 Service Unavailable"), "openai_chat"),
    "resp-error": (responses("resp-error", '{"error": "gateway down"}'), "openai_responses"),
    "resp-text": (responses("resp-text", "Error: gateway down"), "openai_responses"),
    "anth-flag": (anthropic("anth-flag", "gateway down", True), "anthropic"),
    "anth-text": (anthropic("anth-text", "Error: gateway down"), "anthropic"),
    "gem-error": (gemini("gem-error", {"error": "gateway down"}), "gemini"),
    "lc-status": (langchain("lc-status", "gateway down", "error"), "langchain"),
    "lc-text": (langchain("lc-text", "Error: gateway down"), "langchain"),
}  # fmt: skip
SUCCEEDED = {
    "oc-ok": openai_chat("oc-ok", '{"refund_id": "R-1", "status": "issued"}'),
    "oc-mentions": openai_chat("oc-mentions", "No errors found; refund R-2 issued"),
    "oc-null-error": openai_chat("oc-null-error", '{"error": null, "refund_id": "R-3"}'),
    "resp-ok": responses("resp-ok", '{"refund_id": "R-4"}'),
    "anth-ok": anthropic("anth-ok", "refund R-5 issued", False),
    "gem-ok": gemini("gem-ok", {"output": "refund R-6 issued"}),
    "lc-ok": langchain("lc-ok", "refund R-7 issued"),
}


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def log(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("TOOLEVAL_STORE", raising=False)
    rows = [conversation for conversation, _ in FAILED.values()] + list(SUCCEEDED.values())
    return _write(tmp_path / "log.jsonl", rows)


def _sessions_table(out: str) -> dict[str, int]:
    errors = {}
    for line in out.splitlines():
        sid, _, errs, *_ = line.split("\t")
        errors[sid] = int(errs.split()[0])
    return errors


def test_trace_sessions_counts_failures_in_every_format(log, capsys):
    assert main(["trace", "sessions", str(log)]) == 0
    captured = capsys.readouterr()
    errors = _sessions_table(captured.out)
    assert {sid: errors[sid] for sid in FAILED} == dict.fromkeys(FAILED, 1)
    assert {sid: errors[sid] for sid in SUCCEEDED} == dict.fromkeys(SUCCEEDED, 0)
    assert "skipped" not in captured.err


def test_error_ignored_finds_each_claimed_failure(log, tmp_path, capsys):
    report = tmp_path / "report.json"
    argv = ["monitor", str(log), "--no-store", "--detector", "error_ignored", "--json", str(report)]
    assert main(argv) == 0
    found = {f["session_id"] for f in json.loads(report.read_text())["findings"]}
    assert found == set(FAILED)


def test_the_ingest_says_which_outcomes_were_read_from_text(log, capsys):
    assert main(["trace", "sessions", str(log)]) == 0
    err = capsys.readouterr().err
    (note,) = [line for line in err.splitlines() if line.startswith("note:")]
    openai_sessions = sum(1 for s in [*FAILED, *SUCCEEDED] if s.startswith("oc-"))
    assert f"{openai_sessions} session(s) in openai_chat" in note
    responses_sessions = sum(1 for s in [*FAILED, *SUCCEEDED] if s.startswith("resp-"))
    assert f"{responses_sessions} session(s) in openai_responses" in note
    for carried in ("anthropic", "gemini", "langchain"):
        assert carried not in note


def test_no_note_when_every_format_carries_a_status(tmp_path, capsys):
    rows = [anthropic("a", "gateway down", True), langchain("l", "ok")]
    assert main(["trace", "sessions", str(_write(tmp_path / "a.jsonl", rows))]) == 0
    assert "note:" not in capsys.readouterr().err


# ---------------------------------------------------------------- retry, not redundancy


def _findings(tmp_path: Path, rows: list) -> dict[str, list[dict]]:
    report = tmp_path / "r.json"
    path = _write(tmp_path / "rows.jsonl", rows)
    argv = ["monitor", str(path), "--no-store", "--json", str(report)]
    assert main(argv) == 0
    out: dict[str, list[dict]] = {}
    for finding in json.loads(report.read_text())["findings"]:
        out.setdefault(finding["detector"], []).append(finding)
    return out


TIMEOUT = '{"error": "timeout"}'


@pytest.mark.parametrize(
    "failure", [TIMEOUT, "Error: timeout", "TimeoutError: read timed out", '{"ok": false}']
)
def test_identical_calls_that_each_failed_are_a_retry_loop_only(tmp_path, capsys, failure):
    rows = [openai_chat("s", *[failure] * 4, final="Sorry, the service is down.")]
    found = _findings(tmp_path, rows)
    assert [f["session_id"] for f in found.get("retry_loop", [])] == ["s"]
    assert "redundancy" not in found


def test_a_repeat_after_a_success_is_redundancy(tmp_path, capsys):
    rows = [
        openai_chat("after-success", '{"refund_id": "R-1"}', '{"refund_id": "R-1"}', final="Done."),
        openai_chat("fail-ok-again", TIMEOUT, '{"refund_id": "R-1"}', '{"refund_id": "R-1"}',
                    final="Done."),
        openai_chat("fail-then-ok", TIMEOUT, '{"refund_id": "R-1"}', final="Done."),
    ]  # fmt: skip
    found = _findings(tmp_path, rows)
    redundant = {f["session_id"]: f for f in found.get("redundancy", [])}
    assert set(redundant) == {"after-success", "fail-ok-again"}
    assert redundant["fail-ok-again"]["evidence"]["repeats"] == 1


def _repeated(sid: str, fmt: str, times: int, *, failed: bool) -> dict:
    """One conversation in ``fmt`` with ``times`` identical calls, each failed or each not."""
    turns: list = []
    for n in range(times):
        if fmt == "openai_responses":
            turns += [
                {"type": "function_call", "call_id": f"c{n}", "name": "issue_refund",
                 "arguments": json.dumps(ARGS)},
                {"type": "function_call_output", "call_id": f"c{n}",
                 "output": TIMEOUT if failed else '{"refund_id": "R-1"}'},
            ]  # fmt: skip
        elif fmt == "anthropic":
            turns += [
                {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}",
                                                   "name": "issue_refund", "input": ARGS}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                              "content": "gateway down" if failed else "R-1",
                                              "is_error": failed}]},
            ]  # fmt: skip
        elif fmt == "gemini":
            response = {"error": "gateway down"} if failed else {"output": "R-1"}
            turns += [
                {"role": "model", "parts": [{"functionCall": {"name": "issue_refund",
                                                              "args": ARGS}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "issue_refund",
                                                                 "response": response}}]},
            ]  # fmt: skip
        else:  # langchain
            turns += [
                {"type": "ai", "data": {"content": "", "tool_calls": [
                    {"name": "issue_refund", "args": ARGS, "id": str(n)}]}},
                {"type": "tool", "data": {"content": "gateway down" if failed else "R-1",
                                          "tool_call_id": str(n),
                                          "status": "error" if failed else "success"}},
            ]  # fmt: skip
    if fmt == "openai_responses":
        return {"id": sid, "input": [{"role": "user", "content": ASK}, *turns]}
    if fmt == "gemini":
        return {"id": sid, "contents": [{"role": "user", "parts": [{"text": ASK}]}, *turns]}
    if fmt == "langchain":
        return {"id": sid, "messages": [{"type": "human", "data": {"content": ASK}}, *turns]}
    return {"id": sid, "messages": [{"role": "user", "content": ASK}, *turns]}


@pytest.mark.parametrize("fmt", ["openai_responses", "anthropic", "gemini", "langchain"])
def test_repeats_after_failures_are_retries_and_after_successes_redundancy_in_each_format(
    tmp_path, capsys, fmt
):
    rows = [
        _repeated(f"{fmt}-failed", fmt, 4, failed=True),
        _repeated(f"{fmt}-succeeded", fmt, 2, failed=False),
    ]
    found = _findings(tmp_path, rows)
    assert {f["session_id"] for f in found.get("retry_loop", [])} == {f"{fmt}-failed"}
    assert {f["session_id"] for f in found.get("redundancy", [])} == {f"{fmt}-succeeded"}


def test_the_monitor_command_in_a_real_process(log):
    proc = subprocess.run(
        [sys.executable, "-m", "tooleval.cli.main", "monitor", str(log), "--no-store",
         "--detector", "error_ignored", "--fail-on", "error_ignored"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert f"error_ignored: {len(FAILED)} findings" in proc.stdout
    assert "note: tool results of" in proc.stderr


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Error: payment gateway unavailable", "payment gateway unavailable"),
        ("ERROR - card declined", "card declined"),
        ("[error] quota exceeded", "quota exceeded"),
        ("Failed to reach the bank", "Failed to reach the bank"),
        (
            "Traceback (most recent call last):\n  File x",
            "Traceback (most recent call last): File x",
        ),
        ("500 Internal Server Error", "500 Internal Server Error"),
        ({"errors": [{"message": "bad id"}]}, '[{"message": "bad id"}]'),
        ({"error": {"code": 3, "message": "bad id"}}, "bad id"),
        ({"success": False}, "success: false"),
        ({"state": "FAILED", "detail": "no stock"}, "no stock"),
        ([{"type": "text", "text": "Error: boom"}], "boom"),
        ("Errors: 0", None),
        ("The error rate is 2%", None),
        ("200 OK", None),
        ("404 results found", None),
        ({"error": ""}, None),
        ({"status": "ok"}, None),
        ("{not json", None),
        ("", None),
        (None, None),
        (42, None),
    ],
)
def test_error_conventions(content, expected):
    assert error_in_result(content) == expected


def _span(conversation: str, n: int, result: str, status: dict | None = None) -> dict:
    def attr(key: str, value: str) -> dict:
        return {"key": key, "value": {"stringValue": value}}

    span = {
        "traceId": f"{n:032x}",
        "spanId": f"{n:016x}",
        "name": "execute_tool issue_refund",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [
            attr("gen_ai.operation.name", "execute_tool"),
            attr("gen_ai.tool.name", "issue_refund"),
            attr("gen_ai.conversation.id", conversation),
            attr("gen_ai.tool.call.arguments", json.dumps(ARGS)),
            attr("gen_ai.tool.call.result", result),
        ],
    }
    if status is not None:
        span["status"] = status
    return {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}


def test_otel_spans_fail_by_status_or_by_their_result_text(tmp_path, capsys):
    spans = [
        _span("otel-text", 1, "Error: payment gateway unavailable"),
        _span("otel-object", 2, '{"error": "timeout"}'),
        _span("otel-status", 3, "declined", {"code": 2, "message": "card declined"}),
        _span("otel-ok", 4, '{"refund_id": "R-1"}'),
        _span("otel-ok-status", 5, "issued", {"code": 1}),
    ]
    path = _write(tmp_path / "spans.jsonl", spans)
    assert main(["trace", "sessions", str(path)]) == 0
    captured = capsys.readouterr()
    assert _sessions_table(captured.out) == {
        "otel-text": 1, "otel-object": 1, "otel-status": 1, "otel-ok": 0, "otel-ok-status": 0,
    }  # fmt: skip
    assert "note:" not in captured.err  # spans carry a status field
