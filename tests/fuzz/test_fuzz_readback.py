"""Fuzz what the tool reads back and what it writes out: cache entries, stored rows,
CSV exports, receiver bodies.

- a response-cache entry of any JSON shape is a cached answer or a miss, never an error;
- any agent content stored as a row is stored (as it is, or as an error row saying
  what was cut), and the run's other rows are there;
- every CSV cell of both exports is defused, whatever the ids, categories and reasons;
- any body posted to the receiver gets an HTTP answer, and the receiver keeps serving.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import tempfile
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz.support import JSON, OTLP_REQUEST, fuzz_settings, mutated

from tooleval.connectors.response import AgentResponse
from tooleval.model import Result, Sample, ToolCall
from tooleval.monitor.live import LiveMonitor
from tooleval.monitor.serve import BodyError, OtlpReceiver, decode_otlp_body
from tooleval.runs.response_cache import _decode
from tooleval.store import RowRecord, open_store
from tooleval.textsafe import FORMULA_STARTS
from tooleval.web.export import export_lines

HOSTILE_TEXT = st.one_of(
    st.text(max_size=20),
    st.sampled_from(
        ["=1+1", "+SUM(1,2)", "-2+3", "@x", "\tx", "\rx", "\nx", " =x", "\uff1dx", "a\x00b",
         "caf\udce9", "\udcff", "x" * 300, "\u202egnp.exe"]
    ),
)  # fmt: skip


def _nested(depth: int, leaf=1):
    value = leaf
    for _ in range(depth):
        value = [value] if depth % 2 else {"k": value}
    return value


CONTENT = st.one_of(
    JSON,
    st.integers(min_value=90, max_value=400).map(_nested),
    st.integers(min_value=2**64, max_value=2**200),
    HOSTILE_TEXT,
)


@given(JSON)
@fuzz_settings(300)
def test_any_cache_entry_is_an_answer_or_a_miss(entry):
    decoded = _decode(entry)
    assert decoded is None or isinstance(decoded, AgentResponse)


@given(mutated([{"output": "ok", "tools_called": [{"name": "f", "args": {"a": 1}}],
                 "messages": None, "status": 200, "warnings": []}]))  # fmt: skip
@fuzz_settings(200)
def test_a_mutated_real_cache_entry_is_an_answer_or_a_miss(entry):
    decoded = _decode(entry)
    assert decoded is None or isinstance(decoded, AgentResponse)


@pytest.fixture(scope="module")
def store():
    folder = tempfile.mkdtemp()
    opened = open_store(Path(folder) / "fuzz.db")
    yield opened
    opened.close()


@given(raw=CONTENT, output=HOSTILE_TEXT, args=CONTENT, row_id=HOSTILE_TEXT)
@fuzz_settings(60)
def test_any_agent_content_is_stored_and_the_other_rows_too(store, raw, output, args, row_id):
    run_id = store.create_run("fuzz", dataset={}, connector={}, metrics=[])
    calls = [ToolCall("f", {"a": args})]
    sample = Sample(input="hi", id=row_id, output=output, tools_called=calls)
    record = RowRecord(run_id, 1, row_id, sample, (Result("m", 1.0, True, "ok"),), raw_response=raw)
    sound = RowRecord(run_id, 0, "ok", Sample(input="hi"), (Result("m", 1.0, True, "ok"),))
    store.add_row(run_id, sound)
    store.add_row(run_id, record)
    rows = {r.index: r for r in store.iter_rows(run_id)}
    assert sorted(rows) == [0, 1]
    back = rows[1]
    if back.error is not None:
        assert back.error.startswith("the row could not be stored as returned: ")
        assert all(r.score is None for r in back.results)
    store.delete_run(run_id)


def _defused(cell: str) -> bool:
    return not cell or cell.startswith("'") or cell.lstrip(" ")[:1] not in FORMULA_STARTS


@given(st.lists(st.tuples(HOSTILE_TEXT, HOSTILE_TEXT, HOSTILE_TEXT), min_size=1, max_size=4))
@fuzz_settings(40)
def test_every_csv_cell_of_both_exports_is_defused(store, tmp_path_factory, rows):
    from tooleval.cli._run_export import write_csv

    run_id = store.create_run("fuzz-export", dataset={}, connector={}, metrics=[])
    for index, (row_id, category, reason) in enumerate(rows):
        sample = Sample(input=reason, id=row_id, category=category, output=reason)
        result = Result("m", 0.5, False, reason=reason)
        store.add_row(run_id, RowRecord(run_id, index, row_id, sample, (result,), error=reason))
    stored = list(store.iter_rows(run_id))
    viewer = "".join(export_lines("csv", store.get_run(run_id), stored))
    path = tmp_path_factory.mktemp("csv") / "rows.csv"
    write_csv(str(path), stored)
    for text in (viewer, path.read_text(encoding="utf-8")):
        cells = [c for line in csv.reader(io.StringIO(text, newline="")) for c in line]
        assert all(_defused(c) for c in cells), [c for c in cells if not _defused(c)]
    store.delete_run(run_id)


BODIES = st.one_of(
    st.binary(max_size=300),
    JSON.map(lambda v: json.dumps(v).encode()),
    mutated([OTLP_REQUEST]).map(lambda v: json.dumps(v, default=str).encode()),
)


@given(BODIES, st.sampled_from(["application/json", "application/x-protobuf", "text/plain"]),
       st.sampled_from(["", "gzip", "br"]))  # fmt: skip
@fuzz_settings(300)
def test_any_body_decodes_or_is_refused_with_a_status(body, content_type, encoding):
    if encoding == "gzip":
        body = gzip.compress(body)
    try:
        decode_otlp_body(body, signal="traces", content_type=content_type, encoding=encoding)
    except BodyError as exc:
        assert 400 <= exc.status < 500


@pytest.fixture(scope="module")
def receiver():
    running = OtlpReceiver(LiveMonitor(), port=0, idle_timeout=0.2).start()
    yield running
    running.stop()


@given(BODIES, st.sampled_from(["application/json", "application/x-protobuf", "text/html"]))
@fuzz_settings(60)
def test_the_receiver_answers_any_body_and_keeps_serving(receiver, body, content_type):
    reply = httpx.post(
        receiver.url + "/v1/traces",
        content=body,
        headers={"Content-Type": content_type},
        timeout=10,
    )
    assert reply.status_code in (200, 400, 413, 415, 429, 503), reply.status_code
    assert httpx.get(receiver.url + "/health", timeout=10).status_code == 200
