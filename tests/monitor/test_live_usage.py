"""Live session buffering, price tables and usage sums."""

from __future__ import annotations

import pytest

from tooleval.errors import ConfigError
from tooleval.monitor.live import LiveSessions
from tooleval.monitor.usage import PriceTable, session_usage
from tooleval.traces.genai import SpanCall, SpanFacts


def _fact(trace: str, span: str, *, session: str | None = None, **extra) -> SpanFacts:
    return SpanFacts(trace, span, session_id=session, calls=[SpanCall("f")], **extra)


def test_sessions_join_traces_and_wait_for_the_last_one():
    live = LiveSessions(idle_timeout=10)
    live.add([_fact("t1", "a", session="conv")], now=0)
    live.add([_fact("t2", "b", session="conv")], now=8)
    assert live.pop_idle(now=12) == []  # t2 is still fresh
    (session,) = live.pop_idle(now=18.5)
    assert session.id == "conv" and session.trace_ids == ("t1", "t2") and live.pending == 0


def test_a_span_without_session_id_joins_its_trace_session():
    live = LiveSessions(idle_timeout=1)
    live.add([_fact("t1", "tool"), SpanFacts("t1", "root", session_id="conv", kind="llm")], now=0)
    (session,) = live.pop_idle(now=2)
    assert session.id == "conv" and [c.name for c in session.calls] == ["f"]


def test_pending_limit_releases_the_oldest_sessions_early():
    live = LiveSessions(idle_timeout=100, max_pending=4)
    for number in range(6):
        live.add([_fact(f"t{number}", "s")], now=number)
    released = live.pop_idle(now=6)
    assert [s.id for s in released] == ["t0", "t1", "t2", "t3"]
    assert live.pending == 2 and live.released_early == 4
    assert {s.id for s in live.pop_all()} == {"t4", "t5"}


def test_usage_counts_each_model_span_once_and_prices_by_prefix(tmp_path):
    llm = SpanFacts(
        "t",
        "s1",
        start_ns=0,
        end_ns=3_000_000,
        kind="llm",
        model="gpt-4o-2024-08-06",
        input_tokens=1_000_000,
        output_tokens=10,
    )
    log_of_same_span = SpanFacts("t", "s1", start_ns=1, output_text="hi")
    other = SpanFacts("t", "s2", start_ns=5_000_000, end_ns=6_000_000, kind="llm", model="mystery")
    usage = session_usage([llm, log_of_same_span, other])
    assert usage["llm_calls"] == 2 and usage["input_tokens"] == 1_000_000
    assert usage["duration_ms"] == 6.0 and usage["llm_latency_max_ms"] == 3.0
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "gpt-4o: {input: 2.5, output: 10}\ngpt: {input: 100, output: 100}\ncurrency: EUR\n"
    )
    cost = PriceTable.load(prices).cost(usage)
    assert cost == {"cost": 2.5001, "currency": "EUR", "unpriced_models": ["mystery"]}


@pytest.mark.parametrize(
    "content, message",
    [("[1, 2]", "must map"), ("{not json", "not valid"), ('{"m": {"input": "x"}}', "numbers")],
)
def test_bad_price_tables_name_the_problem(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        PriceTable.load(path)
    with pytest.raises(ConfigError, match="cannot read"):
        PriceTable.load(tmp_path / "missing.json")
