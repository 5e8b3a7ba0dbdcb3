"""A tool call: a name and its arguments, kept as given when they cannot be parsed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tooleval.errors import ConfigError


def _kind(value: Any) -> str:
    """The JSON name of a value's type, as parse errors say it."""
    if isinstance(value, list | tuple):
        return "list"
    return type(value).__name__


def _as_text(value: Any) -> str:
    """JSON text of a value when it has one, else its repr."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call: a name and its arguments.

    ``args`` is a dict for every call an agent made. For an *expected* call,
    ``args=None`` means "arguments not specified" (compare the name only),
    which differs from ``{}`` ("called with no arguments").

    When arguments arrived as a string that is not valid JSON, ``args`` is
    ``{}``, the string is kept in ``raw_arguments`` and the reason in
    ``parse_error``; metrics still score the row (the call matches no
    argument).

    >>> ToolCall.parse("f", "{not json").parse_error is not None
    True
    """

    name: str
    args: dict[str, Any] | None = field(default_factory=dict)
    id: str | None = None
    raw_arguments: str | None = None
    parse_error: str | None = None
    result: Any = None
    is_error: bool = False

    def __post_init__(self) -> None:
        # One rule for arguments that are not an object, however they arrive
        # (a JSON array given as a list or as the text "[1, 2]"): the call is
        # kept as a call with invalid arguments (``args={}``, the value in
        # ``raw_arguments``, the reason in ``parse_error``), which matches no
        # argument when it is the agent's and no call when it is expected.
        args = self.args
        if args is None or type(args) is dict or isinstance(args, Mapping):
            return
        object.__setattr__(self, "args", {})
        if self.raw_arguments is None:
            object.__setattr__(self, "raw_arguments", _as_text(args))
        if self.parse_error is None:
            object.__setattr__(
                self, "parse_error", f"arguments must be a JSON object, got {_kind(args)}"
            )

    @classmethod
    def parse(
        cls, name: str, arguments: Any = None, *, id: str | None = None, **extra: Any
    ) -> ToolCall:
        """Build a call whose arguments may be a dict, a JSON string, or None."""
        if arguments is None:
            return cls(name=name, args={}, id=id, **extra)
        if isinstance(arguments, Mapping):
            return cls(name=name, args=dict(arguments), id=id, **extra)
        if isinstance(arguments, str | bytes):
            text = arguments.decode() if isinstance(arguments, bytes) else arguments
            if not text.strip():
                return cls(name=name, args={}, id=id, raw_arguments=text, **extra)
            try:
                value = json.loads(text)
            except (ValueError, RecursionError) as exc:
                why = "nested too deeply" if isinstance(exc, RecursionError) else exc
                return cls(
                    name=name,
                    args={},
                    id=id,
                    raw_arguments=text,
                    parse_error=f"invalid JSON: {why}",
                    **extra,
                )
            if not isinstance(value, dict):
                return cls(
                    name=name,
                    args={},
                    id=id,
                    raw_arguments=text,
                    parse_error=f"arguments must be a JSON object, got {type(value).__name__}",
                    **extra,
                )
            return cls(name=name, args=value, id=id, raw_arguments=text, **extra)
        return cls(
            name=name,
            args={},
            id=id,
            raw_arguments=_as_text(arguments),
            parse_error=f"arguments must be a JSON object, got {_kind(arguments)}",
            **extra,
        )

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments as a dict (``{}`` when unspecified)."""
        return self.args or {}

    def with_result(self, result: Any, *, is_error: bool = False) -> ToolCall:
        return replace(self, result=result, is_error=is_error)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "args": self.args}
        if self.id is not None:
            out["id"] = self.id
        if self.raw_arguments is not None and self.parse_error is not None:
            out["raw_arguments"] = self.raw_arguments
        if self.parse_error is not None:
            out["parse_error"] = self.parse_error
        if self.result is not None:
            out["result"] = self.result
        if self.is_error:
            out["is_error"] = True
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        return cls(
            name=data["name"],
            args=None if data.get("args", {}) is None else dict(data.get("args") or {}),
            id=data.get("id"),
            raw_arguments=data.get("raw_arguments"),
            parse_error=data.get("parse_error"),
            result=data.get("result"),
            is_error=bool(data.get("is_error", False)),
        )

    def __str__(self) -> str:
        if self.args is None:
            return self.name
        inner = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.name}({inner})"


def as_tool_call(value: Any, *, where: str, expected: bool = False, who: str = "") -> ToolCall:
    """One call in any shape the Python API takes: a ToolCall, a name, or a dict.

    The one normaliser of the metric functions' ``expected`` and ``actual``
    lists. A dict has ``name`` and its arguments as ``args`` or ``arguments``
    (a dict, or a JSON text as OpenAI sends it). A bare name, or a dict
    without arguments, is a call without arguments: for an ``expected`` call
    that means "compare the name only". Anything else is a ConfigError
    naming ``where`` (e.g. ``actual[2]``, prefixed by ``who``, e.g. the metric)
    and what was expected.

    >>> call = as_tool_call({"name": "search", "arguments": '{"q": "x"}'}, where="actual[0]")
    >>> call.name, call.args
    ('search', {'q': 'x'})
    >>> as_tool_call("search", where="expected[0]", expected=True).args is None
    True
    """
    if isinstance(value, ToolCall):
        return value
    if isinstance(value, str):
        return ToolCall(value, args=None if expected else {})
    if isinstance(value, Mapping) and isinstance(value.get("name"), str):
        if "args" in value and "arguments" in value:
            raise ConfigError(
                f"give the arguments once, as args or arguments, not both{_of(who)}", field=where
            )
        key = "args" if "args" in value else "arguments"
        if key not in value:
            return ToolCall(value["name"], args=None if expected else {}, id=value.get("id"))
        return ToolCall.parse(value["name"], value[key], id=value.get("id"))
    shape = "a dict without a string 'name'" if isinstance(value, Mapping) else _kind(value)
    raise ConfigError(
        "expected a ToolCall, a tool name or a {'name': ..., 'args': {...}} dict, "
        f"got {shape}{_of(who)}",
        field=where,
    )


def _of(who: str) -> str:
    return f" ({who})" if who else ""
