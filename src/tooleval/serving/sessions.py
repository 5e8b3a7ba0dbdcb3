"""An environment served to the agent under test: one fresh instance per row and attempt.

:class:`EnvironmentTools` is what a plan's ``environment`` becomes for a
connector (the ``ToolSessions`` protocol of ``tooleval.connectors``): each
:meth:`~EnvironmentTools.open` builds a new environment from its factory and
resets it to the row's initial state (``metadata.environment``, the same
rule ``state_match`` replays by), so no two episodes share a state.
:class:`EnvironmentSession` executes every call itself and records it: the
arguments, the result or error, whether it ran, and its wall time. A call that
cannot run (arguments that are not JSON, an unknown tool, a tool that raised
or ran past ``CALL_SECONDS``) is an error result the agent sees, never a crash.

>>> from tooleval.environments import FunctionEnvironment, register_environment
>>> register_environment("doc_counter", lambda config: FunctionEnvironment(
...     {"bump": lambda s, by: s.update(n=s["n"] + by) or s["n"]}, initial_state={"n": 0}))
>>> session = EnvironmentTools({"name": "doc_counter"}).open(Sample(id="r1"))
>>> session.call(ToolCall("bump", {"by": 2})).result, session.environment.state()
(2, {'n': 2})
>>> [c["name"] for c in session.record()["calls"]]
['bump']
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from tooleval.environments.named import environment_factory
from tooleval.environments.protocol import CallOutcome, Environment
from tooleval.environments.registration import row_environment
from tooleval.errors import ConfigError
from tooleval.model import Sample, ToolCall
from tooleval.serving.specs import tool_specs
from tooleval.user_deadline import CallTimeout, deadline

__all__ = ["CALL_SECONDS", "EnvironmentSession", "EnvironmentTools"]

#: The outer deadline of one call (an environment's own limits usually stop it sooner).
CALL_SECONDS = 60.0


class EnvironmentTools:
    """A plan's ``environment`` ({name, config}) served per episode; see the module docstring."""

    def __init__(
        self, environment: Mapping[str, Any], *, tools: Sequence[Any] | None = None
    ) -> None:
        name = environment.get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"expected an environment name, got {name!r}", field="environment")
        self.config: dict[str, Any] = dict(environment.get("config") or {})
        self.option = {"name": name, "config": self.config}
        self.name = name
        self._factory = environment_factory(name, allow_import=True)
        self._given = list(tools) if tools else None
        self._specs: list[dict[str, Any]] | None = None
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "config": self.config}

    def tool_specs(self) -> list[dict[str, Any]]:
        """The given tools, else those the environment lists (built once to ask it)."""
        if self._given is not None:
            return list(self._given)
        with self._lock:
            if self._specs is None:
                built = _build(self._factory, self.config, self.name)
                self._specs = tool_specs(built, self.name)
            return list(self._specs)

    def open(self, sample: Sample) -> EnvironmentSession:
        """A fresh environment for this row (its own name, config and initial state win)."""
        spec, config, initial_state = row_environment(sample, self.option)
        factory = self._factory if spec == self.name else environment_factory(spec)
        environment = _build(factory, config, spec)
        try:
            environment.reset(initial_state)
        except ConfigError:
            raise
        except Exception as exc:  # the user's reset: this row cannot start, the run goes on
            raise ConfigError(
                f"environment {spec!r} could not reset to the row's initial state: "
                f"{type(exc).__name__}: {exc}",
                field="metadata.environment.initial_state",
            ) from None
        return EnvironmentSession(environment, spec)


def _build(factory: Any, config: Mapping[str, Any], name: str) -> Environment:
    try:
        built = factory(dict(config))
    except ConfigError:
        raise
    except Exception as exc:
        raise ConfigError(
            f"environment {name!r} could not be built: {type(exc).__name__}: {exc}",
            field="environment",
        ) from None
    missing = [m for m in ("reset", "call", "state") if not callable(getattr(built, m, None))]
    if missing:
        raise ConfigError(
            f"environment {name!r} built a {type(built).__name__}, which has no "
            f"{', '.join(missing)} (the environment protocol)",
            field="environment",
        )
    environment: Environment = built
    return environment


class EnvironmentSession:
    """One episode on one fresh environment: calls executed in order and recorded."""

    def __init__(self, environment: Environment, name: str) -> None:
        self.environment = environment
        self.name = name
        self.calls: list[dict[str, Any]] = []
        self.started = time.perf_counter()

    def call(self, call: ToolCall) -> ToolCall:
        """Run ``call`` on the environment; the call with its result (see the module docstring)."""
        began = time.perf_counter()
        outcome = self._outcome(call)
        took = (time.perf_counter() - began) * 1000.0
        entry: dict[str, Any] = {"name": call.name, "args": call.args, **outcome.to_dict()}
        if call.id is not None:
            entry["id"] = call.id
        entry["ms"] = round(took, 3)
        self.calls.append(entry)
        return call.with_result(outcome.result, is_error=outcome.is_error)

    def _outcome(self, call: ToolCall) -> CallOutcome:
        if call.parse_error is not None:
            return CallOutcome.error(
                f"{call.name}: arguments could not be read: {call.parse_error}"
            )
        if not isinstance(call.args, dict):
            return CallOutcome.error(f"{call.name}: arguments must be an object")
        try:
            with deadline(CALL_SECONDS):
                outcome = self.environment.call(call.name, dict(call.args))
        except CallTimeout:
            return CallOutcome.error(
                f"{call.name}: stopped after {CALL_SECONDS:g} s (the call's deadline)",
                executed=True,
            )
        except Exception as exc:  # the protocol says call() never raises; a user's may
            return CallOutcome.error(
                f"{call.name}: the environment raised {type(exc).__name__}: {exc}", executed=True
            )
        if not isinstance(outcome, CallOutcome):
            return CallOutcome.error(
                f"{call.name}: environment {self.name!r} returned {type(outcome).__name__}, "
                "expected a CallOutcome",
                executed=True,
            )
        return outcome

    def record(self) -> dict[str, Any]:
        """The episode as stored with the row (``metadata.episode``)."""
        return {
            "environment": self.name,
            "calls": list(self.calls),
            "tool_ms": round(sum(c["ms"] for c in self.calls), 3),
            "episode_ms": round((time.perf_counter() - self.started) * 1000.0, 3),
        }

    def close(self) -> None:
        close = getattr(self.environment, "close", None)
        if callable(close):
            close()
