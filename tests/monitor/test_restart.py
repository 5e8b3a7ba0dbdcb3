"""A receiver stopped (SIGTERM) with a session open, then restarted: the session is stored once.

No phantom partial row at the stop, no second copy after the restart: the
open session waits in the buffer beside the store and is joined by the rest.
A real ``tooleval collect`` subprocess, real signals, real HTTP posts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from tests.procs import read_line, wait_until

from tooleval.store import open_store

REPO = Path(__file__).resolve().parents[2]


def _attr(key, value):
    return {"key": key, "value": {"stringValue": value}}


def _calls(conversation: str, trace: int, first: int, count: int) -> dict:
    spans = [
        {
            "traceId": f"{trace:032x}",
            "spanId": f"{trace * 100 + i + 1:016x}",
            "name": "execute_tool lookup",
            "startTimeUnixNano": str(1_000 + i),
            "endTimeUnixNano": str(2_000 + i),
            "attributes": [
                _attr("gen_ai.operation.name", "execute_tool"),
                _attr("gen_ai.tool.name", "lookup"),
                _attr("gen_ai.conversation.id", conversation),
                _attr("gen_ai.tool.call.arguments", json.dumps({"i": i})),
            ],
        }
        for i in range(first, first + count)
    ]
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


class Collector:
    def __init__(self, db: Path, cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tooleval.cli.main", "collect", "--store", str(db),
             "--port", "0", "--idle-timeout", "1.5"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd, env=env,
        )  # fmt: skip
        self.lines: list[str] = []
        listening = read_line(self.proc, startswith="listening on ", seen=self.lines)
        self.url = listening.split()[2]

    def post(self, body: dict) -> None:
        reply = httpx.post(self.url + "/v1/traces", json=body, timeout=10)
        assert reply.status_code == 200

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return "".join(self.lines) + out


def _rows(db: Path) -> list:
    store = open_store(db)
    try:
        return [row for run in store.list_runs() for row in store.iter_rows(run.id)]
    finally:
        store.close()


def test_an_open_session_survives_a_restart_and_is_stored_once(tmp_path):
    db = tmp_path / "s.db"
    first = Collector(db, tmp_path)
    first.post(_calls("conv-done", 2, 0, 2))
    # conv-done goes idle (1.5 s): complete, stored
    wait_until(lambda: [r.row_id for r in _rows(db)] == ["conv-done"], "conv-done stored")
    first.post(_calls("conv-a", 1, 0, 6))  # 10 of conv-a's 30 calls, then the stop
    first.post(_calls("conv-a", 1, 6, 4))
    said = first.stop()
    assert "kept" in said and "s.db.open-sessions.jsonl" in said
    assert [r.row_id for r in _rows(db)] == ["conv-done"]  # no phantom row for conv-a
    assert (tmp_path / "s.db.open-sessions.jsonl").exists()

    second = Collector(db, tmp_path)
    assert any("restored" in line for line in second.lines)
    second.post(_calls("conv-a", 1, 10, 20))
    # conv-a goes idle (1.5 s) in the second collector: stored, whole
    wait_until(lambda: "conv-a" in {r.row_id for r in _rows(db)}, "conv-a stored")
    second.stop()
    rows = _rows(db)
    by_id = {}
    for row in rows:
        by_id.setdefault(row.row_id, []).append(row)
    assert sorted(by_id) == ["conv-a", "conv-done"]
    (whole,) = by_id["conv-a"]  # stored once
    assert len(whole.sample.actual_calls()) == 30
    assert not (tmp_path / "s.db.open-sessions.jsonl").exists()


def test_without_a_store_sessions_are_monitored_at_the_stop(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TOOLEVAL_STORE"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tooleval.cli.main", "collect", "--no-store", "--port", "0",
         "--idle-timeout", "30"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env,
    )  # fmt: skip
    url = read_line(proc, startswith="listening on ").split()[2]
    httpx.post(url + "/v1/traces", json=_calls("c", 1, 0, 3), timeout=10)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert "1 sessions" in out and "kept" not in out
