"""Replay a list of calls on an environment and keep what each call answered.

A call whose arguments could not be read (``ToolCall.parse_error``) or that
names no arguments (an expected call given by name only) is not run: its
outcome is an error saying why (:func:`run_call`, one call on an environment
already reset, which is how
:func:`~tooleval.environments.metric.state_match` steps two replays side by
side to find the first call where they part).

>>> from tooleval.environments.python import FunctionEnvironment
>>> env = FunctionEnvironment({"put": lambda s, k, v: s.update({k: v})}, initial_state={})
>>> run = replay(env, [ToolCall("put", {"k": "a", "v": 1}), ToolCall("rm", {})])
>>> run.state, [o.is_error for o in run.outcomes]
({'a': 1}, [False, True])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tooleval.environments.protocol import CallOutcome, Environment
from tooleval.model import ToolCall

__all__ = ["Replay", "replay", "run_call"]


@dataclass(slots=True)
class Replay:
    """What one replay did: each call's outcome and the final state."""

    calls: list[ToolCall]
    outcomes: list[CallOutcome]
    state: Any

    def results(self) -> list[ToolCall]:
        """The calls with what they answered (``ToolCall.result``, ``is_error``)."""
        return [
            c.with_result(o.result, is_error=o.is_error)
            for c, o in zip(self.calls, self.outcomes, strict=True)
        ]


def run_call(environment: Environment, call: ToolCall) -> CallOutcome:
    """Run one call on ``environment``, or say why it cannot run (unreadable or no arguments)."""
    if call.parse_error is not None:
        return CallOutcome.error(f"{call.name}: arguments could not be read: {call.parse_error}")
    if call.args is None:
        return CallOutcome.error(f"{call.name}: no arguments given, cannot be replayed")
    return environment.call(call.name, dict(call.args))


def replay(
    environment: Environment,
    calls: Sequence[ToolCall],
    *,
    initial_state: Any = None,
) -> Replay:
    """Reset ``environment`` to ``initial_state`` and run ``calls`` in order."""
    environment.reset(initial_state)
    outcomes = [run_call(environment, call) for call in calls]
    return Replay(list(calls), outcomes, environment.state())
