"""A llama-architecture GGUF model run with numpy on the CPU: greedy decoding only.

This is the local judge's runtime. It reads a GGUF file with the ``gguf``
package, dequantizes its weights once to float32 (the same numbers
``transformers`` computes from the file), and runs the llama forward pass
(RMSNorm, rotary attention with grouped key/value heads, SwiGLU) with a
key/value cache. No torch, no GPU libraries: numpy's BLAS does the matrix
products. For SmolLM2-135M that is ~0.5 GB of float32 weights.

Only what a judge needs is here: a prompt in, the most likely next tokens out,
the same tokens for the same prompt every time.

>>> rope_tables(positions=np.arange(2), head_dim=4, theta=10000.0)[0].shape
(2, 4)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tooleval.errors import JudgeError

__all__ = ["DecodeSession", "LlamaConfig", "LlamaModel", "read_gguf", "rope_tables"]

ARCHITECTURES = ("llama",)
PREFILL_CHUNK = 256


@dataclass(frozen=True, slots=True)
class LlamaConfig:
    """The shape of a llama model, from the GGUF metadata."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    vocab: int
    context: int
    rope_theta: float
    norm_eps: float

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


def read_gguf(path: str | Path) -> tuple[Any, dict[str, Any]]:
    """Open a GGUF file: ``(reader, metadata)``; a JudgeError says what is wrong with it."""
    try:
        from gguf import GGUFReader
    except ImportError as exc:
        raise JudgeError("reading a GGUF model needs the gguf package: pip install gguf") from exc
    try:
        reader = GGUFReader(str(path))
    except (ValueError, OSError, IndexError) as exc:  # bad magic, truncated file, ...
        raise JudgeError(f"not a readable GGUF file: {exc}", path=str(path)) from exc
    metadata: dict[str, Any] = {}
    for key, field in reader.fields.items():
        try:
            metadata[key] = field.contents()
        except (ValueError, IndexError, UnicodeDecodeError):
            continue  # a field this reader cannot decode is not one the judge uses
    return reader, metadata


def _config(metadata: dict[str, Any], path: str) -> LlamaConfig:
    arch = metadata.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise JudgeError(
            f"the local judge runs llama-architecture GGUF models, this file is {arch!r}; "
            "serve it with an OpenAI-compatible server (llama.cpp, Ollama, vLLM) and use "
            "judge: {type: openai, base_url: ...}",
            path=path,
        )

    def need(key: str) -> Any:
        value = metadata.get(f"{arch}.{key}")
        if value is None:
            raise JudgeError(f"GGUF metadata lacks {arch}.{key}", path=path)
        return value

    heads = int(need("attention.head_count"))
    scaling = metadata.get(f"{arch}.rope.scaling.type")
    if scaling not in (None, "none"):
        raise JudgeError(
            f"rope scaling {scaling!r} is not supported by the local judge's runtime; "
            "serve this model with llama.cpp or Ollama and use an openai judge",
            path=path,
        )
    rope_dims = metadata.get(f"{arch}.rope.dimension_count")
    hidden = int(need("embedding_length"))
    if rope_dims is not None and int(rope_dims) != hidden // heads:
        raise JudgeError(
            f"partial rotary embedding ({rope_dims} of {hidden // heads} dimensions) is not "
            "supported by the local judge's runtime",
            path=path,
        )
    return LlamaConfig(
        layers=int(need("block_count")),
        hidden=hidden,
        heads=heads,
        kv_heads=int(metadata.get(f"{arch}.attention.head_count_kv", heads)),
        vocab=len(metadata.get("tokenizer.ggml.tokens") or ()) or int(need("vocab_size")),
        context=int(need("context_length")),
        rope_theta=float(metadata.get(f"{arch}.rope.freq_base", 10000.0)),
        norm_eps=float(need("attention.layer_norm_rms_epsilon")),
    )


