"""Python connector: evaluate an agent that runs in this process.

Wrap any callable or async callable (a LangGraph graph's ``invoke``, an OpenAI
Agents ``Runner.run``, a CrewAI crew's ``kickoff``) so it takes the row's
input and returns one of:

- an :class:`AgentResponse`;
- a dict: read with the JSONPath ``response`` mapping when one is given,
  else by the keys ``output``, ``tools_called`` (names or call objects),
  ``tool_calls`` (call objects) and ``messages``;
- a string: the output only (``tools_called`` stays unknown);
- a list of messages in any format :mod:`tooleval.formats` imports (OpenAI,
  Anthropic, LangChain, ...): calls and output are read from them.

>>> def agent(text):
...     return {"output": "cancelled", "tools_called": ["lookup_order", "cancel_order"]}
>>> r = CallableConnector(agent).call("cancel 4471")
>>> r.output, [c.name for c in r.tools_called]
('cancelled', ['lookup_order', 'cancel_order'])
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from tooleval.connectors.paths import ResponseMapping, call_from_object
from tooleval.connectors.response import AgentResponse, as_sample
from tooleval.errors import ConfigError, ConnectorError, ToolEvalError
from tooleval.model import Sample
from tooleval.user_deadline import DeadlinePassed, abounded, bounded

__all__ = ["CallableConnector", "load_target", "response_from_value"]

Argument = Literal["input", "sample", "row"]
#: Seconds one call of an in-process agent may take unless ``timeout`` says otherwise.
DEFAULT_TIMEOUT = 300.0


def load_target(target: str, *, field: str = "connector.target") -> Callable[..., Any]:
    """Import ``package.module:function`` (the part after ``:`` may be dotted).

    >>> load_target("json:dumps")([1])
    '[1]'
    """
    if not isinstance(target, str) or ":" not in target:
        raise ConfigError(f"expected 'package.module:function', got {target!r}", field=field)
    module_name, _, attr_path = target.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import module {module_name!r}: {exc}", field=field) from None
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"module {module_name!r} has no attribute {attr_path!r}", field=field)
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigError(f"{target!r} is not callable ({type(obj).__name__})", field=field)
    return obj


def _is_async(fn: Any) -> bool:
    # An object whose __call__ is async (e.g. a class-based agent) counts too.
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        type(fn).__call__ if not inspect.isroutine(fn) else None
    )


def response_from_value(
    value: Any, *, mapping: ResponseMapping | None = None, latency_ms: float = 0.0
) -> AgentResponse:
    """Turn whatever an in-process agent returned into an AgentResponse.

    >>> response_from_value("hello").output
    'hello'
    """
    if isinstance(value, AgentResponse):
        if not value.latency_ms:
            value.latency_ms = latency_ms
        return value
    if isinstance(value, str):
        return AgentResponse(value, None, value, latency_ms)
    if isinstance(value, Mapping) and mapping is not None and mapping.configured:
        extracted = mapping.extract(value)
        return AgentResponse(
            extracted.output, extracted.tools_called, value, latency_ms, warnings=extracted.warnings
        )
    if isinstance(value, Mapping) and ({"output", "tools_called", "tool_calls"} & set(value)):
        return _from_keys(value, latency_ms)
    return _from_conversation(value, latency_ms)


def _from_keys(value: Mapping[str, Any], latency_ms: float) -> AgentResponse:
    calls = None
    for key in ("tool_calls", "tools_called"):
        if value.get(key) is not None:
            items = value[key]
            if not isinstance(items, list | tuple):
                raise ConnectorError(
                    f"expected a list of tool names or call objects, got {type(items).__name__}",
                    field=key,
                )
            calls = [call_from_object(item, where=key) for item in items]
            break
    output = value.get("output")
    messages = None
    if value.get("messages"):
        messages = _from_conversation(value["messages"], latency_ms).messages
    return AgentResponse(
        None if output is None else str(output), calls, dict(value), latency_ms, messages=messages
    )


def _from_conversation(value: Any, latency_ms: float) -> AgentResponse:
    from tooleval.formats import import_conversation

    try:
        sample = import_conversation(value)
    except ToolEvalError as exc:
        raise ConnectorError(
            "the agent returned something that is neither an AgentResponse, a dict with "
            f"output/tools_called, a string, nor a conversation tooleval can read: {exc}"
        ) from None
    return AgentResponse(
        sample.final_output(),
        sample.actual_calls(),
        value,
        latency_ms,
        messages=list(sample.messages),
    )


class CallableConnector:
    """Calls an in-process function (sync or async) for each row.

    ``argument`` picks what the function receives: ``"input"`` (the text,
    default), ``"sample"`` (the :class:`Sample`) or ``"row"`` (its dict).
    A sync function called through :meth:`acall` runs in a worker thread so
    rows still run concurrently. ``timeout`` (seconds, default 300; ``None``
    for none) bounds each call: a function still running then makes the row
    an error naming the deadline, and is asked to stop and left behind in a
    daemon thread, so the run (and the process) always ends.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        argument: Argument = "input",
        response: ResponseMapping | Mapping[str, Any] | None = None,
        target: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
    ) -> None:
        if timeout is not None and (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise ConfigError(
                f"expected a number of seconds > 0 (or null for no deadline), got {timeout!r}",
                field="connector.timeout",
            )
        if not callable(fn):
            raise ConfigError(
                f"expected a callable, got {type(fn).__name__}", field="connector.target"
            )
        if argument not in ("input", "sample", "row"):
            raise ConfigError(
                f"expected 'input', 'sample' or 'row', got {argument!r}", field="connector.argument"
            )
        self.fn = fn
        self.argument = argument
        self.timeout = None if timeout is None else float(timeout)
        self.mapping = (
            response
            if isinstance(response, ResponseMapping) or response is None
            else ResponseMapping.from_config(response)
        )
        self.target = (
            target or f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', repr(fn))}"
        )

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "python", "target": self.target, "argument": self.argument}
        if self.timeout != DEFAULT_TIMEOUT:
            out["timeout"] = self.timeout
        if self.mapping is not None and self.mapping.configured:
            out["response"] = self.mapping.describe()
        return out

    def _argument(self, sample: Sample) -> Any:
        if self.argument == "sample":
            return sample
        if self.argument == "row":
            return sample.to_dict()
        return sample.user_input()

    def _wrap_error(self, exc: Exception, sample: Sample) -> ConnectorError:
        if isinstance(exc, ToolEvalError):
            return ConnectorError(str(exc), row=sample.id)
        return ConnectorError(f"{self.target} raised {type(exc).__name__}: {exc}", row=sample.id)

    def call(self, sample: Sample | str) -> AgentResponse:
        """Run the function for one row (an async function gets its own event loop)."""
        sample = as_sample(sample)
        started = time.perf_counter()
        argument = self._argument(sample)
        if _is_async(self.fn):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                pass
            else:
                raise ConnectorError(
                    "call() cannot run an async agent inside a running event loop; "
                    "use 'await connector.acall(sample)'",
                    row=sample.id,
                )

        def run() -> Any:
            value = self.fn(argument)
            return asyncio.run(_await(value)) if inspect.isawaitable(value) else value

        try:
            value = bounded(run, self.timeout, what=self._what)
        except ConnectorError:
            raise
        except DeadlinePassed as exc:
            raise self._late(exc, sample) from None
        except Exception as exc:
            raise self._wrap_error(exc, sample) from exc
        return self._finish(value, started, sample)

    async def acall(self, sample: Sample | str) -> AgentResponse:
        """Run the function for one row (async; sync functions run in a daemon thread)."""
        sample = as_sample(sample)
        started = time.perf_counter()
        argument = self._argument(sample)
        try:
            if _is_async(self.fn):
                try:
                    async with asyncio.timeout(self.timeout):
                        value = await self.fn(argument)
                except TimeoutError:
                    raise DeadlinePassed(self._what, self.timeout or 0.0) from None
            else:
                value = await abounded(lambda: self.fn(argument), self.timeout, what=self._what)
                if inspect.isawaitable(value):
                    value = await value
        except DeadlinePassed as exc:
            raise self._late(exc, sample) from None
        except Exception as exc:
            raise self._wrap_error(exc, sample) from exc
        return self._finish(value, started, sample)

    @property
    def _what(self) -> str:
        return f"the agent function {self.target}"

    def _late(self, exc: DeadlinePassed, sample: Sample) -> ConnectorError:
        return ConnectorError(
            f"{exc} (connector.timeout); it was asked to stop and the row is an error",
            row=sample.id,
        )

    def _finish(self, value: Any, started: float, sample: Sample) -> AgentResponse:
        latency = (time.perf_counter() - started) * 1000.0
        try:
            return response_from_value(value, mapping=self.mapping, latency_ms=latency)
        except ConnectorError as exc:
            raise exc.with_context(row=sample.id) from None

    def close(self) -> None:
        """Nothing to release: the function belongs to the caller."""

    async def aclose(self) -> None:
        """Nothing to release: the function belongs to the caller."""


async def _await(value: Any) -> Any:
    return await value
