"""tooleval's own model of agent conversations, tool calls and scores.

Everything left of :class:`Sample` (importers, datasets, connectors, traces)
converts foreign data into these types; everything right of it (metrics, the
store, reports) knows only these types. Nothing here does I/O.

>>> call = ToolCall.parse("cancel_order", '{"order_id": "4471"}')
>>> call.args
{'order_id': '4471'}
>>> Sample(input="cancel 4471", tools_called=[call]).actual_calls()[0].name
'cancel_order'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "ArgumentCheck",
    "AssistantMessage",
    "Diagnosis",
    "ExpectedTools",
    "Message",
    "Result",
    "Sample",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "message_from_dict",
]


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
            except ValueError as exc:
                return cls(
                    name=name,
                    args={},
                    id=id,
                    raw_arguments=text,
                    parse_error=f"invalid JSON: {exc}",
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


# ---------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class SystemMessage:
    content: str
    role: Literal["system"] = "system"

    def to_dict(self) -> dict[str, Any]:
        return {"role": "system", "content": self.content}


@dataclass(frozen=True, slots=True)
class UserMessage:
    content: str
    role: Literal["user"] = "user"

    def to_dict(self) -> dict[str, Any]:
        return {"role": "user", "content": self.content}


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    role: Literal["assistant"] = "assistant"

    def __post_init__(self) -> None:
        if not isinstance(self.tool_calls, tuple):
            object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        return out


@dataclass(frozen=True, slots=True)
class ToolMessage:
    content: Any
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    role: Literal["tool"] = "tool"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "tool", "content": self.content}
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        if self.is_error:
            out["is_error"] = True
        return out


Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def message_from_dict(data: Mapping[str, Any]) -> Message:
    """Rebuild a message from :meth:`to_dict` output (tooleval's own shape)."""
    role = data.get("role")
    if role == "system":
        return SystemMessage(str(data.get("content", "")))
    if role == "user":
        return UserMessage(str(data.get("content", "")))
    if role == "assistant":
        calls = tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ())
        return AssistantMessage(data.get("content") or "", calls)
    if role == "tool":
        return ToolMessage(
            data.get("content"),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            is_error=bool(data.get("is_error", False)),
        )
    from tooleval.errors import FormatError

    raise FormatError(
        f"unknown message role {role!r}; expected system, user, assistant or tool", field="role"
    )


# ---------------------------------------------------------------- expected


@dataclass(frozen=True, slots=True)
class ExpectedTools:
    """The calls a row should produce, with optional ordering constraints.

    ``before`` holds pairs ``(i, j)``: expected call ``i`` must come before
    expected call ``j``. ``None`` means "the listed order" (a total order,
    used only when a metric checks ordering); ``()`` means any order.

    >>> e = ExpectedTools.of(["lookup_order", "cancel_order"])
    >>> [c.name for c in e.calls], e.args_given
    (['lookup_order', 'cancel_order'], False)
    """

    calls: tuple[ToolCall, ...] = ()
    before: tuple[tuple[int, int], ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.calls, tuple):
            object.__setattr__(self, "calls", tuple(self.calls))
        if self.before is not None:
            pairs = tuple((int(a), int(b)) for a, b in self.before)
            for a, b in pairs:
                if not (0 <= a < len(self.calls) and 0 <= b < len(self.calls)) or a == b:
                    from tooleval.errors import InputError

                    raise InputError(
                        f"ordering constraint ({a}, {b}) does not name two different expected calls "
                        f"(there are {len(self.calls)})",
                        field="expected_tools.order",
                    )
            object.__setattr__(self, "before", pairs)

    @classmethod
    def of(
        cls, calls: Iterable[ToolCall | str], before: Iterable[tuple[int, int]] | None = None
    ) -> ExpectedTools:
        """Build from ToolCalls or bare names (a bare name compares the name only)."""
        built = tuple(ToolCall(c, args=None) if isinstance(c, str) else c for c in calls)
        return cls(built, None if before is None else tuple(before))

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.calls]

    @property
    def args_given(self) -> bool:
        """True when at least one expected call specifies arguments."""
        return any(c.args is not None for c in self.calls)

    def order_pairs(self) -> tuple[tuple[int, int], ...]:
        """The ordering constraints as explicit pairs (listed order when unset)."""
        if self.before is not None:
            return self.before
        return tuple((i, i + 1) for i in range(len(self.calls) - 1))

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self):
        return iter(self.calls)

    def __getitem__(self, index: int) -> ToolCall:
        return self.calls[index]

    def to_dict(self) -> dict[str, Any] | list[Any]:
        calls = [c.name if c.args is None else {"name": c.name, "args": c.args} for c in self.calls]
        if self.before is None:
            return calls
        return {"calls": calls, "before": [list(p) for p in self.before]}


