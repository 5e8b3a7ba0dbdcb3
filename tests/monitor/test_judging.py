"""Judged metrics on sampled sessions inside monitor, cached, emitted as evaluation events."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from tests.openai_server import ScriptedAgent  # noqa: E402

from tooleval.model import ToolCall  # noqa: E402
from tooleval.monitor.judging import SampledJudging, load_judge_config, sampled  # noqa: E402
from tooleval.monitor.run import monitor_sessions  # noqa: E402
from tooleval.monitor.session import Session, TracedCall  # noqa: E402

VERDICT = json.dumps(
    {
        "evidence": "issue_refund returned an error",
        "accomplished": False,
        "reason": "the refund failed",
    }
)


def _sessions(count: int) -> list[Session]:
    return [
        Session(
            f"conv-{i}",
            [
                TracedCall(
                    ToolCall(
                        "issue_refund", {"id": i}, result={"error": "declined"}, is_error=True
                    ),
                    span_id=f"{i:016x}",
                    trace_id=f"{i:032x}",
                )
            ],
            input="Refund my order",
            output="Your refund is on its way.",
            trace_ids=(f"{i:032x}",),
        )
        for i in range(count)
    ]


def test_sampling_is_stable_and_near_the_rate():
    ids = [f"session-{i}" for i in range(4000)]
    picked = [i for i in ids if sampled(i, 0.05)]
    assert picked == [i for i in ids if sampled(i, 0.05)]
    assert 150 < len(picked) < 250


def test_judged_sample_is_cached_and_emitted(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_KEY", "k")
    config_path = tmp_path / "judge.json"
    with ScriptedAgent() as server:
        server.push(*[("text", VERDICT)] * 20)
        config_path.write_text(
            json.dumps(
                {
                    "judge": {
                        "type": "openai",
                        "model": "judge-model",
                        "base_url": server.base_url,
                        "api_key_env": "FAKE_JUDGE_KEY",
                        "cache": str(tmp_path / "cache.db"),
                        "max_retries": 0,
                    }
                }
            )
        )
        config = load_judge_config(config_path)
        sessions = _sessions(40)
        expected = [s.id for s in sessions if sampled(s.id, 0.25)]
        assert expected  # the hash picks some of 40 at 25%
        judging = SampledJudging.from_config(config, metrics=["task_success"], rate=0.25)
        report = monitor_sessions(
            sessions, detectors=["error_ignored"], emit=tmp_path / "events.jsonl", judging=judging
        )
        assert sorted(j["session_id"] for j in report.judged) == sorted(expected)
        assert all(j["score"] == 0.0 and j["passed"] is False for j in report.judged)
        calls_first = len(server.requests)
        assert calls_first == len(expected)
        # a second pass over the same sessions is answered from the cache
        again = SampledJudging.from_config(config, metrics=["task_success"], rate=0.25)
        monitor_sessions(sessions, detectors=["error_ignored"], judging=again)
        assert len(server.requests) == calls_first
    records = [
        r
        for line in (tmp_path / "events.jsonl").read_text().splitlines()
        for rl in json.loads(line)["resourceLogs"]
        for sl in rl["scopeLogs"]
        for r in sl["logRecords"]
    ]
    judged = [
        r
        for r in records
        if {"key": "gen_ai.evaluation.name", "value": {"stringValue": "task_success"}}
        in r["attributes"]
    ]
    assert len(judged) == len(expected)
    attrs = {a["key"]: a["value"] for a in judged[0]["attributes"]}
    assert attrs["gen_ai.evaluation.score.label"] == {"stringValue": "fail"}
    assert judged[0]["traceId"] and judged[0]["spanId"]


def test_judge_options_are_checked(tmp_path):
    from tooleval.errors import ConfigError

    with pytest.raises(ConfigError, match="topic_adherence"):
        SampledJudging(object(), metrics=["topic_adherence"])
    with pytest.raises(ConfigError, match="between 0 and 1"):
        SampledJudging(object(), rate=1.5)
    bad = tmp_path / "j.yaml"
    bad.write_text("- not a mapping\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_judge_config(bad)
