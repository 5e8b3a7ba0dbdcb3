"""Continuous batching of the local judge's constrained replies across rows.

Each row's reply is written by its own :class:`~tooleval.llm.constrained.SchemaDecoder`
(a generator: token ids out, logits in). Threads that ask for replies at the
same time (``calibrate`` and the scoring pipeline judge several rows at once)
join one batch: whichever thread finds no batch running leads it, reads each
newcomer's prompt (reusing the keys and values of the prefix it shares with the
previous prompt, see :meth:`LlamaModel.session`), then steps every decoder of
the batch through one forward pass (:meth:`LlamaModel._forward_many`) until its
own reply is done, and hands the lead to a waiting thread. A decoder that
finishes leaves; a new row joins at the next step. Each weight matrix is then
read once per step for the whole batch instead of once per row, which is what
a decoding step on a CPU waits for.

Batching changes only the floating-point order of the matrix products, so a
reply written in a batch can differ from the reply written alone where the
model's top two tokens are within rounding of each other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tooleval.errors import JudgeError
from tooleval.llm.constrained import SchemaDecoder, Steps

__all__ = ["BatchDecoder"]
# A waiting thread looks again this often (the leader also wakes it when its reply is done).
_WAIT_SECONDS = 1.0


@dataclass(slots=True)
class _Job:
    prompt: list[int]
    schema: Mapping[str, Any]
    budget: int
    session: Any = None
    decoder: SchemaDecoder | None = None
    steps: Steps | None = None
    pending: list[int] = field(default_factory=list)
    error: BaseException | None = None
    done: bool = False


class BatchDecoder:
    """Constrained replies of one model, decoded together when asked for together.

    ``new_decoder(logits, budget)`` makes a row's decoder once its prompt is read;
    ``lock`` is the model's lock, held while the model runs; ``max_batch`` rows
    decode together at most.

    >>> BatchDecoder(None, None, threading.Lock(), max_batch=4).max_batch
    4
    """

    def __init__(
        self,
        model: Any,
        new_decoder: Callable[[np.ndarray, int], SchemaDecoder],
        lock: threading.Lock,
        *,
        max_batch: int,
    ) -> None:
        self.model = model
        self._new_decoder = new_decoder
        self._model_lock = lock
        self.max_batch = max_batch
        self._cond = threading.Condition()
        self._waiting: list[_Job] = []
        self._active: list[_Job] = []
        self._leading = False
        self.largest_batch = 0  # the most rows one step decoded (reported by the bench)

    def reply(self, prompt: list[int], schema: Mapping[str, Any], budget: int) -> list[int]:
        """The reply's token ids for ``prompt`` under ``schema``, at most ``budget`` tokens."""
        job = _Job(list(prompt), schema, budget)
        with self._cond:
            self._waiting.append(job)
            while self._leading and not job.done:
                self._cond.wait(_WAIT_SECONDS)
            lead = not job.done
            if lead:
                self._leading = True
        if lead:
            try:
                while not job.done:
                    with self._model_lock:
                        self._admit()
                        self._step()
            finally:
                with self._cond:
                    self._leading = False
                    self._cond.notify_all()
        if job.error is not None:
            raise job.error
        assert job.decoder is not None
        return job.decoder.tokens

    def _admit(self) -> None:
        """Read the prompts of waiting rows while the batch has room."""
        with self._cond:
            room = self.max_batch - len(self._active)
            joining, self._waiting = self._waiting[:room], self._waiting[room:]
        for job in joining:
            try:
                job.session = self.model.session(job.prompt, job.budget)
                job.decoder = self._new_decoder(job.session.logits, job.budget)
                job.steps = job.decoder.steps(job.schema)
                job.pending = next(job.steps)
            except StopIteration:
                self._finish(job)
                continue
            except Exception as exc:  # this row's error is its caller's to raise
                self._finish(job, exc)
                continue
            self._active.append(job)

    def _step(self) -> None:
        """One forward pass for every active row's pending tokens."""
        if not self._active:
            return
        batch = list(self._active)
        self.largest_batch = max(self.largest_batch, len(batch))
        try:
            for job in batch:
                job.session.check_room(len(job.pending))
            pieces = [
                (job.pending, job.session.length, job.session.keys, job.session.values)
                for job in batch
            ]
            every_logits = self.model._forward_many(pieces)
        except Exception as exc:  # the step failed for the whole batch: every row says so
            for job in batch:
                self._finish(job, exc)
            return
        for job, logits in zip(batch, every_logits, strict=True):
            job.session.took(job.pending, logits)
            try:
                assert job.steps is not None
                job.pending = job.steps.send(logits)
            except StopIteration:
                self._finish(job)
            except Exception as exc:
                self._finish(job, exc)

    def _finish(self, job: _Job, error: BaseException | None = None) -> None:
        if job in self._active:
            self._active.remove(job)
        if error is not None and not isinstance(error, JudgeError):
            error = JudgeError(f"the local judge failed: {type(error).__name__}: {error}")
        job.error = error
        with self._cond:
            job.done = True
            self._cond.notify_all()