def _unpermute(weight: np.ndarray, heads: int) -> np.ndarray:
    """Undo llama.cpp's row order for q/k so rotary embedding rotates halves, as in HF."""
    rows, cols = weight.shape
    return np.ascontiguousarray(
        weight.reshape(heads, rows // heads // 2, 2, cols).swapaxes(1, 2).reshape(rows, cols)
    )


def rope_tables(
    positions: np.ndarray, head_dim: int, theta: float
) -> tuple[np.ndarray, np.ndarray]:
    """Cosine and sine of the rotary angles, ``(len(positions), head_dim)`` each."""
    inv = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim))
    angles = np.outer(positions.astype(np.float64), inv)
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    # x: (heads, T, head_dim); cos/sin: (T, head_dim)
    half = x.shape[-1] // 2
    turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + turned * sin


def _rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    scale = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return (x * scale).astype(np.float32) * weight


@dataclass(slots=True)
class _Layer:
    attn_norm: np.ndarray
    wq: np.ndarray
    wk: np.ndarray
    wv: np.ndarray
    wo: np.ndarray
    ffn_norm: np.ndarray
    w_gate: np.ndarray
    w_up: np.ndarray
    w_down: np.ndarray


class LlamaModel:
    """Weights of a llama GGUF, dequantized once; :meth:`generate` decodes greedily.

    Weight matrices are stored transposed (``in × out``) so that every product
    is ``activations @ weight``.
    """

    def __init__(self, path: str | Path, *, reader: Any = None, metadata: Any = None) -> None:
        self.path = str(path)
        if reader is None or metadata is None:
            reader, metadata = read_gguf(path)
        self.config = _config(metadata, self.path)
        tensors = {tensor.name: tensor for tensor in reader.tensors}
        cfg = self.config
        if "rope_freqs.weight" in tensors:
            raise JudgeError(
                "this GGUF scales its rotary frequencies (rope_freqs, llama 3.1 style), which "
                "the local judge's runtime does not do; serve it with llama.cpp or Ollama",
                path=self.path,
            )

        def weight(name: str) -> np.ndarray:
            tensor = tensors.get(name)
            if tensor is None:
                raise JudgeError(f"GGUF file lacks tensor {name}", path=self.path)
            return _dequantize(tensor, self.path)

        self.embedding = weight("token_embd.weight")  # (vocab, hidden)
        if self.embedding.shape != (cfg.vocab, cfg.hidden):
            raise JudgeError(
                f"token_embd.weight has shape {self.embedding.shape}, "
                f"expected {(cfg.vocab, cfg.hidden)}",
                path=self.path,
            )
        self.output_norm = weight("output_norm.weight")
        # Tied embeddings (SmolLM2) have no output.weight: the embedding is the output layer.
        self.output = weight("output.weight").T if "output.weight" in tensors else self.embedding.T
        self.layers = [
            _Layer(
                attn_norm=weight(f"blk.{i}.attn_norm.weight"),
                wq=_unpermute(weight(f"blk.{i}.attn_q.weight"), cfg.heads).T,
                wk=_unpermute(weight(f"blk.{i}.attn_k.weight"), cfg.kv_heads).T,
                wv=weight(f"blk.{i}.attn_v.weight").T,
                wo=weight(f"blk.{i}.attn_output.weight").T,
                ffn_norm=weight(f"blk.{i}.ffn_norm.weight"),
                w_gate=weight(f"blk.{i}.ffn_gate.weight").T,
                w_up=weight(f"blk.{i}.ffn_up.weight").T,
                w_down=weight(f"blk.{i}.ffn_down.weight").T,
            )
            for i in range(cfg.layers)
        ]
        self._last: DecodeSession | None = None

    def _forward(
        self, ids: Sequence[int], start: int, keys: list[np.ndarray], values: list[np.ndarray]
    ) -> np.ndarray:
        """Run ``ids`` at positions ``start…``; fills the caches; returns the last logits."""
        return self._forward_many([(ids, start, keys, values)])[0]

    def _forward_many(
        self, pieces: Sequence[tuple[Sequence[int], int, list[np.ndarray], list[np.ndarray]]]
    ) -> list[np.ndarray]:
        """Run several sequences' next tokens at once: ``(ids, start, keys, values)`` each.

        The tokens of every piece go through the projections and the feed-forward
        as one matrix (batching across rows: each weight is read once per step for
        all of them); attention is each piece's own, over its own cache. Returns
        each piece's last logits.
        """
        cfg = self.config
        group = cfg.heads // cfg.kv_heads
        hd = cfg.head_dim
        scale = np.float32(1.0 / np.sqrt(hd))
        spans = []  # (row offset, count, start, end, cos, sin, mask) per piece
        offset = 0
        for ids, start, _keys, _values in pieces:
            count = len(ids)
            end = start + count
            cos, sin = rope_tables(np.arange(start, end), hd, cfg.rope_theta)
            # Query t (absolute position start + t) sees keys 0 … start + t.
            mask = np.triu(np.full((count, end), -np.inf, dtype=np.float32), k=start + 1)
            spans.append((offset, count, start, end, cos, sin, mask))
            offset += count
        every = np.concatenate([np.asarray(p[0], dtype=np.int64) for p in pieces])
        x = self.embedding[every]
        for index, layer in enumerate(self.layers):
            h = _rms_norm(x, layer.attn_norm, cfg.norm_eps)
            q_all, k_all, v_all = h @ layer.wq, h @ layer.wk, h @ layer.wv
            attended_all = np.empty((offset, cfg.hidden), dtype=np.float32)
            for (row, count, start, end, cos, sin, mask), piece in zip(spans, pieces, strict=True):
                keys, values = piece[2][index], piece[3][index]
                rows = slice(row, row + count)
                q = q_all[rows].reshape(count, cfg.heads, hd).transpose(1, 0, 2)
                k = k_all[rows].reshape(count, cfg.kv_heads, hd).transpose(1, 0, 2)
                keys[:, start:end] = _rotate(k, cos, sin)
                values[:, start:end] = (
                    v_all[rows].reshape(count, cfg.kv_heads, hd).transpose(1, 0, 2)
                )
                q = _rotate(q, cos, sin).reshape(cfg.kv_heads, group * count, hd)
                scores = (q @ keys[:, :end].transpose(0, 2, 1)) * scale  # (kv, group*T, end)
                scores = scores.reshape(cfg.kv_heads, group, count, end) + mask
                scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
                scores /= scores.sum(axis=-1, keepdims=True)
                attended = scores.reshape(cfg.kv_heads, group * count, end) @ values[:, :end]
                attended = attended.reshape(cfg.heads, count, hd).transpose(1, 0, 2)
                attended_all[rows] = attended.reshape(count, cfg.hidden)
            x = x + attended_all @ layer.wo
            h = _rms_norm(x, layer.ffn_norm, cfg.norm_eps)
            gate = h @ layer.w_gate
            gate = gate / (1.0 + np.exp(-gate))  # SiLU
            x = x + (gate * (h @ layer.w_up)) @ layer.w_down
        lasts = np.stack([x[row + count - 1] for row, count, *_ in spans])
        return list(_rms_norm(lasts, self.output_norm, cfg.norm_eps) @ self.output)

    def generate(
        self,
        prompt: Sequence[int],
        *,
        max_new_tokens: int,
        stop_ids: Sequence[int] = (),
        should_stop: Callable[[list[int]], bool] | None = None,
        threads: int | None = 1,
    ) -> list[int]:
        """Greedy continuation of ``prompt``: at most ``max_new_tokens`` ids.

        Stops after a token in ``stop_ids`` (which is kept, as ``transformers``
        keeps the end-of-sequence token) or once ``should_stop(generated)`` is true.
        ``threads`` limits numpy's BLAS threads meanwhile (``None``: leave them be):
        one is fastest on a busy machine, each decoding step being a small product.
        """
        with blas_threads(threads):
            return self._generate(prompt, max_new_tokens, stop_ids, should_stop)

    def _generate(
        self,
        prompt: Sequence[int],
        max_new_tokens: int,
        stop_ids: Sequence[int],
        should_stop: Callable[[list[int]], bool] | None,
    ) -> list[int]:
        session = self.session(prompt, max_new_tokens)
        stops = set(stop_ids)
        generated: list[int] = []
        logits = session.logits
        while True:
            token = int(np.argmax(logits))
            generated.append(token)
            if token in stops or len(generated) >= max_new_tokens:
                return generated
            if should_stop is not None and should_stop(generated):
                return generated
            logits = session.feed([token])

    def session(self, prompt: Sequence[int], max_new_tokens: int) -> DecodeSession:
        """A decoding session with ``prompt`` read and room for ``max_new_tokens`` more.

        The keys and values of the longest prefix this prompt shares with the
        previous session's tokens are copied instead of recomputed (prompt prefix
        caching: judged prompts share their system prompt and instructions).
        """
        cfg = self.config
        if not prompt:
            raise JudgeError("the prompt is empty after tokenisation")
        total = len(prompt) + max_new_tokens
        if total > cfg.context:
            raise JudgeError(
                f"prompt ({len(prompt)} tokens) plus max_new_tokens ({max_new_tokens}) "
                f"exceeds the model's context of {cfg.context} tokens"
            )
        session = DecodeSession(self, total)
        previous = self._last
        shared = 0
        if previous is not None:
            limit = min(len(prompt) - 1, previous.length)  # the last prompt token makes logits
            while shared < limit and previous.tokens[shared] == prompt[shared]:
                shared += 1
            if shared:
                session.adopt(previous, shared)
        self._last = session
        session.feed(list(prompt[shared:]))
        return session


