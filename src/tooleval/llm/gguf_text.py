"""Text in and out of a GGUF chat model: its BPE tokenizer and its chat template.

Both come from the file's metadata: ``tokenizer.ggml.tokens`` and
``tokenizer.ggml.merges`` build a byte-level BPE with the ``tokenizers``
package, and ``tokenizer.chat_template`` (a Jinja template) turns chat messages
into the prompt text. A file without a chat template is refused when it is
loaded, with what to do about it, rather than at the first judge call.

>>> render_chat(
...     "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}"
...     "{% if add_generation_prompt %}<assistant>{% endif %}",
...     [{"role": "user", "content": "hi"}],
... )
'<user>hi<assistant>'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.errors import JudgeError

__all__ = ["GGUFTokenizer", "render_chat"]

_CONTROL = 3  # llama.cpp's token type for special tokens such as <|im_end|>
_USER_DEFINED = 4

# How each vocabulary's merges were learned to be applied (llama.cpp's `tokenizer.ggml.pre`).
# SmolLM's tokenizer.json splits every digit apart before the GPT-2 byte-level split.
_DIGITS_FIRST = {"smollm", "starcoder", "refact"}


def render_chat(template: str, messages: Sequence[Mapping[str, str]], **extra: Any) -> str:
    """The prompt text ``template`` makes of ``messages``, ending with the assistant's turn."""
    try:
        from jinja2.exceptions import TemplateError
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError as exc:
        raise JudgeError("rendering a chat template needs jinja2: pip install jinja2") from exc

    def raise_exception(message: str) -> None:
        raise JudgeError(f"the model's chat template refused the messages: {message}")

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    try:
        compiled = env.from_string(template)
        return compiled.render(
            messages=[dict(m) for m in messages], add_generation_prompt=True, **extra
        )
    except TemplateError as exc:
        raise JudgeError(f"the model's chat template does not render: {exc}") from exc


class GGUFTokenizer:
    """The byte-level BPE tokenizer and chat template a GGUF file describes."""

    def __init__(self, metadata: Mapping[str, Any], path: str) -> None:
        self.path = path
        template = metadata.get("tokenizer.chat_template")
        if not isinstance(template, str) or not template.strip():
            raise JudgeError(
                "this GGUF file has no chat template (tokenizer.chat_template), so the judge "
                "cannot turn messages into a prompt; use an instruct/chat model's GGUF, or add "
                "one: gguf-new-metadata --chat-template-file chat_template.jinja IN.gguf OUT.gguf "
                "(from the gguf package)",
                path=path,
            )
        self.chat_template = template
        kind = metadata.get("tokenizer.ggml.model")
        if kind != "gpt2":
            raise JudgeError(
                f"the local judge reads byte-level BPE (gpt2) vocabularies, this file has "
                f"{kind!r}; serve it with llama.cpp or Ollama and use an openai judge",
                path=path,
            )
        tokens = list(metadata.get("tokenizer.ggml.tokens") or ())
        merges = list(metadata.get("tokenizer.ggml.merges") or ())
        if not tokens or not merges:
            raise JudgeError("GGUF file lacks tokenizer.ggml.tokens or merges", path=path)
        kinds = list(metadata.get("tokenizer.ggml.token_type") or [1] * len(tokens))
        self._tokenizer = _build(tokens, merges, kinds, str(metadata.get("tokenizer.ggml.pre")))
        eos = metadata.get("tokenizer.ggml.eos_token_id")
        self.eos_id = int(eos) if eos is not None else None
        self.stop_ids = sorted(
            {i for i in (self.eos_id,) if i is not None}
            | {i for i, t in enumerate(tokens) if t in ("<|im_end|>", "<|eot_id|>", "<|end|>")}
        )
        bos = metadata.get("tokenizer.ggml.bos_token_id")
        self.bos_token = tokens[int(bos)] if bos is not None else ""
        self.eos_token = tokens[self.eos_id] if self.eos_id is not None else ""
        self.add_bos = bool(metadata.get("tokenizer.ggml.add_bos_token", False))
        self.bos_id = int(bos) if bos is not None else None
        # Unknown, control and unused tokens (GGUF token types 2, 3, 5): never free text.
        self.special_ids = frozenset(i for i, k in enumerate(kinds) if k in (2, 3, 5))
        self.vocab_size = len(tokens)
        self._texts: list[str] | None = None

    def token_texts(self) -> list[str]:
        """Each token id's own text (decoded alone), computed once."""
        if self._texts is None:
            self._texts = [
                self._tokenizer.decode([i], skip_special_tokens=False)
                for i in range(self.vocab_size)
            ]
        return self._texts

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``; special tokens written in the text stay whole."""
        return list(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids`` without special tokens."""
        return self._tokenizer.decode(list(ids), skip_special_tokens=True)

    def chat_ids(self, messages: Sequence[Mapping[str, str]]) -> list[int]:
        """The prompt ids for ``messages`` (chat template, then the assistant's turn opened)."""
        text = render_chat(
            self.chat_template, messages, bos_token=self.bos_token, eos_token=self.eos_token
        )
        ids = self.encode(text)
        if self.add_bos and self.bos_id is not None and (not ids or ids[0] != self.bos_id):
            ids.insert(0, self.bos_id)
        return ids


def _build(tokens: list[str], merges: list[str], kinds: list[int], pre: str) -> Any:
    try:
        from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers
    except ImportError as exc:
        raise JudgeError("the local judge needs the tokenizers package") from exc
    vocab = {token: index for index, token in enumerate(tokens)}
    pairs: list[tuple[str, str]] = []
    for index, merge in enumerate(merges):
        left, space, right = str(merge).partition(" ")
        if not space:
            raise JudgeError(f"tokenizer.ggml.merges[{index}] is not 'left right': {merge!r}")
        pairs.append((left, right))
    try:
        tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=pairs, fuse_unk=False))
    except Exception as exc:  # tokenizers raises a bare Exception for a bad vocabulary
        raise JudgeError(f"the GGUF's vocabulary does not make a BPE tokenizer: {exc}") from exc
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if pre in _DIGITS_FIRST:
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Digits(individual_digits=True), byte_level]
        )
    else:
        tokenizer.pre_tokenizer = byte_level
    tokenizer.decoder = decoders.ByteLevel()
    special = [t for t, k in zip(tokens, kinds, strict=False) if k == _CONTROL]
    tokenizer.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in special])
    user = [t for t, k in zip(tokens, kinds, strict=False) if k == _USER_DEFINED]
    if user:
        tokenizer.add_tokens([AddedToken(t, normalized=False) for t in user])
    return tokenizer
