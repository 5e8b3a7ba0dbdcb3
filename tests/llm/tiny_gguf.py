"""Write small llama GGUF files (random weights, a real byte-level BPE vocabulary) for tests.

Real files, written with the ``gguf`` package the runtime reads them with: F32,
Q8_0 and Q4_1 tensors, a chat template or none, another architecture.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
HIDDEN, HEADS, KV_HEADS, FFN, LAYERS, CONTEXT = 32, 4, 2, 64, 2, 128


def _byte_alphabet() -> list[str]:
    printable = list(range(ord("!"), ord("~") + 1))
    printable += list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return [chr(c) for c in chars]


def write_tiny_llama(
    path: Path,
    *,
    chat_template: str | None = CHATML,
    architecture: str = "llama",
    seed: int = 0,
    quantized: bool = True,
    merges: list[str] | None = None,
    context: int = CONTEXT,
) -> Path:
    from gguf import GGMLQuantizationType, GGUFWriter
    from gguf.quants import quantize

    rng = np.random.default_rng(seed)
    tokens = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *_byte_alphabet()]
    merges = merges if merges is not None else ["h i", "t h", "th e", "Ġ th", "Ġth e"]
    tokens += ["hi", "th", "the", "Ġth", "Ġthe"]
    types = [3, 3, 3] + [1] * (len(tokens) - 3)

    writer = GGUFWriter(str(path), architecture)
    writer.add_block_count(LAYERS)
    writer.add_context_length(context)
    writer.add_embedding_length(HIDDEN)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    if chat_template is not None:
        writer.add_chat_template(chat_template)

    def add(name: str, rows: int, cols: int, kind: str = "f32") -> None:
        data = rng.standard_normal((rows, cols)).astype(np.float32) * 0.5
        if not quantized or kind == "f32":
            writer.add_tensor(name, data)
            return
        qtype = GGMLQuantizationType.Q8_0 if kind == "q8" else GGMLQuantizationType.Q4_1
        writer.add_tensor(name, quantize(data, qtype), raw_dtype=qtype)

    head_dim = HIDDEN // HEADS
    add("token_embd.weight", len(tokens), HIDDEN, "q8")
    writer.add_tensor("output_norm.weight", np.ones(HIDDEN, dtype=np.float32))
    for i in range(LAYERS):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(HIDDEN, dtype=np.float32))
        add(f"blk.{i}.attn_q.weight", HIDDEN, HIDDEN, "q4")
        add(f"blk.{i}.attn_k.weight", KV_HEADS * head_dim, HIDDEN, "q4")
        add(f"blk.{i}.attn_v.weight", KV_HEADS * head_dim, HIDDEN)
        add(f"blk.{i}.attn_output.weight", HIDDEN, HIDDEN, "q4")
        add(f"blk.{i}.ffn_gate.weight", FFN, HIDDEN, "q8")
        add(f"blk.{i}.ffn_up.weight", FFN, HIDDEN)
        add(f"blk.{i}.ffn_down.weight", HIDDEN, FFN, "q4")
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
