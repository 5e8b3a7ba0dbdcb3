"""What a connector's tool loop needs from tools that tooleval itself serves and records.

The ``openai`` connector normally only reads the calls a model asks for. Given
a :class:`ToolSessions` (``tooleval.serving`` makes one from an environment),
it opens one :class:`ToolSession` per row and attempt, runs every call the
model asks for through it, feeds each result back as a ``tool`` message, and
takes the calls *as the session recorded them*: the verdict reads what was
executed, never what the agent says it did.

The protocol lives here, below the serving layer, so that connectors need not
know what an environment is.

>>> isinstance(object(), ToolSessions)
False
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from tooleval.model import Sample, ToolCall

__all__ = ["SimulatedUser", "ToolSession", "ToolSessions"]


@runtime_checkable
class ToolSession(Protocol):
    """One episode's tools: a fresh environment, every call executed and recorded."""

    def call(self, call: ToolCall) -> ToolCall:
        """Run ``call``; the call with its ``result`` (``is_error`` when it failed). Never raises."""
        ...

    def record(self) -> dict[str, Any]:
        """What the episode did, for the row's metadata (calls with timing, the environment)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class ToolSessions(Protocol):
    """Where tool sessions come from: one :meth:`open` per row and attempt."""

    def tool_specs(self) -> list[dict[str, Any]]:
        """The tools as OpenAI tool specs (what the model is offered)."""
        ...

    def open(self, sample: Sample) -> ToolSession:
        """A fresh session for ``sample`` (ConfigError/ConnectorError when it cannot start)."""
        ...

    def describe(self) -> dict[str, Any]: ...


@runtime_checkable
class SimulatedUser(Protocol):
    """The user side of an episode (``tooleval.simulators.UserSimulator``)."""

    max_turns: int

    async def anext(self, sample: Sample, conversation: list[dict[str, Any]]) -> str:
        """The user's next message, given the conversation so far (roles as the agent sees them)."""
        ...

    def stopped(self, text: str) -> bool: ...

    def audit(
        self,
        sample: Sample,
        conversation: list[dict[str, Any]],
        *,
        stopped: bool,
        error: str | None = None,
    ) -> Any:
        """A verdict on the user's own behaviour (``passed``, ``reasons``, ``to_dict()``)."""
        ...

    def describe(self) -> dict[str, Any]: ...
