"""The shape every connector returns, and the protocol every connector follows.

>>> r = AgentResponse(output="done", tools_called=[ToolCall("search")], raw={}, latency_ms=12.0)
>>> filled = r.apply_to(Sample(input="find x", id="r1"))
>>> filled.final_output(), [c.name for c in filled.actual_calls()]
('done', ['search'])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from tooleval.model import Message, Sample, ToolCall

__all__ = ["AgentResponse", "Connector", "as_sample"]


@dataclass(slots=True)
class AgentResponse:
    """What the agent under test did for one request.

    ``tools_called`` is ``None`` when the connector has no way to know (no
    path configured), which differs from ``[]`` ("called no tool").
    ``latency_ms`` covers every attempt, retries and back-off included;
    ``attempts`` counts them and ``retries`` says why they were retried
    (``http``: a retryable status or network error; ``invalid_body``: a 2xx
    reply that could not be read). ``warnings`` carries non-fatal findings (e.g.
    the output path matched nothing).
    """

    output: str | None
    tools_called: list[ToolCall] | None
    raw: Any
    latency_ms: float
    status: int | None = None
    attempts: int = 1
    messages: list[Message] | None = None
    warnings: tuple[str, ...] = ()
    #: Retries by cause: ``{"http": n, "invalid_body": m}`` (only causes that happened).
    retries: dict[str, int] = dataclasses.field(default_factory=dict)
    #: What the connector itself observed, merged into the row's metadata (``episode``:
    #: the calls tooleval executed and recorded in a served environment).
    metadata: dict[str, Any] | None = None

    def apply_to(self, sample: Sample) -> Sample:
        """A copy of ``sample`` with what the agent did filled in."""
        changes: dict[str, Any] = {}
        if self.output is not None:
            changes["output"] = self.output
        if self.tools_called is not None:
            changes["tools_called"] = list(self.tools_called)
        if self.messages is not None:
            changes["messages"] = list(self.messages)
        if self.metadata:
            changes["metadata"] = {**sample.metadata, **self.metadata}
        return dataclasses.replace(sample, **changes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "output": self.output,
            "tools_called": None
            if self.tools_called is None
            else [c.to_dict() for c in self.tools_called],
            "raw": self.raw,
            "latency_ms": self.latency_ms,
            "status": self.status,
            "attempts": self.attempts,
            "retries": dict(self.retries),
            "warnings": list(self.warnings),
        }


@runtime_checkable
class Connector(Protocol):
    """Calls the agent under test for one sample.

    ``describe()`` returns what is safe to store: URLs, header *names*, paths;
    never a secret value.
    """

    async def acall(self, sample: Sample | str) -> AgentResponse: ...

    def call(self, sample: Sample | str) -> AgentResponse: ...

    def describe(self) -> dict[str, Any]: ...

    async def aclose(self) -> None: ...

    def close(self) -> None: ...


def as_sample(value: Sample | str) -> Sample:
    """Accept a Sample or a bare input text."""
    if isinstance(value, Sample):
        return value
    return Sample(input=str(value))
