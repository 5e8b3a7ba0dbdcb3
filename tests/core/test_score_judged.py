"""``tooleval score`` with judged metrics: recorded conversations, several metrics, one command.

The judge is an OpenAI-compatible endpoint: a tiny real HTTP server on
127.0.0.1 answering chat completions (verdicts decided from the prompt), and
the bundled local model (``llm`` marker). Judge failures leave that row's
metric unscored with the reason, as runs do; the other metrics still score.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tooleval.cli.main import main


def _conversation(row_id: str, tool_result: str, error: bool, final: str) -> dict:
    call = {"id": "c1", "type": "function", "function": {"name": "cancel_order"}}
    call["function"]["arguments"] = json.dumps({"order_id": "4471"})
    return {
        "id": row_id,
        "messages": [
            {"role": "user", "content": "Please cancel order 4471."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": tool_result if not error else f"ERROR: {tool_result}",
            },
            {"role": "assistant", "content": final},
        ],
        "expected_tools": [{"name": "cancel_order", "args": {"order_id": "4471"}}],
    }


ROWS = [
    _conversation("done", "cancelled", False, "Order 4471 is cancelled."),
    _conversation("failed", "CARD-DECLINED-XYZ", True, "Order 4471 is cancelled."),
    _conversation("garbage", "GARBAGE-PLEASE", False, "Done."),
]


class _Judge(BaseHTTPRequestHandler):
    calls: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = " ".join(str(m.get("content")) for m in body["messages"])
        type(self).calls.append(prompt)
        if "GARBAGE-PLEASE" in prompt:
            text = "I think it went fine."  # not JSON, twice: the row is unscored
        else:
            ok = "CARD-DECLINED-XYZ" not in prompt
            text = json.dumps({"evidence": "the tool result", "accomplished": ok, "reason": "r"})
        reply = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "served",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def judge_url():
    _Judge.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Judge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


METRICS = ["--metric", "tool_call_accuracy", "--metric", "tool_correctness"]
METRICS += ["--metric", "task_success"]


def _data(tmp_path, rows=ROWS):
    path = tmp_path / "recorded.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_recorded_conversations_with_an_openai_compatible_judge(tmp_path, judge_url, capsys):
    data, out = _data(tmp_path), tmp_path / "out.jsonl"
    judge = ["--judge", "openai", "--judge-option", "model=served"]
    judge += ["--judge-option", f"base_url={judge_url}", "--judge-option", "cache=false"]
    assert main(["score", str(data), *METRICS, *judge, "--table", "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    got = {(r["id"], r["metric"]): r for r in lines}
    assert [(r["id"], r["metric"]) for r in lines][:3] == [
        ("done", "tool_call_accuracy"),
        ("done", "tool_correctness"),
        ("done", "task_success"),
    ]
    assert len(lines) == 9
    assert got[("done", "task_success")]["score"] == 1.0
    assert got[("failed", "task_success")]["score"] == 0.0
    unscored = got[("garbage", "task_success")]
    assert unscored["score"] is None and "judge reply" in unscored["reason"]
    for row in ("done", "failed", "garbage"):  # the deterministic metrics score every row
        assert got[(row, "tool_correctness")]["score"] == 1.0
    captured = capsys.readouterr()
    assert "tooleval score: judge 4 calls" in captured.err and "tokens in" in captured.err
    table = captured.out  # one table, a column per metric (-o given: on stdout)
    assert table.count("per-row results") == 1
    header = next(line for line in table.splitlines() if "tool_call_accuracy" in line)
    assert "tool_correctness" in header and "task_success" in header
    assert "summary per metric" in table
    assert len(_Judge.calls) == 4  # one call per row, one re-ask for the garbage reply


def test_the_judge_from_a_file_or_the_environment(tmp_path, judge_url, monkeypatch):
    data, out = _data(tmp_path), tmp_path / "out.jsonl"
    config = tmp_path / "judge.yaml"
    config.write_text(f"judge:\n  type: openai\n  model: served\n  base_url: {judge_url}\n")
    config.write_text(config.read_text() + "  cache: false\n")
    assert (
        main(
            ["score", str(data), "--metric", "task_success", "--judge", str(config)]
            + ["-o", str(out)]
        )
        == 0
    )
    assert [json.loads(line)["score"] for line in out.read_text().splitlines()][:2] == [1.0, 0.0]
    monkeypatch.setenv("TOOLEVAL_JUDGE", str(config))
    assert main(["score", str(data), "--metric", "task_success", "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 3


def test_no_judge_and_bad_judges_are_one_line_input_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("TOOLEVAL_JUDGE", raising=False)
    data = _data(tmp_path)
    assert main(["score", str(data), "--metric", "task_success"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--judge local" in err
    assert main(["score", str(data), "--metric", "task_success", "--judge", "gpt"]) == 2
    assert "expected 'openai' or 'local'" in capsys.readouterr().err
    missing = str(tmp_path / "nope.yaml")
    assert main(["score", str(data), "--metric", "task_success", "--judge", missing]) == 2
    assert "no such judge file" in capsys.readouterr().err


@pytest.mark.llm
def test_recorded_conversations_with_the_bundled_local_judge(tmp_path, capsys):
    from tooleval.errors import JudgeError
    from tooleval.llm.local import find_smollm2_gguf

    try:
        find_smollm2_gguf()
    except JudgeError as exc:
        pytest.skip(str(exc))
    # One row, replies cut at 64 tokens: SmolLM2 rambles to any cap (2 x 256 tokens took
    # 20 CPU-s); the rows' rules are checked with the endpoint above, and the cut-off reply's
    # re-ask in tests/judged/test_llm_plumbing.py.
    data, out = _data(tmp_path, ROWS[:1]), tmp_path / "out.jsonl"
    judge = ["--judge", "local", "--judge-option", "cache=false", "--concurrency", "1"]
    judge += ["--judge-option", "max_new_tokens=64"]
    assert main(["score", str(data), *METRICS, *judge, "--table", "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    judged = [r for r in lines if r["metric"] == "task_success"]
    assert [(r["id"], r["metric"]) for r in lines] == [
        ("done", "tool_call_accuracy"),
        ("done", "tool_correctness"),
        ("done", "task_success"),
    ]
    for result in judged:  # SmolLM2 often writes malformed JSON: unscored, never a 0
        assert result["score"] in (0.0, 1.0) or (
            result["score"] is None and "judge reply" in result["reason"]
        )
        exchanges = result["diagnosis"]["details"]["exchanges"]
        assert exchanges and all(0 < e["tokens_out"] <= 64 for e in exchanges)  # the option held
    captured = capsys.readouterr()
    # one call, and one re-ask when the reply does not parse
    assert re.search(r"tooleval score: judge [12] calls", captured.err), captured.err
    assert captured.out.count("per-row results") == 1 and "task_success" in captured.out


def test_a_gate_on_judged_rows_counts_the_unscored_judge_reply_apart(tmp_path, judge_url, capsys):
    data, out = _data(tmp_path), tmp_path / "out.jsonl"
    judge = ["--judge", "openai", "--judge-option", "model=served"]
    judge += ["--judge-option", f"base_url={judge_url}", "--judge-option", "cache=false"]
    gate = ["--min-pass-rate", "task_success=0.5", "--max-unscored-rate", "task_success=0.2"]
    assert main(["score", str(data), *METRICS, *judge, *gate, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    # 3 rows: done passes, failed fails, garbage is unscored (never a pass or a failure)
    assert "task_success: pass rate 50.0% [9.5, 90.5] (95% wilson, 1 of 2 scored rows, n=2; " in err
    assert "task_success: unscored 1/3 rows (33.3%) > 20.0% allowed" in err
    assert "tool_correctness: 3 of 3 scored rows passed (default check: at least one)" in err
    assert err.rstrip().endswith("gate failed")
