"""Multi-turn conversations over HTTP: one dataset row, several requests to the agent.

A row is a conversation when it holds several user turns: the user
messages of its ``messages`` (a canonical conversation of user turns only),
or a ``turns`` column (a list of texts), or a scripted user (a Python
function in the plan's folder that says the next user message). The HTTP
connector is called once per turn; what the agent needs to keep the thread
is carried as the plan says:

.. code-block:: yaml

    connector:
      type: http
      url: http://127.0.0.1:8000/chat
      body: {session_id: "{{metadata.session_id}}", message: "{{input}}"}
      response: {output: "$.reply", tool_calls: "$.tool_calls"}
      conversation:
        carry: session            # session (default) or history
        session_path: $.session_id  # where the first reply names the session
        turns: turns              # the column of user turns (default: turns)
        user: sim_user:next_message  # or a scripted user (module:function)
        max_turns: 10
        timeout: 120              # seconds for the whole conversation

Each turn is one connector call, so each of its attempts is bounded by the
connector's ``timeout``; the conversation as a whole is bounded by
``conversation.timeout`` (default: ``max_turns`` times the connector's
``timeout`` times its attempts), and a scripted user that is a coroutine is
inside that deadline too. A conversation past its deadline fails the row,
naming the deadline and the turn it reached.

Per turn the body template sees ``{{input}}`` = this turn's user text,
``{{metadata.session_id}}`` = the session id (the reply's, read with
``session_path`` after the first turn, else ``ROWID-<random>``),
``{{metadata.turn}}`` = the turn number (1-based) and, with ``carry:
history``, ``{{messages}}`` = the whole conversation so far (user and
assistant messages as tooleval dicts, this turn's user message last). The
tool calls of every turn are collected in order; the row's ``output`` is
the last reply. A failing turn fails the row, naming the turn.

A scripted user is called as ``fn(conversation, sample)`` with the
conversation so far (a list of ``{"role", "content"}`` dicts, tool calls
under ``tool_calls``) and returns the next user text, or ``None`` to end.
A plain function runs in a daemon thread under the user-code deadline
(``$TOOLEVAL_USER_CODE_DEADLINE``, 60 s); a coroutine function runs inside
the conversation's deadline.

>>> spec = ConversationSpec.from_config({"carry": "history", "max_turns": 3})
>>> spec.carry, spec.max_turns, spec.turns_column
('history', 3, 'turns')
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import math
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooleval.connectors.response import AgentResponse, as_sample
from tooleval.errors import ConfigError, ConnectorError, ToolEvalError
from tooleval.model import AssistantMessage, Message, Sample, ToolCall, UserMessage
from tooleval.user_deadline import DEADLINE_ENV, DeadlinePassed, abounded, user_code_seconds

__all__ = ["ConversationConnector", "ConversationSpec", "user_turns"]

_KEYS = ("carry", "session_path", "turns", "user", "max_turns", "timeout")
DEFAULT_MAX_TURNS = 20


@dataclass(frozen=True, slots=True)
class ConversationSpec:
    """How a conversation is driven: what is carried between turns, where the turns come from."""

    carry: str = "session"
    session_path: str | None = None
    turns_column: str = "turns"
    user: Callable[..., Any] | None = None
    user_name: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    session_query: Any = None
    timeout: float | None = None

    @classmethod
    def from_config(
        cls, config: Any, *, field: str = "connector.conversation", base_dir: Path | None = None
    ) -> ConversationSpec:
        if config is True:
            config = {}
        if not isinstance(config, Mapping):
            raise ConfigError(f"expected a mapping, got {type(config).__name__}", field=field)
        unknown = sorted(set(config) - set(_KEYS))
        if unknown:
            raise ConfigError(
                f"unknown key; expected one of {', '.join(_KEYS)}", field=f"{field}.{unknown[0]}"
            )
        carry = config.get("carry", "session")
        if carry not in ("session", "history"):
            raise ConfigError(f"expected session or history, got {carry!r}", field=f"{field}.carry")
        path = config.get("session_path")
        query = None
        if path is not None:
            from tooleval.connectors.paths import compile_path

            query = compile_path(path, field=f"{field}.session_path")
        column = config.get("turns", "turns")
        if not isinstance(column, str) or not column:
            raise ConfigError(f"expected a column name, got {column!r}", field=f"{field}.turns")
        limit = config.get("max_turns", DEFAULT_MAX_TURNS)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise ConfigError(
                f"expected a whole number from 1 to 1000, got {limit!r}",
                field=f"{field}.max_turns",
            )
        timeout = config.get("timeout")
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ConfigError(
                f"expected a number of seconds > 0 for the whole conversation, got {timeout!r}",
                field=f"{field}.timeout",
            )
        user = config.get("user")
        loaded = None
        if user is not None:
            from tooleval.connectors.imports import load_from

            loaded = load_from(user, field=f"{field}.user", base_dir=base_dir)
        total = None if timeout is None else float(timeout)
        return cls(carry, path, column, loaded, user if loaded else None, limit, query, total)

    def describe(self) -> dict[str, Any]:
        return {
            "carry": self.carry,
            "session_path": self.session_path,
            "turns": self.turns_column,
            "user": self.user_name,
            "max_turns": self.max_turns,
            "timeout": self.timeout,
        }


def user_turns(sample: Sample, column: str = "turns") -> list[str]:
    """The scripted user turns of a row: the ``turns`` column, else its user messages.

    >>> user_turns(Sample(metadata={"turns": ["hi", "cancel 4471"]}))
    ['hi', 'cancel 4471']
    >>> user_turns(Sample(input="only one"))
    ['only one']
    """
    listed = sample.metadata.get(column)
    if listed is not None:
        if isinstance(listed, str):
            listed = [listed]
        if not isinstance(listed, list):
            raise ConnectorError(
                f"column {column} must be a list of user messages (texts), got "
                f"{type(listed).__name__}",
                row=sample.id,
            )
        for i, text in enumerate(listed):
            if not isinstance(text, str):
                raise ConnectorError(
                    f"column {column} must be a list of user messages (texts); item {i} is "
                    f"{type(text).__name__}",
                    row=sample.id,
                )
        return list(listed)
    users = [m.content for m in sample.messages if isinstance(m, UserMessage)]
    texts = [u if isinstance(u, str) else str(u) for u in users]
    if texts:
        return texts
    return [sample.input] if sample.input else []


class ConversationConnector:
    """Drives an HTTP connector turn by turn (see the module docstring)."""

    def __init__(self, http: Any, spec: ConversationSpec) -> None:
        self.http = http
        self.spec = spec
        # read now, so a bad $TOOLEVAL_USER_CODE_DEADLINE is refused before any row
        self.user_seconds = user_code_seconds() if spec.user is not None else None

    # Preflight and `connector test` read the rest from the HTTP connector.
    def __getattr__(self, name: str) -> Any:
        return getattr(self.http, name)

    @property
    def body(self) -> Any:
        """The body template as the preflight renders it: for the row's first turn."""
        inner = getattr(self.http, "body", None)
        return None if inner is None else _FirstTurn(inner, self)

    @property
    def params(self) -> Any:
        inner = getattr(self.http, "params", None)
        return None if inner is None else _FirstTurn(inner, self)

    def describe(self) -> dict[str, Any]:
        return {**self.http.describe(), "conversation": self.spec.describe()}

    def _turn_sample(
        self, sample: Sample, text: str, number: int, session: str, history: list[Message]
    ) -> Sample:
        extra = {"session_id": session, "turn": number}
        messages = [*history, UserMessage(text)] if self.spec.carry == "history" else []
        return dataclasses.replace(
            sample, input=text, messages=messages, metadata={**sample.metadata, **extra}
        )

    def _session(self, sample: Sample, raw: Any, current: str) -> str:
        if self.spec.session_query is None or raw is None:
            return current
        try:
            found = self.spec.session_query.findall(raw)
        except Exception:  # a reply the path cannot walk keeps the current session
            return current
        if found and isinstance(found[0], str | int) and not isinstance(found[0], bool):
            return str(found[0])
        return current

    async def _next_user(
        self, sample: Sample, conversation: _Conversation, scripted: list[str]
    ) -> Any:
        if self.spec.user is None:
            index = conversation.turn
            return scripted[index] if index < len(scripted) else None
        user, history = self.spec.user, conversation.as_dicts()
        if inspect.iscoroutinefunction(user):
            return await user(history, sample)  # inside the conversation's own deadline
        # A plain function runs off the event loop, so one that blocks (a sleep, a lock)
        # cannot stall every other row: past the user-code deadline the row is an error.
        try:
            text = await abounded(
                lambda: user(history, sample),
                self.user_seconds,
                what=f"the scripted user {self.spec.user_name}",
            )
        except DeadlinePassed as exc:
            raise ConnectorError(
                f"turn {conversation.turn + 1}: {exc} (${DEADLINE_ENV})", row=sample.id
            ) from None
        return await text if inspect.isawaitable(text) else text

    def total_timeout(self) -> float:
        """Seconds the whole conversation may take (see the module docstring)."""
        if self.spec.timeout is not None:
            return self.spec.timeout
        per_turn = float(getattr(self.http, "timeout", 30.0))
        retry = getattr(self.http, "retry", None)
        attempts = int(getattr(retry, "attempts", 1))
        return self.spec.max_turns * per_turn * attempts

    async def acall(self, sample: Sample | str) -> AgentResponse:
        sample = as_sample(sample)
        limit = self.total_timeout()
        progress: list[int] = [0]
        try:
            async with asyncio.timeout(limit):
                return await self._converse(sample, progress)
        except TimeoutError:
            raise ConnectorError(
                f"the conversation did not end within its {limit:g} s timeout "
                f"(conversation.timeout); stopped in turn {progress[0] + 1}",
                row=sample.id,
            ) from None

    async def _converse(self, sample: Sample, progress: list[int]) -> AgentResponse:
        scripted = [] if self.spec.user is not None else user_turns(sample, self.spec.turns_column)
        if self.spec.user is None and not scripted:
            raise ConnectorError(
                f"the row has no user turns: give a {self.spec.turns_column} column (a list of "
                "texts), user messages, an input, or a scripted user (conversation.user)",
                row=sample.id,
            )
        conversation = _Conversation(f"{sample.id or 'row'}-{secrets.token_hex(4)}")
        while conversation.turn < self.spec.max_turns:
            text = await self._next_user(sample, conversation, scripted)
            if text is None:
                break
            if not isinstance(text, str):
                raise ConnectorError(
                    f"the scripted user {self.spec.user_name} returned "
                    f"{type(text).__name__}; expected the next message (text) or None",
                    row=sample.id,
                )
            number = conversation.turn + 1
            turn = self._turn_sample(
                sample, text, number, conversation.session, conversation.history
            )
            try:
                response = await self.http.acall(turn)
            except ToolEvalError as exc:
                raise ConnectorError(
                    f"turn {number}: {exc.message}",
                    row=sample.id,
                    status=exc.context.get("status"),
                ) from None
            conversation.add(text, response)
            progress[0] = conversation.turn
            conversation.session = self._session(sample, response.raw, conversation.session)
        else:
            if self.spec.user is not None or conversation.turn < len(scripted):
                conversation.warnings.append(
                    f"stopped after max_turns={self.spec.max_turns} with the user still talking"
                )
        return conversation.response()

    def call(self, sample: Sample | str) -> AgentResponse:
        return asyncio.run(self.acall(sample))

    async def aclose(self) -> None:
        close = getattr(self.http, "aclose", None)
        if close is not None:
            await close()

    def close(self) -> None:
        close = getattr(self.http, "close", None)
        if close is not None:
            close()


