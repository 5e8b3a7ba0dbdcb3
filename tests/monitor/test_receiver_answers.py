"""The receiver answers every request: 200, or 429/503 with Retry-After; slow senders end.

200 OTLP/HTTP JSON posts from 20 threads (ten rounds of 20 senders at once), each
its own session and its own connection: every post gets an HTTP answer and every
acknowledged session is stored once. A sender that stops mid-body is cut off at the receiver's read
deadline (and the receiver keeps answering others).
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from tooleval.monitor.live import LiveMonitor
from tooleval.monitor.serve import OtlpReceiver
from tooleval.store import open_store

POSTS = 200  # 20 senders at once, ten times over: more rounds repeat the same burst
# The receiver is plain HTTP: every client shares one (unused) TLS context instead of
# building its own, which costs ~28 ms of CPU per client, most of this test's time.
PLAIN = ssl.create_default_context()


def _body(n: int) -> bytes:
    span = {
        "traceId": f"{n + 1:032x}",
        "spanId": f"{n + 1:016x}",
        "name": "execute_tool lookup",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "lookup"}},
        ],
    }
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()


def test_two_hundred_posts_from_twenty_threads_all_get_an_answer(tmp_path):
    db = tmp_path / "s.db"
    receiver = OtlpReceiver(LiveMonitor(store=str(db)), port=0, idle_timeout=0.5).start()
    answers: list[int] = []
    failures: list[str] = []
    lock = threading.Lock()

    def post(n: int) -> None:
        with httpx.Client(timeout=30, verify=PLAIN) as client:  # its own connection
            for _attempt in range(5):
                try:
                    reply = client.post(
                        receiver.url + "/v1/traces",
                        content=_body(n),
                        headers={"Content-Type": "application/json"},
                    )
                except httpx.HTTPError as exc:
                    with lock:
                        failures.append(f"{n}: {type(exc).__name__}: {exc}")
                    return
                if reply.status_code in (429, 503):
                    assert "retry-after" in reply.headers
                    time.sleep(float(reply.headers["retry-after"]))
                    continue
                with lock:
                    answers.append(reply.status_code)
                return

    try:
        with ThreadPoolExecutor(max_workers=20) as pool:
            list(pool.map(post, range(POSTS)))
    finally:
        receiver.stop()
    assert not failures, failures[:5]
    assert answers.count(200) == POSTS
    store = open_store(db)
    (run,) = store.list_runs()
    rows = list(store.iter_rows(run.id))
    store.close()
    assert len(rows) == POSTS
    assert len({r.row_id for r in rows}) == POSTS


def test_a_sender_that_stops_mid_body_is_cut_off_and_others_are_answered():
    receiver = OtlpReceiver(LiveMonitor(), port=0, idle_timeout=5, read_timeout=0.5).start()
    try:
        host, port = receiver.address
        slow = socket.create_connection((host, port))
        slow.sendall(
            b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 1000\r\n\r\n{"resourceSpans"'
        )
        started = time.monotonic()
        slow.settimeout(10)
        reply = slow.recv(4096)
        assert time.monotonic() - started < 5
        assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
        slow.close()
        fast = httpx.post(
            receiver.url + "/v1/traces",
            content=_body(1),
            headers={"Content-Type": "application/json"},
            timeout=10,
        )
        assert fast.status_code == 200
    finally:
        receiver.stop()
