"""The SQLite judge cache and usage accounting."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from tooleval.errors import JudgeError
from tooleval.llm import JudgeCache, JudgeReply, JudgeUsage, cache_key, normalise_messages
from tooleval.llm.base import resolve_cache
from tooleval.model import Diagnosis, Result

MESSAGES = [{"role": "user", "content": "hi"}]


def test_key_changes_with_every_part():
    base = cache_key("m", MESSAGES, {"type": "object"}, {"t": 0})
    assert base == cache_key("m", [dict(MESSAGES[0])], {"type": "object"}, {"t": 0})
    assert base != cache_key("m2", MESSAGES, {"type": "object"}, {"t": 0})
    assert base != cache_key(
        "m", [{"role": "user", "content": "hi!"}], {"type": "object"}, {"t": 0}
    )
    assert base != cache_key("m", MESSAGES, None, {"t": 0})
    assert base != cache_key("m", MESSAGES, {"type": "object"}, {"t": 1})


def test_cache_persists_across_connections(tmp_path):
    path = tmp_path / "sub" / "cache.db"
    cache = JudgeCache(path)
    reply = JudgeReply(text='{"a": 1}', parsed={"a": 1}, tokens_in=5, tokens_out=2, model="m")
    cache.put("k", reply)
    cache.close()
    again = JudgeCache(path)
    assert again.get("k") == reply
    assert again.get("other") is None
    assert len(again) == 1
    again.clear()
    assert len(again) == 0
    # It is a plain SQLite file anyone can inspect.
    rows = sqlite3.connect(path).execute("SELECT COUNT(*) FROM judge_replies").fetchone()
    assert rows == (0,)


def test_cache_is_thread_safe(tmp_path):
    cache = JudgeCache(tmp_path / "c.db")

    def write(n):
        for i in range(20):
            cache.put(f"{n}-{i}", JudgeReply(text=str(i)))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads) and len(cache) == 80


def test_unwritable_cache_path_is_a_judge_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(JudgeError, match="cache=False"):
        JudgeCache(blocker / "cache.db").get("k")


def test_resolve_cache_settings(tmp_path):
    assert resolve_cache(False) is None
    assert resolve_cache(None) is None
    assert resolve_cache(True).path.as_posix() == ".tooleval/judge-cache.db"
    assert resolve_cache(tmp_path / "x.db").path == tmp_path / "x.db"
    with pytest.raises(JudgeError):
        resolve_cache(3)


def test_usage_counts_live_and_cached_separately():
    usage = JudgeUsage()
    usage.record(JudgeReply(text="", tokens_in=10, tokens_out=2, latency_ms=5))
    usage.record(JudgeReply(text="", tokens_in=10, tokens_out=2, cached=True))
    usage.add({"calls": 2, "tokens_in": 1, "tokens_out": 1})
    assert usage.to_dict() == {
        "calls": 3,
        "cached_calls": 1,
        "tokens_in": 11,
        "tokens_out": 3,
        "latency_ms": 5.0,
    }


def test_usage_from_results_sums_row_details():
    rows = [
        Result.scored("m", 1.0, reason="", diagnosis=Diagnosis(details={"judge": {"calls": 2}})),
        Result.unscored("m", "x", diagnosis=Diagnosis(details={"judge": {"cached_calls": 3}})),
        Result.scored("other", 1.0, reason=""),
    ]
    total = JudgeUsage.from_results(rows)
    assert total is not None and (total.calls, total.cached_calls) == (2, 3)
    assert JudgeUsage.from_results([Result.scored("other", 1.0, reason="")]) is None


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        ([{"role": "robot", "content": "x"}], "messages[0]"),
        ([{"role": "user", "content": 3}], "messages[0].content"),
        (["hello"], "messages[0]"),
    ],
)
def test_bad_messages_name_the_field(messages, field):
    with pytest.raises(JudgeError) as info:
        normalise_messages(messages)
    assert info.value.field == field


def test_empty_messages_rejected():
    with pytest.raises(JudgeError):
        normalise_messages([])
    with pytest.raises(JudgeError):
        normalise_messages("hello")
