"""The numpy GGUF runtime on small real GGUF files written by the ``gguf`` package.

The forward pass is checked against an independent, loop-by-loop llama written
here in the way llama.cpp computes it (rotary pairs on the file's own q/k row
order), so the runtime's re-ordering, grouped heads and key/value cache are all
exercised. Bad files are refused at load time with a JudgeError saying what to do.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from tests.llm.tiny_gguf import CONTEXT, write_tiny_llama

from tooleval.errors import JudgeError
from tooleval.llm import LocalJudge
from tooleval.llm.gguf_llama import LlamaModel, read_gguf
from tooleval.llm.local import load_local_model

gguf = pytest.importorskip("gguf", reason="the local judge's runtime needs the gguf package")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_llama(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


def _weights(path):
    from gguf.quants import dequantize

    reader, _ = read_gguf(path)
    out = {}
    for tensor in reader.tensors:
        kind = gguf.GGMLQuantizationType(tensor.tensor_type)
        data = np.asarray(tensor.data) if kind.name == "F32" else dequantize(tensor.data, kind)
        out[tensor.name] = data.reshape(tuple(int(n) for n in reversed(tensor.shape)))
    return out


def naive_logits(path, ids):
    """Logits of the last position, one head and one position at a time."""
    w = _weights(path)
    cfg = LlamaModel(path).config
    hd, group = cfg.head_dim, cfg.heads // cfg.kv_heads

    def norm(x, g):
        return x / np.sqrt(np.mean(x * x) + cfg.norm_eps) * g

    def rope(vec, pos):  # llama.cpp "normal" rope: adjacent pairs
        out = vec.copy()
        for i in range(hd // 2):
            angle = pos * cfg.rope_theta ** (-2 * i / hd)
            a, b = vec[2 * i], vec[2 * i + 1]
            out[2 * i] = a * np.cos(angle) - b * np.sin(angle)
            out[2 * i + 1] = a * np.sin(angle) + b * np.cos(angle)
        return out

    xs = [w["token_embd.weight"][t].astype(np.float64) for t in ids]
    for layer in range(cfg.layers):
        p = f"blk.{layer}."
        hs = [norm(x, w[p + "attn_norm.weight"]) for x in xs]
        qs = [w[p + "attn_q.weight"] @ h for h in hs]
        ks = [w[p + "attn_k.weight"] @ h for h in hs]
        vs = [w[p + "attn_v.weight"] @ h for h in hs]
        new = []
        for t, x in enumerate(xs):
            heads = []
            for head in range(cfg.heads):
                kv = head // group
                q = rope(qs[t][head * hd : (head + 1) * hd], t)
                keys = [rope(ks[s][kv * hd : (kv + 1) * hd], s) for s in range(t + 1)]
                scores = np.array([q @ k for k in keys]) / np.sqrt(hd)
                weights = np.exp(scores - scores.max())
                weights /= weights.sum()
                heads.append(
                    sum(wt * vs[s][kv * hd : (kv + 1) * hd] for s, wt in enumerate(weights))
                )
            x = x + w[p + "attn_output.weight"] @ np.concatenate(heads)
            h = norm(x, w[p + "ffn_norm.weight"])
            gate = w[p + "ffn_gate.weight"] @ h
            x = x + w[p + "ffn_down.weight"] @ (
                gate / (1 + np.exp(-gate)) * (w[p + "ffn_up.weight"] @ h)
            )
            new.append(x)
        xs = new
    return w["token_embd.weight"] @ norm(xs[-1], w["output_norm.weight"])


def test_forward_pass_matches_an_independent_llama(tiny):
    model = LlamaModel(tiny)
    ids = [1, 40, 72, 259, 261, 2, 1, 100]
    cfg = model.config
    shape = (cfg.kv_heads, len(ids), cfg.head_dim)
    keys = [np.zeros(shape, np.float32) for _ in model.layers]
    values = [np.zeros(shape, np.float32) for _ in model.layers]
    logits = model._forward(ids, 0, keys, values)
    np.testing.assert_allclose(logits, naive_logits(tiny, ids), rtol=1e-4, atol=1e-4)


def test_cached_decoding_equals_recomputing_the_whole_sequence(tiny):
    model = LlamaModel(tiny)
    prompt = [1, 50, 60, 70]
    generated = model.generate(prompt, max_new_tokens=12)
    assert len(generated) == 12 or generated[-1] == 2
    sequence = list(prompt)
    for token in generated:
        assert token == int(np.argmax(naive_logits(tiny, sequence)))
        sequence.append(token)


def test_the_judge_is_deterministic_and_shares_one_loaded_model(tiny):
    first = LocalJudge(tiny, cache=False, max_new_tokens=8)
    second = LocalJudge(tiny, cache=False, max_new_tokens=8)
    messages = [{"role": "user", "content": "the hi"}]
    a, b = first.complete(messages), second.complete(messages)
    assert a.text == b.text and a.tokens_out == b.tokens_out <= 8
    assert a.tokens_in == len(load_local_model(tiny).tokenizer.chat_ids(messages))
    assert load_local_model(tiny) is load_local_model(str(tiny))


def test_a_schema_reply_is_a_whole_object_within_the_cap(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=5)
    reply = judge.complete([{"role": "user", "content": "x"}], schema={"type": "object"})
    assert reply.text == "{}" and 1 <= reply.tokens_out <= 5
    assert reply.parsed == {} and reply.parse_error is None


def test_generation_honours_a_smaller_cap_and_cancellation(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=50)
    messages = [{"role": "user", "content": "x"}]
    assert judge.generate(messages, max_new_tokens=3).tokens_out <= 3
    cancel = threading.Event()
    cancel.set()
    assert judge.generate(messages, cancel=cancel).tokens_out == 1
    with pytest.raises(JudgeError, match="max_new_tokens must be at least 1"):
        judge.generate(messages, max_new_tokens=0)


def test_a_prompt_longer_than_the_context_is_cut_in_its_middle_and_says_so(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=4)
    long = "TASK " + "hi " * CONTEXT + " END"
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    reply = judge.complete([{"role": "user", "content": long}], schema=schema)
    assert reply.parse_error is None and isinstance(reply.parsed["ok"], bool)
    assert reply.input_cut is not None and "chars removed" in reply.input_cut
    assert reply.tokens_in + reply.tokens_out <= CONTEXT
    assert judge.complete([{"role": "user", "content": "short"}]).input_cut is None


def test_a_reply_budget_as_long_as_the_context_is_a_judge_error(tiny):
    judge = LocalJudge(tiny, cache=False, max_new_tokens=CONTEXT)
    with pytest.raises(JudgeError, match="limit of"):
        judge.complete([{"role": "user", "content": "hi " * CONTEXT}])


def test_a_gguf_without_chat_template_is_refused_at_load_time(tmp_path):
    path = write_tiny_llama(tmp_path / "base.gguf", chat_template=None)
    judge = LocalJudge(path, cache=False)  # constructing never loads
    with pytest.raises(JudgeError) as info:
        judge.load()
    message = str(info.value)
    assert "no chat template" in message and "use an instruct/chat model" in message
    assert info.value.context["path"] == str(path)


def test_another_architecture_is_refused_with_what_to_do(tmp_path):
    path = write_tiny_llama(tmp_path / "other.gguf", architecture="gpt2")
    with pytest.raises(JudgeError, match="llama-architecture.*'gpt2'.*OpenAI-compatible"):
        LocalJudge(path, cache=False).load()


@pytest.mark.parametrize(
    "content", [b"", b"not a gguf at all" * 10, b"GGUF\x03\x00\x00\x00\x05", bytes(range(256))]
)
def test_unreadable_files_are_judge_errors(tmp_path, content):
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    with pytest.raises(JudgeError):
        LocalJudge(path, cache=False).load()


def test_a_truncated_gguf_is_a_judge_error(tmp_path, tiny):
    path = tmp_path / "cut.gguf"
    path.write_bytes(tiny.read_bytes()[: tiny.stat().st_size // 2])
    with pytest.raises(JudgeError):
        LocalJudge(path, cache=False).load()


def test_a_missing_file_is_a_judge_error(tmp_path):
    with pytest.raises(JudgeError, match="not found"):
        LocalJudge(tmp_path / "nope.gguf", cache=False).load()


@pytest.mark.parametrize(
    ("merges", "problem"),
    [(["h i", "the"], r"merges\[1\] is not 'left right'"), (["h q"], "does not make a BPE")],
)
def test_a_broken_vocabulary_is_a_judge_error(tmp_path, merges, problem):
    path = write_tiny_llama(tmp_path / "vocab.gguf", merges=merges)
    with pytest.raises(JudgeError, match=problem):
        LocalJudge(path, cache=False).load()


def test_a_prompt_longer_than_a_prefill_chunk_gives_the_same_tokens(tiny, monkeypatch):
    import tooleval.llm.gguf_llama as runtime

    model = LlamaModel(tiny)
    prompt = [1, *range(40, 90), 2, 1]
    whole = model.generate(prompt, max_new_tokens=6)
    monkeypatch.setattr(runtime, "PREFILL_CHUNK", 7)
    assert model.generate(prompt, max_new_tokens=6) == whole