class DecodeSession:
    """Keys and values of the tokens read so far; :meth:`feed` reads more, returns the logits."""

    def __init__(self, model: LlamaModel, capacity: int) -> None:
        cfg = model.config
        shape = (cfg.kv_heads, capacity, cfg.head_dim)
        self.model = model
        self.capacity = capacity
        self.keys = [np.zeros(shape, dtype=np.float32) for _ in model.layers]
        self.values = [np.zeros(shape, dtype=np.float32) for _ in model.layers]
        self.tokens: list[int] = []
        self.logits = np.zeros(0, dtype=np.float32)

    @property
    def length(self) -> int:
        return len(self.tokens)

    def adopt(self, other: DecodeSession, count: int) -> None:
        """Take the first ``count`` tokens' keys and values from another session."""
        for mine, theirs in zip(self.keys + self.values, other.keys + other.values, strict=True):
            mine[:, :count] = theirs[:, :count]
        self.tokens = list(other.tokens[:count])

    def check_room(self, count: int) -> None:
        """A JudgeError when ``count`` more tokens do not fit the room reserved."""
        if self.length + count > self.capacity:
            raise JudgeError(
                f"the reply needs more than the {self.capacity} tokens of context reserved"
            )

    def took(self, ids: Sequence[int], logits: np.ndarray) -> None:
        """Record ``ids`` as read (their keys and values are in the cache) and their logits."""
        self.tokens.extend(ids)
        self.logits = logits

    def feed(self, ids: Sequence[int]) -> np.ndarray:
        """Read ``ids`` after the tokens so far; return the logits of the next token."""
        self.check_room(len(ids))
        # In chunks: attention scores of a whole long prompt at once would take
        # heads x length^2 floats (2.4 GB at 8k tokens for SmolLM2).
        for start in range(0, len(ids), PREFILL_CHUNK):
            chunk = list(ids[start : start + PREFILL_CHUNK])
            self.took(chunk, self.model._forward(chunk, self.length, self.keys, self.values))
        return self.logits


def blas_threads(threads: int | None) -> Any:
    """A context limiting numpy's BLAS to ``threads`` (no-op without threadpoolctl)."""
    if not threads:
        return nullcontext()
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:
        return nullcontext()
    return threadpool_limits(limits=threads, user_api="blas")


def _dequantize(tensor: Any, path: str) -> np.ndarray:
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize

    kind = GGMLQuantizationType(tensor.tensor_type)
    try:
        if kind in (GGMLQuantizationType.F32, GGMLQuantizationType.F16):
            values = np.asarray(tensor.data)
        else:
            values = dequantize(tensor.data, kind)
    except Exception as exc:  # the gguf package refuses unsupported kinds with its own errors
        raise JudgeError(
            f"tensor {tensor.name} is quantized as {kind.name}, which the gguf package cannot "
            f"dequantize ({type(exc).__name__}: {exc}); use a Q4_0, Q4_1, Q5, Q8_0, K-quant or "
            "F16/F32 file",
            path=path,
        ) from exc
    # GGUF lists dimensions fastest-first; numpy wants them slowest-first.
    shape = tuple(int(n) for n in reversed(tensor.shape))
    return np.ascontiguousarray(values.reshape(shape), dtype=np.float32)