class _FirstTurn:
    """A template checked against a row's first turn (its prompt is the turn, not ``input``)."""

    def __init__(self, inner: Any, connector: ConversationConnector) -> None:
        self.inner = inner
        self.connector = connector
        self.field = inner.field

    def placeholders(self) -> list[str]:
        # input/messages are the turn's, checked by render(); the row's own may be empty.
        return [
            p for p in self.inner.placeholders() if p.split(".")[0] not in ("input", "messages")
        ]

    def render(self, sample: Sample) -> Any:
        spec = self.connector.spec
        if spec.user is not None:
            text = "(the scripted user's first message)"
        else:
            try:
                turns = user_turns(sample, spec.turns_column)
            except ConnectorError as exc:
                raise ConfigError(exc.message) from None
            if not turns:
                raise ConfigError(
                    f"the row has no user turns (no {spec.turns_column} column, user messages "
                    "or input)"
                )
            text = turns[0]
        first = self.connector._turn_sample(sample, text, 1, f"{sample.id or 'row'}-preflight", [])
        return self.inner.render(first)


class _Conversation:
    def __init__(self, session: str) -> None:
        self.session = session
        self.turn = 0
        self.history: list[Message] = []
        self.calls: list[ToolCall] = []
        self.raws: list[Any] = []
        self.output: str | None = None
        self.latency = 0.0
        self.status: int | None = None
        self.retries: dict[str, int] = {}
        self.warnings: list[str] = []
        self.started = time.perf_counter()
        self.unknown_calls = False

    def add(self, text: str, response: AgentResponse) -> None:
        self.turn += 1
        calls = list(response.tools_called) if response.tools_called is not None else []
        if response.tools_called is None:
            self.unknown_calls = True
        self.calls.extend(calls)
        self.history.append(UserMessage(text))
        self.history.append(AssistantMessage(response.output or "", tuple(calls)))
        self.raws.append(response.raw)
        self.output = response.output
        self.status = response.status
        for cause, count in (response.retries or {}).items():
            self.retries[cause] = self.retries.get(cause, 0) + count
        self.warnings.extend(f"turn {self.turn}: {w}" for w in response.warnings)

    def as_dicts(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.history]

    def response(self) -> AgentResponse:
        return AgentResponse(
            output=self.output,
            # No tools_called path: the calls are unknown, never "none" (unscored, not 0).
            tools_called=None if self.unknown_calls else self.calls,
            raw={"session_id": self.session, "turns": self.raws},
            latency_ms=(time.perf_counter() - self.started) * 1000.0,
            status=self.status,
            attempts=1 + sum(self.retries.values()),
            # The whole conversation, when the calls of every turn are known.
            messages=None if self.unknown_calls else list(self.history),
            warnings=tuple(self.warnings),
            retries=dict(self.retries),
        )
