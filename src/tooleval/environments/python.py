"""Environments made of Python tools: functions over a state, or a class's public methods.

Calls are dispatched by name on the declared tool set only (a dict lookup,
never ``eval`` or ``getattr`` on a name the agent sent); names starting with
``_`` are never tools. Arguments are checked before the tool runs: JSON
values only (text, numbers, booleans, null, lists, objects), bound to the
tool's signature (unknown, missing or duplicated parameters are refused) and,
where a parameter is annotated with a plain type (``str``, ``int``,
``float``, ``bool``, ``list``, ``dict``), of that type. Each ``reset`` works
on a deep copy of the initial state, so nothing leaks between replays, and
:class:`~tooleval.environments.protocol.Limits` bounds time and size.

>>> def add_item(state, sku: str, qty: int = 1):
...     state["cart"][sku] = state["cart"].get(sku, 0) + qty
...     return state["cart"][sku]
>>> env = FunctionEnvironment({"add_item": add_item}, initial_state={"cart": {}})
>>> env.reset()
>>> env.call("add_item", {"sku": "A1", "qty": 2}).result
2
>>> env.call("add_item", {"sku": 3}).result
"add_item: argument 'sku' must be str, got int"
>>> env.call("__import__", {"name": "os"}).result
"unknown tool '__import__'; tools: add_item"
>>> env.state()
{'cart': {'A1': 2}}
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from tooleval.environments.protocol import CallOutcome, Limits
from tooleval.errors import ConfigError
from tooleval.user_deadline import CallTimeout, deadline

__all__ = ["ClassEnvironment", "FunctionEnvironment", "count_items", "json_value_error"]

_PLAIN = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}
_MAX_DEPTH = 64


def count_items(value: Any, limit: int | None) -> int:
    """Containers and values in ``value``, counting stops just past ``limit``.

    >>> count_items({"a": [1, 2], "b": "x"}, None)
    5
    """
    count, stack, seen = 0, [value], set()
    while stack:
        item = stack.pop()
        count += 1
        if limit is not None and count > limit:
            return count
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, type):
            if id(item) in seen:  # objects may point at each other
                continue
            seen.add(id(item))
            stack.extend(vars(item).values())
    return count


def json_value_error(value: Any, where: str, depth: int = 0) -> str | None:
    """Why ``value`` is not a plain JSON value (None when it is).

    >>> json_value_error({"a": [1, {2, 3}]}, "x")
    "x['a'][1] is a set, expected a JSON value"
    """
    if depth > _MAX_DEPTH:
        return f"{where} is nested deeper than {_MAX_DEPTH} levels"
    if value is None or type(value) in (str, int, float, bool):
        return None
    if type(value) is list:
        for index, item in enumerate(value):
            why = json_value_error(item, f"{where}[{index}]", depth + 1)
            if why:
                return why
        return None
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"{where} has a key of type {type(key).__name__}, expected text"
            why = json_value_error(item, f"{where}[{key!r}]", depth + 1)
            if why:
                return why
        return None
    return f"{where} is a {type(value).__name__}, expected a JSON value"


class _Tools:
    """The declared tools, their signatures, and the checks every call passes first."""

    def __init__(
        self, tools: Mapping[str, Callable[..., Any]], *, skip_first: bool | frozenset[str]
    ) -> None:
        self.functions: dict[str, Callable[..., Any]] = {}
        self.signatures: dict[str, inspect.Signature] = {}
        for name, function in tools.items():
            if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
                raise ConfigError(
                    f"tool name {name!r} must be an identifier not starting with '_'", field="tools"
                )
            if not callable(function):
                raise ConfigError(f"tool {name!r} is not callable", field="tools")
            signature = inspect.signature(function)
            if skip_first is True or (isinstance(skip_first, frozenset) and name in skip_first):
                params = list(signature.parameters.values())
                if not params:
                    raise ConfigError(
                        f"tool {name!r} must take the state as its first parameter", field="tools"
                    )
                signature = signature.replace(parameters=params[1:])
            self.functions[name] = function
            self.signatures[name] = signature
        if not self.functions:
            raise ConfigError("an environment needs at least one tool", field="tools")

    def check(self, name: Any, arguments: Any) -> str | None:
        """Why this call cannot run (None when it can)."""
        if not isinstance(name, str) or name not in self.functions:
            return f"unknown tool {_short(name)}; tools: {', '.join(sorted(self.functions))}"
        if not isinstance(arguments, dict):
            return f"{name}: arguments must be an object, got {type(arguments).__name__}"
        why = json_value_error(arguments, "arguments")
        if why:
            return f"{name}: {why}"
        signature = self.signatures[name]
        try:
            signature.bind(**arguments)
        except TypeError as exc:
            return f"{name}: {exc}"
        for key, value in arguments.items():
            param = signature.parameters.get(key)
            expected = _plain_type(param.annotation) if param is not None else None
            if expected is not None and not _is_instance(value, expected):
                return (
                    f"{name}: argument {key!r} must be {expected.__name__}, "
                    f"got {type(value).__name__}"
                )
        return None


def _plain_type(annotation: Any) -> type | None:
    if isinstance(annotation, str):
        return _PLAIN.get(annotation)
    return annotation if annotation in _PLAIN.values() else None


def _is_instance(value: Any, expected: type) -> bool:
    if expected is float:
        return type(value) in (int, float)
    if expected is int:
        return type(value) is int
    return type(value) is expected


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Bounded:
    """Running one checked call within :class:`Limits` (shared by both environments)."""

    _tools: _Tools
    limits: Limits
    _calls: int

    @property
    def tool_signatures(self) -> dict[str, tuple[inspect.Signature, str | None]]:
        """Each tool's parameters (the state or ``self`` left out) and docstring.

        What ``tooleval.serving`` derives the tool specs an agent is offered from.
        """
        return {
            name: (self._tools.signatures[name], inspect.getdoc(function))
            for name, function in sorted(self._tools.functions.items())
        }

    def _run(
        self, name: str, arguments: Any, bind: Callable[[str], Callable[..., Any]]
    ) -> CallOutcome:
        why = self._tools.check(name, arguments)
        if why:
            return CallOutcome.error(why)
        if self.limits.calls is not None and self._calls >= self.limits.calls:
            return CallOutcome.error(f"{name}: more than {self.limits.calls} calls in one replay")
        self._calls += 1
        try:
            with deadline(self.limits.call_seconds):
                value = bind(name)(**arguments)
        except CallTimeout:
            return CallOutcome.error(
                f"{name}: stopped after {self.limits.call_seconds} s (the call's deadline)",
                executed=True,
            )
        except Exception as exc:  # a tool that raises gives an error result, as agents see it
            return CallOutcome.error(f"{name}: {type(exc).__name__}: {exc}", executed=True)
        return self._bounded_result(name, value)

    def _bounded_result(self, name: str, value: Any) -> CallOutcome:
        limit = self.limits.result_chars
        if limit is not None:
            size = len(value) if isinstance(value, str) else count_items(value, limit)
            if size > limit:
                return CallOutcome.error(
                    f"{name}: result larger than {limit} (characters or items)", executed=True
                )
        return CallOutcome(result=value)

    def _checked_state(self, state: Any, when: str) -> Any:
        limit = self.limits.state_items
        if limit is not None and count_items(state, limit) > limit:
            raise ConfigError(f"state {when} holds more than {limit} items", field="state")
        return state


class FunctionEnvironment(_Bounded):
    """Tools as functions ``tool(state, **arguments)`` over one mutable state object."""

    def __init__(
        self,
        tools: Mapping[str, Callable[..., Any]],
        *,
        initial_state: Any = None,
        limits: Limits | None = None,
    ) -> None:
        self._tools = _Tools(tools, skip_first=True)
        self.limits = limits or Limits()
        self._initial = initial_state
        self._state: Any = None
        self._calls = 0
        self.reset()

    @property
    def tool_names(self) -> list[str]:
        return sorted(self._tools.functions)

    def reset(self, initial_state: Any = None) -> None:
        source = self._initial if initial_state is None else initial_state
        self._state = copy.deepcopy(self._checked_state(source, "at reset"))
        self._calls = 0

    def call(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        functions = self._tools.functions
        return self._run(name, arguments, lambda n: lambda **a: functions[n](self._state, **a))

    def state(self) -> Any:
        return self._checked_state(self._state, "after the calls")


class ClassEnvironment(_Bounded):
    """Tools as the public methods of a class; the state is the instance's public attributes.

    ``reset(state)`` builds a fresh instance with ``cls(**state)`` (a deep
    copy), so every replay starts from its own object.

    >>> class Counter:
    ...     def __init__(self, value: int = 0):
    ...         self.value = value
    ...     def bump(self, by: int = 1) -> int:
    ...         self.value += by
    ...         return self.value
    >>> env = ClassEnvironment(Counter, initial_state={"value": 5})
    >>> env.call("bump", {"by": 2}).result, env.state()
    (7, {'value': 7})
    """

    def __init__(
        self,
        cls: type,
        *,
        initial_state: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
    ) -> None:
        methods = {
            name: member
            for name, member in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_")
        }
        self._cls = cls
        self._static = frozenset(
            name
            for name in methods
            if isinstance(inspect.getattr_static(cls, name), staticmethod | classmethod)
        )
        self._tools = _Tools(methods, skip_first=frozenset(methods) - self._static)
        self.limits = limits or Limits()
        self._initial = dict(initial_state or {})
        self._instance: Any = None
        self._calls = 0
        self.reset()

    @property
    def tool_names(self) -> list[str]:
        return sorted(self._tools.functions)

    def reset(self, initial_state: Any = None) -> None:
        source = self._initial if initial_state is None else initial_state
        if not isinstance(source, Mapping):
            raise ConfigError(
                f"the initial state of {self._cls.__name__} must be an object of constructor "
                f"arguments, got {type(source).__name__}",
                field="state",
            )
        state = copy.deepcopy(dict(self._checked_state(source, "at reset")))
        try:
            self._instance = self._cls(**state)
        except Exception as exc:
            raise ConfigError(
                f"{self._cls.__name__}(**initial_state) failed: {type(exc).__name__}: {exc}",
                field="state",
            ) from exc
        self._calls = 0

    def call(self, name: str, arguments: dict[str, Any]) -> CallOutcome:
        instance = self._instance
        return self._run(
            name,
            arguments,
            lambda n: (
                getattr(instance, n)
                if n in self._static
                else self._tools.functions[n].__get__(instance)
            ),
        )

    def state(self) -> dict[str, Any]:
        public = {k: v for k, v in vars(self._instance).items() if not k.startswith("_")}
        return dict(self._checked_state(public, "after the calls"))
