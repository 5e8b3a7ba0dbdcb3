"""Batching across rows: several rows' replies decoded through one forward pass.

The batched forward pass equals each sequence's own; replies asked for at the
same time from several threads join one batch (held together here by holding
the model's lock until every thread has asked, so no timing decides it) and are
the replies each prompt gets alone, whole objects of the schema.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from tests.llm.tiny_gguf import write_tiny_llama

from tooleval.errors import JudgeError
from tooleval.llm import LocalJudge
from tooleval.llm.gguf_llama import LlamaModel
from tooleval.llm.local import load_local_model

pytest.importorskip("gguf", reason="the local judge's runtime needs the gguf package")

SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "why": {"type": "string"}},
    "required": ["ok", "why"],
}
DEADLINE = 120.0


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_llama(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


def _cache(model: LlamaModel, length: int):
    cfg = model.config
    shape = (cfg.kv_heads, length, cfg.head_dim)
    keys = [np.zeros(shape, dtype=np.float32) for _ in model.layers]
    return keys, [np.zeros(shape, dtype=np.float32) for _ in model.layers]


def test_a_batched_forward_pass_equals_each_sequence_alone(tiny):
    model = LlamaModel(tiny)
    first, second = [5, 9, 2, 7], [3, 1, 4, 1, 5, 9]
    alone = []
    for ids in (first, second):
        keys, values = _cache(model, 16)
        alone.append(model._forward(ids, 0, keys, values))
    caches = [_cache(model, 16), _cache(model, 16)]
    together = model._forward_many([(first, 0, *caches[0]), (second, 0, *caches[1])])
    for mine, theirs in zip(together, alone, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)
    # a step of one token per sequence at different positions, against the cache
    keys, values = _cache(model, 16)
    model._forward(first, 0, keys, values)
    step_alone = model._forward([8], len(first), keys, values)
    step_batched = model._forward_many(
        [([8], len(first), *caches[0]), ([6], len(second), *caches[1])]
    )[0]
    np.testing.assert_allclose(step_batched, step_alone, rtol=1e-5, atol=1e-5)


def test_replies_asked_together_are_decoded_as_one_batch(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=16)
    prompts = [[{"role": "user", "content": f"row {n}: " + "x " * n}] for n in range(4)]
    alone = [judge.complete(p, schema=SCHEMA).text for p in prompts]
    loaded = load_local_model(tiny)
    batcher = loaded.batcher
    batcher.largest_batch = 0
    replies: dict[int, str] = {}
    errors: list[BaseException] = []

    def ask(n: int) -> None:
        try:
            replies[n] = judge.complete(prompts[n], schema=SCHEMA).text
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(4)]
    with loaded.lock:  # the leader cannot run a step until every row has asked
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + DEADLINE
        while len(batcher._waiting) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(batcher._waiting) >= 3, "the rows never asked"
    for thread in threads:
        thread.join(DEADLINE)
    assert not errors
    assert batcher.largest_batch >= 3
    assert [replies[n] for n in range(4)] == alone


def test_a_refused_schema_leaves_the_judge_usable(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=16)
    bad = {"type": "object", "properties": {"x": {"type": "null"}}, "required": ["x"]}
    with pytest.raises(JudgeError, match="schema type 'null'"):
        judge.complete([{"role": "user", "content": "bad"}], schema=bad)
    assert judge.complete([{"role": "user", "content": "good"}], schema=SCHEMA).parsed is not None


def test_a_transcript_longer_than_the_context_gets_a_verdict_that_states_the_cut(tmp_path):
    from tooleval.judged.task_success import task_success
    from tooleval.model import Sample

    roomier = write_tiny_llama(tmp_path / "roomier.gguf", context=1024)  # holds the prompt
    judge = LocalJudge(roomier, cache=False, max_new_tokens=16)
    sample = Sample(input="Cancel order 4471 " + "and more words " * 400, output="Done.")
    result = task_success(sample, judge=judge)
    assert result.score in (0.0, 1.0)  # a verdict, not "not judged"
    (cut,) = result.diagnosis.details["input_cut"]
    assert "chars removed" in cut and cut in result.reason
    assert result.diagnosis.details["exchanges"][0]["input_cut"] == cut
