"""A judge that answers megabytes costs a row kilobytes of results (issue 37, output over input).

A real OpenAI-compatible judge on 127.0.0.1 answers 2 MB: prose (re-asked, then
unscored), a verdict whose reason is 2 MB, a verdict wrapped in 2 MB of
chatter. Each reply, parsed text and reason is kept up to ``KEPT_CHARS``
with the cut stated, the re-ask sends the cut reply back, and the results
file stays small.
"""

from __future__ import annotations

import json

import pytest
from tests.judge_server import conversation
from tests.openai_server import OpenAIServer, completion, prompt_text

from tooleval.cli.main import main
from tooleval.judged.flow import KEPT_CHARS, cut

HUGE = 2_000_000


def _reply(body: dict, number: int) -> dict:
    prompt = prompt_text(body)
    if "PROSE" in prompt:
        text = "it went fine " * (HUGE // 13)
    elif "LONG-REASON" in prompt:
        text = json.dumps({"evidence": "e", "accomplished": True, "reason": "r" * HUGE})
    else:  # the verdict follows 2 MB of chatter
        verdict = {"evidence": "e", "accomplished": False, "reason": "declined"}
        text = "x" * HUGE + "\n" + json.dumps(verdict)
    return completion({"role": "assistant", "content": text}, number=number)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("reply-cap")
    rows = [
        conversation("prose", "PROSE", "Done."),
        conversation("long-reason", "LONG-REASON", "Done."),
        conversation("chatter", "CHATTER", "Done."),
    ]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    with OpenAIServer(_reply) as server:
        judge = ["--judge", "openai", "--judge-option", "model=served", "--judge-option",
                 f"base_url={server.base_url}", "--judge-option", "cache=false"]  # fmt: skip
        code = main(["score", str(data), "--metric", "task_success", *judge, "-o", str(out)])
        requests = list(server.requests)
    assert code in (0, 1)
    return out, requests


def test_results_stay_small_and_state_each_cut(results):
    out, _ = results
    assert out.stat().st_size < 200_000  # 3 rows of 2 MB replies, re-asks included
    by_id = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    prose = by_id["prose"]
    assert prose["score"] is None and "judge reply" in prose["reason"]
    exchanges = prose["diagnosis"]["details"]["exchanges"]
    assert len(exchanges) == 2
    for exchange in exchanges:
        assert exchange["reply"].endswith(f"[cut: {HUGE // 13 * 13:,} chars, kept {KEPT_CHARS:,}]")
    long_reason = by_id["long-reason"]
    assert long_reason["score"] == 1.0
    assert len(long_reason["reason"]) < KEPT_CHARS + 100 and "[cut: " in long_reason["reason"]
    parsed = long_reason["diagnosis"]["details"]["exchanges"][0]["parsed"]
    assert parsed["reason"] == cut("r" * HUGE)
    chatter = by_id["chatter"]
    assert chatter["score"] == 0.0  # the verdict after the chatter still counts
    assert "[cut: " in chatter["diagnosis"]["details"]["exchanges"][0]["reply"]


def test_a_reask_sends_back_the_cut_reply(results):
    _, requests = results
    reasks = [body for body in requests if len(body["messages"]) > 2]
    assert reasks, "the prose reply was re-asked"
    for body in reasks:
        assert all(len(str(m.get("content"))) < 100_000 for m in body["messages"])


def test_cut_keeps_short_text_whole_and_states_the_cut():
    assert cut("") == ""
    assert cut("a" * KEPT_CHARS) == "a" * KEPT_CHARS
    longer = cut("é" * (KEPT_CHARS + 1))
    assert longer.startswith("é" * KEPT_CHARS)
    assert longer.endswith(f"[cut: {KEPT_CHARS + 1:,} chars, kept {KEPT_CHARS:,}]")
