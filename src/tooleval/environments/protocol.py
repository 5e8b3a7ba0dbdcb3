"""What an environment is: reset to a state, take calls by name, show its state.

An environment is anything with three methods (:class:`Environment`):

* ``reset(initial_state)`` starts over from ``initial_state`` (the
  environment keeps its own deep copy, so nothing a caller holds is changed);
* ``call(name, arguments)`` runs one tool and returns a :class:`CallOutcome`:
  the tool's result, or an error saying why the call did not run or failed
  (an unknown tool, arguments that do not fit, a tool that raised or ran past
  its deadline); it never raises for anything the agent sent;
* ``state()`` returns a value that can be compared with another
  environment's (see :func:`~tooleval.environments.diff.state_diff`).

:class:`Limits` bounds each call and the state, so a tool that loops or a
state that grows without end gives an error, not a hang.

>>> CallOutcome.error("unknown tool 'rm'").is_error
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["CallOutcome", "Environment", "Limits"]


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """The result of one call, or why there is none (``is_error``)."""

    result: Any = None
    is_error: bool = False
    executed: bool = True  # False: refused before the tool ran (unknown tool, bad arguments)

    @classmethod
    def error(cls, message: str, *, executed: bool = False) -> CallOutcome:
        return cls(result=message, is_error=True, executed=executed)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"result": _jsonable(self.result)}
        if self.is_error:
            out["is_error"] = True
        if not self.executed:
            out["executed"] = False
        return out


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return repr(value)


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one replay.

    ``call_seconds``: wall time one tool call may take before it is stopped
    (an error result). ``state_items``: how many containers and values the
    state may hold (checked at reset and when the state is read).
    ``result_chars``: the longest result text kept. ``calls``: how many calls
    one replay may make. None switches a bound off.

    >>> Limits().call_seconds
    5.0
    """

    call_seconds: float | None = 5.0
    state_items: int | None = 1_000_000
    result_chars: int | None = 100_000
    calls: int | None = 1_000


@runtime_checkable
class Environment(Protocol):
    """Tools over a state: reset, call by name, read the state."""

    def reset(self, initial_state: Any = None) -> None: ...

    def call(self, name: str, arguments: dict[str, Any]) -> CallOutcome: ...

    def state(self) -> Any: ...