def as_expected(value: ExpectedTools | Sequence[ToolCall | str] | None) -> ExpectedTools | None:
    """Accept an ExpectedTools, a list of calls/names, or None."""
    if value is None or isinstance(value, ExpectedTools):
        return value
    return ExpectedTools.of(value)


# ---------------------------------------------------------------- sample


@dataclass(slots=True)
class Sample:
    """One row to score: the conversation, what the agent called, the reference.

    ``tools_called`` wins over the calls found in ``messages`` when both are
    given (connectors fill it from a JSONPath). ``expected_tools=None`` means
    no reference is bound for this row, which reference-based metrics report
    as unscored rather than as 0.
    """

    input: str = ""
    messages: list[Message] = field(default_factory=list)
    tools_called: list[ToolCall] | None = None
    expected_tools: ExpectedTools | None = None
    reference: str | None = None
    reference_topics: list[str] | None = None
    output: str | None = None
    category: str | None = None
    test_type: str | None = None
    id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.expected_tools is not None and not isinstance(self.expected_tools, ExpectedTools):
            self.expected_tools = as_expected(self.expected_tools)
        if self.tools_called is not None:
            self.tools_called = [
                ToolCall(c, args={}) if isinstance(c, str) else c for c in self.tools_called
            ]

    def actual_calls(self) -> list[ToolCall]:
        """Every call the agent made, in order, with tool results attached.

        ``tools_called`` when set; otherwise every assistant tool call in
        ``messages``, with the matching ``ToolMessage`` (by id, else by
        position) attached as ``result`` / ``is_error``.
        """
        if self.tools_called is not None:
            return list(self.tools_called)
        calls: list[ToolCall] = []
        by_id: dict[str, int] = {}
        pending: list[int] = []
        for msg in self.messages:
            if isinstance(msg, AssistantMessage):
                for call in msg.tool_calls:
                    if call.id is not None:
                        by_id[call.id] = len(calls)
                    pending.append(len(calls))
                    calls.append(call)
            elif isinstance(msg, ToolMessage):
                index = by_id.get(msg.tool_call_id) if msg.tool_call_id is not None else None
                if index is None:
                    index = next((i for i in pending if calls[i].result is None), None)
                if index is not None:
                    if index in pending:
                        pending.remove(index)
                    if calls[index].result is None:
                        calls[index] = calls[index].with_result(msg.content, is_error=msg.is_error)
        return calls

    def final_output(self) -> str:
        """The agent's final answer: ``output`` or the last assistant text."""
        if self.output is not None:
            return self.output
        for msg in reversed(self.messages):
            if isinstance(msg, AssistantMessage) and msg.content:
                return msg.content
        return ""

    def user_input(self) -> str:
        """The user's request: ``input`` or the first user message."""
        if self.input:
            return self.input
        for msg in self.messages:
            if isinstance(msg, UserMessage):
                return msg.content
        return ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "input": self.input}
        if self.messages:
            out["messages"] = [m.to_dict() for m in self.messages]
        if self.tools_called is not None:
            out["tools_called"] = [c.to_dict() for c in self.tools_called]
        if self.expected_tools is not None:
            out["expected_tools"] = self.expected_tools.to_dict()
        for key in ("reference", "reference_topics", "output", "category", "test_type"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.metadata:
            out["metadata"] = self.metadata
        return out


# ---------------------------------------------------------------- results


# Not frozen: metrics build one per compared key (tens per row), and a frozen
# dataclass pays an ``object.__setattr__`` call per field. ``unsafe_hash``
# keeps the field-wise hash the frozen class had; nothing in tooleval assigns
# to a check after building it.
@dataclass(slots=True, unsafe_hash=True)
class ArgumentCheck:
    """One argument compared: which pair of calls, which key, both values."""

    tool: str
    key: str
    expected: Any
    actual: Any
    score: float
    expected_index: int | None = None
    actual_index: int | None = None
    matcher: str = "exact"
    missing: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "key": self.key,
            "expected": self.expected,
            "actual": self.actual,
            "score": self.score,
            "expected_index": self.expected_index,
            "actual_index": self.actual_index,
            "matcher": self.matcher,
            "missing": self.missing,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArgumentCheck:
        return cls(**{k: data[k] for k in data if k in cls.__dataclass_fields__})


@dataclass(slots=True)
class Diagnosis:
    """Why a row scored what it did.

    ``missing`` and ``extra`` hold calls (as dicts ``{"name", "args", "index"}``),
    ``order_violations`` one readable string per broken ordering constraint,
    ``arguments`` every compared argument (mismatches have ``score < 1``), and
    ``details`` anything metric-specific (precision/recall, judge prompts and
    raw replies, ...).
    """

    missing: list[dict[str, Any]] = field(default_factory=list)
    extra: list[dict[str, Any]] = field(default_factory=list)
    order_violations: list[str] = field(default_factory=list)
    arguments: list[ArgumentCheck] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def argument_mismatches(self) -> list[ArgumentCheck]:
        return [a for a in self.arguments if a.score < 1.0]

    def is_clean(self) -> bool:
        return not (self.missing or self.extra or self.order_violations or self.argument_mismatches)

    def to_dict(self) -> dict[str, Any]:
        return {
            "missing": self.missing,
            "extra": self.extra,
            "order_violations": self.order_violations,
            "arguments": [a.to_dict() for a in self.arguments],
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Diagnosis:
        data = data or {}
        return cls(
            missing=list(data.get("missing", [])),
            extra=list(data.get("extra", [])),
            order_violations=list(data.get("order_violations", [])),
            arguments=[ArgumentCheck.from_dict(a) for a in data.get("arguments", [])],
            details=dict(data.get("details", {})),
        )


@dataclass(frozen=True, slots=True)
class Result:
    """A metric's verdict on one row.

    ``score`` is a float in [0, 1], or ``None`` when the row could not be
    scored (see :meth:`unscored`); ``passed`` is ``None`` then too.

    >>> r = Result.unscored("tool_correctness", "no expected_tools bound for this row")
    >>> r.score is None, r.passed
    (True, None)
    """

    metric: str
    score: float | None
    passed: bool | None
    reason: str
    params: dict[str, Any] = field(default_factory=dict)
    threshold: float | None = None
    diagnosis: Diagnosis = field(default_factory=Diagnosis)

    @classmethod
    def scored(
        cls,
        metric: str,
        score: float,
        *,
        reason: str,
        params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> Result:
        """A scored result; ``passed`` is ``score >= threshold`` (``score == 1`` without one)."""
        value = float(score)
        if not 0.0 <= value <= 1.0 or value != value:
            raise ValueError(f"{metric}: score must be in [0, 1], got {score!r}")
        passed = value >= threshold if threshold is not None else value >= 1.0
        return cls(
            metric=metric,
            score=value,
            passed=passed,
            reason=reason,
            params=dict(params or {}),
            threshold=threshold,
            diagnosis=diagnosis or Diagnosis(),
        )

    @classmethod
    def unscored(
        cls,
        metric: str,
        reason: str,
        *,
        params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        diagnosis: Diagnosis | None = None,
    ) -> Result:
        """A row that could not be scored: a value, never a silent 0."""
        return cls(
            metric=metric,
            score=None,
            passed=None,
            reason=reason,
            params=dict(params or {}),
            threshold=threshold,
            diagnosis=diagnosis or Diagnosis(),
        )

    @property
    def is_scored(self) -> bool:
        return self.score is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "params": self.params,
            "score": self.score,
            "threshold": self.threshold,
            "passed": self.passed,
            "reason": self.reason,
            "diagnosis": self.diagnosis.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Result:
        return cls(
            metric=data["metric"],
            score=data.get("score"),
            passed=data.get("passed"),
            reason=data.get("reason", ""),
            params=dict(data.get("params") or {}),
            threshold=data.get("threshold"),
            diagnosis=Diagnosis.from_dict(data.get("diagnosis")),
        )
