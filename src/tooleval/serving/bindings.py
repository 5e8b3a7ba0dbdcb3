"""Episodes bound to rows: which fresh environment a served request's token reaches.

A transport that serves an environment to an agent running its own tools (MCP,
plain HTTP endpoints) cannot tell rows apart by itself, so every row and
attempt is *bound*: :meth:`Episodes.bind` opens a fresh
:class:`~tooleval.serving.sessions.EnvironmentSession` for the row and returns
a random token; the agent is handed that token (inside a URL path or a
header), and every request carrying it runs on that row's environment and
nowhere else. :meth:`Episodes.release` ends the episode and returns its
record; a token whose episode ended, or that was never handed out, is
refused (:class:`EpisodeRefused`, with the HTTP status a transport answers).

Calls of one episode run one at a time, in the order they arrive (a tool
call changes the state the next one reads); calls of different episodes run
side by side. Every call has a deadline (:data:`CALL_DEADLINE`, on top of the
environment's own per-call limit): one that passes is recorded as the call's
error and the caller gets the error, never a hang.

>>> from tooleval.environments import FunctionEnvironment, register_environment
>>> register_environment("bind_doc", lambda config: FunctionEnvironment(
...     {"put": lambda state, key: state.update({key: 1}) or "ok"}, initial_state={}))
>>> from tooleval.serving.sessions import EnvironmentTools
>>> from tooleval.model import Sample
>>> episodes = Episodes(EnvironmentTools({"name": "bind_doc"}))
>>> token = episodes.bind(Sample(id="r1")).token
>>> episodes.call(token, "put", {"key": "a"}).result
'ok'
>>> [c["name"] for c in episodes.release(token)["calls"]]
['put']
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tooleval.errors import EpisodeRefused
from tooleval.model import Sample, ToolCall
from tooleval.serving.sessions import EnvironmentSession, EnvironmentTools
from tooleval.user_deadline import DeadlinePassed, bounded

__all__ = ["CALL_DEADLINE", "Binding", "Episodes"]

#: Seconds a served call may take in all (waiting for the episode's previous call included).
CALL_DEADLINE = 60.0
# Tokens of ended episodes kept to say "ended" rather than "unknown" (bounded memory).
_ENDED_KEPT = 10_000


@dataclass(slots=True)
class Binding:
    """One row and attempt's live episode: its token, its session, its call lock."""

    token: str
    row: str
    attempt: int
    session: EnvironmentSession
    lock: threading.Lock = field(default_factory=threading.Lock)
    count: int = 0

    def describe(self) -> dict[str, Any]:
        return {"row": self.row, "attempt": self.attempt, "environment": self.session.name}


def _attempt(sample: Sample) -> tuple[str, int]:
    """The dataset row id and attempt number of ``sample`` (``id#2``: attempt 2)."""
    base, sep, tail = (sample.id or "").rpartition("#")
    if sep and tail.isdigit():
        return base, int(tail)
    return sample.id or "", 1


class Episodes:
    """The live episodes of one served environment, by token (see the module docstring)."""

    def __init__(self, tools: EnvironmentTools, *, call_deadline: float = CALL_DEADLINE) -> None:
        self.tools = tools
        self.call_deadline = call_deadline
        self._live: dict[str, Binding] = {}
        self._ended: dict[str, str] = {}
        self._lock = threading.Lock()

    def bind(self, sample: Sample) -> Binding:
        """A fresh environment for ``sample``'s row and attempt, under a new token."""
        session = self.tools.open(sample)
        row, attempt = _attempt(sample)
        binding = Binding(secrets.token_urlsafe(18), row, attempt, session)
        with self._lock:
            self._live[binding.token] = binding
        return binding

    def live(self) -> int:
        with self._lock:
            return len(self._live)

    def get(self, token: str) -> Binding:
        """The live episode bound to ``token``; :class:`EpisodeRefused` when there is none."""
        with self._lock:
            binding = self._live.get(token)
            ended = self._ended.get(token)
        if binding is not None:
            return binding
        if ended is not None:
            raise EpisodeRefused(
                f"the episode of {ended} has ended: its token is no longer served", 410
            )
        raise EpisodeRefused(
            "no episode is bound to this token (tooleval hands one to each row)", 404
        )

    def call(
        self, token: str, name: str, arguments: Any, *, parse_error: str | None = None
    ) -> ToolCall:
        """Run one call in the episode ``token`` binds; the call with its result, recorded.

        ``parse_error`` says why the transport could not read the arguments:
        the call is recorded and refused without running.
        """
        binding = self.get(token)
        call = _as_call(name, arguments, parse_error)

        def run() -> ToolCall:
            with binding.lock:  # one call at a time per episode, in arrival order
                numbered = dataclasses.replace(call, id=f"call_{binding.count}")
                binding.count += 1
                return binding.session.call(numbered)

        try:
            return bounded(run, self.call_deadline, what=f"tool call {name}")
        except DeadlinePassed:
            message = (
                f"{name}: no result within {self.call_deadline:g} s (the served call's deadline)"
            )
            binding.session.calls.append(
                {
                    "name": name,
                    "args": call.args,
                    "result": message,
                    "is_error": True,
                    "ms": round(self.call_deadline * 1000.0, 3),
                }
            )
            return call.with_result(message, is_error=True)

    def release(self, token: str) -> dict[str, Any]:
        """End the episode ``token`` binds: its record (``metadata.episode``); the token is refused from now on."""
        with self._lock:
            binding = self._live.pop(token, None)
            if binding is None:
                raise EpisodeRefused("no live episode is bound to this token", 404)
            self._ended[token] = f"row {binding.row!r} (attempt {binding.attempt})"
            while len(self._ended) > _ENDED_KEPT:
                self._ended.pop(next(iter(self._ended)))
        # A call still running finishes (or passes its deadline) first.
        held = binding.lock.acquire(timeout=self.call_deadline)
        try:
            record = binding.session.record()
            binding.session.close()
        finally:
            if held:
                binding.lock.release()
        return record

    def close(self) -> None:
        """End every live episode (the server is stopping)."""
        with self._lock:
            tokens = list(self._live)
        for token in tokens:
            try:
                self.release(token)
            except EpisodeRefused:
                continue


def _as_call(name: str, arguments: Any, parse_error: str | None) -> ToolCall:
    """A ToolCall from a transport's request; arguments that are not an object stay an error."""
    if parse_error is not None:
        return ToolCall(name, None, parse_error=parse_error)
    if arguments is None:
        return ToolCall(name, {})
    if isinstance(arguments, Mapping):
        return ToolCall(name, dict(arguments))
    return ToolCall(
        name,
        None,
        parse_error=f"expected an object of arguments, got {type(arguments).__name__}",
    )
